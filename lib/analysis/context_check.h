// The analysis contract's check: a pass states in GetPreservedAnalyses()
// which of the IRContext's analyses it keeps up to date when it changes the
// module (SPIRV-Tools invalidates the others), and in builds with
// WAVEOPT_CHECK_INVARIANTS (Debug and the sanitizer build) the registry
// checks that statement after every pass that changed the module: each
// analysis still marked valid must equal one built afresh from the module.
#ifndef WAVEOPT_ANALYSIS_CONTEXT_CHECK_H_
#define WAVEOPT_ANALYSIS_CONTEXT_CHECK_H_

#include <string>

#include "source/opt/ir_context.h"

namespace waveopt {

// Whether every analysis |context| holds as valid (def-use, instruction to
// block, decorations, CFG, id to function, features) agrees with the
// module. Otherwise false, and |what| names the first that does not.
bool AnalysesAgree(spvtools::opt::IRContext* context, std::string* what);

}  // namespace waveopt

#endif  // WAVEOPT_ANALYSIS_CONTEXT_CHECK_H_
