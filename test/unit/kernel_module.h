// Unit-test helper shared by the analysis tests: a GLSL compute kernel
// compiled to SPIR-V and, on request, taken to the SSA form -O hands the
// passes (entry points inlined, locals scalar-replaced and rewritten).
#ifndef WAVEOPT_TEST_UNIT_KERNEL_MODULE_H_
#define WAVEOPT_TEST_UNIT_KERNEL_MODULE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waveopt {
namespace testing_kernels {

// The module of |source| (GLSL, or HLSL with entry point "main" when
// |language| says so), in SSA form when |ssa|. A failure to compile or
// optimize is a test failure, and the result is then empty.
inline std::vector<uint32_t> CompileKernel(const std::string& source, bool ssa,
                                           SourceLanguage language = SourceLanguage::kGlsl) {
  CompileOptions options;
  options.stage = "comp";
  options.language = language;
  const char* file_name = language == SourceLanguage::kHlsl ? "kernel.hlsl" : "kernel.comp";
  std::vector<uint32_t> words;
  std::string error;
  if (!CompileShader(source, file_name, options, &words, &error)) {
    ADD_FAILURE() << error;
    return {};
  }
  if (!ssa) return words;
  Options o;
  for (const char* flag :
       {"--inline-entry-points-exhaustive", "--eliminate-dead-functions", "--scalar-replacement",
        "--convert-local-access-chains", "--ssa-rewrite"}) {
    PipelineStep step;
    step.kind = PipelineStep::Kind::kSpirvOpt;
    step.name = flag;
    o.pipeline.push_back(step);
  }
  Result r;
  if (!Optimize(words, o, &r)) {
    ADD_FAILURE() << (r.diagnostics.empty() ? "" : r.diagnostics.back());
    return {};
  }
  return r.words;
}

}  // namespace testing_kernels
}  // namespace waveopt

#endif  // WAVEOPT_TEST_UNIT_KERNEL_MODULE_H_
