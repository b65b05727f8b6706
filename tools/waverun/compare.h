// Comparing the outputs of two runs (or two reps) binding by binding.
#ifndef WAVEOPT_TOOLS_WAVERUN_COMPARE_H_
#define WAVEOPT_TOOLS_WAVERUN_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/waverun/plan.h"

namespace waverun {

// Final contents of every resource of a plan, in plan order (every
// descriptor of an array, concatenated; read-only resources and resources
// the module does not declare hold their inputs), then of every pointee.
using Outputs = std::vector<std::vector<uint8_t>>;

// One compared unit: a resource's descriptor, or a pointee.
struct CompareUnit {
  std::string label;            // "binding 0.1 ('Out')", "binding 0.2 ('Tex')[3]", "pointer 0.0+8"
  size_t output = 0;            // index into Outputs
  uint64_t begin = 0, end = 0;  // byte range in that output
};

// The units CompareOutputs compares: writable resources and pointees whose
// compare mode is not ignore.
std::vector<CompareUnit> ComparedUnits(const Plan& plan);

// Compares every writable resource of |plan| between |a| and |b| with its
// compare mode, descriptor by descriptor, and every pointee. Appends one line
// per differing unit to |report| (naming it, the number of differing words or
// elements, the first index and both values, with |name_a| and |name_b| as
// the labels); |skip| (may be null) lists unit labels not to compare. Returns
// the number of differing units; |differing| (may be null) gets their labels.
int CompareOutputs(const Plan& plan, const Outputs& a, const Outputs& b, const std::string& name_a,
                   const std::string& name_b, std::vector<std::string>* report,
                   const std::vector<std::string>* skip = nullptr,
                   std::vector<std::string>* differing = nullptr);

// 64-bit FNV-1a of |bytes|, for `run`'s summary.
uint64_t Fingerprint(const std::vector<uint8_t>& bytes);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_COMPARE_H_
