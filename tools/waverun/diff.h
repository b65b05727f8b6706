// waverun diff at one subgroup size: both modules run on the same inputs,
// every writable binding compared, the first module checked against itself
// (NONDETERMINISTIC) and for data races (RACE), and the coverage of what
// the second adds measured on the simulator (NOT COVERED).
#ifndef WAVEOPT_TOOLS_WAVERUN_DIFF_H_
#define WAVEOPT_TOOLS_WAVERUN_DIFF_H_

#include "tools/waverun/cli.h"
#include "tools/waverun/device.h"
#include "tools/waverun/modules.h"

namespace waverun {

// Runs a and b on |device| and prints the verdict. Returns the exit code.
int CommandDiff(const Cli& cli, Device* device, Module* a, Module* b);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_DIFF_H_
