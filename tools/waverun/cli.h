// waverun's command line as the commands see it, and its exit codes.
// main.cpp parses it; commands.cpp, diff.cpp and auto_search.cpp run it.
#ifndef WAVEOPT_TOOLS_WAVERUN_CLI_H_
#define WAVEOPT_TOOLS_WAVERUN_CLI_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spirv-tools/libspirv.hpp"
#include "tools/waverun/isa.h"
#include "tools/waverun/sim_runner.h"
#include "tools/waverun/spec.h"

namespace waverun {

// Exit codes (docs/waverun.md#exit-codes).
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitDiffer = 3;
constexpr int kExitNondeterministic = 4;
constexpr int kExitTimeout = 5;
constexpr int kExitUncovered = 6;
constexpr int kExitRace = 7;

// A child process that runs longer than this is killed (--timeout).
constexpr int kDefaultTimeoutS = 300;

// diff --auto on a device, where the search ran the modules on the
// simulator: a width whose driver compile (lavapipe: LLVM, minutes on some
// large kernels) takes longer than this is answered by the simulator
// (--compile-budget sets it for any diff).
constexpr double kDefaultCompileBudgetS = 30;

struct Cli {
  std::string command;
  std::vector<std::string> inputs;
  std::vector<uint32_t> widths;  // requested subgroup sizes (empty: the device's)
  std::string spec_path;
  std::vector<std::string> const_lines;  // --const ID=VALUE, as spec lines
  bool no_spec = false;
  std::vector<std::string> spec_lines;
  bool dump = false;
  std::vector<BindingKey> dump_keys;  // empty: every writable binding
  std::string dump_format = "u32";
  bool verbose = false;
  std::vector<std::string> defines;
  spv_target_env target_env = SPV_ENV_VULKAN_1_1;
  std::string icd;
  bool system_icds = false;
  int device = -1;
  int jobs = 0;
  int lp_threads = 1;
  bool validate = true;
  bool sim = false;             // run on the wave simulator
  bool counters = false;        // print the simulator's counters
  bool check_sim = false;       // diff: check the simulator against the device
  int sim_limit = 0;            // the simulator's instruction limit (0: its default)
  bool auto_spec = false;       // --auto
  bool auto_resolved = false;   // the parent turned --auto into spec lines
  bool auto_simulated = false;  // ... and its search ran the modules on the simulator
  bool self_check = true;       // diff: run the first module twice
  bool race_check = true;       // diff: look for data races in the modules (simulator)
  bool coverage = false;        // diff: report the coverage of b's added instructions
  bool require_coverage = false;
  int timeout_s = kDefaultTimeoutS;
  double compile_budget_s = -1;  // --compile-budget; -1: kDefaultCompileBudgetS
  IsaOptions isa;                // isa: families, wave sizes, format
  // The source inputs (GLSL, HLSL) the parent compiled once before its runs
  // forked, by path: each width's run takes these words instead of
  // compiling again. A source that failed is absent: its runs compile it
  // and say why, as before.
  std::map<std::string, std::vector<uint32_t>> compiled;
};

// Prints "waverun: error: MSG" to stderr and returns kExitError.
int Error(const std::string& msg);

// The simulator options |cli| asks for.
SimOptions MakeSimOptions(const Cli& cli);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_CLI_H_
