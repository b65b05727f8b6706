// Analyses of a module, printed for people and tests.
#ifndef WAVEOPT_ANALYSIS_H_
#define WAVEOPT_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "spirv-tools/libspirv.h"

namespace waveopt {

// Runs the uniformity analysis on |words| (for |env|) and sets |out| to its
// printed form (UniformityAnalysis::Print, described in docs/uniformity.md).
// Returns false with a one-line |error| if the module cannot be loaded.
// Does not validate: callers validate first.
bool PrintUniformity(const std::vector<uint32_t>& words, spv_target_env env, std::string* out,
                     std::string* error);

// The loops batch-uniform-loads is meant for, found without the pass's own
// matching code (lib/analysis/loop_candidates.cpp says how): one line per
// loop, "loop %<header> in <function>[ file:line]: candidate (N reads)" or
// "...: not a candidate: <why>". Returns false with a one-line |error| if
// the module cannot be loaded. Does not validate.
bool PrintLoopCandidates(const std::vector<uint32_t>& words, spv_target_env env, std::string* out,
                         std::string* error);

}  // namespace waveopt

#endif  // WAVEOPT_ANALYSIS_H_
