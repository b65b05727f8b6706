// Running a compute module on a Vulkan device (a fragment module: one
// full-screen triangle drawn into a draw_width x draw_height target, see
// Plan): one device per process, one Program (pipeline + resources +
// recorded command buffer) per module and plan. Runs are deterministic on
// lavapipe with LP_NUM_THREADS=1.
#ifndef WAVEOPT_TOOLS_WAVERUN_VULKAN_RUNNER_H_
#define WAVEOPT_TOOLS_WAVERUN_VULKAN_RUNNER_H_

#include <memory>
#include <string>

#include "tools/waverun/device.h"

namespace waverun {

// Creates the instance and a device with every feature it supports, and
// the extensions waverun knows (robustness2, atomic floats, shader clock).
// |robust|: with robust buffer and image access (robustBufferAccess,
// robustness2 where the device has it), so that out-of-bounds loads read
// zero and stores are dropped instead of corrupting memory; without it
// (`time`) accesses run unchecked. |index|: which physical device (-1: the
// first).
std::unique_ptr<Device> CreateVulkanDevice(int index, bool robust, std::string* error);

// From now on each program this process creates writes 'b' to |fd| when
// its compilation begins and 'e' once its first run has finished: llvmpipe
// builds a compute shader's code at the first dispatch, not at pipeline
// creation. The parent of diff's children times the compiles with it
// (--compile-budget). -1: not reported.
void ReportCompilesTo(int fd);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_VULKAN_RUNNER_H_
