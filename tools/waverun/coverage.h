// Coverage of a rewrite: which instructions of the rewritten module b are not
// in the original a (what the passes added), so that the simulator's
// per-instruction counts of b's run say whether the rewritten code ran.
#ifndef WAVEOPT_TOOLS_WAVERUN_COVERAGE_H_
#define WAVEOPT_TOOLS_WAVERUN_COVERAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/sim/sim.h"

namespace waverun {

// The instructions of |b| (their first words) that |a| does not have. An
// instruction is added when its result id is new: not defined in the
// baseline, or defined there by a different opcode (passes take new ids
// above the module's bound); an instruction without a result is added when
// its block or one of its id operands is new. The baseline is |a|, or |a|
// after waveopt -O's preparation (inlining, SSA rewrite), whichever leaves
// fewer added instructions: -O prepares the module before its passes run,
// and what the preparation renames is not the rewrite. Empty when b adds
// nothing (or cannot be parsed).
std::vector<uint32_t> AddedInstructions(const std::vector<uint32_t>& a,
                                        const std::vector<uint32_t>& b);

struct Coverage {
  size_t added = 0;        // instructions b adds
  size_t executed = 0;     // ... of which ran
  uint64_t subgroups = 0;  // their executions, per subgroup
  uint64_t lanes = 0;      // ... per lane
};

Coverage MeasureCoverage(const std::vector<uint32_t>& added,
                         const std::vector<waveopt::sim::InstructionCount>& counts);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_COVERAGE_H_
