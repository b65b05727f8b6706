// The commands of waverun as one process runs them at one subgroup size:
// run, diff (diff.cpp), time and probe on a Vulkan device or the simulator,
// and isa. main.cpp runs them in child processes.
#ifndef WAVEOPT_TOOLS_WAVERUN_COMMANDS_H_
#define WAVEOPT_TOOLS_WAVERUN_COMMANDS_H_

#include <cstdint>
#include <string>

#include "tools/waverun/cli.h"
#include "tools/waverun/device.h"

namespace waverun {

// Runs |cli|'s command (run, diff, time or probe) in this process at
// subgroup size |width| (0: the device's own). Returns the exit code.
int RunCommand(const Cli& cli, uint32_t width);

// waverun isa: loads every module and hands them to RunIsa (isa.cpp).
int CommandIsa(const Cli& cli);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_COMMANDS_H_
