// Running a compute module on waveopt's wave simulator (lib/sim) instead of a
// Vulkan device: the same Device/Program interface (device.h) as the Vulkan device, so
// that `run`, `diff` and `time` work unchanged with --sim, at any subgroup
// size from 1 to 128.
#ifndef WAVEOPT_TOOLS_WAVERUN_SIM_RUNNER_H_
#define WAVEOPT_TOOLS_WAVERUN_SIM_RUNNER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "lib/sim/sim.h"
#include "tools/waverun/device.h"

namespace waverun {

struct SimOptions {
  // Cut subgroups the way lavapipe does (never across a row of the
  // workgroup; see waveopt::sim::Launch), for --check-sim.
  bool lavapipe_layout = false;
  // Stop a run after this many instructions (summed over subgroups; 0: the
  // simulator's default).
  uint64_t instruction_limit = 0;
  // Undefined memory and poison values from this seed (0: zero memory, the
  // default poison): the self-check's second run.
  uint64_t junk_seed = 0;
  // Count executions per instruction (coverage).
  bool count_instructions = false;
  // Look for data races (waveopt::sim::Launch::detect_races).
  bool detect_races = false;
};

// A Device backed by the simulator at |subgroup_size| lanes (a power of two,
// 1..128). Its info(): name "waveopt wave simulator", subgroup_size as given,
// no timestamps (Run's |ns| is the simulation's wall clock).
std::unique_ptr<Device> CreateSimDevice(uint32_t subgroup_size, const SimOptions& options = {});

// The counters of |program|'s last successful Run (null when |program| does
// not run on the simulator or has not run).
const waveopt::sim::Counters* SimCounters(const Program* program);
// The same as text, one "name value" per line (Counters::Format); empty when
// there are none.
std::string SimCountersText(const Program* program);

// Prints the simulator's counters of |program|'s last run: "counters[ LABEL]:"
// then one "  name value" line per counter.
void PrintCounters(const std::string& label, const Program* program);

// "N lane accesses out of bounds (...)" from the simulator's counters of
// |program|'s last run; empty when there were none (or not on the simulator).
std::string OutOfBounds(const Program* program);

// The first data race of |program|'s last run (SimOptions::detect_races) in
// one line: where (binding and byte, texel, pointee or shared variable) and
// the two invocations, e.g. "binding 0.1 ('Out') byte 64: written by
// invocation (3,0,0) of workgroup (0,0,0) and written by invocation
// (67,0,0) of workgroup (1,0,0)"; empty when it found none (or did not look).
std::string SimRace(const Program* program);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_SIM_RUNNER_H_
