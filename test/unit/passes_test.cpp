// The passes through the public API: factories in a plain spvtools::Optimizer,
// parameter checking, remarks, idempotence, id exhaustion.
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "passes/batch_uniform_loads_pass.h"
#include "spirv-tools/libspirv.hpp"
#include "spirv-tools/optimizer.hpp"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waveopt {
namespace {

// A counter (case A, result used) and a divergent-value sum (case B, unused).
const char* kCounterGlsl = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint count; uint total; uint slots[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  slots[g] = atomicAdd(count, 1u);
  atomicAdd(total, g);
}
)";

std::vector<uint32_t> Compile(const char* source) {
  std::vector<uint32_t> words;
  std::string error;
  CompileOptions options;
  options.stage = "comp";
  EXPECT_TRUE(CompileShader(source, "test.comp", options, &words, &error)) << error;
  return words;
}

std::vector<std::string> Names(const std::vector<Remark>& remarks) {
  std::vector<std::string> names;
  for (const Remark& r : remarks) names.push_back(r.name);
  return names;
}

TEST(RegisterPass, ChecksNamesAndParameters) {
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_1);
  PassConfig config;
  std::string error;
  EXPECT_FALSE(RegisterPass(&optimizer, "no-such-pass", config, &error));
  EXPECT_NE(error.find("unknown waveopt pass"), std::string::npos);
  config.params = "max-bins=0";
  EXPECT_FALSE(RegisterPass(&optimizer, "prereduce-atomics", config, &error));
  EXPECT_NE(error.find("max-bins must be a number from 1 to 128"), std::string::npos);
  config.params = "bogus";
  EXPECT_FALSE(RegisterPass(&optimizer, "prereduce-atomics", config, &error));
  EXPECT_NE(error.find("unknown parameter 'bogus'"), std::string::npos);
  config.params = "max-bins=8,extended-types";
  EXPECT_TRUE(RegisterPass(&optimizer, "prereduce-atomics", config, &error)) << error;
  config.params = "min-trip=x";
  EXPECT_FALSE(RegisterPass(&optimizer, "batch-uniform-loads", config, &error));
  config.params = "min-trip=4";
  EXPECT_TRUE(RegisterPass(&optimizer, "batch-uniform-loads", config, &error)) << error;
}

TEST(Factories, RunInsideAPlainOptimizerAndReportRemarks) {
  std::vector<uint32_t> words = Compile(kCounterGlsl);
  auto remarks = std::make_shared<RemarkCollector>();
  PassConfig config;
  config.remarks = remarks;
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_1);
  optimizer.RegisterPass(CreatePrereduceAtomicsPass(config));
  std::vector<uint32_t> out;
  ASSERT_TRUE(optimizer.Run(words.data(), words.size(), &out));
  EXPECT_NE(out, words);
  std::string error;
  EXPECT_TRUE(ValidateModule(out, SPV_ENV_VULKAN_1_1, &error)) << error;
  EXPECT_EQ(Names(remarks->remarks()), (std::vector<std::string>{"UniformAddressUniformValue",
                                                                 "UniformAddressDivergentValue"}));
  // Remarks carry the function and, from glslang's OpLine, the source line.
  EXPECT_EQ(remarks->remarks()[0].function, "main");
  EXPECT_EQ(remarks->remarks()[0].line, 6u);
  EXPECT_EQ(remarks->remarks()[0].file, "test.comp");
}

TEST(Factories, WithoutASinkRemarksGoToTheMessageConsumer) {
  std::vector<uint32_t> words = Compile(kCounterGlsl);
  std::vector<std::string> messages;
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_1);
  optimizer.SetMessageConsumer(
      [&messages](spv_message_level_t level, const char*, const spv_position_t&, const char* m) {
        if (level == SPV_MSG_INFO) messages.push_back(m);
      });
  optimizer.RegisterPass(CreatePrereduceAtomicsPass(PassConfig()));
  std::vector<uint32_t> out;
  ASSERT_TRUE(optimizer.Run(words.data(), words.size(), &out));
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_NE(messages[0].find("applied UniformAddressUniformValue in main"), std::string::npos);
}

TEST(Optimize, PassesAreIdempotentAndDeterministic) {
  std::vector<uint32_t> words = Compile(kCounterGlsl);
  Options options;
  options.pipeline.push_back({PipelineStep::Kind::kOptimize, "", ""});
  Result first, again, twice;
  ASSERT_TRUE(Optimize(words, options, &first));
  ASSERT_TRUE(Optimize(words, options, &again));
  EXPECT_EQ(first.words, again.words);
  ASSERT_TRUE(Optimize(first.words, options, &twice));
  EXPECT_EQ(twice.words, first.words);
  for (const Remark& r : twice.remarks) {
    EXPECT_NE(r.kind, RemarkKind::kApplied) << r.name;
  }
}

TEST(Optimize, SubgroupSizeOneTurnsThePassesOff) {
  std::vector<uint32_t> words = Compile(kCounterGlsl);
  Options options;
  options.subgroup_size = 1;
  options.pipeline.push_back({PipelineStep::Kind::kWaveopt, "prereduce-atomics", ""});
  Result result;
  ASSERT_TRUE(Optimize(words, options, &result));
  EXPECT_EQ(result.words, words);
  ASSERT_EQ(result.remarks.size(), 2u);
  EXPECT_EQ(result.remarks[0].name, "SubgroupSizeOne");
}

TEST(Factories, TheTargetsFactsReachThePass) {
  // A library user sets PassConfig's target; AMD's driver pre-reduces both
  // 32-bit uniform-address atomics itself, a CPU driver keeps only case B.
  std::vector<uint32_t> words = Compile(kCounterGlsl);
  for (Target target : {Target::kAmd, Target::kCpu}) {
    auto remarks = std::make_shared<RemarkCollector>();
    PassConfig config;
    config.remarks = remarks;
    config.SetTarget(target);
    spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_1);
    optimizer.RegisterPass(CreatePrereduceAtomicsPass(config));
    std::vector<uint32_t> out;
    ASSERT_TRUE(optimizer.Run(words.data(), words.size(), &out));
    if (target == Target::kAmd) {
      EXPECT_EQ(out, words);
      EXPECT_EQ(Names(remarks->remarks()),
                (std::vector<std::string>{"DriverPreReduces", "DriverPreReduces"}));
    } else {
      EXPECT_NE(out, words);
      EXPECT_EQ(Names(remarks->remarks()),
                (std::vector<std::string>{"NotProfitableOnCpu", "UniformAddressDivergentValue"}));
    }
  }
  Target parsed = Target::kNone;
  EXPECT_TRUE(ParseTarget("radv", &parsed));  // --assume-driver's old name
  EXPECT_EQ(parsed, Target::kAmd);
  EXPECT_STREQ(TargetName(parsed), "amd");
  EXPECT_TRUE(ParseTarget("generic", &parsed));
  EXPECT_EQ(parsed, Target::kPortable);
  EXPECT_FALSE(ParseTarget("AMD", &parsed));
  for (Target t : AllTargets()) {
    EXPECT_TRUE(ParseTarget(TargetName(t), &parsed));
    EXPECT_EQ(parsed, t);
  }
}

TEST(Targets, PortableHoldsEveryFactThatMakesAMeasuredTargetLose) {
  // A fact that makes a pass refuse on amd or cpu is portable's too; the
  // facts that only enable a rewrite on one target are not.
  const TargetFacts portable = FactsOf(Target::kPortable);
  for (const TargetFactInfo& info : TargetFactTable()) {
    const bool enabling = std::string(info.name) == "cheap-lane-prefix" ||
                          std::string(info.name) == "waves-32-or-64" ||
                          std::string(info.name) == "slow-subgroup-loops";
    const bool any = FactsOf(Target::kAmd).*info.member || FactsOf(Target::kCpu).*info.member;
    EXPECT_EQ(portable.*info.member, any && !enabling) << info.name;
    EXPECT_FALSE(FactsOf(Target::kNone).*info.member) << info.name;
  }
  EXPECT_EQ(TargetFactTable().size(), 9u);
}

TEST(Optimize, OptimizeLeavesModulesItCannotImproveBitForBit) {
  std::vector<uint32_t> words = Compile(R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint values[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint v = values[g];
  values[g] = v * 3u + 1u;
}
)");
  Options options;
  options.pipeline.push_back({PipelineStep::Kind::kOptimize, "", ""});
  Result result;
  ASSERT_TRUE(Optimize(words, options, &result));
  EXPECT_EQ(result.words, words);
}

// `waveopt --help` prints each pass's parameter line from passes/passes.def;
// every "key=N (default D)" there must be the default the code uses.
TEST(Registry, BatchUniformLoadsHelpStatesTheCodesDefaults) {
  const BatchUniformLoadsPass::Params code;
  const std::map<std::string, uint32_t> defaults = {{"min-trip", code.min_trip},
                                                    {"max-components", code.max_components},
                                                    {"max-live", code.max_live},
                                                    {"driver-unroll", code.driver_unroll}};
  std::string help;
  for (const PassInfo& info : RegisteredPasses()) {
    if (std::string(info.name) == "batch-uniform-loads") help = info.params;
  }
  ASSERT_FALSE(help.empty());
  for (const auto& [key, value] : defaults) {
    const std::string stated = key + "=N (default ";
    const size_t at = help.find(stated);
    ASSERT_NE(at, std::string::npos) << key << " missing from: " << help;
    EXPECT_EQ(std::strtoul(help.c_str() + at + stated.size(), nullptr, 10), value)
        << key << " in: " << help;
  }
}

}  // namespace
}  // namespace waveopt
