// Internal side of the pass registry (the public side is waveopt/passes.h).
#ifndef WAVEOPT_PASSES_REGISTRY_H_
#define WAVEOPT_PASSES_REGISTRY_H_

#include <memory>
#include <string>

#include "source/opt/pass.h"
#include "waveopt/passes.h"

namespace waveopt {

// Creates the waveopt pass called |name| with config.params (or, when that
// is empty, config.pass_params' entry for |name|), wrapped as RegisterPass()
// documents: SPIR-V version raised where the target allows, applied remarks
// withheld and an error sent to the consumer when the pass fails. Null (with
// |error|) when the name is unknown or the parameters do not parse.
std::unique_ptr<spvtools::opt::Pass> MakePass(const std::string& name, const PassConfig& config,
                                              std::string* error);

// The parameters the pass |name| takes from |config| (see MakePass).
std::string ParamsFor(const std::string& name, const PassConfig& config);

// Checks that every key of config.pass_params is a registered pass and that
// each pass accepts its entry. False with |error| otherwise.
bool CheckPassParams(const PassConfig& config, std::string* error);

// The message a wrapped pass sends to its consumer (SPV_MSG_ERROR) when it
// fails: "<pass> failed (<why>); ...". Optimize() recognises it by this
// prefix of its text: "waveopt pass ".
constexpr const char* kPassFailedPrefix = "waveopt pass ";

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_REGISTRY_H_
