// The C interface (waveopt/waveopt_c.h) over Optimize() and ParseOptionFlag().
#include "waveopt/waveopt_c.h"

#include <new>
#include <string>
#include <vector>

#include "waveopt/pipeline.h"

struct waveopt_result {
  bool ok = false;
  std::string error;
  waveopt::Result result;
  std::string yaml;
  std::vector<std::string> version_targets, version_passes;  // one each per version
};

static_assert(static_cast<int>(waveopt::RemarkKind::kApplied) == WAVEOPT_REMARK_APPLIED &&
                  static_cast<int>(waveopt::RemarkKind::kMissed) == WAVEOPT_REMARK_MISSED &&
                  static_cast<int>(waveopt::RemarkKind::kAnalysis) == WAVEOPT_REMARK_ANALYSIS,
              "waveopt_remark_kind mirrors waveopt::RemarkKind");

namespace {

const char* kOutOfMemory = "out of memory";

// "--emit=glsl|hlsl|spv|spvasm", the command line's output format: the
// rewrites stay emittable in that language (Options::emit_glsl/emit_hlsl);
// the result is SPIR-V all the same. True when |flag| is one; a bad format
// sets |error|.
bool ParseEmitFlag(const std::string& flag, waveopt::Options* options, std::string* error) {
  if (flag.rfind("--emit=", 0) != 0) return false;
  const std::string format = flag.substr(7);
  if (format != "glsl" && format != "hlsl" && format != "spv" && format != "spvasm") {
    *error = flag + ": --emit takes glsl, hlsl, spv or spvasm";
    return false;
  }
  options->emit_glsl = format == "glsl";
  options->emit_hlsl = format == "hlsl";
  return true;
}

// Fills |r| from one call; may throw std::bad_alloc.
void OptimizeInto(const uint32_t* words, size_t word_count, const char* const* flags,
                  size_t flag_count, waveopt_result* r) {
  waveopt::Options options;
  for (size_t i = 0; i < flag_count; ++i) {
    std::string error;
    if (flags[i] != nullptr && ParseEmitFlag(flags[i], &options, &error)) continue;
    if (flags[i] == nullptr || !error.empty() ||
        !waveopt::ParseOptionFlag(flags[i], &options, &error)) {
      r->error = flags[i] == nullptr ? "flag " + std::to_string(i) + " is NULL" : error;
      return;
    }
  }
  std::vector<uint32_t> input;
  if (words != nullptr) input.assign(words, words + word_count);
  r->ok = waveopt::Optimize(input, options, &r->result);
  if (!r->ok) {
    r->error = r->result.diagnostics.empty() ? "optimization failed" : r->result.diagnostics.back();
    r->result.diagnostics.pop_back();
  }
  r->yaml = waveopt::FormatRemarksYaml(r->result.remarks);
  for (const waveopt::SpecVersion& v : r->result.versions) {
    std::string targets, passes;
    for (waveopt::Target t : v.targets) {
      targets += (targets.empty() ? "" : " ") + std::string(waveopt::TargetName(t));
    }
    for (const std::string& p : v.passes) passes += (passes.empty() ? "" : ", ") + p;
    r->version_targets.push_back(targets);
    r->version_passes.push_back(passes);
  }
}

}  // namespace

extern "C" {

const char* waveopt_version(void) { return waveopt::Version(); }
const char* waveopt_spirv_tools_version(void) { return waveopt::SpirvToolsVersion(); }

waveopt_result* waveopt_optimize(const uint32_t* words, size_t word_count, const char* const* flags,
                                 size_t flag_count) {
  waveopt_result* r = new (std::nothrow) waveopt_result;
  if (r == nullptr) return nullptr;
  try {
    OptimizeInto(words, word_count, flags, flag_count, r);
  } catch (...) {
    r->ok = false;
    r->result = waveopt::Result();
    r->yaml.clear();
    r->error.clear();
    r->version_targets.clear();
    r->version_passes.clear();
  }
  return r;
}

int waveopt_result_ok(const waveopt_result* r) { return r != nullptr && r->ok ? 1 : 0; }

const uint32_t* waveopt_result_words(const waveopt_result* r, size_t* word_count) {
  const bool any = r != nullptr && r->ok && !r->result.words.empty();
  if (word_count != nullptr) *word_count = any ? r->result.words.size() : 0;
  return any ? r->result.words.data() : nullptr;
}

const char* waveopt_result_error(const waveopt_result* r) {
  if (r == nullptr) return kOutOfMemory;
  if (r->ok) return "";
  return r->error.empty() ? kOutOfMemory : r->error.c_str();
}

size_t waveopt_result_diagnostic_count(const waveopt_result* r) {
  return r == nullptr ? 0 : r->result.diagnostics.size();
}

const char* waveopt_result_diagnostic(const waveopt_result* r, size_t index) {
  if (r == nullptr || index >= r->result.diagnostics.size()) return nullptr;
  return r->result.diagnostics[index].c_str();
}

size_t waveopt_result_remark_count(const waveopt_result* r) {
  return r == nullptr ? 0 : r->result.remarks.size();
}

size_t waveopt_result_version_count(const waveopt_result* r) {
  return r == nullptr ? 0 : r->result.versions.size();
}

int waveopt_result_version(const waveopt_result* r, size_t index, waveopt_spec_version* version) {
  if (r == nullptr || version == nullptr || index >= r->result.versions.size()) return 0;
  const waveopt::SpecVersion& from = r->result.versions[index];
  version->spec_id = from.spec_id;
  version->name = from.name.c_str();
  version->targets = r->version_targets[index].c_str();
  version->passes = r->version_passes[index].c_str();
  return 1;
}

int waveopt_result_remark(const waveopt_result* r, size_t index, waveopt_remark* remark) {
  if (r == nullptr || remark == nullptr || index >= r->result.remarks.size()) return 0;
  const waveopt::Remark& from = r->result.remarks[index];
  remark->kind = static_cast<waveopt_remark_kind>(static_cast<int>(from.kind));
  remark->pass = from.pass.c_str();
  remark->name = from.name.c_str();
  remark->function = from.function.c_str();
  remark->file = from.file.c_str();
  remark->line = from.line;
  remark->column = from.column;
  remark->message = from.message.c_str();
  return 1;
}

const char* waveopt_result_remarks_yaml(const waveopt_result* r) {
  return r == nullptr ? "" : r->yaml.c_str();
}

void waveopt_result_destroy(waveopt_result* r) { delete r; }

}  // extern "C"
