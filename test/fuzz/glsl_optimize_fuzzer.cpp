// libFuzzer target: GLSL text → glslang front end (waveopt::CompileShader)
// → waveopt -O → validate.
//
// The oracle: the front end either compiles or refuses with one line; a module
// it produces and that validates must come out of Optimize(-O) successfully
// and validate again. Anything else aborts with the reason.
//
// The stage is "comp" unless the text contains a line "//stage:<stage>"
// (frag, vert, ...), so the fuzzer can reach the other stages too.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace {

[[noreturn]] void Bug(const char* what, const waveopt::Result& result) {
  std::fprintf(stderr, "waveopt fuzz: %s\n", what);
  for (const std::string& d : result.diagnostics) std::fprintf(stderr, "  %s\n", d.c_str());
  std::abort();
}

std::string StageOf(const std::string& text) {
  static const char kTag[] = "//stage:";
  const size_t at = text.find(kTag);
  if (at == std::string::npos) return "comp";
  std::string stage;
  for (size_t i = at + sizeof(kTag) - 1; i < text.size() && stage.size() < 4; ++i) {
    if (text[i] < 'a' || text[i] > 'z') break;
    stage += text[i];
  }
  for (const char* known : {"vert", "frag", "geom", "tesc", "tese", "task", "mesh"}) {
    if (stage == known) return stage;
  }
  return "comp";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // glslang's preprocessor is quadratic on some inputs; long texts add
  // nothing the short ones do not reach.
  if (size > 16384) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);

  waveopt::CompileOptions compile;
  compile.stage = StageOf(text);
  compile.target_env = SPV_ENV_VULKAN_1_1;
  std::vector<uint32_t> words;
  std::string error;
  if (!waveopt::CompileShader(text, "fuzz.glsl", compile, &words, &error)) {
    if (error.empty() || error.find('\n') != std::string::npos) {
      std::fprintf(stderr, "waveopt fuzz: front end refusal is not one line: '%s'\n",
                   error.c_str());
      std::abort();
    }
    return 0;
  }
  waveopt::Options options;
  options.pipeline.push_back({waveopt::PipelineStep::Kind::kOptimize, "", ""});
  const spv_target_env env = waveopt::DefaultTargetEnv(words);
  // glslang occasionally emits modules spirv-val rejects; those are glslang's.
  if (!waveopt::ValidateModule(words, env, &error)) return 0;

  waveopt::Result result;
  if (!waveopt::Optimize(words, options, &result)) {
    Bug("Optimize failed on a valid module from the front end", result);
  }
  if (!waveopt::ValidateModule(result.words, result.target_env, &error)) {
    result.diagnostics.push_back(error);
    Bug("Optimize returned a module that does not validate", result);
  }
  return 0;
}
