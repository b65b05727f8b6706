// libFuzzer target: SPIR-V bytes → validate → waveopt -O → validate.
//
// The oracle: a module that validates for its target environment must come
// out of waveopt::Optimize(-O) successfully, as a module that validates too.
// A crash, a sanitizer report, a failed Optimize() or an invalid output is a
// bug (the target aborts with the reason).
//
// Input layout: the first size - size % 4 bytes are the module (either byte
// order); the size % 4 trailing bytes, when there are any, pick options from
// their last byte, so seeds made from real modules stay valid as they are:
//   bits 0-2: subgroup size promise: 0 none, n → 1 << (n - 1) (1 .. 64)
//   bits 3-5: target environment: 0 from the module, 1 vulkan1.0, 2 vulkan1.1,
//             3 vulkan1.2, 4 vulkan1.3, 5 spv1.6, 6 vulkan1.1spv1.4, 7 spv1.3
//   bit 6:    run every pass alone as well (one Optimize() per pass)
//
// WAVEOPT_FUZZ_DETERMINISM=1 in the environment: every input is optimized
// twice and the two outputs must be identical.
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

spv_target_env EnvFromBits(unsigned bits, bool* has) {
  static const spv_target_env kEnvs[] = {SPV_ENV_UNIVERSAL_1_0,        SPV_ENV_VULKAN_1_0,
                                         SPV_ENV_VULKAN_1_1,           SPV_ENV_VULKAN_1_2,
                                         SPV_ENV_VULKAN_1_3,           SPV_ENV_UNIVERSAL_1_6,
                                         SPV_ENV_VULKAN_1_1_SPIRV_1_4, SPV_ENV_UNIVERSAL_1_3};
  *has = bits != 0;
  return kEnvs[bits & 7];
}

void Check(const std::vector<uint32_t>& words, waveopt::Options options) {
  const spv_target_env env =
      options.has_target_env ? options.target_env : waveopt::DefaultTargetEnv(words);
  std::string error;
  if (!waveopt::ValidateModule(words, env, &error)) return;  // not our input

  waveopt::Result result;
  if (!waveopt::Optimize(words, options, &result)) {
    Bug("Optimize failed on a valid module", result);
  }
  if (result.words.empty()) Bug("Optimize succeeded with no module", result);
  if (!waveopt::ValidateModule(result.words, result.target_env, &error)) {
    result.diagnostics.push_back(error);
    Bug("Optimize returned a module that does not validate", result);
  }
  static const bool determinism = std::getenv("WAVEOPT_FUZZ_DETERMINISM") != nullptr;
  if (determinism) {
    waveopt::Result again;
    if (!waveopt::Optimize(words, options, &again) || again.words != result.words) {
      Bug("two runs on the same input gave different results", again);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const size_t tail = size % 4;
  const uint8_t opts = tail != 0 ? data[size - 1] : 0;
  std::string bytes(reinterpret_cast<const char*>(data), size - tail);
  std::vector<uint32_t> words;
  std::string error;
  if (!waveopt::BytesToWords(bytes, &words, &error)) return 0;

  waveopt::Options options;
  if ((opts & 7) != 0) options.subgroup_size = 1u << ((opts & 7) - 1);
  options.target_env = EnvFromBits((opts >> 3) & 7, &options.has_target_env);
  options.pipeline.push_back({waveopt::PipelineStep::Kind::kOptimize, "", ""});
  Check(words, options);

  if ((opts & 0x40) != 0) {
    for (const waveopt::PassInfo& pass : waveopt::RegisteredPasses()) {
      options.pipeline.assign(1, {waveopt::PipelineStep::Kind::kWaveopt, pass.name, ""});
      Check(words, options);
    }
  }
  return 0;
}
