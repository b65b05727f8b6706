// waveopt's wave simulator: runs a compute shader (SPIR-V words) at any
// subgroup size from 1 to 128, lane by lane, with per-lane active masks that
// reconverge at structured merge blocks, workgroup barriers between
// subgroups, atomics in a fixed order (lanes in order, subgroups in order,
// workgroups in order) and every OpGroupNonUniform instruction. It also counts
// what a dispatch costs (instructions, memory lines, atomics, bank conflicts).
// See docs/sim.md.
//
// The simulator is deterministic: the same module, inputs and subgroup size
// give the same outputs and counters in every process. What the Vulkan
// specification leaves undefined gets a fixed value: reading an inactive or
// absent lane (Shuffle, Broadcast, ...) gives the poison pattern 0xDEADBEEF
// in every 32-bit word, as does an out-of-bounds load from Function, Private
// or Workgroup memory; loads from buffers and images out of bounds give zero
// (Vulkan's robustness2, which waverun enables on lavapipe); out-of-bounds
// stores are dropped.
#ifndef WAVEOPT_LIB_SIM_SIM_H_
#define WAVEOPT_LIB_SIM_SIM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/sim/launch.h"

namespace waveopt {
namespace sim {

class ModuleData;

// A parsed module, ready to run any number of dispatches.
class Program {
 public:
  ~Program();
  // Parses |words| and picks the GLCompute entry point named |entry| (empty:
  // the first). Returns null with one line in |error| for a module that is
  // not SPIR-V or has no such entry point.
  static std::unique_ptr<Program> Create(const std::vector<uint32_t>& words,
                                         const std::string& entry, std::string* error);

  // Runs one dispatch with |resources| bound by (set, binding); they are
  // updated in place. Fills |counters| (may be null). Returns false with one
  // line in |error|: an unsupported instruction (named), a missing binding, a
  // subgroup size that is not a power of two in 1..128, a shader that runs
  // past the instruction limit, OpUnreachable reached.
  bool Run(const Launch& launch, std::vector<Resource>* resources, Counters* counters,
           std::string* error) const;

 private:
  Program() = default;
  std::unique_ptr<ModuleData> module_;
};

}  // namespace sim
}  // namespace waveopt

#endif  // WAVEOPT_LIB_SIM_SIM_H_
