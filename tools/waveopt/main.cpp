// waveopt: the command line. spirv-opt style: flags are pipeline steps in
// order; the input is validated before and the output after.
//
// Exit codes: 0 success; 1 bad input or failure (one line naming the file and
// the problem, no output file written); 2 bad usage.
//
// One input runs in this process (job.cpp); its spirv-opt steps run in a
// child process (Isolation::kChildProcess), so a crash or a hang inside
// SPIRV-Tools costs a step, not the run. --batch runs every input in a child
// process of its own (batch.cpp).
#if WAVEOPT_WITH_MIMALLOC
#include <mimalloc.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "tools/waveopt/cli.h"

namespace waveopt_cli {

const char* kUsageTail = "Run 'waveopt --help' for usage.";

void UsageError(const std::string& msg) {
  std::fprintf(stderr, "waveopt: error: %s\n%s\n", msg.c_str(), kUsageTail);
  std::exit(2);
}

std::string Extension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot);
}

Format FormatForExtension(const std::string& ext) {
  if (ext == ".spv") return Format::kSpv;
  if (ext == ".spvasm" || ext == ".spvas") return Format::kSpvAsm;
  if (ext == ".hlsl") return Format::kHlsl;
  if (ext == ".glsl" || !waveopt::StageForExtension(ext).empty()) return Format::kGlsl;
  return Format::kUnknown;
}

std::string UnknownOutputExtension(const Cli& cli, const std::string& output) {
  const std::string ext = Extension(output);
  if (cli.emit != Format::kUnknown || ext.empty() || FormatForExtension(ext) != Format::kUnknown) {
    return "";
  }
  return "-o " + output + ": '" + ext +
         "' is no output format; the extensions are .spv, .spvasm, .hlsl, .glsl and the "
         "stages' (.comp, .vert, .frag, ...), or give --emit=spv|spvasm|glsl|hlsl";
}

bool ParseFormat(const std::string& s, Format* f) {
  if (s == "spv")
    *f = Format::kSpv;
  else if (s == "spvasm")
    *f = Format::kSpvAsm;
  else if (s == "glsl")
    *f = Format::kGlsl;
  else if (s == "hlsl")
    *f = Format::kHlsl;
  else
    return false;
  return true;
}

std::string FormatError(const std::string& flag, const std::string& format) {
  return flag + " is spv, spvasm, glsl or hlsl, not '" + format + "'";
}

// DXC's -T <profile> (ps_6_0, cs_6_5, ...) as a stage: its prefix before
// '_'; the shader model is glslang's business. "" for lib_ and unknowns.
std::string StageForProfile(const std::string& profile) {
  static const char* const kProfiles[][2] = {{"ps", "frag"}, {"vs", "vert"}, {"cs", "comp"},
                                             {"gs", "geom"}, {"hs", "tesc"}, {"ds", "tese"},
                                             {"ms", "mesh"}, {"as", "task"}};
  const std::string prefix = profile.substr(0, profile.find('_'));
  for (const auto& p : kProfiles) {
    if (prefix == p[0]) return p[1];
  }
  return "";
}

namespace {

// --help's targets: each with its facts (docs/targets.md has the evidence).
void PrintTargets() {
  std::printf("\nTargets (--target; -O without one builds portable, with versions):\n");
  for (waveopt::Target t : waveopt::AllTargets()) {
    std::printf("  %-9s %s\n", waveopt::TargetName(t), waveopt::TargetSummary(t));
    std::string facts;
    const waveopt::TargetFacts f = waveopt::FactsOf(t);
    for (const waveopt::TargetFactInfo& info : waveopt::TargetFactTable()) {
      if (f.*info.member) facts += (facts.empty() ? "" : ", ") + std::string(info.name);
    }
    if (t == waveopt::Target::kIntel) facts = "portable's (nothing measured)";
    std::printf("  %-9s facts: %s\n", "", facts.empty() ? "none" : facts.c_str());
  }
}

// -S <stage> or -T <profile>: one stage, however many times it is said.
void SetStage(Cli* cli, const std::string& flag, const std::string& stage) {
  if (!cli->compile.stage.empty() && cli->compile.stage != stage) {
    UsageError(flag + " says " + stage + ", an earlier -S or -T said " + cli->compile.stage);
  }
  cli->compile.stage = stage;
}

void PrintHelp() {
  std::printf(
      "waveopt %s: rewrites compute shaders to use subgroup (wave) operations.\n\n"
      "Usage: waveopt [flags] <input> [-o <output>]\n"
      "       waveopt [flags] --batch <list-or-dir> --out-dir <dir> [--jobs N]\n\n"
      "Input (by extension, or -x): .spv, .spvasm, GLSL (.comp .glsl .vert .frag\n"
      "...), HLSL (.hlsl). '-' reads standard input.\n"
      "Output (by -o extension, or --emit): .spv, .spvasm, GLSL, .hlsl. Without -o\n"
      "the result is printed as SPIR-V assembly; '-o -' writes binary to stdout.\n\n"
      "waveopt passes:\n",
      waveopt::Version());
  for (const waveopt::PassInfo& p : waveopt::RegisteredPasses()) {
    std::printf("  --%-28s %s\n", p.name, p.help);
    if (p.params[0] != '\0') std::printf("  %-30s parameters: %s\n", "", p.params);
  }
  std::printf(
      "\nPipeline:\n"
      "  -O                             every waveopt pass in order, then cleanup\n"
      "  --inline-loop-callees          inline small functions called inside\n"
      "                                 loops (the first step of -O)\n"
      "  --<spirv-opt flag>             any spirv-opt pass flag, run in order\n\n"
      "Options:\n"
      "  -o <file>                      output file ('-' for stdout)\n"
      "  --emit=spv|spvasm|glsl|hlsl    output format\n"
      "  --hlsl-dialect=glslang|dxc     the compiler HLSL output is for (dxc: IsHelperLane())\n"
      "  -x spv|spvasm|glsl|hlsl        input format\n"
      "  -S <stage>, -e <entry>         stage and entry point for GLSL/HLSL\n"
      "  -T <profile>, -E <entry>       DXC's spellings: -T ps_6_0 is -S frag\n"
      "  -D<name>[=<value>], -I<dir>    preprocessor defines, include directories\n"
      "  --auto-map-bindings            resources without a binding get free ones\n"
      "  --shift-<kind>-binding [stage] <base> | [stage] (<base> <set>)...\n"
      "                                 kind: sampler, texture, image, ubo, ssbo,\n"
      "                                 uav (glslangValidator's short forms too)\n"
      "  --resource-set-binding [stage] <set> | <stage> (<reg> <set> <binding>)...\n"
      "  --hlsl-iomap                   HLSL: shift by register class (b t u s)\n"
      "  -fvk-<b|t|u|s>-shift <n> <space|all>, -fvk-bind-register <reg> <space>\n"
      "  <binding> <set>, -auto-binding-space <n>\n"
      "                                 DXC's spellings (docs/cli.md, Resource\n"
      "                                 bindings)\n"
      "  --target-env=<env>             vulkan1.0..vulkan1.3, vulkan1.1spv1.4,\n"
      "                                 spv1.0..spv1.6 (default: from the module)\n"
      "  --subgroup-size=<n>            promise: every subgroup has n lanes\n"
      "  --target=<target>              the GPUs the output is for (below);\n"
      "                                 --assume-driver=generic|radv|cpu is an alias\n"
      "  --spec-id-base=<n>             SpecIds of -O's version constants start at n\n"
      "                                 (default 1000)\n"
      "  --no-versions                  -O without --target: the portable module\n"
      "                                 alone, no versions\n"
      "  --print-spec-constants         print -O's version constants (needs -o)\n"
      "  --float-reassoc                 float operations may be regrouped (float\n"
      "                                 atomics, float reduction trees): results\n"
      "                                 round differently\n"
      "  --pass-params=<pass>:<params>  parameters for <pass> where it runs\n"
      "                                 without its own (in -O; --<pass> alone)\n"
      "  --only-rewrite=<pass>@<where>  rewrite only the sites of <pass> whose applied\n"
      "                                 remark is at <line>, <file>:<line> or %%<id>\n"
      "  --remarks=<regex>              print applied remarks of matching passes\n"
      "  --remarks-missed=<regex>       print missed remarks of matching passes\n"
      "  --remarks-analysis=<regex>     print analysis remarks of matching passes\n"
      "  --remarks-output=<file.yaml>   write the selected remarks (all, if none\n"
      "                                 selected) as YAML\n"
      "  --print-all                    print the module after every step\n"
      "  --print-uniformity             print the uniformity analysis of the\n"
      "                                 input and exit (no output module)\n"
      "  --print-loop-candidates        print the loops batch-uniform-loads is\n"
      "                                 meant for, found independently of it,\n"
      "                                 after -O's preparation, and exit\n"
      "  --time-report                  print the time of every step\n"
      "  --validate-after-all           validate after every step\n"
      "  --relax-block-layout, --uniform-buffer-standard-layout,\n"
      "  --scalar-block-layout, --skip-block-layout\n"
      "                                 validate buffer layouts as spirv-val's\n"
      "                                 flags of the same names do\n"
      "  --skip-validation              do not validate input or output\n"
      "  -M, -MM                        print the make rule of the input's\n"
      "                                 dependencies (its #includes) instead\n"
      "                                 of optimizing (glslc's flags)\n"
      "  -MD                            optimize and write the rule to -MF's\n"
      "                                 file, else <output>.d\n"
      "  -MF <file>, -MT <target>       the rule's file and target (default:\n"
      "                                 the output)\n"
      "  --batch <list-or-dir>          every input of a directory (shader\n"
      "                                 extensions, .hlsl, .spv, .spvasm) or of a\n"
      "                                 list (lines: <input> [-o <out>] [-D..]\n"
      "                                 [-I..] [-S..] [-T..] [-e..] [--emit=..]\n"
      "                                 [--target=..] [--target-env=..]), each in\n"
      "                                 a child process; needs\n"
      "                                 --out-dir; one --remarks-output for all\n"
      "  --out-dir <dir>, --jobs <n>    where --batch writes; how many at once\n"
      "                                 (default: one per processor)\n"
      "  --source-prefix-map=<old>=<new>\n"
      "                                 record GLSL/HLSL files under <old> as\n"
      "                                 under <new> (repeatable; the longest\n"
      "                                 <old> wins; <new> may be empty)\n"
      "  --source-name=<name>           record the input under <name>\n"
      "  --print-cache-key              print the SHA-256 key of this output\n"
      "                                 (version, flags, inputs' digests) and exit\n"
      "  --print-cache-key-material     print what that key hashes, and exit\n"
      "  --step-timeout=<s>             a spirv-opt step still running after s\n"
      "                                 seconds is killed (default 600; 0: none)\n"
      "  --no-isolation                 run spirv-opt steps in this process, not\n"
      "                                 in a child process\n"
      "  --help, --version\n");
  PrintTargets();
}

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

void PrintVersion() {
  std::printf("waveopt %s (SPIRV-Tools %s)\n", waveopt::Version(), waveopt::SpirvToolsVersion());
#if WAVEOPT_WITH_MIMALLOC
  // Also what keeps the linker from dropping the library: nothing else
  // names it, it replaces malloc by being loaded first.
  const int mi = mi_version();
  std::printf("allocator: mimalloc %d.%d.%d\n", mi / 100, mi / 10 % 10, mi % 10);
#else
  std::printf("allocator: system\n");
#endif
}

double ParseSeconds(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  const double s = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(s >= 0)) {
    UsageError(flag + " takes a number of seconds (0: no limit), not '" + value + "'");
  }
  return s;
}

// The flags of the command line itself (files, formats, front end, remarks,
// reports, dependencies, batch). False: not one of them.
bool ParseCliFlag(const std::vector<std::string>& args, size_t* i, Cli* cli) {
  const std::string& a = args[*i];
  auto value = [&]() -> std::string {
    if (*i + 1 >= args.size()) UsageError("missing value after " + a);
    return args[++*i];
  };
  std::string error;
  if (a == "-o")
    cli->output = value();
  else if (a == "-x") {
    const std::string format = value();
    if (!ParseFormat(format, &cli->input_format)) UsageError(FormatError("-x", format));
  } else if (StartsWith(a, "--emit=")) {
    if (!ParseFormat(a.substr(7), &cli->emit)) UsageError(FormatError("--emit", a.substr(7)));
  } else if (a == "-S")
    SetStage(cli, a, value());
  else if (a == "-T") {
    const std::string profile = value(), stage = StageForProfile(profile);
    if (stage.empty()) {
      UsageError("-T " + profile +
                 ": waveopt takes DXC's stage profiles (ps_, vs_, cs_, gs_, "
                 "hs_, ds_, ms_, as_), or give -S <stage>");
    }
    SetStage(cli, a, stage);
  } else if (a == "-e" || a == "-E")
    cli->compile.entry_point = value();
  else if (auto st = waveopt::ParseBindingOption(args, i, &cli->compile.bindings, &error);
           st != waveopt::BindingOptionStatus::kNotBinding) {
    if (st == waveopt::BindingOptionStatus::kError) UsageError(error);
  } else if (StartsWith(a, "-D")) {
    cli->compile.defines.push_back(a.size() > 2 ? a.substr(2) : value());
  } else if (StartsWith(a, "-I")) {
    cli->compile.include_dirs.push_back(a.size() > 2 ? a.substr(2) : value());
  } else if (StartsWith(a, "--remarks="))
    cli->remarks_applied = a.substr(10);
  else if (StartsWith(a, "--remarks-missed="))
    cli->remarks_missed = a.substr(17);
  else if (StartsWith(a, "--remarks-analysis="))
    cli->remarks_analysis = a.substr(19);
  else if (StartsWith(a, "--remarks-output="))
    cli->remarks_output = a.substr(17);
  else if (a == "--print-all")
    cli->print_all = true;
  else if (a == "--print-uniformity")
    cli->print_uniformity = true;
  else if (a == "--print-loop-candidates")
    cli->print_loop_candidates = true;
  else if (a == "--print-spec-constants")
    cli->print_spec_constants = true;
  else if (a == "--time-report")
    cli->time_report = true;
  else if (a == "-M" || a == "-MM")
    cli->deps.only = true;
  else if (a == "-MD")
    cli->deps.write = true;
  else if (a == "-MF")
    cli->deps.file = value();
  else if (a == "-MT")
    cli->deps.target = value();
  else if (a == "--batch")
    cli->batch = value();
  else if (a == "--out-dir")
    cli->out_dir = value();
  else if (a == "--jobs" || a == "-j") {
    const std::string v = value();
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || n < 1 || n > 1024)
      UsageError("--jobs takes a number from 1 to 1024");
    cli->jobs = static_cast<int>(n);
  } else if (StartsWith(a, "--step-timeout=")) {
    cli->options.isolation_timeout_s = ParseSeconds("--step-timeout", a.substr(15));
  } else if (a == "--no-isolation")
    cli->options.isolation = waveopt::Isolation::kNone;
  else if (StartsWith(a, "--source-prefix-map=")) {
    if (!ParsePrefixMap(a.substr(20), &cli->prefix_map, &error)) UsageError(error);
  } else if (StartsWith(a, "--source-name="))
    cli->source_name = a.substr(14);
  else if (a == "--print-cache-key")
    cli->print_cache_key = true;
  else if (a == "--print-cache-key-material")
    cli->print_cache_key_material = true;
  else
    return false;
  return true;
}

// Whether a flag ParseCliFlag took can change the output bytes in a way the
// cache key does not state otherwise (it states -D, -S, -e, -x and the
// output format canonically, and the files -I found by content). Flags not
// listed here count: a new one is keyed until it is known not to matter.
bool KeyedCliFlag(const std::string& a) {
  static const char* const kExact[] = {"-o",
                                       "-x",
                                       "-S",
                                       "-T",
                                       "-e",
                                       "-E",
                                       "-M",
                                       "-MM",
                                       "-MD",
                                       "-MF",
                                       "-MT",
                                       "--batch",
                                       "--out-dir",
                                       "--jobs",
                                       "-j",
                                       "--time-report",
                                       "--no-isolation",
                                       "--print-all",
                                       "--print-uniformity",
                                       "--print-loop-candidates",
                                       "--print-spec-constants",
                                       "--print-cache-key",
                                       "--print-cache-key-material"};
  static const char* const kPrefix[] = {"-D",
                                        "-I",
                                        "--emit=",
                                        "--remarks",
                                        "--step-timeout=",
                                        "--source-prefix-map=",
                                        "--source-name="};
  for (const char* e : kExact) {
    if (a == e) return false;
  }
  for (const char* p : kPrefix) {
    if (StartsWith(a, p)) return false;
  }
  return true;
}

// --print-cache-key and --source-name: one input, a module at the end.
void CheckKeyCombinations(const Cli& cli) {
  if (!cli.print_cache_key && !cli.print_cache_key_material) return;
  if (!cli.batch.empty())
    UsageError("--print-cache-key is for one input; run it per input, not with --batch");
  if (cli.deps.only || cli.print_uniformity || cli.print_loop_candidates) {
    UsageError(
        "--print-cache-key keys a module output, not -M, --print-uniformity or "
        "--print-loop-candidates");
  }
}

// The combinations that cannot work, refused before anything runs.
void CheckCombinations(const Cli& cli) {
  CheckKeyCombinations(cli);
  if (!cli.batch.empty() && !cli.source_name.empty()) {
    UsageError("--source-name names one input; --batch inputs are named by their paths");
  }
  if (!cli.batch.empty()) {
    if (!cli.input.empty())
      UsageError("--batch takes its inputs from " + cli.batch + ", not " + cli.input);
    if (cli.out_dir.empty()) UsageError("--batch needs --out-dir");
    if (!cli.output.empty()) UsageError("-o names one output; --batch writes to --out-dir");
    if (cli.deps.only || !cli.deps.file.empty() || !cli.deps.target.empty()) {
      UsageError("--batch takes -MD (each output gets <output>.d), not -M, -MF or -MT");
    }
    if (cli.print_all || cli.print_uniformity || cli.print_loop_candidates || cli.time_report ||
        cli.print_spec_constants) {
      UsageError("--print-* and --time-report are for one input, not --batch");
    }
    return;
  }
  if (cli.input.empty()) UsageError("no input file");
  if (cli.print_spec_constants && (cli.output.empty() || cli.output == "-")) {
    UsageError("--print-spec-constants prints to stdout: give the module a file with -o");
  }
  if (const std::string bad = UnknownOutputExtension(cli, cli.output); !bad.empty())
    UsageError(bad);
  if (!cli.out_dir.empty()) UsageError("--out-dir is for --batch; give one output with -o");
  if (cli.deps.write && cli.deps.file.empty() && (cli.output.empty() || cli.output == "-")) {
    UsageError("-MD writes <output>.d: give -o <file>, or -MF <file>");
  }
}

Cli ParseArgs(int argc, char** argv) {
  Cli cli;
  cli.options.isolation = waveopt::Isolation::kChildProcess;
  cli.options.isolation_timeout_s = 600;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      PrintHelp();
      std::exit(0);
    } else if (a == "--version") {
      PrintVersion();
      std::exit(0);
    } else if (const size_t first = i; ParseCliFlag(args, &i, &cli)) {
      if (KeyedCliFlag(a)) {
        cli.key_flags.insert(cli.key_flags.end(), args.begin() + first, args.begin() + i + 1);
      }
      continue;
    } else if (a == "-" || a[0] != '-') {
      if (!cli.input.empty()) UsageError("more than one input file: " + cli.input + ", " + a);
      cli.input = a;
    } else {
      std::string error;
      if (!waveopt::ParseOptionFlag(a, &cli.options, &error)) UsageError(error);
      cli.key_flags.push_back(a);
    }
  }
  CheckCombinations(cli);
  for (const std::string* re : {&cli.remarks_applied, &cli.remarks_missed, &cli.remarks_analysis}) {
    try {
      std::regex check(*re);
    } catch (const std::regex_error&) {
      UsageError("invalid regular expression '" + *re + "'");
    }
  }
  return cli;
}

}  // namespace
}  // namespace waveopt_cli

int main(int argc, char** argv) {
  using namespace waveopt_cli;
  const Cli cli = ParseArgs(argc, argv);
  if (!cli.batch.empty()) return RunBatch(cli);
  Job job;
  job.input = cli.input;
  job.output = cli.output;
  job.deps = cli.deps;
  std::vector<waveopt::Remark> selected;
  return RunJob(cli, job, true, &selected);
}
