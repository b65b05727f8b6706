// One input from end to end: read, front end, optimize, remarks, output,
// depfile.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <regex>

#include "tools/waveopt/cli.h"
#include "tools/waveopt/sha256.h"

namespace waveopt_cli {
namespace {

// Prints the one error line of a failed input and returns its exit status.
int Fail(const std::string& file, const std::string& msg) {
  std::fprintf(stderr, "waveopt: error: %s: %s\n", file.c_str(), msg.c_str());
  return 1;
}

bool LooksBinary(const std::string& bytes) {
  if (bytes.size() < 4) return false;
  uint32_t w;
  std::memcpy(&w, bytes.data(), 4);
  return w == 0x07230203 || __builtin_bswap32(w) == 0x07230203;
}

Format DetectFormat(const Cli& cli, const std::string& in, const std::string& bytes) {
  Format format = cli.input_format;
  if (format == Format::kUnknown) format = FormatForExtension(Extension(in));
  if (format != Format::kUnknown) return format;
  if (LooksBinary(bytes)) return Format::kSpv;
  if (bytes.find("OpCapability") != std::string::npos) return Format::kSpvAsm;
  if (bytes.find("#version") != std::string::npos) return Format::kGlsl;
  return Format::kUnknown;
}

// SPIR-V text carries no version; spirv-dis writes it as a "; Version: 1.N"
// comment. Without one: the target environment's, else 1.3 (Vulkan 1.1, the
// first with subgroup operations).
spv_target_env TextEnv(const Cli& cli, const std::string& bytes) {
  static const std::regex kVersion("(^|\n); Version: 1\\.([0-6])\\b");
  std::smatch m;
  const std::string head = bytes.substr(0, 512);
  if (std::regex_search(head, m, kVersion)) {
    static const spv_target_env kUniversal[] = {
        SPV_ENV_UNIVERSAL_1_0, SPV_ENV_UNIVERSAL_1_1, SPV_ENV_UNIVERSAL_1_2, SPV_ENV_UNIVERSAL_1_3,
        SPV_ENV_UNIVERSAL_1_4, SPV_ENV_UNIVERSAL_1_5, SPV_ENV_UNIVERSAL_1_6};
    return kUniversal[m[2].str()[0] - '0'];
  }
  return cli.options.has_target_env ? cli.options.target_env : SPV_ENV_UNIVERSAL_1_3;
}

// The name |file| (the input, or a file it #included, as the front end
// spelled it) is recorded under in the module.
std::string Recorded(const Cli& cli, const Job& job, const std::string& file) {
  if (file == job.input && !cli.source_name.empty()) return cli.source_name;
  return RecordedName(cli.prefix_map, file);
}

// |bytes| in |format| → |words|; |includes| gets the files GLSL/HLSL
// #included. Front-end warnings go to stderr.
bool LoadModule(const Cli& cli, const Job& job, Format format, const std::string& bytes,
                std::vector<uint32_t>* words, std::vector<std::string>* includes,
                std::string* error) {
  switch (format) {
    case Format::kSpv:
      return waveopt::BytesToWords(bytes, words, error);
    case Format::kSpvAsm:
      return waveopt::AssembleText(bytes, TextEnv(cli, bytes), words, error);
    case Format::kGlsl:
    case Format::kHlsl: {
      waveopt::CompileOptions compile = cli.compile;
      compile.language =
          format == Format::kHlsl ? waveopt::SourceLanguage::kHlsl : waveopt::SourceLanguage::kGlsl;
      compile.target_env = cli.options.has_target_env ? cli.options.target_env : SPV_ENV_VULKAN_1_1;
      compile.defines.insert(compile.defines.end(), job.defines.begin(), job.defines.end());
      compile.include_dirs.insert(compile.include_dirs.end(), job.include_dirs.begin(),
                                  job.include_dirs.end());
      compile.record_name = [&](const std::string& file) { return Recorded(cli, job, file); };
      std::vector<std::string> warnings;
      const bool ok =
          waveopt::CompileShader(bytes, job.input, compile, words, error, &warnings, includes);
      for (const std::string& w : warnings) {
        std::fprintf(stderr, "waveopt: warning: %s\n", w.c_str());
      }
      return ok;
    }
    case Format::kUnknown:
      break;
  }
  *error = "cannot tell the input format; give -x spv|spvasm|glsl|hlsl";
  return false;
}

// A path as GNU make and Ninja both read it in a depfile: ' ', '#' and ':'
// after a backslash (the backslashes before them doubled), '$' doubled.
std::string EscapeForMake(const std::string& path) {
  std::string out;
  size_t backslashes = 0;
  for (char c : path) {
    if (c == ' ' || c == '#' || c == ':') out += std::string(backslashes + 1, '\\');
    if (c == '$') out += '$';
    out += c;
    backslashes = c == '\\' ? backslashes + 1 : 0;
  }
  return out;
}

// glslc's depfile line: "<target>: <input> <included>...".
std::string DepRule(const Job& job, const std::vector<std::string>& includes) {
  std::string target = job.deps.target;
  if (target.empty()) {
    target = job.output.empty() || job.output == "-" ? job.input + ".spv" : job.output;
  }
  std::string rule = EscapeForMake(target) + ": " + EscapeForMake(job.input);
  for (const std::string& file : includes) rule += " " + EscapeForMake(file);
  return rule + "\n";
}

// Where -MD writes the depfile.
std::string DepFilePath(const Job& job) {
  return job.deps.file.empty() ? job.output + ".d" : job.deps.file;
}

bool Matches(const std::string& pattern, const waveopt::Remark& r) {
  if (pattern.empty()) return false;
  std::regex re(pattern);
  return std::regex_search(r.pass, re) || std::regex_search(r.name, re);
}

// Prints the remarks the filters select; |selected| gets those (all, when
// no filter is given) for --remarks-output.
void ReportRemarks(const Cli& cli, const std::vector<waveopt::Remark>& remarks,
                   std::vector<waveopt::Remark>* selected) {
  const bool any_filter =
      !cli.remarks_applied.empty() || !cli.remarks_missed.empty() || !cli.remarks_analysis.empty();
  for (const waveopt::Remark& r : remarks) {
    const std::string& pattern = r.kind == waveopt::RemarkKind::kApplied  ? cli.remarks_applied
                                 : r.kind == waveopt::RemarkKind::kMissed ? cli.remarks_missed
                                                                          : cli.remarks_analysis;
    if (Matches(pattern, r)) {
      selected->push_back(r);
      std::fprintf(stderr, "%s\n", waveopt::FormatRemark(r).c_str());
    } else if (!any_filter) {
      selected->push_back(r);
    }
  }
}

void ReportTimes(const waveopt::Result& result) {
  double total = 0;
  std::fprintf(stderr, "%-60s %10s %s\n", "step", "wall ms", "changed");
  for (const waveopt::PassTiming& t : result.timings) {
    std::fprintf(stderr, "%-60s %10.3f %s\n", t.pass.c_str(), t.wall_ms, t.changed ? "yes" : "no");
    total += t.wall_ms;
  }
  std::fprintf(stderr, "%-60s %10.3f\n", "total", total);
}

// --print-uniformity and --print-loop-candidates: a report instead of a module.
int PrintAnalysis(const Cli& cli, const std::string& in, const std::vector<uint32_t>& words) {
  std::string text, error;
  if (cli.print_uniformity) {
    const spv_target_env env =
        cli.options.has_target_env ? cli.options.target_env : waveopt::DefaultTargetEnv(words);
    if (cli.options.validate_input &&
        !waveopt::ValidateModule(words, env, &error, cli.options.block_layout)) {
      return Fail(in, "input is not valid for " + waveopt::TargetEnvName(env) + ": " + error);
    }
    if (!waveopt::PrintUniformity(words, env, &text, &error)) return Fail(in, error);
  } else {
    // The module as -O's passes see it: after its preparation (inlining of
    // loop callees, scalar replacement, SSA).
    waveopt::Options prepare = cli.options;
    prepare.pipeline.clear();
    for (const std::string& flag : waveopt::PrepareFlags()) {
      prepare.pipeline.push_back({waveopt::PipelineStep::Kind::kSpirvOpt, flag, ""});
    }
    waveopt::Result prepared;
    if (!waveopt::Optimize(words, prepare, &prepared)) {
      return Fail(
          in, prepared.diagnostics.empty() ? "preparation failed" : prepared.diagnostics.back());
    }
    if (!waveopt::PrintLoopCandidates(prepared.words, prepared.target_env, &text, &error)) {
      return Fail(in, error);
    }
  }
  std::fputs(text.c_str(), stdout);
  return 0;
}

// The format -o or --emit asks for.
Format OutputFormat(const Cli& cli, const Job& job) {
  Format format = cli.emit;
  if (format == Format::kUnknown) {
    if (job.output.empty())
      format = Format::kSpvAsm;
    else if (job.output == "-")
      format = Format::kSpv;
    else
      format = FormatForExtension(Extension(job.output));
    if (format == Format::kUnknown) format = Format::kSpv;
  }
  return format;
}

// The result in the format -o or --emit asks for.
bool Encode(const Cli& cli, const Job& job, const waveopt::Result& result, std::string* out,
            std::string* error) {
  const Format format = OutputFormat(cli, job);
  switch (format) {
    case Format::kSpvAsm:
      return waveopt::DisassembleWords(result.words, result.target_env, out, error);
    case Format::kGlsl:
    case Format::kHlsl: {
      std::vector<std::string> notes;  // where the HLSL reads gl_NumWorkGroups
      const bool ok = waveopt::DecompileShader(
          result.words,
          format == Format::kGlsl ? waveopt::OutputLanguage::kGlsl : waveopt::OutputLanguage::kHlsl,
          out, error, &notes);
      for (const std::string& n : notes) {
        std::fprintf(stderr, "waveopt: note: %s: %s\n", job.input.c_str(), n.c_str());
      }
      return ok;
    }
    case Format::kSpv:
    case Format::kUnknown:
      break;
  }
  out->assign(reinterpret_cast<const char*>(result.words.data()), result.words.size() * 4);
  return true;
}

// |error| of Encode, saying whether the input itself could be written in
// that language: a back end's limit is not a rewrite's doing, and SPIR-V
// output is the way around it.
std::string EncodeError(const Cli& cli, const Job& job, const std::vector<uint32_t>& input,
                        const waveopt::Result& result, const std::string& error) {
  const Format format = OutputFormat(cli, job);
  if (format != Format::kGlsl && format != Format::kHlsl) return error;
  const char* language = format == Format::kGlsl ? "GLSL" : "HLSL";
  std::string source, input_error;
  if (result.words != input &&
      waveopt::DecompileShader(
          input,
          format == Format::kGlsl ? waveopt::OutputLanguage::kGlsl : waveopt::OutputLanguage::kHlsl,
          &source, &input_error)) {
    return error + " (the input can be written as " + language +
           ": the rewrite cannot; please report it, and write SPIR-V meanwhile)";
  }
  return error + " (the input itself cannot be written as " + std::string(language) +
         " by SPIRV-Cross; write SPIR-V instead: -o file.spv)";
}

// Writes the output, then the depfile (-MD); a depfile that cannot be
// written takes the output back, so no half of the pair is left.
int WriteOutputs(const Job& job, const std::string& bytes,
                 const std::vector<std::string>& includes) {
  std::string error;
  const std::string path = job.output.empty() ? "-" : job.output;
  if (!waveopt::WriteFileAtomically(path, bytes, &error)) return Fail(path, error);
  if (!job.deps.write) return 0;
  const std::string depfile = DepFilePath(job);
  if (!waveopt::WriteFileAtomically(depfile, DepRule(job, includes), &error)) {
    if (path != "-") unlink(path.c_str());
    return Fail(depfile, error);
  }
  return 0;
}

// --print-cache-key(-material): the key of the output this run would
// write, from the input and the files it #included as read now.
int PrintCacheKey(const Cli& cli, const Job& job, Format format, const std::string& bytes,
                  const std::vector<std::string>& includes) {
  KeyInputs k;
  k.cli = &cli;
  k.input_format = format;
  k.output_format = OutputFormat(cli, job);
  const bool source = format == Format::kGlsl || format == Format::kHlsl;
  if (source) {
    k.stage = cli.compile.stage.empty() && format == Format::kGlsl
                  ? waveopt::StageForExtension(Extension(job.input))
                  : cli.compile.stage;
  }
  k.files.emplace_back(source ? Recorded(cli, job, job.input) : "input", bytes);
  for (const std::string& file : includes) {
    std::string text, error;
    if (!waveopt::ReadFile(file, &text, &error)) return Fail(file, error);
    k.files.emplace_back(Recorded(cli, job, file), text);
  }
  const std::string material = CacheKeyMaterial(k);
  std::fputs(cli.print_cache_key_material ? material.c_str() : (Sha256Hex(material) + "\n").c_str(),
             stdout);
  return 0;
}

}  // namespace

bool ApplyJob(const Job& job, Cli* cli, std::string* error) {
  if (!job.stage.empty()) cli->compile.stage = job.stage;
  if (!job.entry_point.empty()) cli->compile.entry_point = job.entry_point;
  if (job.emit != Format::kUnknown) cli->emit = job.emit;
  for (const std::string& flag : job.option_flags) {
    if (!waveopt::ParseOptionFlag(flag, &cli->options, error)) return false;
    cli->key_flags.push_back(flag);
  }
  return true;
}

int RunJob(const Cli& base, const Job& job, bool write_remarks_file,
           std::vector<waveopt::Remark>* selected) {
  const std::string& in = job.input;
  std::string bytes, error;
  Cli cli = base;
  if (!ApplyJob(job, &cli, &error)) return Fail(in, error);
  if (!waveopt::ReadFile(in, &bytes, &error)) return Fail(in, error);
  const Format format = DetectFormat(cli, in, bytes);
  std::vector<uint32_t> words;
  std::vector<std::string> includes;
  if (!LoadModule(cli, job, format, bytes, &words, &includes, &error)) return Fail(in, error);
  if (cli.print_cache_key || cli.print_cache_key_material) {
    return PrintCacheKey(cli, job, format, bytes, includes);
  }
  if (job.deps.only) {
    if (job.deps.file.empty()) {
      std::fputs(DepRule(job, includes).c_str(), stdout);
      return 0;
    }
    if (!waveopt::WriteFileAtomically(job.deps.file, DepRule(job, includes), &error)) {
      return Fail(job.deps.file, error);
    }
    return 0;
  }
  if (cli.print_uniformity || cli.print_loop_candidates) return PrintAnalysis(cli, in, words);

  waveopt::Options options = cli.options;
  options.print_all = cli.print_all;
  // Remarks name the input's ids only where someone reads them.
  options.remark_sites = !cli.remarks_applied.empty() || !cli.remarks_missed.empty() ||
                         !cli.remarks_analysis.empty() || !cli.remarks_output.empty();
  // The output format is known before the passes run: for HLSL they use
  // only forms HLSL can express.
  options.emit_hlsl = OutputFormat(cli, job) == Format::kHlsl;
  options.emit_glsl = OutputFormat(cli, job) == Format::kGlsl;
  waveopt::Result result;
  const bool ok = waveopt::Optimize(words, options, &result);
  // Remarks first: they explain a failure too.
  ReportRemarks(cli, result.remarks, selected);
  if (cli.print_all) std::fputs(result.print_all.c_str(), stderr);
  if (cli.time_report) ReportTimes(result);
  if (!ok) {
    for (size_t i = 0; i + 1 < result.diagnostics.size(); ++i) {
      std::fprintf(stderr, "waveopt: note: %s\n", result.diagnostics[i].c_str());
    }
    return Fail(in, result.diagnostics.empty() ? "optimization failed" : result.diagnostics.back());
  }
  for (const std::string& d : result.diagnostics) {
    if (d.rfind("warning:", 0) == 0) std::fprintf(stderr, "waveopt: %s\n", d.c_str());
  }
  if (write_remarks_file && !cli.remarks_output.empty() &&
      !waveopt::WriteFileAtomically(cli.remarks_output, waveopt::FormatRemarksYaml(*selected),
                                    &error)) {
    return Fail(cli.remarks_output, error);
  }
  std::string out_bytes;
  if (!Encode(cli, job, result, &out_bytes, &error))
    return Fail(in, EncodeError(cli, job, words, result, error));
  const int status = WriteOutputs(job, out_bytes, includes);
  if (status == 0 && cli.print_spec_constants) {
    for (const waveopt::SpecVersion& v : result.versions) {
      std::printf("%s\n", waveopt::FormatSpecVersion(v).c_str());
    }
  }
  return status;
}

}  // namespace waveopt_cli
