// waverun: runs, compares and times compute shaders (and fragment shaders,
// drawn as one full-screen triangle) on a Vulkan device (Mesa's lavapipe
// unless told otherwise). See docs/waverun.md.
//
// Exit codes: 0 success (diff: equal); 1 error (one line on stderr); 2 bad
// usage; 3 diff found a difference (or `time` found reps that disagree);
// 4 diff: the first module disagrees with itself (NONDETERMINISTIC); 5 a run
// did not finish in --timeout seconds (TIMEOUT); 6 diff --require-coverage:
// the rewritten code never ran.
//
// Every command runs in a child process (one per subgroup size with
// --widths): a driver that crashes on a module, or takes too long, is one
// line of report, not a crash of waverun.
#include <glob.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tools/waverun/auto_spec.h"
#include "tools/waverun/compare.h"
#include "tools/waverun/coverage.h"
#include "tools/waverun/isa.h"
#include "tools/waverun/plan.h"
#include "tools/waverun/reflect.h"
#include "tools/waverun/sim_runner.h"
#include "tools/waverun/spec.h"
#include "tools/waverun/vulkan_runner.h"
#include "waveopt/io.h"
#include "spirv-tools/libspirv.hpp"
#include "waveopt/waveopt.h"

namespace waverun {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitDiffer = 3;
constexpr int kExitNondeterministic = 4;
constexpr int kExitTimeout = 5;
constexpr int kExitUncovered = 6;

// A child process that runs longer than this is killed (--timeout).
constexpr int kDefaultTimeoutS = 300;

// Lavapipe runs loops for at most this many back-edges per subgroup (summed
// over all loops), then silently leaves them.
constexpr uint64_t kLavapipeBackEdgeLimit = 65535;

// --sim without --subgroup-size runs at this size.
constexpr uint32_t kDefaultSimWidth = 32;

const char* kUsage =
    "Usage: waverun run <shader> [options]\n"
    "       waverun diff <a> <b> [options]\n"
    "       waverun time <shader>... [options]\n"
    "       waverun probe [options]\n"
    "       waverun isa <shader>... --amd=FAMILY[,...] [--wave=32|64] [--disasm]\n"
    "Run 'waverun --help' for the options.\n";

void PrintHelp() {
  std::printf(
      "waverun: runs, compares and times compute shaders on a Vulkan device\n"
      "(Mesa's lavapipe by default); fragment shaders run as one full-screen\n"
      "triangle (spec: draw fullscreen WxH) on the device only, at 4 and 8 on lavapipe.\n\n"
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
      "  --auto                   no spec needed: dispatch, sizes, fills and compare\n"
      "                           modes from the module (printed as a spec to pin);\n"
      "                           spec files and lines given still apply first\n\n"
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
      "  --coverage               report how many of the instructions b adds to a ran\n"
      "                           (on the simulator; on a device, b also runs there)\n"
      "  --require-coverage       ... and fail (exit 6) when none of them ran\n"
      "  --timeout=S              kill a run after S seconds (default 300; 0: never)\n\n"
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
      "  --amd=FAMILY[,...]       isa: compile for these families, e.g.\n"
      "                           polaris10,vega10,navi10,navi21,gfx1100\n"
      "  --wave=32|64|32,64       isa: required subgroup size (default: RADV's)\n"
      "  --disasm                 isa: print the ISA after the table\n"
      "  --format=table|tsv|json  isa: output format (default table)\n\n"
      "Exit codes: 0 ok/equal, 1 error, 2 usage, 3 difference, 4 nondeterministic,\n"
      "5 timeout, 6 rewritten code not covered.\n",
      kUsage);
}

struct Cli {
  std::string command;
  std::vector<std::string> inputs;
  std::vector<uint32_t> widths;  // requested subgroup sizes (empty: the device's)
  std::string spec_path;
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
  bool sim = false;        // run on the wave simulator
  bool counters = false;   // print the simulator's counters
  bool check_sim = false;  // diff: check the simulator against the device
  int sim_limit = 0;       // the simulator's instruction limit (0: its default)
  bool auto_spec = false;  // --auto
  bool auto_resolved = false;  // the parent turned --auto into spec lines
  bool self_check = true;  // diff: run the first module twice
  bool coverage = false;   // diff: report the coverage of b's added instructions
  bool require_coverage = false;
  int timeout_s = kDefaultTimeoutS;
  IsaOptions isa;          // isa: families, wave sizes, format
};

[[noreturn]] void UsageError(const std::string& msg) {
  std::fprintf(stderr, "waverun: error: %s\n%s", msg.c_str(), kUsage);
  std::exit(kExitUsage);
}

int Error(const std::string& msg) {
  std::fprintf(stderr, "waverun: error: %s\n", msg.c_str());
  return kExitError;
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

Cli ParseArgs(int argc, char** argv) {
  Cli cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) -> std::string {
      std::string f = flag;
      if (a.size() > f.size() && a.compare(0, f.size() + 1, f + "=") == 0) {
        return a.substr(f.size() + 1);
      }
      if (i + 1 >= args.size()) UsageError(f + " needs a value");
      return args[++i];
    };
    auto is = [&](const char* flag) {
      std::string f = flag;
      return a == f || StartsWith(a, (f + "=").c_str());
    };
    if (a == "--help" || a == "-h") {
      PrintHelp();
      std::exit(kExitOk);
    } else if (is("--subgroup-size") || is("--widths")) {
      AddWidths(value(is("--widths") ? "--widths" : "--subgroup-size"), &cli);
    } else if (is("--spec")) {
      cli.spec_path = value("--spec");
    } else if (a == "--no-spec") {
      cli.no_spec = true;
    } else if (a == "-s" || is("--spec-line")) {
      cli.spec_lines.push_back(a == "-s" ? value("-s") : value("--spec-line"));
    } else if (is("--dispatch")) {
      std::string d = value("--dispatch");
      std::replace(d.begin(), d.end(), ',', ' ');
      cli.spec_lines.push_back("dispatch " + d);
    } else if (is("--seed")) {
      cli.spec_lines.push_back("seed " + value("--seed"));
    } else if (is("--reps")) {
      cli.spec_lines.push_back("reps " + value("--reps"));
    } else if (a == "--dump") {
      cli.dump = true;
    } else if (StartsWith(a, "--dump=")) {
      cli.dump = true;
      for (const std::string& k : SplitComma(a.substr(7))) {
        BindingKey key;
        if (!ParseBindingKey(k, &key)) UsageError("bad binding '" + k + "' in --dump");
        cli.dump_keys.push_back(key);
      }
    } else if (is("--dump-format")) {
      cli.dump_format = value("--dump-format");
      if (cli.dump_format != "u32" && cli.dump_format != "i32" && cli.dump_format != "f32" &&
          cli.dump_format != "hex") {
        UsageError("--dump-format is u32, i32, f32 or hex");
      }
    } else if (a == "-v" || a == "--verbose") {
      cli.verbose = true;
    } else if (a == "-D") {
      cli.defines.push_back(value("-D"));
    } else if (StartsWith(a, "-D")) {
      cli.defines.push_back(a.substr(2));
    } else if (is("--target-env")) {
      std::string env = value("--target-env");
      if (!waveopt::ParseTargetEnv(env, &cli.target_env)) {
        UsageError("unknown target environment '" + env + "'");
      }
    } else if (is("--icd")) {
      cli.icd = value("--icd");
    } else if (a == "--system-icds") {
      cli.system_icds = true;
    } else if (is("--device")) {
      if (!ParseInt(value("--device"), &cli.device)) UsageError("--device takes an index");
    } else if (is("--jobs") || StartsWith(a, "-j")) {
      std::string v = StartsWith(a, "-j") ? a.substr(2) : value("--jobs");
      if (!ParseInt(v, &cli.jobs) || cli.jobs < 1) UsageError("--jobs takes a count >= 1");
    } else if (is("--lp-threads")) {
      if (!ParseInt(value("--lp-threads"), &cli.lp_threads)) {
        UsageError("--lp-threads takes a count");
      }
    } else if (a == "--no-validate") {
      cli.validate = false;
    } else if (a == "--sim") {
      cli.sim = true;
    } else if (a == "--counters") {
      cli.counters = true;
    } else if (a == "--check-sim") {
      cli.check_sim = true;
    } else if (is("--sim-limit")) {
      if (!ParseInt(value("--sim-limit"), &cli.sim_limit) || cli.sim_limit < 1) {
        UsageError("--sim-limit takes a count >= 1");
      }
    } else if (a == "--auto") {
      cli.auto_spec = true;
    } else if (a == "--no-self-check") {
      cli.self_check = false;
    } else if (a == "--coverage") {
      cli.coverage = true;
    } else if (a == "--require-coverage") {
      cli.coverage = cli.require_coverage = true;
    } else if (is("--timeout")) {
      if (!ParseInt(value("--timeout"), &cli.timeout_s)) UsageError("--timeout takes seconds");
    } else if (is("--amd") || is("--wave")) {
      bool amd = is("--amd");
      std::string err;
      std::string v = value(amd ? "--amd" : "--wave");
      if (!(amd ? ParseAmdFamilies(v, &cli.isa.families, &err)
                : ParseWaves(v, &cli.isa.waves, &err))) {
        UsageError(err);
      }
    } else if (a == "--disasm") {
      cli.isa.disasm = true;
    } else if (is("--format")) {
      if (!ParseIsaFormat(value("--format"), &cli.isa.format)) {
        UsageError("--format is table, tsv or json");
      }
    } else if (StartsWith(a, "-") && a != "-") {
      UsageError("unknown option '" + a + "'");
    } else if (cli.command.empty()) {
      cli.command = a;
    } else {
      cli.inputs.push_back(a);
    }
  }
  if (cli.command.empty()) UsageError("no command");
  if (cli.command == "run") {
    if (cli.inputs.size() != 1) UsageError("run takes one shader");
  } else if (cli.command == "diff") {
    if (cli.inputs.size() != 2) UsageError("diff takes two shaders");
  } else if (cli.command == "time") {
    if (cli.inputs.empty()) UsageError("time takes one or more shaders");
  } else if (cli.command == "probe") {
    if (!cli.inputs.empty()) UsageError("probe takes no shader");
  } else if (cli.command == "isa") {
    if (cli.inputs.empty()) UsageError("isa takes one or more shaders");
    if (cli.isa.families.empty()) UsageError("isa needs --amd=FAMILY[,FAMILY...]");
    if (cli.sim || !cli.widths.empty()) UsageError("isa compiles for AMD: no --sim or sizes");
  } else {
    UsageError("unknown command '" + cli.command + "'");
  }
  if (cli.command != "isa" && (!cli.isa.families.empty() || !cli.isa.waves.empty() ||
                               cli.isa.disasm || cli.isa.format != IsaFormat::kTable)) {
    UsageError("--amd, --wave, --disasm and --format are options of isa");
  }
  if (!cli.icd.empty() && cli.system_icds) UsageError("--icd and --system-icds exclude each other");
  if (cli.no_spec && !cli.spec_path.empty()) UsageError("--spec and --no-spec exclude each other");
  if (cli.counters && !cli.sim) UsageError("--counters needs --sim");
  if (cli.check_sim && (cli.sim || cli.command != "diff")) {
    UsageError("--check-sim is for diff on a Vulkan device (without --sim)");
  }
  if (cli.coverage && cli.command != "diff") UsageError("--coverage is for diff");
  if (cli.auto_spec && cli.command != "run" && cli.command != "diff") {
    UsageError("--auto is for run and diff");
  }
  return cli;
}

// Points the Vulkan loader at lavapipe (or the user's choice) and sets
// lavapipe's knobs. Must run before the first Vulkan call of the process.
bool SetUpEnvironment(const Cli& cli, uint32_t width, std::string* error) {
  std::string icd = cli.icd;
  if (icd.empty() && !cli.system_icds) {
    glob_t g;
    const char* patterns[] = {"/usr/share/vulkan/icd.d/lvp_icd*.json",
                              "/usr/local/share/vulkan/icd.d/lvp_icd*.json",
                              "/etc/vulkan/icd.d/lvp_icd*.json"};
    for (const char* pattern : patterns) {
      if (icd.empty() && glob(pattern, 0, nullptr, &g) == 0) {
        if (g.gl_pathc > 0) icd = g.gl_pathv[0];
        globfree(&g);
      }
    }
    if (icd.empty()) {
      *error = "no Vulkan device: lavapipe's ICD (lvp_icd*.json) is not installed "
               "(mesa-vulkan-drivers); use --system-icds or --icd=FILE for another driver";
      return false;
    }
  }
  if (!icd.empty()) {
    if (access(icd.c_str(), R_OK) != 0) {
      *error = "no Vulkan device: cannot read ICD file '" + icd + "'";
      return false;
    }
    setenv("VK_ICD_FILENAMES", icd.c_str(), 1);
    setenv("VK_DRIVER_FILES", icd.c_str(), 1);
  }
  // Mesa's shader cache ignores LP_NATIVE_VECTOR_WIDTH: with it on, a sweep
  // would silently reuse one width's code at every width.
  setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
  setenv("LP_NUM_THREADS", std::to_string(cli.lp_threads).c_str(), 1);
  if (width != 0) {
    setenv("LP_NATIVE_VECTOR_WIDTH", std::to_string(width * 32).c_str(), 1);
  }
  return true;
}

std::string Extension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot);
}

std::string Directory(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// True when |words| validates with the block layouts Vulkan devices enable
// as features (scalar and relaxed block layout, standard layout for uniform
// buffers, scalar workgroup memory: VK_EXT_scalar_block_layout and friends,
// which lavapipe has): modules compiled for them (layout(scalar)) are valid.
bool ValidWithDeviceLayouts(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(waveopt::DefaultTargetEnv(words));
  spvtools::ValidatorOptions options;
  options.SetFriendlyNames(false);
  options.SetRelaxBlockLayout(true);
  options.SetScalarBlockLayout(true);
  options.SetUniformBufferStandardLayout(true);
  options.SetWorkgroupScalarBlockLayout(true);
  return tools.Validate(words.data(), words.size(), options);
}

// Reads |path| as SPIR-V binary, SPIR-V text, GLSL or HLSL (by extension) and
// validates it.
bool LoadModule(const Cli& cli, const std::string& path, std::vector<uint32_t>* words,
                std::string* error) {
  std::string contents;
  if (!waveopt::ReadFile(path, &contents, error)) {
    if (error->find(path) == std::string::npos) *error = path + ": " + *error;
    return false;
  }
  std::string ext = Extension(path);
  std::string err;
  bool ok;
  if (ext == ".spv") {
    ok = waveopt::BytesToWords(contents, words, &err);
  } else if (ext == ".spvasm" || ext == ".spvas") {
    ok = waveopt::AssembleText(contents, cli.target_env, words, &err);
  } else if (ext == ".hlsl" || ext == ".glsl" || !waveopt::StageForExtension(ext).empty()) {
    waveopt::CompileOptions options;
    options.language = ext == ".hlsl" ? waveopt::SourceLanguage::kHlsl
                                      : waveopt::SourceLanguage::kGlsl;
    if (ext == ".glsl") options.stage = "comp";
    options.defines = cli.defines;
    options.include_dirs.push_back(Directory(path));
    options.target_env = cli.target_env;
    ok = waveopt::CompileShader(contents, path, options, words, &err);
  } else {
    *error = path + ": unknown shader type '" + ext +
             "' (expected .spv, .spvasm, .comp, .glsl or .hlsl)";
    return false;
  }
  if (!ok) {
    *error = err.rfind(path, 0) == 0 ? err : path + ": " + err;
    return false;
  }
  if (cli.validate && !waveopt::ValidateModule(*words, waveopt::DefaultTargetEnv(*words), &err) &&
      !ValidWithDeviceLayouts(*words)) {
    *error = path + ": invalid module: " + err;
    return false;
  }
  return true;
}

// The RunSpec for a run whose first shader is |first|.
bool LoadSpec(const Cli& cli, const std::string& first, RunSpec* spec, std::string* error) {
  *spec = RunSpec();
  if (!cli.no_spec) {
    std::string path = cli.spec_path.empty() ? SpecPathFor(first) : cli.spec_path;
    std::string text;
    if (access(path.c_str(), F_OK) == 0 || !cli.spec_path.empty()) {
      if (!waveopt::ReadFile(path, &text, error)) {
        if (error->find(path) == std::string::npos) *error = path + ": " + *error;
        return false;
      }
      if (!ApplySpecText(text, path, spec, error)) return false;
    }
  }
  for (size_t i = 0; i < cli.spec_lines.size(); ++i) {
    if (!ApplySpecLine(cli.spec_lines[i], "command line", spec, error)) return false;
  }
  return true;
}

struct Module {
  std::string path;
  std::vector<uint32_t> words;
  ModuleInterface iface;
  Plan plan;
};

// Loads and reflects |path| with |spec|'s specialization constants.
bool LoadAndReflect(const Cli& cli, const std::string& path, const RunSpec& spec, Module* m,
                    std::string* error) {
  m->path = path;
  if (!LoadModule(cli, path, &m->words, error)) return false;
  if (spec.separate_kinds && !SeparateBindingKinds(&m->words, error)) {
    *error = path + ": " + *error;
    return false;
  }
  if (!ReflectModule(m->words, spec.constants, &m->iface, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

// Reflects the modules and builds their plans: for diff one plan from both
// interfaces (the same bytes for both; each binds what it declares), else
// one per module.
bool PrepareModules(const Cli& cli, const RunSpec& spec, std::vector<Module>* modules,
                    std::string* error) {
  for (size_t i = 0; i < cli.inputs.size(); ++i) {
    if (!LoadAndReflect(cli, cli.inputs[i], spec, &(*modules)[i], error)) return false;
  }
  if (cli.command == "diff") {
    Module& a = (*modules)[0];
    Module& b = (*modules)[1];
    ModuleInterface merged;
    Plan plan;
    if (!MergeInterfaces(a.iface, b.iface, &merged, error)) {
      *error = a.path + " and " + b.path + " cannot share inputs: " + *error;
      return false;
    }
    if (!BuildPlan(merged, spec, &plan, error)) {
      *error = a.path + ": " + *error;
      return false;
    }
    a.plan = PlanForModule(plan, a.iface, spec);
    b.plan = PlanForModule(plan, b.iface, spec);
    return true;
  }
  for (Module& m : *modules) {
    if (!BuildPlan(m.iface, spec, &m.plan, error)) {
      *error = m.path + ": " + *error;
      return false;
    }
  }
  return true;
}

// Warns when a module with loops binds an array long enough that a subgroup
// looping over it would pass lavapipe's back-edge limit.
void WarnBackEdges(const Module& m) {
  if (!m.iface.has_loops) return;
  for (const ResourcePlan& r : m.plan.resources) {
    uint64_t n = r.width != 0 ? uint64_t{r.width} * r.height * r.depth : r.elements;
    if (n >= kLavapipeBackEdgeLimit) {
      std::fprintf(stderr,
                   "waverun: warning: %s: %s has %" PRIu64
                   " elements and the module loops: a subgroup that loops over it passes "
                   "lavapipe's limit of 65,535 back-edges per subgroup and stops looping "
                   "silently\n",
                   m.path.c_str(), ResourceLabel(r).c_str(), n);
      return;
    }
  }
}

const char* kProbeShader = R"(#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) buffer Lanes { uint lanes[]; };
void main() {
  lanes[gl_LocalInvocationIndex] = subgroupBallotBitCount(subgroupBallot(true));
}
)";

// Runs a 128-invocation workgroup and returns the largest number of lanes
// that ran together in one subgroup.
bool ProbeLanes(Device* device, uint32_t* lanes, std::string* error) {
  std::vector<uint32_t> words;
  waveopt::CompileOptions options;
  options.stage = "comp";
  std::string err;
  if (!waveopt::CompileShader(kProbeShader, "probe.comp", options, &words, &err)) {
    *error = "probe: " + err;
    return false;
  }
  ModuleInterface iface;
  RunSpec spec;
  Plan plan;
  if (!ReflectModule(words, {}, &iface, &err) ||
      !ApplySpecLine("binding 0.0 size=128 fill=zero", "probe", &spec, &err) ||
      !BuildPlan(iface, spec, &plan, &err)) {
    *error = "probe: " + err;
    return false;
  }
  std::unique_ptr<Program> program = device->CreateProgram(words, iface.entry_point, plan, &err);
  Outputs out;
  double ns;
  if (!program || !program->Run(&out, &ns, &err)) {
    *error = "probe: " + err;
    return false;
  }
  *lanes = 0;
  for (size_t i = 0; i + 4 <= out[0].size(); i += 4) {
    uint32_t v;
    std::memcpy(&v, out[0].data() + i, 4);
    *lanes = std::max(*lanes, v);
  }
  return true;
}

// Checks that |device| runs subgroups of |width| lanes (0: whatever it has).
bool CheckWidth(Device* device, uint32_t width, uint32_t* lanes_out, std::string* error) {
  const DeviceInfo& info = device->info();
  if (width != 0 && info.subgroup_size != width) {
    if (info.is_lavapipe) {
      *error = "lavapipe reports subgroup size " + std::to_string(info.subgroup_size) +
               " with LP_NATIVE_VECTOR_WIDTH=" + std::to_string(width * 32) + ", not " +
               std::to_string(width) + "; it can run 4, 8 and 16";
    } else {
      *error = "device '" + info.name + "' has subgroup size " +
               std::to_string(info.subgroup_size) + "; --subgroup-size=" +
               std::to_string(width) + " can be chosen only on lavapipe";
    }
    return false;
  }
  uint32_t lanes = 0;
  if (!ProbeLanes(device, &lanes, error)) return false;
  if (lanes_out) *lanes_out = lanes;
  if (lanes != info.subgroup_size) {
    std::string what = "device '" + info.name + "' reports subgroup size " +
                       std::to_string(info.subgroup_size) + " but runs " +
                       std::to_string(lanes) + " lanes per subgroup";
    if (info.is_lavapipe && info.subgroup_size > 16) {
      *error = "subgroup size " + std::to_string(info.subgroup_size) +
               " is not available: lavapipe (LP_NATIVE_VECTOR_WIDTH=" +
               std::to_string(info.subgroup_size * 32) + ") reports " +
               std::to_string(info.subgroup_size) + " but runs " + std::to_string(lanes) +
               " lanes; sizes 32 and 64 come from the wave simulator (--sim)";
    } else {
      *error = what;
    }
    return false;
  }
  return true;
}

std::string FormatWord(uint32_t v, const std::string& format) {
  char buf[48];
  if (format == "hex") {
    std::snprintf(buf, sizeof(buf), "0x%08" PRIx32, v);
  } else if (format == "i32") {
    std::snprintf(buf, sizeof(buf), "%" PRId32, static_cast<int32_t>(v));
  } else if (format == "f32") {
    float f;
    std::memcpy(&f, &v, 4);
    std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(f));
  } else {
    std::snprintf(buf, sizeof(buf), "%" PRIu32, v);
  }
  return buf;
}

// Prints the simulator's counters of |program|'s last run: "counters[ LABEL]:"
// then one "  name value" line per counter.
void PrintCounters(const std::string& label, const Program* program) {
  std::printf("counters%s%s:\n", label.empty() ? "" : " ", label.c_str());
  std::stringstream ss(SimCountersText(program));
  std::string line;
  while (std::getline(ss, line)) std::printf("  %s\n", line.c_str());
}

// Float tolerance of --check-sim: lavapipe's compiler may reassociate float
// additions and fuse multiply-adds (NIR's inexact algebraic rules), which
// the simulator does not.
constexpr int64_t kCheckSimUlps = 8;

// True when 32-bit words |a| and |b| are both normal floats of the same sign
// within kCheckSimUlps units in the last place.
bool NearFloats(uint32_t a, uint32_t b) {
  auto normal = [](uint32_t v) {
    uint32_t e = (v >> 23) & 0xffu;
    return e != 0 && e != 0xffu;
  };
  if (!normal(a) || !normal(b) || (a >> 31) != (b >> 31)) return false;
  int64_t d = static_cast<int64_t>(a & 0x7fffffffu) - static_cast<int64_t>(b & 0x7fffffffu);
  return d >= -kCheckSimUlps && d <= kCheckSimUlps;
}

SimOptions MakeSimOptions(const Cli& cli) {
  SimOptions o;
  o.instruction_limit = static_cast<uint64_t>(cli.sim_limit);
  return o;
}

// --check-sim: runs |m| on the simulator at |width| lanes, with lavapipe's
// subgroup layout, and compares its outputs with |device_out| (the
// device's) under the plan's compare modes; exact-compared words that differ
// count as agreeing when they are normal floats within kCheckSimUlps.
// Prints "sim check: ..." and returns false (with |error|) when they differ.
bool CheckSim(const Cli& cli, Module* m, uint32_t width, const Outputs& device_out,
              const std::string& name, std::string* error) {
  SimOptions options = MakeSimOptions(cli);
  options.lavapipe_layout = true;
  std::unique_ptr<Device> sim = CreateSimDevice(width, options);
  std::unique_ptr<Program> program =
      sim->CreateProgram(m->words, m->iface.entry_point, m->plan, error);
  Outputs out;
  double ns;
  if (!program || !program->Run(&out, &ns, error)) {
    *error = m->path + ": " + *error;
    return false;
  }
  std::vector<std::string> report;
  size_t near_words = 0;
  std::vector<CompareUnit> units = ComparedUnits(m->plan);
  if (CompareOutputs(m->plan, device_out, out, "device", "sim", &report) != 0) {
    bool near = true;
    for (const CompareUnit& u : units) {
      if (!near) break;
      bool exact_words = true;
      if (u.output < m->plan.resources.size()) {
        const Compare& c = m->plan.resources[u.output].compare;
        exact_words = c.kind == Compare::Kind::kExact || c.kind == Compare::Kind::kUlp;
      }
      for (uint64_t w = u.begin; w + 4 <= u.end && near; w += 4) {
        uint32_t x, y;
        std::memcpy(&x, device_out[u.output].data() + w, 4);
        std::memcpy(&y, out[u.output].data() + w, 4);
        if (x == y) continue;
        near = exact_words && NearFloats(x, y);
        ++near_words;
      }
    }
    if (!near) {
      *error = "the simulator disagrees with the device on " + name + " = " + m->path + ": " +
               (report.empty() ? std::string("outputs differ") : report[0]);
      return false;
    }
  }
  bool identical = true;
  for (const CompareUnit& u : units) {
    identical = identical && std::equal(out[u.output].begin() + u.begin,
                                        out[u.output].begin() + u.end,
                                        device_out[u.output].begin() + u.begin);
  }
  if (near_words > 0) {
    std::printf("sim check: %s equals the device's outputs but for %zu float word%s within %d "
                "ulps\n",
                name.c_str(), near_words, near_words == 1 ? "" : "s",
                static_cast<int>(kCheckSimUlps));
  } else {
    std::printf("sim check: %s %s the device's outputs\n", name.c_str(),
                identical ? "is identical to" : "equals (under the compare modes)");
  }
  return true;
}

// "(loads read zero, stores dropped)" notes from the simulator's counters.
std::string OutOfBounds(const Program* program) {
  const waveopt::sim::Counters* c = SimCounters(program);
  if (!c || c->out_of_bounds == 0) return "";
  std::string s = std::to_string(c->out_of_bounds) + " lane access" +
                  (c->out_of_bounds == 1 ? "" : "es") + " out of bounds";
  if (c->wild_pointer_accesses) {
    s += " (" + std::to_string(c->wild_pointer_accesses) +
         " through device addresses outside every buffer)";
  }
  return s;
}

int CommandRun(const Cli& cli, Device* device, Module* m) {
  std::string err;
  std::unique_ptr<Program> program = device->CreateProgram(m->words, m->iface.entry_point,
                                                           m->plan, &err);
  Outputs out;
  double ns;
  if (!program || !program->Run(&out, &ns, &err)) return Error(m->path + ": " + err);
  if (cli.counters) PrintCounters("", program.get());
  for (size_t i = 0; i < m->plan.resources.size(); ++i) {
    const ResourcePlan& r = m->plan.resources[i];
    bool listed = std::find(cli.dump_keys.begin(), cli.dump_keys.end(), r.key) !=
                  cli.dump_keys.end();
    if (!(cli.dump_keys.empty() ? r.res.writable : listed)) continue;
    if (r.element_bytes == 0) continue;
    size_t words = out[i].size() / 4;
    std::printf("%s: %zu words, fnv1a64 %016" PRIx64 "\n", ResourceLabel(r).c_str(), words,
                Fingerprint(out[i]));
    if (!cli.dump) continue;
    for (size_t w = 0; w < words; w += 8) {
      std::string line = "  [" + std::to_string(w) + "]";
      for (size_t k = w; k < std::min(words, w + 8); ++k) {
        uint32_t v;
        std::memcpy(&v, out[i].data() + k * 4, 4);
        line += " " + FormatWord(v, cli.dump_format);
      }
      std::printf("%s\n", line.c_str());
    }
  }
  if (cli.dump_keys.empty()) {
    for (size_t k = 0; k < m->plan.pointees.size(); ++k) {
      const std::vector<uint8_t>& bytes = out[m->plan.resources.size() + k];
      std::printf("pointer %s: %zu words, fnv1a64 %016" PRIx64 "\n",
                  m->plan.pointees[k].label.c_str(), bytes.size() / 4, Fingerprint(bytes));
    }
  }
  std::string oob = OutOfBounds(program.get());
  if (!oob.empty()) {
    std::printf("out of bounds: %s (loads read zero, stores dropped)\n", oob.c_str());
  }
  return kExitOk;
}

// Bindings only one module of a diff declares: compared with their initial
// contents (a module that does not declare a binding leaves it as it was).
void PrintOneSided(const Module& a, const Module& b) {
  for (size_t i = 0; i < a.plan.resources.size(); ++i) {
    const ResourcePlan& ra = a.plan.resources[i];
    const ResourcePlan& rb = b.plan.resources[i];
    if (ra.declared == rb.declared) continue;
    const char* who = ra.declared ? "a" : "b";
    const char* other = ra.declared ? "b" : "a";
    if (ra.res.writable && ra.compare.kind != Compare::Kind::kIgnore) {
      std::printf("note: %s is declared only by %s: compared with its initial contents, which %s "
                  "leaves as they are\n",
                  ResourceLabel(ra).c_str(), who, other);
    } else {
      std::printf("note: %s is declared only by %s (read-only there): skipped\n",
                  ResourceLabel(ra).c_str(), who);
    }
  }
}

// Coverage of the instructions b adds, from a simulator run of b that
// counted instructions. Returns the exit status it implies (kExitOk or
// kExitUncovered) and prints one line.
int ReportCoverage(const Cli& cli, const Module& a, const Module& b,
                   const waveopt::sim::Counters* counters, const std::string& unavailable) {
  std::vector<uint32_t> added = AddedInstructions(a.words, b.words);
  if (added.empty()) {
    std::printf("coverage: b adds no instructions to a\n");
    return kExitOk;
  }
  if (!counters) {
    std::printf("coverage: unknown (%s)\n", unavailable.c_str());
    if (cli.require_coverage) {
      Error("--require-coverage: the coverage of b's " + std::to_string(added.size()) +
            " added instructions is unknown (" + unavailable + ")");
      return kExitError;
    }
    return kExitOk;
  }
  Coverage c = MeasureCoverage(added, counters->instruction_counts);
  if (c.executed == 0) {
    std::printf("coverage: none of the %zu instructions b adds ran: these inputs do not exercise "
                "the rewrite\n",
                c.added);
    if (cli.require_coverage) return kExitUncovered;
    if (cli.auto_resolved) {
      std::fprintf(stderr,
                   "waverun: warning: the rewrite in %s never ran with the --auto inputs; an "
                   "equal result says nothing about it\n",
                   b.path.c_str());
    }
    return kExitOk;
  }
  std::printf("coverage: %zu of %zu instructions b adds ran (%" PRIu64 " subgroup, %" PRIu64
              " lane executions)\n",
              c.executed, c.added, c.subgroups, c.lanes);
  return kExitOk;
}

int CommandDiff(const Cli& cli, Device* device, Module* a, Module* b) {
  std::string err;
  PrintOneSided(*a, *b);
  Outputs out_a, out_b, out_a2;
  double ns;
  bool sim = cli.sim;
  std::unique_ptr<Program> pa =
      device->CreateProgram(a->words, a->iface.entry_point, a->plan, &err);
  if (!pa || !pa->Run(&out_a, &ns, &err)) return Error(a->path + ": " + err);
  if (cli.counters) PrintCounters("a", pa.get());
  std::string oob_a = OutOfBounds(pa.get());
  // Self-check: the first module again. On a device the same pipeline runs
  // twice; on the simulator the second run starts with junk in undefined
  // memory and a different poison value.
  std::vector<std::string> unstable;
  std::vector<std::string> unstable_report;
  if (cli.self_check) {
    std::unique_ptr<Program> again;
    Program* second = pa.get();
    if (sim) {
      SimOptions options = MakeSimOptions(cli);
      options.junk_seed = 0x5eed;
      std::unique_ptr<Device> junk = CreateSimDevice(device->info().subgroup_size, options);
      again = junk->CreateProgram(a->words, a->iface.entry_point, a->plan, &err);
      if (!again) return Error(a->path + ": " + err);
      second = again.get();
    }
    if (!second->Run(&out_a2, &ns, &err)) return Error(a->path + ": " + err);
    CompareOutputs(a->plan, out_a, out_a2, "run1", "run2", &unstable_report, nullptr, &unstable);
  }
  SimOptions b_options = MakeSimOptions(cli);
  // Coverage: with --coverage; with --auto on the simulator (on a device it
  // would cost a simulation of b besides).
  bool want_coverage = cli.coverage || (cli.auto_resolved && sim);
  b_options.count_instructions = want_coverage;
  std::unique_ptr<Device> counting;
  Device* b_device = device;
  if (sim && b_options.count_instructions) {
    counting = CreateSimDevice(device->info().subgroup_size, b_options);
    b_device = counting.get();
  }
  std::unique_ptr<Program> pb =
      b_device->CreateProgram(b->words, b->iface.entry_point, b->plan, &err);
  if (!pb || !pb->Run(&out_b, &ns, &err)) return Error(b->path + ": " + err);
  if (cli.counters) PrintCounters("b", pb.get());
  std::string oob_b = OutOfBounds(pb.get());
  if (cli.check_sim) {
    uint32_t width = device->info().subgroup_size;
    if (!CheckSim(cli, a, width, out_a, "a", &err) || !CheckSim(cli, b, width, out_b, "b", &err)) {
      return Error(err);
    }
  }
  if (!oob_a.empty() || !oob_b.empty()) {
    std::printf("out of bounds: a %s, b %s (loads read zero, stores dropped)\n",
                oob_a.empty() ? "none" : oob_a.c_str(), oob_b.empty() ? "none" : oob_b.c_str());
  }
  // Coverage of b's added instructions.
  int coverage_status = kExitOk;
  if (want_coverage) {
    const waveopt::sim::Counters* counters = nullptr;
    std::string unavailable;
    std::unique_ptr<Program> pc;
    if (sim) {
      counters = SimCounters(pb.get());
    } else if (b->iface.stage == Stage::kFragment) {
      unavailable = "the wave simulator runs compute shaders only";
    } else {
      SimOptions options = b_options;
      options.lavapipe_layout = true;
      std::unique_ptr<Device> s = CreateSimDevice(device->info().subgroup_size, options);
      Outputs out_c;
      pc = s->CreateProgram(b->words, b->iface.entry_point, b->plan, &err);
      if (pc && pc->Run(&out_c, &ns, &err)) {
        counters = SimCounters(pc.get());
      } else {
        unavailable = err;
      }
    }
    coverage_status = ReportCoverage(cli, *a, *b, counters, unavailable);
    if (coverage_status == kExitError) return kExitError;
  }
  std::vector<std::string> report;
  int differing = CompareOutputs(a->plan, out_a, out_b, "a", "b", &report, &unstable);
  std::vector<CompareUnit> units = ComparedUnits(a->plan);
  int compared = 0;
  for (const CompareUnit& u : units) {
    if (std::find(unstable.begin(), unstable.end(), u.label) != unstable.end()) continue;
    ++compared;
    if (cli.verbose) {
      const Compare& c = u.output < a->plan.resources.size()
                             ? a->plan.resources[u.output].compare
                             : a->plan.pointees[u.output - a->plan.resources.size()].compare;
      std::printf("  %s [%s]\n", u.label.c_str(), CompareName(c).c_str());
    }
  }
  if (!unstable.empty()) {
    std::printf("NONDETERMINISTIC: a disagrees with itself on %zu of %zu bindings, not compared "
                "(a = %s)\n",
                unstable.size(), units.size(), a->path.c_str());
    for (const std::string& line : unstable_report) std::printf("  %s\n", line.c_str());
  }
  if (differing == 0) {
    std::printf("equal: %d binding%s compared (a = %s, b = %s)\n", compared,
                compared == 1 ? "" : "s", a->path.c_str(), b->path.c_str());
    if (!unstable.empty()) return kExitNondeterministic;
    if (coverage_status == kExitUncovered) {
      std::printf("NOT COVERED: the rewritten code never ran (--require-coverage)\n");
    }
    return coverage_status;
  }
  std::printf("DIFFERENT: %d of %d bindings differ (a = %s, b = %s)\n", differing, compared,
              a->path.c_str(), b->path.c_str());
  for (const std::string& line : report) std::printf("  %s\n", line.c_str());
  return kExitDiffer;
}

int CommandTime(const Cli& cli, Device* device, std::vector<Module>* modules) {
  const DeviceInfo& info = device->info();
  std::printf("device: %s%s%s, subgroup size %u, %s\n", info.name.c_str(),
              info.driver.empty() ? "" : ", driver ", info.driver.c_str(), info.subgroup_size,
              info.timestamps ? "timestamp queries" : "wall clock (no timestamp queries)");
  struct Row {
    std::string name;
    double min_us, median_us;
  };
  std::vector<Row> rows;
  int status = kExitOk;
  for (Module& m : *modules) {
    std::string err;
    std::unique_ptr<Program> program =
        device->CreateProgram(m.words, m.iface.entry_point, m.plan, &err);
    Outputs first, out;
    double ns;
    // The first run compiles and warms caches: not timed.
    if (!program || !program->Run(&first, &ns, &err)) return Error(m.path + ": " + err);
    std::vector<double> times;
    for (uint32_t rep = 0; rep < m.plan.reps; ++rep) {
      if (!program->Run(&out, &ns, &err)) return Error(m.path + ": " + err);
      times.push_back(ns / 1000.0);
      std::vector<std::string> report;
      if (CompareOutputs(m.plan, first, out, "first", "rep" + std::to_string(rep + 1),
                         &report) != 0) {
        std::printf("%s: rep %u's outputs differ from the first run's:\n", m.path.c_str(),
                    rep + 1);
        for (const std::string& line : report) std::printf("  %s\n", line.c_str());
        status = kExitDiffer;
        break;
      }
    }
    if (cli.counters) PrintCounters(m.path, program.get());
    std::sort(times.begin(), times.end());
    size_t n = times.size();
    double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    rows.push_back({m.path, times[0], median});
  }
  size_t width = 6;
  for (const Row& r : rows) width = std::max(width, r.name.size());
  std::printf("%-*s %12s %12s %6s %10s\n", static_cast<int>(width), "module", "min_us",
              "median_us", "reps", "vs_first");
  for (size_t i = 0; i < rows.size(); ++i) {
    std::printf("%-*s %12.3f %12.3f %6u %9.2fx\n", static_cast<int>(width), rows[i].name.c_str(),
                rows[i].min_us, rows[i].median_us, (*modules)[i].plan.reps,
                rows[i].median_us > 0 ? rows[0].median_us / rows[i].median_us : 0.0);
  }
  return status;
}

// Fails (one line in |error|) when |m| needs a descriptor feature the
// device lacks: drivers do not check, they read the wrong descriptors.
bool CheckDeviceFeatures(const DeviceInfo& info, const Module& m, std::string* error) {
  for (const ResourcePlan& r : m.plan.resources) {
    if (r.declared && r.res.descriptor_array && r.res.descriptor_count == 0 &&
        !info.runtime_descriptor_arrays) {
      *error = ResourceLabel(r) + ": a runtime-sized descriptor array needs "
               "runtimeDescriptorArray, which device '" + info.name +
               "' does not have; run it on the simulator (--sim)";
      return false;
    }
  }
  static const struct {
    uint32_t capability;
    bool DeviceInfo::*feature;
    const char* what;
  } kNonUniform[] = {
      {5306, &DeviceInfo::nonuniform_ubo, "uniform buffers"},
      {5307, &DeviceInfo::nonuniform_sampled, "sampled images"},
      {5308, &DeviceInfo::nonuniform_ssbo, "storage buffers"},
      {5309, &DeviceInfo::nonuniform_storage_image, "storage images"},
      {5311, &DeviceInfo::nonuniform_utb, "uniform texel buffers"},
      {5312, &DeviceInfo::nonuniform_stb, "storage texel buffers"},
  };
  for (const auto& n : kNonUniform) {
    if (std::find(m.iface.capabilities.begin(), m.iface.capabilities.end(), n.capability) !=
            m.iface.capabilities.end() &&
        !(info.*n.feature)) {
      *error = std::string("the module indexes arrays of ") + n.what +
               " non-uniformly, which device '" + info.name +
               "' does not support; run it on the simulator (--sim)";
      return false;
    }
  }
  return true;
}

// waverun isa: loads every module (GLSL, HLSL, SPIR-V) and hands them to
// RunIsa (isa.cpp), which compiles them with RADV in child processes.
int CommandIsa(const Cli& cli) {
  std::vector<IsaModule> modules(cli.inputs.size());
  std::string err;
  for (size_t i = 0; i < cli.inputs.size(); ++i) {
    modules[i].path = cli.inputs[i];
    if (!LoadModule(cli, cli.inputs[i], &modules[i].words, &err)) return Error(err);
  }
  IsaOptions options = cli.isa;
  options.icd = cli.icd;
  options.jobs = cli.jobs;
  return RunIsa(modules, options);
}

// Runs the command in this process at subgroup size |width| (0: the
// device's own).
int RunCommand(const Cli& cli, uint32_t width) {
  std::string err;
  if (!cli.sim && !SetUpEnvironment(cli, width, &err)) return Error(err);
  std::vector<Module> modules(cli.inputs.size());
  RunSpec spec;
  if (!cli.inputs.empty()) {
    if (!LoadSpec(cli, cli.inputs[0], &spec, &err)) return Error(err);
    if (!PrepareModules(cli, spec, &modules, &err)) return Error(err);
  }
  for (const Module& m : modules) {
    if (m.iface.stage != Stage::kFragment) continue;
    if (cli.sim || cli.check_sim) {
      return Error(m.path + ": a fragment shader: the wave simulator (" +
                   (cli.sim ? "--sim" : "--check-sim") +
                   ") runs compute shaders only; run it on lavapipe at sizes 4 and 8");
    }
  }
  SimOptions options = MakeSimOptions(cli);
  std::unique_ptr<Device> device =
      cli.sim ? CreateSimDevice(width != 0 ? width : kDefaultSimWidth, options)
              : Device::Create(cli.device, /*robust=*/cli.command != "time", &err);
  if (!device) return Error(err);
  for (const Module& m : modules) {
    if (m.iface.stage == Stage::kFragment && device->info().is_lavapipe &&
        device->info().subgroup_size >= 16) {
      return Error(m.path + ": a fragment shader at subgroup size " +
                   std::to_string(device->info().subgroup_size) +
                   ": lavapipe hangs drawing at LP_NATIVE_VECTOR_WIDTH=" +
                   std::to_string(device->info().subgroup_size * 32) +
                   "; fragment shaders run at sizes 4 and 8");
    }
  }
  if (cli.command == "probe") {
    const DeviceInfo& info = device->info();
    uint32_t lanes = 0;
    bool ok = CheckWidth(device.get(), width, &lanes, &err);
    std::printf("device: %s\nreported subgroup size: %u\nlanes per full subgroup: %u\n",
                info.name.c_str(), info.subgroup_size, lanes);
    if (!ok) return Error(err);
    std::printf("honest: yes\n");
    return kExitOk;
  }
  if (width != 0 && !CheckWidth(device.get(), width, nullptr, &err)) return Error(err);
  if (!cli.sim) {
    for (const Module& m : modules) {
      if (!CheckDeviceFeatures(device->info(), m, &err)) return Error(m.path + ": " + err);
    }
  }
  if (device->info().is_lavapipe) {
    for (const Module& m : modules) WarnBackEdges(m);
  }
  if (cli.command == "run") return CommandRun(cli, device.get(), &modules[0]);
  if (cli.command == "diff") return CommandDiff(cli, device.get(), &modules[0], &modules[1]);
  return CommandTime(cli, device.get(), &modules);
}

std::string ReadAll(FILE* f);

// The auto spec of |cli|'s modules as spec-file text, then "# note" lines.
int AutoSpecText(const Cli& cli, std::string* text) {
  std::string err;
  RunSpec spec;
  if (!LoadSpec(cli, cli.inputs[0], &spec, &err)) return Error(err);
  std::vector<Module> modules(cli.inputs.size());
  std::vector<std::string> notes;
  for (size_t i = 0; i < cli.inputs.size(); ++i) {
    if (LoadAndReflect(cli, cli.inputs[i], spec, &modules[i], &err)) continue;
    // Variables of different kinds on one binding cannot be bound as they
    // are; moved to a binding per kind (in both modules alike), they can.
    if (spec.separate_kinds || err.find("variables of different kinds share it") == std::string::npos) {
      return Error(err);
    }
    std::string what = err.substr(err.find("binding "));
    what = what.substr(0, what.find("; the spec line"));
    notes.push_back("separate-kinds: " + what +
                    "; every binding B moves to B*8+kind (storage buffer 0, uniform buffer 1, "
                    "storage image 2, sampled image 3, separate image 4, sampler 5, uniform "
                    "texel buffer 6, storage texel buffer 7)");
    spec.separate_kinds = true;
    modules.assign(cli.inputs.size(), Module());
    i = static_cast<size_t>(-1);  // again from the first module, renumbered
  }
  if (modules[0].iface.stage == Stage::kFragment) {
    return Error(modules[0].path + ": --auto is for compute shaders; give a fragment shader a "
                 "spec with 'draw fullscreen WxH' and its bindings' sizes");
  }
  ModuleInterface iface = modules[0].iface;
  if (modules.size() == 2 && !MergeInterfaces(modules[0].iface, modules[1].iface, &iface, &err)) {
    return Error(modules[0].path + " and " + modules[1].path + " cannot share inputs: " + err);
  }
  AutoSpec(iface, &spec, &notes);
  *text = FormatSpec(spec);
  for (const std::string& n : notes) *text += "# " + n + "\n";
  return kExitOk;
}

// --auto, before the runs: completes the spec from the modules' interface
// (in a child process, like every step that reads the modules), prints it
// (with how bindings are compared), then gives it to the runs as spec lines.
int ResolveAuto(Cli* cli) {
  FILE* out = std::tmpfile();
  if (!out) return Error("cannot create a temporary file");
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return Error("cannot fork");
  if (pid == 0) {
    std::string text;
    int rc = AutoSpecText(*cli, &text);
    std::fwrite(text.data(), 1, text.size(), out);
    std::fflush(out);
    std::fflush(stderr);
    _exit(rc);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return Error("wait failed");
  if (!WIFEXITED(status)) {
    return Error(std::string("reading the modules crashed (signal ") +
                 std::to_string(WTERMSIG(status)) + ", " + strsignal(WTERMSIG(status)) + ")" +
                 (cli->validate ? "" : " on a module that was not validated (--no-validate)"));
  }
  if (WEXITSTATUS(status) != kExitOk) return WEXITSTATUS(status);
  std::string text = ReadAll(out);
  std::fclose(out);
  std::printf("# waverun --auto: the spec used (save it as a .waverun file to pin it)\n%s",
              text.c_str());
  std::fflush(stdout);
  cli->spec_lines.clear();
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) cli->spec_lines.push_back(line);
  cli->no_spec = true;
  cli->spec_path.clear();
  cli->auto_resolved = true;
  return kExitOk;
}

// Prints |text| line by line with |prefix| to |stream|.
void PrintPrefixed(FILE* stream, const std::string& prefix, const std::string& text) {
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) std::fprintf(stream, "%s%s\n", prefix.c_str(), line.c_str());
}

std::string ReadAll(FILE* f) {
  std::string s;
  std::rewind(f);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s.append(buf, n);
  return s;
}

// One line for a run killed after --timeout seconds.
std::string TimeoutMessage(const Cli& cli) {
  return "TIMEOUT: no result after " + std::to_string(cli.timeout_s) + " s (" +
         (cli.sim ? "a long simulation; --sim-limit=N stops one after N instructions"
                  : "lavapipe can take minutes to compile a very large kernel") +
         "); --timeout=S waits longer";
}

// One line for a run that died of |signal|.
std::string CrashMessage(const Cli& cli, int signal) {
  std::string s = "the run crashed (signal " + std::to_string(signal) + ", " + strsignal(signal) + ")";
  if (!cli.validate) return s + " on a module that was not validated (--no-validate)";
  return s + (cli.sim ? ": a simulator bug, please report it"
                      : ": the driver failed on the module, e.g. on an access through a device "
                        "address outside its buffers");
}

double Now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// One child process per width (lavapipe picks its width once per process;
// a crash or a hang of the driver stays in the child), at most |jobs| at a
// time, each killed after --timeout seconds. With several widths, output
// comes back in width order, each line prefixed with "[sg=N] "; with one,
// the child writes straight to stdout and stderr. Exit: 1 if any child
// failed, else 5 if one timed out, else 3 if one found a difference, else 4
// if one found a module nondeterministic, else 6 if one was not covered,
// else 0.
int RunChildren(const Cli& cli, const std::vector<uint32_t>& widths) {
  struct Child {
    uint32_t width;
    pid_t pid = -1;
    FILE* out = nullptr;
    FILE* err = nullptr;
    int rc = kExitError;
    double start = 0;
    bool timed_out = false;
  };
  bool capture = widths.size() > 1;
  std::vector<Child> children;
  for (uint32_t w : widths) children.push_back({w});
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t jobs = cli.jobs > 0 ? static_cast<size_t>(cli.jobs) : static_cast<size_t>(std::max(1L, cpus));
  size_t next = 0, done = 0;
  std::vector<size_t> running;
  while (done < children.size()) {
    while (next < children.size() && running.size() < jobs) {
      Child& c = children[next];
      if (capture) {
        c.out = std::tmpfile();
        c.err = std::tmpfile();
        if (!c.out || !c.err) return Error("cannot create temporary files");
      }
      std::fflush(stdout);
      std::fflush(stderr);
      c.pid = fork();
      if (c.pid < 0) return Error("cannot fork");
      if (c.pid == 0) {
        if (capture) {
          dup2(fileno(c.out), 1);
          dup2(fileno(c.err), 2);
        }
        int rc = RunCommand(cli, c.width);
        std::fflush(stdout);
        std::fflush(stderr);
        _exit(rc);
      }
      c.start = Now();
      running.push_back(next++);
    }
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid < 0) return Error("wait failed");
    if (pid == 0) {
      // None finished: kill the ones past the deadline, then wait a little.
      for (size_t k : running) {
        Child& c = children[k];
        if (cli.timeout_s > 0 && !c.timed_out && Now() - c.start > cli.timeout_s) {
          c.timed_out = true;
          kill(c.pid, SIGKILL);
        }
      }
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, nullptr);
      continue;
    }
    for (size_t k = 0; k < running.size(); ++k) {
      Child& c = children[running[k]];
      if (c.pid != pid) continue;
      c.rc = c.timed_out                ? kExitTimeout
             : WIFEXITED(status)        ? WEXITSTATUS(status)
                                        : -WTERMSIG(status);
      running.erase(running.begin() + static_cast<long>(k));
      ++done;
      if (!capture) {
        if (c.rc == kExitTimeout) {
          std::printf("%s\n", TimeoutMessage(cli).c_str());
        } else if (c.rc < 0) {
          std::fprintf(stderr, "waverun: error: %s\n", CrashMessage(cli, -c.rc).c_str());
        }
      }
      break;
    }
  }
  int worst = kExitOk;
  bool any_error = false, any_timeout = false, any_diff = false, any_nondet = false,
       any_uncovered = false;
  for (Child& c : children) {
    if (capture) {
      std::string prefix = "[sg=" + std::to_string(c.width) + "] ";
      PrintPrefixed(stdout, prefix, ReadAll(c.out));
      if (c.rc == kExitTimeout) {
        std::printf("%s%s\n", prefix.c_str(), TimeoutMessage(cli).c_str());
      }
      std::fflush(stdout);
      PrintPrefixed(stderr, prefix, ReadAll(c.err));
      if (c.rc < 0) {
        std::fprintf(stderr, "%swaverun: error: %s\n", prefix.c_str(),
                     CrashMessage(cli, -c.rc).c_str());
      }
      std::fclose(c.out);
      std::fclose(c.err);
    }
    any_timeout = any_timeout || c.rc == kExitTimeout;
    any_diff = any_diff || c.rc == kExitDiffer;
    any_nondet = any_nondet || c.rc == kExitNondeterministic;
    any_uncovered = any_uncovered || c.rc == kExitUncovered;
    any_error = any_error || (c.rc != kExitOk && c.rc != kExitDiffer && c.rc != kExitTimeout &&
                              c.rc != kExitNondeterministic && c.rc != kExitUncovered);
  }
  worst = any_error       ? kExitError
          : any_timeout   ? kExitTimeout
          : any_diff      ? kExitDiffer
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
  if (cli.auto_spec) {
    int rc = waverun::ResolveAuto(&cli);
    if (rc != 0) return rc;
  }
  std::vector<uint32_t> widths = cli.widths;
  if (widths.empty()) widths.push_back(0);
  return waverun::RunChildren(cli, widths);
}
