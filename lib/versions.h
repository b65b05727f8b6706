// Versions of one module chosen at pipeline creation (the pipeline layer).
//
// -O builds a module for the portable target and, where another target's
// facts give a different module, joins that target's code to it: each entry
// point becomes a function that calls the first version whose boolean
// specialization constant is true, or else its portable code.
//
//   %main = OpFunction %void None %fn        ; the entry point, as before
//           OpSelectionMerge %m0 None
//           OpBranchConditional %waveopt_amd %amd %else0
//   %amd  : OpFunctionCall %void %main_amd ; OpBranch %m0
//   %else0: ... the next version, or OpFunctionCall %void %main_portable
//
// Drivers fold specialization constants before they compile and inline every
// call, so the version a device does not select costs nothing there. Types,
// constants and module-scope variables equal in both modules (same operands
// and decorations) are shared, variables one to one (the k-th of a key with
// the k-th); everything of a version's functions is new.
#ifndef WAVEOPT_LIB_VERSIONS_H_
#define WAVEOPT_LIB_VERSIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spirv-tools/libspirv.h"

namespace waveopt {

// A boolean specialization constant: its SpecId and OpName ("waveopt_amd").
struct VersionConstant {
  uint32_t spec_id = 0;
  std::string name;
};

struct VersionModule {
  std::vector<uint32_t> words;  // the whole module as built for the version
  // The constants that select it (any one true): one per target sharing it.
  std::vector<VersionConstant> constants;
  std::string suffix;  // appended to its entry functions' names
};

// |base| with |versions| joined as above, in order (the first version with a
// true constant wins). False with |why| when the modules cannot be joined (a forward
// pointer, global debug-info instructions, decoration groups, an entry point
// one module lacks or whose execution modes differ, an entry function that
// is also called): the caller keeps |base| alone.
bool JoinVersions(const std::vector<uint32_t>& base, const std::vector<VersionModule>& versions,
                  spv_target_env env, std::vector<uint32_t>* out, std::string* why);

// The SpecIds |words| declares, each with the name of its constant (its
// OpName, or "%<id>"). Empty when the module cannot be read.
std::map<uint32_t, std::string> DeclaredSpecIds(const std::vector<uint32_t>& words,
                                                spv_target_env env);

}  // namespace waveopt

#endif  // WAVEOPT_LIB_VERSIONS_H_
