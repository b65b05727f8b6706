// waverun: runs, compares and times compute shaders (and fragment shaders,
// drawn as one full-screen triangle) on a Vulkan device (Mesa's lavapipe
// unless told otherwise). See docs/waverun.md.
//
// Exit codes: 0 success (diff: equal); 1 error (one line on stderr); 2 bad
// usage; 3 diff found a difference (or `time` found reps that disagree);
// 4 diff: the first module disagrees with itself (NONDETERMINISTIC); 5 a run
// did not finish in --timeout seconds (TIMEOUT); 6 diff --require-coverage
// or --auto: the rewritten code never ran (NOT COVERED); 7 diff: the first
// module has a data race under the inputs (RACE).
//
// Every command runs in a child process (one per subgroup size with
// --widths): a driver that crashes on a module, or takes too long, is one
// line of report, not a crash of waverun.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lib/support/child_process.h"
#include "spirv-tools/libspirv.hpp"
#include "tools/waverun/auto_search.h"
#include "tools/waverun/cli.h"
#include "tools/waverun/commands.h"
#include "tools/waverun/isa.h"
#include "tools/waverun/modules.h"
#include "tools/waverun/spec.h"
#include "tools/waverun/vulkan_runner.h"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waverun {
namespace {

const char* kUsage =
    "Usage: waverun run <shader> [options]\n"
    "       waverun diff <a> <b> [options]\n"
    "       waverun time <shader>... [options]\n"
    "       waverun probe [options]\n"
    "       waverun isa <shader>... [--amd=FAMILY[,...]] [--wave=32|64] [--disasm]\n"
    "Run 'waverun --help' for the options.\n";

void PrintHelp() {
  std::printf(
      "waverun: runs, compares and times compute shaders on a Vulkan device\n"
      "(Mesa's lavapipe by default); fragment shaders are drawn over a WxH target\n"
      "(spec: draw fullscreen WxH) on the device only, their inputs fed and their\n"
      "color outputs compared like buffers.\n\n"
      "%s\n"
      "Shaders: .spv, .spvasm, GLSL (.comp, .frag, .glsl), HLSL (.hlsl).\n\n"
      "Inputs and sizes (spec lines; see docs/waverun.md):\n"
      "  --spec=FILE              read spec lines from FILE (default: the first\n"
      "                           shader's name with .waverun, when it exists)\n"
      "  --no-spec                do not read a spec file\n"
      "  -s LINE, --spec-line=LINE  one more spec line, e.g.\n"
      "                           -s 'binding 0.1 size=256 fill=mod:16'\n"
      "  --dispatch=X[,Y[,Z]]     workgroups to dispatch (spec: dispatch X Y Z)\n"
      "  -s 'draw fullscreen WxH' fragment shaders: the target's size\n"
      "  --seed=N                 input seed (spec: seed N)\n"
      "  --reps=N                 time: timed repetitions (default 10)\n"
      "  --auto                   no spec needed: inputs searched on the simulator,\n"
      "                           smallest first, until a neither races nor reads\n"
      "                           undefined memory and b's added code runs (else\n"
      "                           RACE / NONDETERMINISTIC / NOT COVERED); printed as\n"
      "                           a spec to pin; spec files and lines still apply first\n\n"
      "Subgroup sizes (lavapipe):\n"
      "  --subgroup-size=N        run at N lanes (4, 8 or 16 on lavapipe)\n"
      "  --widths=N,M,...         one child process per size, e.g. 4,8,16\n"
      "  --jobs=N                 child processes at a time (default: CPUs)\n"
      "  --lp-threads=N           LP_NUM_THREADS (default 1: deterministic atomics)\n\n"
      "Wave simulator (lib/sim; docs/sim.md):\n"
      "  --sim                    run on the simulator instead of a Vulkan device, at\n"
      "                           --subgroup-size=N or --widths=... (any power of two\n"
      "                           1..128; default 32)\n"
      "  --counters               with --sim: print the cost counters of each run\n"
      "  --sim-limit=N            stop a simulated run after N instructions (default\n"
      "                           400000000): a shader that does not terminate\n"
      "  --check-sim              diff: also run both modules on the simulator at the\n"
      "                           device's subgroup size; an output that differs from\n"
      "                           the device's is an error\n\n"
      "Diff:\n"
      "  --no-self-check          do not run the first module twice (a module that\n"
      "                           disagrees with itself is reported NONDETERMINISTIC)\n"
      "  --no-race-check          do not look for data races in the modules (on a device\n"
      "                           the first module also runs on the simulator for it)\n"
      "  --coverage               report how many of the instructions b adds to a ran\n"
      "                           (on the simulator; on a device, b also runs there)\n"
      "  --require-coverage       ... and fail (exit 6) when none of them ran\n"
      "  --ulp=N                  compare every float output within N units in the\n"
      "                           last place (spec: ulp N; a compare= of its own wins)\n"
      "  --timeout=S              kill a run after S seconds (default 300; 0: never)\n"
      "  --compile-budget=S       a width whose driver compile takes more than S CPU\n"
      "                           seconds is answered by the simulator (0: at once),\n"
      "                           and its verdict says so (default: 30 with --auto\n"
      "                           when its search ran on the simulator, else none)\n\n"
      "Device:\n"
      "  --icd=FILE               use this Vulkan ICD json instead of lavapipe's\n"
      "  --system-icds            use the loader's own ICD search\n"
      "  --device=N               physical device index (default 0)\n\n"
      "Output:\n"
      "  --dump[=S.B,...]         run: print the words of writable (or listed) bindings\n"
      "  --dump-format=u32|i32|f32|hex\n"
      "  -v, --verbose            diff: also list the bindings that are equal\n\n"
      "Front end:\n"
      "  -D NAME[=VALUE]          GLSL/HLSL define\n"
      "  --target-env=ENV         for GLSL/HLSL/.spvasm input (default vulkan1.1)\n"
      "  --no-validate            do not run spirv-val before running\n\n"
      "AMD ISA (RADV/ACO on null hardware, no GPU needed; docs/waverun.md):\n"
      "  --const ID=VALUE         a specialization constant (run, diff, time, isa;\n"
      "                           a spec's 'const ID = VALUE'), e.g. --const 1000=true\n"
      "  --amd=FAMILY[,...]       isa: compile for these (default navi21), e.g.\n"
      "                           polaris10,vega10,navi10,navi21,gfx1100\n"
      "  --wave=32|64|32,64       isa: required subgroup size (default: RADV's)\n"
      "  --disasm                 isa: print the ISA after the table\n"
      "  --format=table|tsv|json  isa: output format (default table)\n\n"
      "Exit codes: 0 ok/equal, 1 error, 2 usage, 3 difference, 4 nondeterministic,\n"
      "5 timeout, 6 rewritten code not covered, 7 the first module races.\n",
      kUsage);
}

[[noreturn]] void UsageError(const std::string& msg) {
  std::fprintf(stderr, "waverun: error: %s\n%s", msg.c_str(), kUsage);
  std::exit(kExitUsage);
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool ParseInt(const std::string& s, int* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  long x = std::strtol(s.c_str(), &end, 10);
  if (*end != '\0' || x < 0 || x > 1 << 30) return false;
  *v = static_cast<int>(x);
  return true;
}

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

void AddWidths(const std::string& list, Cli* cli) {
  for (const std::string& w : SplitComma(list)) {
    int n;
    if (!ParseInt(w, &n) || n < 1 || n > 128 || (n & (n - 1)) != 0) {
      UsageError("subgroup sizes are powers of two from 1 to 128, not '" + w + "'");
    }
    if (std::find(cli->widths.begin(), cli->widths.end(), static_cast<uint32_t>(n)) ==
        cli->widths.end()) {
      cli->widths.push_back(static_cast<uint32_t>(n));
    }
  }
}

// waverun's arguments, one at a time: arg() is the current one; Value()
// reads an option's value, "--flag=VALUE" or the next argument.
class ArgReader {
 public:
  ArgReader(int argc, char** argv) : args_(argv + 1, argv + argc) {}

  // Moves to the next argument; false after the last.
  bool Next() {
    if (next_ >= args_.size()) return false;
    arg_ = args_[next_++];
    return true;
  }
  const std::string& arg() const { return arg_; }
  // The current argument is |flag| or starts with "|flag|=".
  bool Is(const char* flag) const {
    std::string f = flag;
    return arg_ == f || StartsWith(arg_, (f + "=").c_str());
  }
  std::string Value(const char* flag) {
    std::string f = flag;
    if (arg_.size() > f.size() && arg_.compare(0, f.size() + 1, f + "=") == 0) {
      return arg_.substr(f.size() + 1);
    }
    if (next_ >= args_.size()) UsageError(f + " needs a value");
    return args_[next_++];
  }

 private:
  std::vector<std::string> args_;
  size_t next_ = 0;
  std::string arg_;
};

// Options of inputs and sizes (spec lines); false: |in| holds another one.
bool ParseInputOption(ArgReader& in, Cli* cli) {
  const std::string& a = in.arg();
  if (in.Is("--subgroup-size") || in.Is("--widths")) {
    AddWidths(in.Value(in.Is("--widths") ? "--widths" : "--subgroup-size"), cli);
  } else if (in.Is("--spec")) {
    cli->spec_path = in.Value("--spec");
  } else if (a == "--no-spec") {
    cli->no_spec = true;
  } else if (a == "-s" || in.Is("--spec-line")) {
    cli->spec_lines.push_back(a == "-s" ? in.Value("-s") : in.Value("--spec-line"));
  } else if (in.Is("--dispatch")) {
    std::string d = in.Value("--dispatch");
    std::replace(d.begin(), d.end(), ',', ' ');
    cli->spec_lines.push_back("dispatch " + d);
  } else if (in.Is("--const")) {
    cli->const_lines.push_back("const " + in.Value("--const"));
    cli->spec_lines.push_back(cli->const_lines.back());
  } else if (in.Is("--seed")) {
    cli->spec_lines.push_back("seed " + in.Value("--seed"));
  } else if (in.Is("--ulp")) {
    cli->spec_lines.push_back("ulp " + in.Value("--ulp"));
  } else if (in.Is("--reps")) {
    cli->spec_lines.push_back("reps " + in.Value("--reps"));
  } else {
    return false;
  }
  return true;
}

// Options of output, the front end and the device; false: another one.
bool ParseSetupOption(ArgReader& in, Cli* cli) {
  const std::string& a = in.arg();
  if (a == "--dump") {
    cli->dump = true;
  } else if (StartsWith(a, "--dump=")) {
    cli->dump = true;
    for (const std::string& k : SplitComma(a.substr(7))) {
      BindingKey key;
      if (!ParseBindingKey(k, &key)) UsageError("bad binding '" + k + "' in --dump");
      cli->dump_keys.push_back(key);
    }
  } else if (in.Is("--dump-format")) {
    cli->dump_format = in.Value("--dump-format");
    if (cli->dump_format != "u32" && cli->dump_format != "i32" && cli->dump_format != "f32" &&
        cli->dump_format != "hex") {
      UsageError("--dump-format is u32, i32, f32 or hex");
    }
  } else if (a == "-v" || a == "--verbose") {
    cli->verbose = true;
  } else if (a == "-D") {
    cli->defines.push_back(in.Value("-D"));
  } else if (StartsWith(a, "-D")) {
    cli->defines.push_back(a.substr(2));
  } else if (in.Is("--target-env")) {
    std::string env = in.Value("--target-env");
    if (!waveopt::ParseTargetEnv(env, &cli->target_env)) {
      UsageError("unknown target environment '" + env + "'");
    }
  } else if (in.Is("--icd")) {
    cli->icd = in.Value("--icd");
  } else if (a == "--system-icds") {
    cli->system_icds = true;
  } else if (in.Is("--device")) {
    if (!ParseInt(in.Value("--device"), &cli->device)) UsageError("--device takes an index");
  } else if (in.Is("--jobs") || StartsWith(a, "-j")) {
    std::string v = StartsWith(a, "-j") ? a.substr(2) : in.Value("--jobs");
    if (!ParseInt(v, &cli->jobs) || cli->jobs < 1) UsageError("--jobs takes a count >= 1");
  } else if (in.Is("--lp-threads")) {
    if (!ParseInt(in.Value("--lp-threads"), &cli->lp_threads)) {
      UsageError("--lp-threads takes a count");
    }
  } else if (a == "--no-validate") {
    cli->validate = false;
  } else {
    return false;
  }
  return true;
}

// Options of the simulator, diff and child processes; false: another one.
bool ParseRunOption(ArgReader& in, Cli* cli) {
  const std::string& a = in.arg();
  if (a == "--sim") {
    cli->sim = true;
  } else if (a == "--counters") {
    cli->counters = true;
  } else if (a == "--check-sim") {
    cli->check_sim = true;
  } else if (in.Is("--sim-limit")) {
    if (!ParseInt(in.Value("--sim-limit"), &cli->sim_limit) || cli->sim_limit < 1) {
      UsageError("--sim-limit takes a count >= 1");
    }
  } else if (a == "--auto") {
    cli->auto_spec = true;
  } else if (a == "--no-self-check") {
    cli->self_check = false;
  } else if (a == "--no-race-check") {
    cli->race_check = false;
  } else if (a == "--coverage") {
    cli->coverage = true;
  } else if (a == "--require-coverage") {
    cli->coverage = cli->require_coverage = true;
  } else if (in.Is("--compile-budget")) {
    char* end = nullptr;
    const std::string v = in.Value("--compile-budget");
    cli->compile_budget_s = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || cli->compile_budget_s < 0) {
      UsageError("--compile-budget takes seconds (0: the simulator answers at once)");
    }
  } else if (in.Is("--timeout")) {
    if (!ParseInt(in.Value("--timeout"), &cli->timeout_s)) UsageError("--timeout takes seconds");
  } else {
    return false;
  }
  return true;
}

// Options of isa; false: another one.
bool ParseIsaOption(ArgReader& in, Cli* cli) {
  if (in.Is("--amd") || in.Is("--wave")) {
    bool amd = in.Is("--amd");
    std::string err;
    std::string v = in.Value(amd ? "--amd" : "--wave");
    if (!(amd ? ParseAmdFamilies(v, &cli->isa.families, &err)
              : ParseWaves(v, &cli->isa.waves, &err))) {
      UsageError(err);
    }
  } else if (in.arg() == "--disasm") {
    cli->isa.disasm = true;
  } else if (in.Is("--format")) {
    if (!ParseIsaFormat(in.Value("--format"), &cli->isa.format)) {
      UsageError("--format is table, tsv or json");
    }
  } else {
    return false;
  }
  return true;
}

// The command and the number of shaders it takes (isa: its default family).
void CheckCommand(Cli* cli) {
  if (cli->command.empty()) UsageError("no command");
  if (cli->command == "run") {
    if (cli->inputs.size() != 1) UsageError("run takes one shader");
  } else if (cli->command == "diff") {
    if (cli->inputs.size() != 2) UsageError("diff takes two shaders");
  } else if (cli->command == "time") {
    if (cli->inputs.empty()) UsageError("time takes one or more shaders");
  } else if (cli->command == "probe") {
    if (!cli->inputs.empty()) UsageError("probe takes no shader");
  } else if (cli->command == "isa") {
    if (cli->inputs.empty()) UsageError("isa takes one or more shaders");
    if (cli->isa.families.empty()) {
      cli->isa.families.push_back(kDefaultAmdFamily);
      std::fprintf(stderr,
                   "waverun: note: isa compiles for %s (RDNA2 gfx10.3) without --amd; "
                   "--amd=FAMILY[,...] picks others\n",
                   kDefaultAmdFamily);
    }
    if (cli->sim || !cli->widths.empty()) UsageError("isa compiles for AMD: no --sim or sizes");
  } else {
    UsageError("unknown command '" + cli->command + "'");
  }
}

// Options that belong to another command or exclude each other.
void CheckOptionCombinations(const Cli& cli) {
  if (cli.command != "isa" && (!cli.isa.families.empty() || !cli.isa.waves.empty() ||
                               cli.isa.disasm || cli.isa.format != IsaFormat::kTable)) {
    UsageError("--amd, --wave, --disasm and --format are options of isa");
  }
  if (cli.compile_budget_s >= 0 && cli.command != "diff") {
    UsageError("--compile-budget is an option of diff");
  }
  if (!cli.icd.empty() && cli.system_icds) UsageError("--icd and --system-icds exclude each other");
  if (cli.no_spec && !cli.spec_path.empty()) UsageError("--spec and --no-spec exclude each other");
  if (cli.counters && !cli.sim) UsageError("--counters needs --sim");
  if (cli.check_sim && (cli.sim || cli.command != "diff")) {
    UsageError("--check-sim is for diff on a Vulkan device (without --sim)");
  }
  if (cli.coverage && cli.command != "diff") UsageError("--coverage is for diff");
  if (cli.auto_spec && cli.command != "run" && cli.command != "diff" && cli.command != "time") {
    UsageError("--auto is for run, diff and time");
  }
}

Cli ParseArgs(int argc, char** argv) {
  Cli cli;
  ArgReader in(argc, argv);
  while (in.Next()) {
    const std::string& a = in.arg();
    if (a == "--help" || a == "-h") {
      PrintHelp();
      std::exit(kExitOk);
    }
    if (ParseInputOption(in, &cli) || ParseSetupOption(in, &cli) || ParseRunOption(in, &cli) ||
        ParseIsaOption(in, &cli)) {
      continue;
    }
    if (StartsWith(a, "-") && a != "-") {
      UsageError("unknown option '" + a + "'");
    } else if (cli.command.empty()) {
      cli.command = a;
    } else {
      cli.inputs.push_back(a);
    }
  }
  CheckCommand(&cli);
  CheckOptionCombinations(cli);
  return cli;
}

// --auto, before the runs: completes the spec from the modules' interface
// (in a child process, like every step that reads the modules), prints it
// (with how bindings are compared), then gives it to the runs as spec lines.
int ResolveAuto(Cli* cli) {
  using waveopt::support::ChildResult;
  waveopt::support::ChildOptions options;
  options.flush_std_streams = true;
  options.default_crash_signals = false;
  const ChildResult result = waveopt::support::RunInChild(
      [cli](int channel) {
        std::string text;
        const int rc = AutoSpecText(*cli, &text);
        waveopt::support::WriteAll(channel, text.data(), text.size());
        std::fflush(stderr);
        return rc;
      },
      options);
  if (result.status == ChildResult::Status::kFailedToStart) {
    return Error("cannot start a child process: " + result.error);
  }
  if (result.status != ChildResult::Status::kExited) {
    return Error(std::string("reading the modules crashed (signal ") +
                 std::to_string(result.signal) + ", " + strsignal(result.signal) + ")" +
                 (cli->validate ? "" : " on a module that was not validated (--no-validate)"));
  }
  if (result.exit_code != kExitOk) return result.exit_code;
  const std::string& text = result.channel;
  std::printf("# waverun --auto: the spec used (save it as a .waverun file to pin it)\n%s",
              text.c_str());
  std::fflush(stdout);
  cli->spec_lines.clear();
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) cli->spec_lines.push_back(line);
  for (const std::string& c : cli->const_lines) cli->spec_lines.push_back(c);
  cli->no_spec = true;
  cli->spec_path.clear();
  cli->auto_resolved = true;
  // The search ran the modules on the simulator ("no search": it could not,
  // within its instruction limit, and it is no fallback for the driver).
  cli->auto_simulated = text.find("# --auto: no search") == std::string::npos;
  return kExitOk;
}

// Prints |text| line by line with |prefix| to |stream|.
void PrintPrefixed(FILE* stream, const std::string& prefix, const std::string& text) {
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) std::fprintf(stream, "%s%s\n", prefix.c_str(), line.c_str());
}

// One line for a run killed after --timeout seconds.
std::string TimeoutMessage(const Cli& cli) {
  std::string why = cli.sim ? "a long simulation; --sim-limit=N stops one after N instructions"
                            : "lavapipe can take minutes to compile a very large kernel";
  if (!cli.sim && cli.command == "diff" && cli.race_check) {
    // The race check interprets the first module on the simulator at the
    // device's sizes; its vector clocks grow with the workgroups an atomic
    // orders (one counter over 65536 workgroups: minutes).
    why +=
        ", and diff's race check runs the first module on the simulator at these "
        "sizes (--no-race-check skips it)";
  }
  return "TIMEOUT: no result after " + std::to_string(cli.timeout_s) + " s (" + why +
         "); --timeout=S waits longer";
}

// One line for a run that died of |signal|.
std::string CrashMessage(const Cli& cli, int signal) {
  std::string s =
      "the run crashed (signal " + std::to_string(signal) + ", " + strsignal(signal) + ")";
  if (!cli.validate) return s + " on a module that was not validated (--no-validate)";
  return s + (cli.sim ? ": a simulator bug, please report it"
                      : ": the driver failed on the module, e.g. on an access through a device "
                        "address outside its buffers");
}

// diff's compile budget in seconds: --compile-budget, else
// kDefaultCompileBudgetS where --auto's search ran the modules on the
// simulator (which then answers quickly); -1: none (--sim, other commands,
// inputs the simulator was not seen to run).
double CompileBudget(const Cli& cli) {
  if (cli.command != "diff" || cli.sim) return -1;
  if (cli.compile_budget_s >= 0) return cli.compile_budget_s;
  return cli.auto_simulated ? kDefaultCompileBudgetS : -1;
}

// The line before a verdict the simulator gave in the driver's place.
std::string BudgetNote(const Cli& cli, uint32_t width) {
  const std::string at = "the simulator's verdict at " +
                         (width ? std::to_string(width) + " lanes" : std::string("32 lanes"));
  if (CompileBudget(cli) == 0) return "note: " + at + " (--compile-budget=0)";
  char budget[32];
  std::snprintf(budget, sizeof(budget), "%g", CompileBudget(cli));
  return std::string("note: the driver had not compiled the modules in ") + budget +
         " s of CPU time (--compile-budget=S): " + at + " follows";
}

struct Child {
  uint32_t width = 0;
  // The run at this width; it reports on its channel when a driver compile
  // begins ('b') and ends.
  std::unique_ptr<waveopt::support::ChildProcess> process;
  size_t reports_seen = 0;  // of the channel's bytes
  int rc = kExitError;
  double compiling_since = -1;  // the child's CPU seconds when a compile began; -1: none
  bool on_sim = false;          // answered by the simulator (over the compile budget)
  bool over_budget = false;     // killed over the budget: to be run on the simulator
};

// Starts |c|: RunCommand at its width in a child process (killed after
// --timeout), on the simulator once it went over the compile budget. False
// when it cannot.
bool StartChild(const Cli& cli, bool capture, Child* c) {
  using waveopt::support::StreamMode;
  waveopt::support::ChildOptions options;
  options.timeout_s = cli.timeout_s > 0 ? cli.timeout_s : 0;
  options.out = capture ? StreamMode::kCapture : StreamMode::kInherit;
  options.err = options.out;
  options.flush_std_streams = true;
  options.default_crash_signals = false;
  const bool report = !c->on_sim && CompileBudget(cli) > 0;
  Cli run = cli;
  if (c->on_sim) {
    run.sim = true;
    run.check_sim = false;
  }
  c->process = std::make_unique<waveopt::support::ChildProcess>();
  c->reports_seen = 0;
  c->compiling_since = -1;
  return c->process->Start(
      [&run, report, c](int channel) {
        if (report) ReportCompilesTo(channel);
        const int rc = RunCommand(run, c->width);
        std::fflush(stdout);
        std::fflush(stderr);
        return rc;
      },
      options);
}

// The CPU seconds (user and system, every thread) process |pid| has used;
// -1 when /proc does not say.
double CpuSeconds(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return -1;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');  // after the command name, which may hold spaces
  unsigned long utime = 0, stime = 0;
  if (!p || std::sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                        &stime) != 2) {
    return -1;
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Reads |c|'s new compile reports; kills it once one compile has used more
// CPU time than the budget. CPU time, not wall time: on a loaded machine a
// compile waits for the CPU without being any longer.
void WatchCompiles(const Cli& cli, Child* c) {
  if (c->on_sim || CompileBudget(cli) <= 0 || !c->process->running()) return;
  const std::string& reports = c->process->result().channel;
  for (; c->reports_seen < reports.size(); ++c->reports_seen) {
    c->compiling_since = reports[c->reports_seen] == 'b' ? CpuSeconds(c->process->pid()) : -1;
  }
  if (c->compiling_since >= 0 && !c->over_budget &&
      CpuSeconds(c->process->pid()) - c->compiling_since > CompileBudget(cli)) {
    c->over_budget = true;
    c->process->Kill();
  }
}

// |c| went over the compile budget and ended: set up its run on the
// simulator (its partial output dropped).
void MoveToSimulator(const Cli& cli, bool capture, Child* c) {
  if (!capture) std::printf("%s\n", BudgetNote(cli, c->width).c_str());
  c->process.reset();
  c->on_sim = true;
  c->over_budget = false;
}

// |c|'s run ended: its exit status (kExitTimeout after --timeout, minus the
// signal that ended it); without |capture| the line that says so.
void Finish(const Cli& cli, bool capture, Child* c) {
  using Status = waveopt::support::ChildResult::Status;
  const waveopt::support::ChildResult& r = c->process->result();
  c->rc = r.status == Status::kTimedOut ? kExitTimeout
          : r.status == Status::kExited ? r.exit_code
                                        : -r.signal;
  if (capture) return;
  if (c->rc == kExitTimeout) {
    std::printf("%s\n", TimeoutMessage(cli).c_str());
  } else if (c->rc < 0) {
    std::fprintf(stderr, "waverun: error: %s\n", CrashMessage(cli, -c->rc).c_str());
  }
}

// One child process per width (lavapipe picks its width once per process;
// a crash or a hang of the driver stays in the child), at most |jobs| at a
// time, each killed after --timeout seconds. diff: a width whose driver
// compile runs past --compile-budget is killed and run again on the
// simulator, saying so. With several widths, output comes back in width
// order, each line prefixed with "[sg=N] "; with one, the child writes
// straight to stdout and stderr. Exit: 1 if any child failed, else 5 if one
// timed out, else 3 if one found a difference, else 7 if one found a race
// in the first module, else 4 if one found it nondeterministic, else 6 if
// one was not covered, else 0.
int RunChildren(const Cli& cli, const std::vector<uint32_t>& widths) {
  bool capture = widths.size() > 1;
  std::vector<Child> children(widths.size());
  for (size_t k = 0; k < widths.size(); ++k) {
    children[k].width = widths[k];
    children[k].on_sim = CompileBudget(cli) == 0;
  }
  if (!capture && CompileBudget(cli) == 0) std::printf("%s\n", BudgetNote(cli, widths[0]).c_str());
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t jobs =
      cli.jobs > 0 ? static_cast<size_t>(cli.jobs) : static_cast<size_t>(std::max(1L, cpus));
  std::vector<size_t> pending, running;
  for (size_t k = 0; k < children.size(); ++k) pending.push_back(k);
  size_t done = 0;
  while (done < children.size()) {
    while (!pending.empty() && running.size() < jobs) {
      if (!StartChild(cli, capture, &children[pending.front()])) return Error("cannot start a run");
      running.push_back(pending.front());
      pending.erase(pending.begin());
    }
    // Every 10 ms at most: the compile reports, and the runs that ended.
    std::vector<waveopt::support::ChildProcess*> processes;
    for (size_t k : running) processes.push_back(children[k].process.get());
    waveopt::support::ChildProcess::WaitForAny(processes, 10);
    for (size_t k : running) WatchCompiles(cli, &children[k]);
    for (size_t i = 0; i < running.size();) {
      Child& c = children[running[i]];
      if (c.process->running()) {
        ++i;
        continue;
      }
      if (c.over_budget) {
        MoveToSimulator(cli, capture, &c);
        pending.insert(pending.begin(), running[i]);
      } else {
        Finish(cli, capture, &c);
        ++done;
      }
      running.erase(running.begin() + static_cast<long>(i));
    }
  }
  int worst = kExitOk;
  bool any_error = false, any_timeout = false, any_diff = false, any_nondet = false,
       any_uncovered = false, any_race = false;
  for (Child& c : children) {
    if (capture) {
      std::string prefix = "[sg=" + std::to_string(c.width) + "] ";
      if (c.on_sim) {
        std::printf("%s%s\n", prefix.c_str(), BudgetNote(cli, c.width).c_str());
      }
      PrintPrefixed(stdout, prefix, c.process->result().out);
      if (c.rc == kExitTimeout) {
        std::printf("%s%s\n", prefix.c_str(), TimeoutMessage(cli).c_str());
      }
      std::fflush(stdout);
      PrintPrefixed(stderr, prefix, c.process->result().err);
      if (c.rc < 0) {
        std::fprintf(stderr, "%swaverun: error: %s\n", prefix.c_str(),
                     CrashMessage(cli, -c.rc).c_str());
      }
    }
    any_timeout = any_timeout || c.rc == kExitTimeout;
    any_diff = any_diff || c.rc == kExitDiffer;
    any_nondet = any_nondet || c.rc == kExitNondeterministic;
    any_uncovered = any_uncovered || c.rc == kExitUncovered;
    any_race = any_race || c.rc == kExitRace;
    any_error =
        any_error || (c.rc != kExitOk && c.rc != kExitDiffer && c.rc != kExitTimeout &&
                      c.rc != kExitNondeterministic && c.rc != kExitUncovered && c.rc != kExitRace);
  }
  worst = any_error       ? kExitError
          : any_timeout   ? kExitTimeout
          : any_diff      ? kExitDiffer
          : any_race      ? kExitRace
          : any_nondet    ? kExitNondeterministic
          : any_uncovered ? kExitUncovered
                          : kExitOk;
  return worst;
}

}  // namespace
}  // namespace waverun

int main(int argc, char** argv) {
  waverun::Cli cli = waverun::ParseArgs(argc, argv);
  if (cli.command == "isa") return waverun::CommandIsa(cli);
  std::vector<uint32_t> widths = cli.widths;
  if (widths.empty()) widths.push_back(0);
  // Several runs (or --auto's search, then the runs) share one compile of
  // each GLSL/HLSL input.
  if (widths.size() > 1 || cli.auto_spec) waverun::CompileSourcesOnce(&cli);
  if (cli.auto_spec) {
    int rc = waverun::ResolveAuto(&cli);
    if (rc != 0) return rc;
  }
  return waverun::RunChildren(cli, widths);
}
