// The frontends component: GLSL in, optimized, GLSL out.
#include <cstdio>

#include "waveopt/io.h"
#include "waveopt/waveopt.h"

int main() {
  const char* source = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint counter; };
void main() { atomicAdd(counter, 1u); }
)";
  std::vector<uint32_t> words;
  std::string error;
  waveopt::CompileOptions compile;
  if (!waveopt::CompileShader(source, "counter.comp", compile, &words, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  waveopt::Options options;
  options.pipeline.push_back({waveopt::PipelineStep::Kind::kOptimize, "", ""});
  waveopt::Result result;
  std::string glsl;
  if (!waveopt::Optimize(words, options, &result) ||
      !waveopt::DecompileShader(result.words, waveopt::OutputLanguage::kGlsl, &glsl, &error)) {
    std::fprintf(stderr, "failed\n");
    return 1;
  }
  std::printf("%s", glsl.c_str());
  return glsl.find("subgroup") == std::string::npos;
}
