// Comparing the outputs of two runs (or two reps) binding by binding.
#ifndef WAVEOPT_TOOLS_WAVERUN_COMPARE_H_
#define WAVEOPT_TOOLS_WAVERUN_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/waverun/plan.h"

namespace waverun {

// Final contents of every resource of a plan, in plan order (read-only
// resources hold their inputs).
using Outputs = std::vector<std::vector<uint8_t>>;

// Compares every writable resource of |plan| between |a| and |b| with its
// compare mode. Appends one line per differing binding to |report| (naming
// the binding, the number of differing words or elements, the first index
// and both values, with |name_a| and |name_b| as the labels). Returns the
// number of differing bindings.
int CompareOutputs(const Plan& plan, const Outputs& a, const Outputs& b,
                   const std::string& name_a, const std::string& name_b,
                   std::vector<std::string>* report);

// 64-bit FNV-1a of |bytes|, for `run`'s summary.
uint64_t Fingerprint(const std::vector<uint8_t>& bytes);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_COMPARE_H_
