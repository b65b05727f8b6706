// waveopt: the command line. spirv-opt style: flags are pipeline steps in
// order; the input is validated before and the output after.
//
// Exit codes: 0 success; 1 bad input or failure (one line naming the file and
// the problem, no output file written); 2 bad usage.
#if WAVEOPT_WITH_MIMALLOC
#include <mimalloc.h>
#endif
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "lib/inline_loop_callees.h"
#include "waveopt/analysis.h"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace {

enum class Format { kUnknown, kSpv, kSpvAsm, kGlsl, kHlsl };

struct Cli {
  std::string input;
  std::string output;  // "" → stdout as text
  Format input_format = Format::kUnknown;
  Format emit = Format::kUnknown;
  waveopt::Options options;
  waveopt::CompileOptions compile;
  bool time_report = false;
  bool print_all = false;
  bool print_uniformity = false;
  bool print_loop_candidates = false;
  std::string remarks_applied, remarks_missed, remarks_analysis;
  std::string remarks_output;
};

const char* kUsageTail = "Run 'waveopt --help' for usage.";

[[noreturn]] void UsageError(const std::string& msg) {
  std::fprintf(stderr, "waveopt: error: %s\n%s\n", msg.c_str(), kUsageTail);
  std::exit(2);
}

[[noreturn]] void InputError(const std::string& file, const std::string& msg) {
  std::fprintf(stderr, "waveopt: error: %s: %s\n", file.c_str(), msg.c_str());
  std::exit(1);
}

std::string Extension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot);
}

bool ParseFormat(const std::string& s, Format* f) {
  if (s == "spv") *f = Format::kSpv;
  else if (s == "spvasm") *f = Format::kSpvAsm;
  else if (s == "glsl") *f = Format::kGlsl;
  else if (s == "hlsl") *f = Format::kHlsl;
  else return false;
  return true;
}

Format FormatForExtension(const std::string& ext) {
  if (ext == ".spv") return Format::kSpv;
  if (ext == ".spvasm" || ext == ".spvas") return Format::kSpvAsm;
  if (ext == ".hlsl") return Format::kHlsl;
  if (ext == ".glsl" || !waveopt::StageForExtension(ext).empty()) return Format::kGlsl;
  return Format::kUnknown;
}

void PrintHelp() {
  std::printf(
      "waveopt %s: rewrites compute shaders to use subgroup (wave) operations.\n\n"
      "Usage: waveopt [flags] <input> [-o <output>]\n\n"
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
      "  -x spv|spvasm|glsl|hlsl        input format\n"
      "  -S <stage>, -e <entry>         stage and entry point for GLSL/HLSL\n"
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
      "  --assume-driver=generic|radv|cpu  the driver the output is for: leave\n"
      "                                 to it what it measurably does itself, skip\n"
      "                                 what measured as a loss on it (default\n"
      "                                 generic; docs/cli.md)\n"
      "  --pass-params=<pass>:<params>  parameters for <pass> where it runs\n"
      "                                 without its own (in -O; --<pass> alone)\n"
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
      "  --help, --version\n");
}

bool StartsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

bool IsWaveoptPass(const std::string& name) {
  for (const waveopt::PassInfo& p : waveopt::RegisteredPasses()) {
    if (name == p.name) return true;
  }
  return false;
}

Cli ParseArgs(int argc, char** argv) {
  Cli cli;
  std::string error;
  std::vector<std::string> args(argv + 1, argv + argc);
  auto value = [&](size_t* i, const std::string& flag) -> std::string {
    if (*i + 1 >= args.size()) UsageError("missing value after " + flag);
    return args[++*i];
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      PrintHelp();
      std::exit(0);
    } else if (a == "--version") {
      std::printf("waveopt %s (SPIRV-Tools %s)\n", waveopt::Version(),
                  waveopt::SpirvToolsVersion());
#if WAVEOPT_WITH_MIMALLOC
      // Also what keeps the linker from dropping the library: nothing else
      // names it, it replaces malloc by being loaded first.
      const int mi = mi_version();
      std::printf("allocator: mimalloc %d.%d.%d\n", mi / 100, mi / 10 % 10, mi % 10);
#else
      std::printf("allocator: system\n");
#endif
      std::exit(0);
    } else if (a == "-o") {
      cli.output = value(&i, a);
    } else if (a == "-O") {
      cli.options.pipeline.push_back({waveopt::PipelineStep::Kind::kOptimize, "", ""});
    } else if (a == "-x") {
      if (!ParseFormat(value(&i, a), &cli.input_format)) UsageError("unknown input format after -x");
    } else if (StartsWith(a, "--emit=")) {
      if (!ParseFormat(a.substr(7), &cli.emit)) UsageError("unknown format in " + a);
    } else if (a == "-S") {
      cli.compile.stage = value(&i, a);
    } else if (a == "-e") {
      cli.compile.entry_point = value(&i, a);
    } else if (auto st = waveopt::ParseBindingOption(args, &i, &cli.compile.bindings, &error);
               st != waveopt::BindingOptionStatus::kNotBinding) {
      if (st == waveopt::BindingOptionStatus::kError) UsageError(error);
    } else if (StartsWith(a, "-D")) {
      cli.compile.defines.push_back(a.size() > 2 ? a.substr(2) : value(&i, a));
    } else if (StartsWith(a, "-I")) {
      cli.compile.include_dirs.push_back(a.size() > 2 ? a.substr(2) : value(&i, a));
    } else if (StartsWith(a, "--target-env=")) {
      if (!waveopt::ParseTargetEnv(a.substr(13), &cli.options.target_env)) {
        UsageError("unsupported target environment '" + a.substr(13) + "'");
      }
      cli.options.has_target_env = true;
    } else if (StartsWith(a, "--subgroup-size=")) {
      char* end = nullptr;
      unsigned long n = std::strtoul(a.c_str() + 16, &end, 10);
      if (*end != '\0' || n == 0 || n > 128 || (n & (n - 1)) != 0) {
        UsageError("--subgroup-size must be a power of two from 1 to 128");
      }
      cli.options.subgroup_size = static_cast<uint32_t>(n);
    } else if (StartsWith(a, "--assume-driver=")) {
      if (!waveopt::ParseAssumedDriver(a.substr(16), &cli.options.driver)) {
        UsageError("--assume-driver is generic, radv or cpu, not '" + a.substr(16) + "'");
      }
    } else if (StartsWith(a, "--pass-params=")) {
      const std::string v = a.substr(14);
      const size_t colon = v.find(':');
      if (colon == std::string::npos || colon == 0 || !IsWaveoptPass(v.substr(0, colon))) {
        UsageError("--pass-params is <waveopt pass>:<parameters>, not '" + v + "'");
      }
      cli.options.pass_params[v.substr(0, colon)] = v.substr(colon + 1);
    } else if (StartsWith(a, "--remarks=")) {
      cli.remarks_applied = a.substr(10);
    } else if (StartsWith(a, "--remarks-missed=")) {
      cli.remarks_missed = a.substr(17);
    } else if (StartsWith(a, "--remarks-analysis=")) {
      cli.remarks_analysis = a.substr(19);
    } else if (StartsWith(a, "--remarks-output=")) {
      cli.remarks_output = a.substr(17);
    } else if (a == "--print-all") {
      cli.print_all = true;
    } else if (a == "--print-uniformity") {
      cli.print_uniformity = true;
    } else if (a == "--print-loop-candidates") {
      cli.print_loop_candidates = true;
    } else if (a == "--time-report") {
      cli.time_report = true;
    } else if (a == "--validate-after-all") {
      cli.options.validate_after_all = true;
    } else if (a == "--relax-block-layout") {
      cli.options.block_layout = waveopt::BlockLayout::kRelaxed;
    } else if (a == "--uniform-buffer-standard-layout") {
      cli.options.block_layout = waveopt::BlockLayout::kUniformStandard;
    } else if (a == "--scalar-block-layout") {
      cli.options.block_layout = waveopt::BlockLayout::kScalar;
    } else if (a == "--skip-block-layout") {
      cli.options.block_layout = waveopt::BlockLayout::kSkip;
    } else if (a == "--skip-validation") {
      cli.options.validate_input = cli.options.validate_output = false;
    } else if (StartsWith(a, "--")) {
      std::string name = a.substr(2);
      std::string params;
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        params = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      if (IsWaveoptPass(name)) {
        cli.options.pipeline.push_back({waveopt::PipelineStep::Kind::kWaveopt, name, params});
        continue;
      }
      if (a == waveopt::kInlineLoopCalleesFlag) {
        cli.options.pipeline.push_back({waveopt::PipelineStep::Kind::kSpirvOpt, a, ""});
        continue;
      }
      spvtools::Optimizer probe(SPV_ENV_UNIVERSAL_1_6);
      probe.SetMessageConsumer([](spv_message_level_t, const char*,
                                  const spv_position_t&, const char*) {});
      if (!probe.RegisterPassFromFlag(a)) UsageError("unknown flag " + a);
      cli.options.pipeline.push_back({waveopt::PipelineStep::Kind::kSpirvOpt, a, ""});
    } else if (a == "-" || a[0] != '-') {
      if (!cli.input.empty()) UsageError("more than one input file: " + cli.input + ", " + a);
      cli.input = a;
    } else {
      UsageError("unknown flag " + a);
    }
  }
  if (cli.input.empty()) UsageError("no input file");
  return cli;
}

bool LooksBinary(const std::string& bytes) {
  if (bytes.size() < 4) return false;
  uint32_t w;
  std::memcpy(&w, bytes.data(), 4);
  return w == 0x07230203 || __builtin_bswap32(w) == 0x07230203;
}

bool Matches(const std::string& pattern, const waveopt::Remark& r) {
  if (pattern.empty()) return false;
  std::regex re(pattern);
  return std::regex_search(r.pass, re) || std::regex_search(r.name, re);
}

}  // namespace

int main(int argc, char** argv) {
  Cli cli = ParseArgs(argc, argv);
  for (const std::string* re : {&cli.remarks_applied, &cli.remarks_missed, &cli.remarks_analysis}) {
    try {
      std::regex check(*re);
    } catch (const std::regex_error&) {
      UsageError("invalid regular expression '" + *re + "'");
    }
  }
  const std::string& in = cli.input;
  std::string bytes, error;
  if (!waveopt::ReadFile(in, &bytes, &error)) InputError(in, error);

  Format format = cli.input_format;
  if (format == Format::kUnknown) format = FormatForExtension(Extension(in));
  if (format == Format::kUnknown) {
    if (LooksBinary(bytes)) format = Format::kSpv;
    else if (bytes.find("OpCapability") != std::string::npos) format = Format::kSpvAsm;
    else if (bytes.find("#version") != std::string::npos) format = Format::kGlsl;
    else InputError(in, "cannot tell the input format; give -x spv|spvasm|glsl|hlsl");
  }

  // SPIR-V text carries no version; spirv-dis writes it as a "; Version: 1.N"
  // comment. Without one: the target environment's, else 1.3 (Vulkan 1.1, the
  // first with subgroup operations).
  spv_target_env text_env = cli.options.has_target_env ? cli.options.target_env
                                                       : SPV_ENV_UNIVERSAL_1_3;
  {
    static const std::regex kVersion("(^|\n); Version: 1\\.([0-6])\\b");
    std::smatch m;
    std::string head = bytes.substr(0, 512);
    if (std::regex_search(head, m, kVersion, std::regex_constants::match_default)) {
      static const spv_target_env kUniversal[] = {
          SPV_ENV_UNIVERSAL_1_0, SPV_ENV_UNIVERSAL_1_1, SPV_ENV_UNIVERSAL_1_2,
          SPV_ENV_UNIVERSAL_1_3, SPV_ENV_UNIVERSAL_1_4, SPV_ENV_UNIVERSAL_1_5,
          SPV_ENV_UNIVERSAL_1_6};
      text_env = kUniversal[m[2].str()[0] - '0'];
    }
  }
  std::vector<uint32_t> words;
  std::vector<std::string> warnings;
  switch (format) {
    case Format::kSpv:
      if (!waveopt::BytesToWords(bytes, &words, &error)) InputError(in, error);
      break;
    case Format::kSpvAsm:
      if (!waveopt::AssembleText(bytes, text_env, &words, &error)) InputError(in, error);
      break;
    case Format::kGlsl:
    case Format::kHlsl:
      cli.compile.language = format == Format::kHlsl ? waveopt::SourceLanguage::kHlsl
                                                     : waveopt::SourceLanguage::kGlsl;
      cli.compile.target_env = cli.options.has_target_env ? cli.options.target_env
                                                          : SPV_ENV_VULKAN_1_1;
      if (!waveopt::CompileShader(bytes, in, cli.compile, &words, &error, &warnings)) {
        InputError(in, error);
      }
      for (const std::string& w : warnings) std::fprintf(stderr, "waveopt: warning: %s\n", w.c_str());
      break;
    case Format::kUnknown:
      break;
  }

  if (cli.print_uniformity) {
    const spv_target_env env = cli.options.has_target_env ? cli.options.target_env
                                                          : waveopt::DefaultTargetEnv(words);
    if (cli.options.validate_input &&
        !waveopt::ValidateModule(words, env, &error, cli.options.block_layout)) {
      InputError(in, "input is not valid for " + waveopt::TargetEnvName(env) + ": " + error);
    }
    std::string text;
    if (!waveopt::PrintUniformity(words, env, &text, &error)) InputError(in, error);
    std::fputs(text.c_str(), stdout);
    return 0;
  }

  if (cli.print_loop_candidates) {
    // The module as -O's passes see it: after its preparation (inlining of
    // loop callees, scalar replacement, SSA).
    waveopt::Options prepare = cli.options;
    prepare.pipeline.clear();
    for (const std::string& flag : waveopt::PrepareFlags()) {
      waveopt::PipelineStep step;
      step.kind = waveopt::PipelineStep::Kind::kSpirvOpt;
      step.name = flag;
      prepare.pipeline.push_back(step);
    }
    waveopt::Result prepared;
    if (!waveopt::Optimize(words, prepare, &prepared)) {
      InputError(in, prepared.diagnostics.empty() ? "preparation failed"
                                                  : prepared.diagnostics.back());
    }
    std::string text;
    if (!waveopt::PrintLoopCandidates(prepared.words, prepared.target_env, &text,
                                      &error)) {
      InputError(in, error);
    }
    std::fputs(text.c_str(), stdout);
    return 0;
  }

  cli.options.print_all = cli.print_all;
  // The output format is known before the passes run: for HLSL they use
  // only forms HLSL can express.
  Format out_format = cli.emit;
  if (out_format == Format::kUnknown) {
    if (cli.output.empty()) out_format = Format::kSpvAsm;
    else if (cli.output == "-") out_format = Format::kSpv;
    else out_format = FormatForExtension(Extension(cli.output));
    if (out_format == Format::kUnknown) out_format = Format::kSpv;
  }
  cli.options.emit_hlsl = out_format == Format::kHlsl;
  waveopt::Result result;
  bool ok = waveopt::Optimize(words, cli.options, &result);

  // Remarks first: they explain a failure too.
  std::vector<waveopt::Remark> selected;
  bool any_filter = !cli.remarks_applied.empty() || !cli.remarks_missed.empty() ||
                    !cli.remarks_analysis.empty();
  for (const waveopt::Remark& r : result.remarks) {
    const std::string& pattern = r.kind == waveopt::RemarkKind::kApplied ? cli.remarks_applied
                                 : r.kind == waveopt::RemarkKind::kMissed ? cli.remarks_missed
                                                                          : cli.remarks_analysis;
    if (Matches(pattern, r)) {
      selected.push_back(r);
      std::fprintf(stderr, "%s\n", waveopt::FormatRemark(r).c_str());
    } else if (!any_filter) {
      selected.push_back(r);
    }
  }
  if (cli.print_all) std::fputs(result.print_all.c_str(), stderr);
  if (cli.time_report) {
    double total = 0;
    std::fprintf(stderr, "%-60s %10s %s\n", "step", "wall ms", "changed");
    for (const waveopt::PassTiming& t : result.timings) {
      std::fprintf(stderr, "%-60s %10.3f %s\n", t.pass.c_str(), t.wall_ms,
                   t.changed ? "yes" : "no");
      total += t.wall_ms;
    }
    std::fprintf(stderr, "%-60s %10.3f\n", "total", total);
  }
  if (!ok) {
    for (size_t i = 0; i + 1 < result.diagnostics.size(); ++i) {
      std::fprintf(stderr, "waveopt: note: %s\n", result.diagnostics[i].c_str());
    }
    InputError(in, result.diagnostics.empty() ? "optimization failed" : result.diagnostics.back());
  }
  for (const std::string& d : result.diagnostics) {
    if (d.rfind("warning:", 0) == 0) std::fprintf(stderr, "waveopt: %s\n", d.c_str());
  }
  if (!cli.remarks_output.empty() &&
      !waveopt::WriteFileAtomically(cli.remarks_output, waveopt::FormatRemarksYaml(selected), &error)) {
    InputError(cli.remarks_output, error);
  }

  std::string out_bytes;
  switch (out_format) {
    case Format::kSpv:
      out_bytes.assign(reinterpret_cast<const char*>(result.words.data()), result.words.size() * 4);
      break;
    case Format::kSpvAsm:
      if (!waveopt::DisassembleWords(result.words, result.target_env, &out_bytes, &error)) {
        InputError(in, error);
      }
      break;
    case Format::kGlsl:
    case Format::kHlsl:
      if (!waveopt::DecompileShader(result.words,
                                    out_format == Format::kGlsl ? waveopt::OutputLanguage::kGlsl
                                                                : waveopt::OutputLanguage::kHlsl,
                                    &out_bytes, &error)) {
        InputError(in, error);
      }
      break;
    case Format::kUnknown:
      break;
  }
  const std::string out_path = cli.output.empty() ? "-" : cli.output;
  if (!waveopt::WriteFileAtomically(out_path, out_bytes, &error)) InputError(out_path, error);
  return 0;
}
