// -O's versions: the join of several targets' modules behind boolean
// specialization constants (lib/versions.h), what Optimize() and the C API
// report of them, and the refusal of a SpecId the module uses itself.
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/versions.h"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"
#include "waveopt/waveopt_c.h"

namespace waveopt {
namespace {

// A light loop over a read-only buffer: portable and amd leave the loads to
// scalar loads, nvidia batches them.
const char* kLights = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Lights { vec4 lights[]; };
layout(set = 0, binding = 1) buffer Out { vec4 color[]; };
layout(push_constant) uniform Count { uint count; } pc;
SPEC
#ifndef MINE
#define MINE 0u
#endif
void main() {
  vec4 sum = vec4(0.0);
  for (uint i = 0u; i < pc.count; ++i) sum += lights[i] * float(gl_LocalInvocationID.x + MINE);
  color[gl_GlobalInvocationID.x] = sum;
}
)";

std::vector<uint32_t> Compile(const std::string& spec = "") {
  std::string source = kLights;
  source.replace(source.find("SPEC"), 4, spec);
  std::vector<uint32_t> words;
  std::string error;
  CompileOptions options;
  options.stage = "comp";
  EXPECT_TRUE(CompileShader(source, "lights.comp", options, &words, &error)) << error;
  return words;
}

std::vector<uint32_t> OptimizeFor(const std::vector<uint32_t>& words, const char* target) {
  Options options;
  std::string error;
  for (const char* flag : {"-O", target}) EXPECT_TRUE(ParseOptionFlag(flag, &options, &error));
  Result result;
  EXPECT_TRUE(Optimize(words, options, &result));
  return result.words;
}

std::string Disassemble(const std::vector<uint32_t>& words) {
  std::string text, error;
  EXPECT_TRUE(DisassembleWords(words, SPV_ENV_VULKAN_1_1, &text, &error)) << error;
  return text;
}

TEST(JoinVersions, TwoConstantsSelectOneSharedVersion) {
  const std::vector<uint32_t> input = Compile();
  const std::vector<uint32_t> portable = OptimizeFor(input, "--target=portable");
  const std::vector<uint32_t> nvidia = OptimizeFor(input, "--target=nvidia");
  ASSERT_NE(portable, nvidia);
  std::vector<uint32_t> joined;
  std::string why;
  ASSERT_TRUE(JoinVersions(portable, {{nvidia, {{7, "first"}, {9, "second"}}, "_both"}},
                           SPV_ENV_VULKAN_1_1, &joined, &why))
      << why;
  std::string error;
  EXPECT_TRUE(ValidateModule(joined, SPV_ENV_VULKAN_1_1, &error)) << error;
  const std::string text = Disassemble(joined);
  EXPECT_NE(text.find("OpSpecConstantOp %bool LogicalOr"), std::string::npos) << text;
  EXPECT_NE(text.find("OpName %main_both \"main_both\""), std::string::npos) << text;
  EXPECT_EQ(DeclaredSpecIds(joined, SPV_ENV_VULKAN_1_1),
            (std::map<uint32_t, std::string>{{7, "first"}, {9, "second"}}));
  // The shared types are not repeated: one float type, one buffer variable
  // per binding.
  size_t floats = 0;
  for (size_t at = text.find("OpTypeFloat 32"); at != std::string::npos;
       at = text.find("OpTypeFloat 32", at + 1)) {
    ++floats;
  }
  EXPECT_EQ(floats, 1u);
}

TEST(JoinVersions, OptimizeReportsTheVersionsAndTheCApiToo) {
  const std::vector<uint32_t> input = Compile();
  Options options;
  std::string error;
  ASSERT_TRUE(ParseOptionFlag("-O", &options, &error));
  Result result;
  ASSERT_TRUE(Optimize(input, options, &result));
  ASSERT_EQ(result.versions.size(), 1u);
  EXPECT_EQ(result.versions[0].spec_id, 1001u);
  EXPECT_EQ(result.versions[0].name, "waveopt_nvidia");
  EXPECT_EQ(FormatSpecVersion(result.versions[0]),
            "SpecId 1001 bool waveopt_nvidia = false: true on nvidia (batch-uniform-loads)");
  const char* flags[] = {"-O", "--spec-id-base=20"};
  waveopt_result* r = waveopt_optimize(input.data(), input.size(), flags, 2);
  ASSERT_TRUE(waveopt_result_ok(r)) << waveopt_result_error(r);
  ASSERT_EQ(waveopt_result_version_count(r), 1u);
  waveopt_spec_version v;
  ASSERT_EQ(waveopt_result_version(r, 0, &v), 1);
  EXPECT_EQ(v.spec_id, 21u);
  EXPECT_STREQ(v.name, "waveopt_nvidia");
  EXPECT_STREQ(v.targets, "nvidia");
  EXPECT_STREQ(v.passes, "batch-uniform-loads");
  EXPECT_EQ(waveopt_result_version(r, 1, &v), 0);
  waveopt_result_destroy(r);
}

TEST(JoinVersions, ASpecIdOfTheModulesOwnIsRefused) {
  const std::vector<uint32_t> input =
      Compile("layout(constant_id = 1001) const uint mine = 1u;\n#define MINE mine");
  Options options;
  std::string error;
  ASSERT_TRUE(ParseOptionFlag("-O", &options, &error));
  Result result;
  EXPECT_FALSE(Optimize(input, options, &result));
  EXPECT_TRUE(result.words.empty());
  ASSERT_FALSE(result.diagnostics.empty());
  EXPECT_EQ(result.diagnostics.back().rfind("SpecId 1001 is the module's own (mine); move", 0), 0u)
      << result.diagnostics.back();
  // Moved clear of it, it is joined.
  ASSERT_TRUE(ParseOptionFlag("--spec-id-base=2000", &options, &error));
  EXPECT_TRUE(Optimize(input, options, &result));
  ASSERT_EQ(result.versions.size(), 1u);
  EXPECT_EQ(result.versions[0].spec_id, 2001u);
}

}  // namespace
}  // namespace waveopt
