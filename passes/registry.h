// Internal side of the pass registry (the public side is waveopt.h).
#ifndef WAVEOPT_PASSES_REGISTRY_H_
#define WAVEOPT_PASSES_REGISTRY_H_

#include <memory>
#include <string>

#include "source/opt/pass.h"
#include "waveopt/waveopt.h"

namespace waveopt {

// Creates the waveopt pass called |name|; null (with |error|) when the name is
// unknown or the parameters do not parse.
std::unique_ptr<spvtools::opt::Pass> MakePass(const std::string& name,
                                              const PassConfig& config,
                                              std::string* error);

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_REGISTRY_H_
