// waveopt's pass registry: the passes of passes/passes.def, to put into
// one's own spvtools::Optimizer one by one. The whole of -O in one call:
// RegisterOptimizePasses() in pipeline.h.
#ifndef WAVEOPT_PASSES_H_
#define WAVEOPT_PASSES_H_

#include <string>
#include <vector>

#include "spirv-tools/optimizer.hpp"
#include "waveopt/config.h"

namespace waveopt {

// A registered waveopt pass, as declared in passes/passes.def.
struct PassInfo {
  const char* name;    // flag, e.g. "prereduce-atomics"
  const char* help;    // one line
  const char* params;  // parameter syntax and meaning, "" when none
};

// All registered passes, in the recommended -O order.
const std::vector<PassInfo>& RegisteredPasses();

// Adds the pass called |name| to |optimizer|, made with |config| and the
// parameters config.params, or, when that is empty, config.pass_params[name].
// Returns false and sets |error| when the name is unknown, a key of
// config.pass_params is no registered pass, or the parameters are malformed
// (the optimizer is then unchanged).
//
// The pass registered is wrapped so that, inside any spvtools::Optimizer:
// - a module older than SPIR-V 1.3 whose target allows 1.3 is raised to 1.3
//   when the rewrite uses subgroup operations (applied remark
//   RaisedSpirvVersion), and left as it was otherwise;
// - when the pass fails part way (ids exhausted, out of memory), its
//   applied remarks are withheld and an SPV_MSG_ERROR line naming the pass
//   goes to the optimizer's message consumer (Optimizer::Run then returns
//   false). Set the consumer before registering: spvtools::Optimizer gives
//   each pass the consumer it has when the pass is registered.
bool RegisterPass(spvtools::Optimizer* optimizer, const std::string& name, const PassConfig& config,
                  std::string* error);

// One factory per registered pass: Create<Class>(config), e.g.
// CreatePrereduceAtomicsPass(), wrapped as RegisterPass() wraps it. They
// take config.params, else config.pass_params' entry for the pass;
// parameters that do not parse are ignored by these factories: use
// RegisterPass() to have them checked.
#define WAVEOPT_PASS(FLAG, CLASS, HELP, PARAMS) \
  spvtools::Optimizer::PassToken Create##CLASS(const PassConfig& config);
#include "waveopt/passes.def"
#undef WAVEOPT_PASS

// waveopt's inliner of the small functions called inside loops (and of the
// functions that hold a shared array's reduction tree), the first
// step of -O's preparation (flag --inline-loop-callees; docs/cli.md).
spvtools::Optimizer::PassToken CreateInlineLoopCalleesPass();

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_H_
