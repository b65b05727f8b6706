// The foundation: I/O helpers, target environments, remarks, the registry.
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waveopt {
namespace {

const char* kTrivialCompute = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %main = OpFunction %void None %3
          %5 = OpLabel
               OpReturn
               OpFunctionEnd
)";

std::vector<uint32_t> Assemble(const char* text) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(AssembleText(text, SPV_ENV_UNIVERSAL_1_3, &words, &error)) << error;
  return words;
}

TEST(BytesToWords, RejectsEmptyShortAndBadMagic) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_FALSE(BytesToWords("", &words, &error));
  EXPECT_NE(error.find("empty"), std::string::npos);
  EXPECT_FALSE(BytesToWords("abc", &words, &error));
  EXPECT_NE(error.find("whole number"), std::string::npos);
  EXPECT_FALSE(BytesToWords(std::string(8, '\0'), &words, &error));
  EXPECT_NE(error.find("truncated"), std::string::npos);
  EXPECT_FALSE(BytesToWords(std::string(20, 'x'), &words, &error));
  EXPECT_NE(error.find("magic"), std::string::npos);
}

TEST(BytesToWords, AcceptsBothEndiannesses) {
  std::vector<uint32_t> words = Assemble(kTrivialCompute);
  std::string bytes(reinterpret_cast<const char*>(words.data()), words.size() * 4);
  std::vector<uint32_t> back;
  std::string error;
  ASSERT_TRUE(BytesToWords(bytes, &back, &error));
  EXPECT_EQ(back, words);
  std::string swapped = bytes;
  for (size_t i = 0; i < swapped.size(); i += 4) {
    std::swap(swapped[i], swapped[i + 3]);
    std::swap(swapped[i + 1], swapped[i + 2]);
  }
  ASSERT_TRUE(BytesToWords(swapped, &back, &error));
  EXPECT_EQ(back, words);
}

TEST(TargetEnv, NamesRoundTrip) {
  for (const char* name : {"vulkan1.0", "vulkan1.1", "vulkan1.1spv1.4", "vulkan1.2", "vulkan1.3",
                           "spv1.0", "spv1.3", "spv1.6"}) {
    spv_target_env env;
    ASSERT_TRUE(ParseTargetEnv(name, &env)) << name;
    EXPECT_EQ(TargetEnvName(env), name);
  }
  spv_target_env env;
  EXPECT_FALSE(ParseTargetEnv("vulkan9.9", &env));
}

TEST(TargetEnv, DefaultIsLowestVulkanThatFits) {
  std::vector<uint32_t> words = Assemble(kTrivialCompute);
  words[1] = 0x00010000;
  EXPECT_EQ(DefaultTargetEnv(words), SPV_ENV_VULKAN_1_0);
  words[1] = 0x00010300;
  EXPECT_EQ(DefaultTargetEnv(words), SPV_ENV_VULKAN_1_1);
  words[1] = 0x00010400;
  EXPECT_EQ(DefaultTargetEnv(words), SPV_ENV_VULKAN_1_1_SPIRV_1_4);
  words[1] = 0x00010500;
  EXPECT_EQ(DefaultTargetEnv(words), SPV_ENV_VULKAN_1_2);
  words[1] = 0x00010600;
  EXPECT_EQ(DefaultTargetEnv(words), SPV_ENV_VULKAN_1_3);
}

TEST(Remarks, TextAndYaml) {
  Remark r;
  r.kind = RemarkKind::kMissed;
  r.pass = "prereduce-atomics";
  r.name = "DivergentAddress";
  r.function = "main";
  r.file = "a.comp";
  r.line = 12;
  r.message = "the address differs between lanes";
  EXPECT_EQ(FormatRemark(r),
            "a.comp:12: remark: prereduce-atomics: missed DivergentAddress in main: "
            "the address differs between lanes");
  std::string yaml = FormatRemarksYaml({r});
  EXPECT_NE(yaml.find("--- !Missed"), std::string::npos);
  EXPECT_NE(yaml.find("Name:            'DivergentAddress'"), std::string::npos);
  EXPECT_NE(yaml.find("Line: 12"), std::string::npos);
  r.message = "it's";
  EXPECT_NE(FormatRemarksYaml({r}).find("'it''s'"), std::string::npos);
}

// One remark per site and pass: repeats dropped, a missed remark folded into
// the applied one at its line, other lines, passes and unlocated remarks kept.
TEST(Remarks, MergePerSite) {
  auto make = [](RemarkKind kind, const char* pass, const char* name, uint32_t line,
                 const char* message) {
    Remark r;
    r.kind = kind;
    r.pass = pass;
    r.name = name;
    r.function = "main";
    r.file = "a.comp";
    r.line = line;
    r.message = message;
    return r;
  };
  const RemarkKind kMissed = RemarkKind::kMissed, kApplied = RemarkKind::kApplied;
  std::vector<Remark> in = {
      make(kMissed, "prereduce-atomics", "NotProfitableOnCpu", 18, "slower on lavapipe"),
      make(kMissed, "quad-exchange", "UnsupportedAccess", 18, "atomics"),
      make(kMissed, "prereduce-atomics", "DistinctAddresses", 21, "own index"),
      make(kMissed, "prereduce-atomics", "DistinctAddresses", 21, "own index"),
      make(kMissed, "prereduce-atomics", "NoLine", 0, "x"),
      make(kMissed, "prereduce-atomics", "NoLine", 0, "y"),
      make(kApplied, "prereduce-atomics", "SmallBinSet", 18,
           "one atomic per bin (in the "
           "versions for amd and nvidia, SpecId 1000 or 1001)"),
  };
  std::vector<Remark> out = MergeRemarksPerSite(in);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(FormatRemark(out[0]),
            "a.comp:18: remark: prereduce-atomics: applied SmallBinSet in main: one atomic per "
            "bin (in the versions for amd and nvidia, SpecId 1000 or 1001); here also missed "
            "NotProfitableOnCpu: slower on lavapipe");
  EXPECT_EQ(out[1].name, "UnsupportedAccess");
  EXPECT_EQ(out[2].name, "DistinctAddresses");
  EXPECT_EQ(out[2].message, "own index");
  EXPECT_EQ(out[3].message, "x");
  EXPECT_EQ(out[4].message, "y");
  // A loop's remarks sit on different lines: the loop tag is their site.
  out = MergeRemarksPerSite(
      {make(kMissed, "batch-uniform-loads", "DriverScalarizes", 18, "scalar loads [loop %56]"),
       make(kApplied, "batch-uniform-loads", "BatchedLoads", 17, "batched [loop %56] (nvidia)"),
       make(kMissed, "batch-uniform-loads", "DriverScalarizes", 30, "scalar loads [loop %70]")});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].line, 17u);
  EXPECT_EQ(
      out[0].message,
      "batched [loop %56] (nvidia); here also missed DriverScalarizes: scalar loads [loop %56]");
  EXPECT_EQ(out[1].line, 30u);
  // In a module with lines the tag is the loop's line.
  out = MergeRemarksPerSite(
      {make(kMissed, "batch-uniform-loads", "DriverScalarizes", 18, "scalar [loop at line 17]"),
       make(kApplied, "batch-uniform-loads", "BatchedLoads", 17, "batched [loop at line 17]"),
       make(kMissed, "batch-uniform-loads", "DriverScalarizes", 31, "scalar [loop at line 30]")});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(
      out[0].message,
      "batched [loop at line 17]; here also missed DriverScalarizes: scalar [loop at line 17]");
}

TEST(Optimize, EmptyPipelineKeepsModule) {
  std::vector<uint32_t> words = Assemble(kTrivialCompute);
  Options options;
  Result result;
  ASSERT_TRUE(Optimize(words, options, &result));
  EXPECT_EQ(result.words, words);
  EXPECT_EQ(result.target_env, SPV_ENV_VULKAN_1_1);
}

TEST(Optimize, InvalidInputFailsWithOneLine) {
  std::vector<uint32_t> words = Assemble(R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
       %void = OpTypeVoid
          %3 = OpTypeFunction %void
       %main = OpFunction %void None %3
          %5 = OpLabel
               OpFunctionEnd
)");
  Options options;
  Result result;
  EXPECT_FALSE(Optimize(words, options, &result));
  ASSERT_FALSE(result.diagnostics.empty());
  EXPECT_NE(result.diagnostics.back().find("input is not valid"), std::string::npos);
  EXPECT_TRUE(result.words.empty());
}

TEST(Optimize, SpirvOptFlagsRunInOrder) {
  std::vector<uint32_t> words = Assemble(kTrivialCompute);
  Options options;
  options.pipeline.push_back({PipelineStep::Kind::kSpirvOpt, "--merge-blocks", ""});
  options.pipeline.push_back(
      {PipelineStep::Kind::kSpirvOpt, "--eliminate-dead-code-aggressive", ""});
  Result result;
  ASSERT_TRUE(Optimize(words, options, &result));
  ASSERT_EQ(result.timings.size(), 1u);
  EXPECT_EQ(result.timings[0].pass, "spirv-opt --merge-blocks --eliminate-dead-code-aggressive");
}

TEST(Optimize, UnknownPassFails) {
  std::vector<uint32_t> words = Assemble(kTrivialCompute);
  Options options;
  options.pipeline.push_back({PipelineStep::Kind::kWaveopt, "no-such-pass", ""});
  Result result;
  EXPECT_FALSE(Optimize(words, options, &result));
  EXPECT_NE(result.diagnostics.back().find("unknown waveopt pass"), std::string::npos);
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Every registered pass has its doc page and its lit directory.
TEST(Registry, EveryPassHasDocsAndLitTests) {
  for (const PassInfo& p : RegisteredPasses()) {
    std::string root = WAVEOPT_SOURCE_DIR;
    EXPECT_TRUE(Exists(root + "/docs/passes/" + p.name + ".md"))
        << "pass " << p.name << " has no docs/passes/" << p.name << ".md";
    EXPECT_TRUE(Exists(root + "/test/lit/" + p.name))
        << "pass " << p.name << " has no test/lit/" << p.name << "/";
    EXPECT_NE(std::string(p.help), "") << p.name;
  }
}

// The list CMake derived from passes.def (which chose the sources) agrees
// with the compiled registry.
TEST(Registry, CMakeAndCompiledRegistryAgree) {
  std::string names;
  for (const PassInfo& p : RegisteredPasses()) {
    names += (names.empty() ? "" : ",") + std::string(p.name);
  }
  EXPECT_EQ(names, WAVEOPT_PASS_NAMES);
}

}  // namespace
}  // namespace waveopt
