// The library as an engine links it: no fork on the library path, isolation
// only when asked (crash, hang), -O inside one's own spvtools::Optimizer,
// per-pass parameters, failures through the message consumer, the SPIR-V
// version raise, ParseOptionFlag and the C API.
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/pipeline_testing.h"
#include "spirv-tools/optimizer.hpp"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"
#include "waveopt/waveopt_c.h"

namespace waveopt {
namespace {

std::atomic<int> g_forks{0};
void CountFork() { ++g_forks; }
const bool kAtForkRegistered = pthread_atfork(CountFork, nullptr, nullptr) == 0;

// A histogram (prereduce-atomics) and a light loop (batch-uniform-loads).
const char* kEngineShader = R"(#version 450
layout(local_size_x = 64) in;
struct Light { vec4 position_radius; vec4 color; };
layout(set = 0, binding = 0) readonly buffer Lights { uint count; Light lights[]; };
layout(set = 0, binding = 1) buffer Out { uint bins[16]; vec4 result[]; };
void main() {
  vec3 sum = vec3(0.0);
  vec2 p = vec2(gl_GlobalInvocationID.xy);
  for (uint i = 0u; i < count; ++i) {
    Light l = lights[i];
    float d = distance(p, l.position_radius.xy);
    if (d < l.position_radius.w) sum += l.color.rgb;
  }
  result[gl_GlobalInvocationID.x] = vec4(sum, 1.0);
  atomicAdd(bins[min(uint(sum.x), 15u)], 1u);
}
)";

std::vector<uint32_t> Compile(spv_target_env env = SPV_ENV_VULKAN_1_1) {
  std::vector<uint32_t> words;
  std::string error;
  CompileOptions options;
  options.stage = "comp";
  options.target_env = env;
  EXPECT_TRUE(CompileShader(kEngineShader, "engine.comp", options, &words, &error)) << error;
  return words;
}

std::vector<std::string> AppliedNames(const std::vector<Remark>& remarks) {
  std::vector<std::string> names;
  for (const Remark& r : remarks) {
    if (r.kind == RemarkKind::kApplied) names.push_back(r.name);
  }
  return names;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  for (const std::string& x : v) {
    if (x == s) return true;
  }
  return false;
}

Options OptimizeO() {
  Options options;
  options.pipeline.push_back({PipelineStep::Kind::kOptimize, "", ""});
  return options;
}

TEST(Library, OptimizeNeverForksByDefault) {
  ASSERT_TRUE(kAtForkRegistered);
  const std::vector<uint32_t> words = Compile();
  const int before = g_forks.load();
  Result result;
  ASSERT_TRUE(Optimize(words, OptimizeO(), &result));
  EXPECT_EQ(g_forks.load(), before);
  EXPECT_TRUE(Contains(AppliedNames(result.remarks), "BatchedLoads"));
  // Asked for, isolation forks, and gives the same bytes.
  Options isolated = OptimizeO();
  isolated.isolation = Isolation::kChildProcess;
  Result again;
  ASSERT_TRUE(Optimize(words, isolated, &again));
  EXPECT_GT(g_forks.load(), before);
  EXPECT_EQ(again.words, result.words);
}

[[noreturn]] void CrashingStep() {
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
  raise(SIGSEGV);
  _exit(99);
}

void HangingStep() {
  for (;;) pause();
}

// Restores the hook when a test ends, however it ends.
struct StepHook {
  explicit StepHook(void (*hook)()) { SetSpirvOptStepHookForTesting(hook); }
  ~StepHook() { SetSpirvOptStepHookForTesting(nullptr); }
};

TEST(Isolation, ACrashInOptionalStepsSkipsThem) {
  const std::vector<uint32_t> words = Compile();
  StepHook hook(CrashingStep);
  Options options = OptimizeO();
  options.isolation = Isolation::kChildProcess;
  // One build (every rewrite): the diagnostics are those of one -O.
  options.has_target = true;
  options.target = Target::kNone;
  Result result;
  ASSERT_TRUE(Optimize(words, options, &result)) << result.diagnostics.back();
  ASSERT_GE(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0],
            "warning: spirv-opt crashed (signal 11, Segmentation fault) in the SSA rewrite "
            "before -O; step skipped");
  if (result.words != words) {
    EXPECT_EQ(result.diagnostics.back(),
              "warning: spirv-opt crashed (signal 11, Segmentation fault) in the cleanup "
              "after -O; cleanup skipped");
  }
  std::string error;
  EXPECT_TRUE(ValidateModule(result.words, SPV_ENV_VULKAN_1_1, &error)) << error;
}

TEST(Isolation, ACrashInANamedStepFailsTheCall) {
  const std::vector<uint32_t> words = Compile();
  StepHook hook(CrashingStep);
  Options options;
  options.isolation = Isolation::kChildProcess;
  options.pipeline.push_back({PipelineStep::Kind::kSpirvOpt, "--merge-blocks", ""});
  Result result;
  EXPECT_FALSE(Optimize(words, options, &result));
  EXPECT_EQ(result.diagnostics.back(),
            "spirv-opt crashed (signal 11, Segmentation fault) in spirv-opt --merge-blocks");
  EXPECT_TRUE(result.words.empty());
}

TEST(Isolation, AHangIsKilledAtTheTimeout) {
  const std::vector<uint32_t> words = Compile();
  StepHook hook(HangingStep);
  Options options;
  options.isolation = Isolation::kChildProcess;
  options.isolation_timeout_s = 0.25;
  options.pipeline.push_back({PipelineStep::Kind::kSpirvOpt, "--merge-blocks", ""});
  Result result;
  EXPECT_FALSE(Optimize(words, options, &result));
  EXPECT_EQ(result.diagnostics.back(),
            "spirv-opt timed out after 0.25 s in spirv-opt --merge-blocks");
}

TEST(OwnOptimizer, RegisterOptimizePassesAfterTheEnginesPasses) {
  const std::vector<uint32_t> words = Compile();
  auto remarks = std::make_shared<RemarkCollector>();
  PassConfig config;
  config.target_env = SPV_ENV_VULKAN_1_1;
  config.remarks = remarks;
  // NVIDIA's facts: the batch and the small-bin pre-reduction win there (by
  // default, kNone, the optimizer builds the portable module, which leaves
  // both to AMD's driver and lavapipe).
  config.SetTarget(Target::kNvidia);
  config.pass_params = {{"prereduce-atomics", "max-bins=16"},
                        {"batch-uniform-loads", "min-trip=2"}};
  spvtools::Optimizer optimizer(config.target_env);
  optimizer.RegisterPerformancePasses();
  std::string error;
  ASSERT_TRUE(RegisterOptimizePasses(&optimizer, config, &error)) << error;
  std::vector<uint32_t> out;
  ASSERT_TRUE(optimizer.Run(words.data(), words.size(), &out));
  EXPECT_TRUE(ValidateModule(out, config.target_env, &error)) << error;
  const std::vector<std::string> applied = AppliedNames(remarks->remarks());
  EXPECT_TRUE(Contains(applied, "BatchedLoads"));
  EXPECT_TRUE(Contains(applied, "SmallBinSet"));
}

TEST(OwnOptimizer, RegisterOptimizePassesRefusesBadConfigsAndRegistersNothing) {
  const std::vector<uint32_t> words = Compile();
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_1);
  PassConfig config;
  std::string error;
  config.params = "max-bins=16";
  EXPECT_FALSE(RegisterOptimizePasses(&optimizer, config, &error));
  EXPECT_NE(error.find("pass_params"), std::string::npos) << error;
  config.params.clear();
  config.pass_params = {{"no-such-pass", "x"}};
  EXPECT_FALSE(RegisterOptimizePasses(&optimizer, config, &error));
  EXPECT_EQ(error, "pass_params: unknown waveopt pass 'no-such-pass'");
  config.pass_params = {{"prereduce-atomics", "max-bins=0"}};
  EXPECT_FALSE(RegisterOptimizePasses(&optimizer, config, &error));
  EXPECT_NE(error.find("max-bins must be a number from 1 to 128"), std::string::npos) << error;
  std::vector<uint32_t> out;
  ASSERT_TRUE(optimizer.Run(words.data(), words.size(), &out));
  EXPECT_EQ(out, words);
}

TEST(OwnOptimizer, TheDriverProfileSkipsWithARemark) {
  const std::vector<uint32_t> words = Compile();
  auto remarks = std::make_shared<RemarkCollector>();
  PassConfig config;
  config.remarks = remarks;
  config.SetTarget(Target::kCpu);
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_1);
  std::string error;
  ASSERT_TRUE(RegisterOptimizePasses(&optimizer, config, &error)) << error;
  std::vector<uint32_t> out;
  ASSERT_TRUE(optimizer.Run(words.data(), words.size(), &out));
  std::vector<std::string> skipped;
  bool batched = false;
  for (const Remark& r : remarks->remarks()) {
    if (r.name == "DriverProfile") skipped.push_back(r.pass);
    if (r.name == "BatchedLoads") {
      batched = true;
      // Under this profile the read is chosen by subgroup size; SPIR-V 1.3
      // has no broadcast of a dynamically uniform lane.
      EXPECT_NE(r.message.find("else batches of one element read from the first lane"),
                std::string::npos)
          << r.message;
    }
  }
  EXPECT_TRUE(batched);
  // Only morton-remap is left out of -O.
  EXPECT_EQ(skipped, (std::vector<std::string>{"morton-remap"}));
}

TEST(OwnOptimizer, PerPassParametersGoToTheirPassOnly) {
  // One PassConfig for every pass: each takes its own entry, and none fails
  // on another's parameter.
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_1);
  PassConfig config;
  config.pass_params = {{"prereduce-atomics", "max-bins=16"},
                        {"batch-uniform-loads", "min-trip=8"}};
  std::string error;
  for (const PassInfo& pass : RegisteredPasses()) {
    EXPECT_TRUE(RegisterPass(&optimizer, pass.name, config, &error)) << error;
  }
  EXPECT_TRUE(RegisterFlags(&optimizer, PrepareFlags(), config, &error)) << error;
  EXPECT_FALSE(RegisterFlags(&optimizer, {"--no-such-flag"}, config, &error));
  EXPECT_EQ(error, "unknown flag --no-such-flag");
}

// Runs prereduce-atomics in a plain optimizer with |free_ids| ids left.
// Returns whether Run() succeeded; |errors| and |remarks| get what came out.
bool RunWithFreeIds(const std::vector<uint32_t>& words, uint32_t free_ids,
                    std::vector<std::string>* errors, std::vector<Remark>* remarks) {
  auto collected = std::make_shared<RemarkCollector>();
  PassConfig config;
  config.remarks = collected;
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_1);
  optimizer.SetMessageConsumer(
      [errors](spv_message_level_t level, const char*, const spv_position_t&, const char* m) {
        if (level <= SPV_MSG_ERROR) errors->push_back(m);
      });
  optimizer.RegisterPass(CreatePrereduceAtomicsPass(config));
  spvtools::OptimizerOptions options;
  options.set_max_id_bound(words[3] + free_ids);
  std::vector<uint32_t> out;
  const bool ok = optimizer.Run(words.data(), words.size(), &out, options);
  *remarks = collected->Take();
  return ok;
}

TEST(OwnOptimizer, AFailedPassSaysSoAndWithholdsItsAppliedRemarks) {
  // With a few free ids the rewrite gets part of the way (a remark for a
  // rewrite that then fails must not reach the sink); with enough it works.
  const std::vector<uint32_t> words = Compile();
  int failures = 0;
  for (uint32_t free_ids = 0; free_ids <= 160; free_ids += 4) {
    std::vector<std::string> errors;
    std::vector<Remark> remarks;
    if (RunWithFreeIds(words, free_ids, &errors, &remarks)) continue;
    ++failures;
    bool named = false;
    for (const std::string& e : errors) {
      named |= e.rfind("waveopt pass prereduce-atomics failed (ids exhausted", 0) == 0;
    }
    EXPECT_TRUE(named) << free_ids << ": " << (errors.empty() ? "no message" : errors.back());
    EXPECT_TRUE(AppliedNames(remarks).empty()) << free_ids << " free ids";
  }
  EXPECT_GT(failures, 1);
  std::vector<std::string> errors;
  std::vector<Remark> remarks;
  EXPECT_TRUE(RunWithFreeIds(words, 1000, &errors, &remarks));
  EXPECT_FALSE(AppliedNames(remarks).empty());
}

TEST(OwnOptimizer, ASpirv10ModuleIsRaisedWhereTheTargetAllows) {
  const std::vector<uint32_t> words = Compile(SPV_ENV_VULKAN_1_0);
  ASSERT_EQ(words[1], 0x00010000u);
  for (spv_target_env env : {SPV_ENV_VULKAN_1_1, SPV_ENV_VULKAN_1_2, SPV_ENV_VULKAN_1_3}) {
    auto remarks = std::make_shared<RemarkCollector>();
    PassConfig config;
    config.target_env = env;
    config.remarks = remarks;
    spvtools::Optimizer optimizer(env);
    optimizer.RegisterPass(CreatePrereduceAtomicsPass(config));
    std::vector<uint32_t> out;
    ASSERT_TRUE(optimizer.Run(words.data(), words.size(), &out));
    EXPECT_EQ(out[1], 0x00010300u);
    std::string error;
    EXPECT_TRUE(ValidateModule(out, env, &error)) << error;
    ASSERT_FALSE(remarks->remarks().empty());
    EXPECT_EQ(remarks->remarks()[0].name, "RaisedSpirvVersion");
  }
  // Vulkan 1.0 has no subgroup operations: nothing changes, and the remark
  // says it is the target.
  auto remarks = std::make_shared<RemarkCollector>();
  PassConfig config;
  config.target_env = SPV_ENV_VULKAN_1_0;
  config.remarks = remarks;
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_0);
  optimizer.RegisterPass(CreatePrereduceAtomicsPass(config));
  std::vector<uint32_t> out;
  ASSERT_TRUE(optimizer.Run(words.data(), words.size(), &out));
  EXPECT_EQ(out, words);
  ASSERT_FALSE(remarks->remarks().empty());
  EXPECT_EQ(remarks->remarks()[0].name, "TargetLacksSubgroupOps");
  EXPECT_EQ(remarks->remarks()[0].message,
            "the target vulkan1.0 has no subgroup operations; they need Vulkan 1.1 or SPIR-V 1.3");
}

TEST(ParseOptionFlag, TheCommandLinesSpellings) {
  Options options;
  std::string error;
  for (const char* flag :
       {"-O", "--target-env=vulkan1.2", "--subgroup-size=32", "--assume-driver=radv",
        "--pass-params=prereduce-atomics:max-bins=8", "--merge-blocks", "--inline-loop-callees",
        "--prereduce-atomics=max-bins=4", "--scalar-block-layout"}) {
    EXPECT_TRUE(ParseOptionFlag(flag, &options, &error)) << flag << ": " << error;
  }
  EXPECT_TRUE(options.has_target_env);
  EXPECT_EQ(options.target_env, SPV_ENV_VULKAN_1_2);
  EXPECT_EQ(options.subgroup_size, 32u);
  EXPECT_TRUE(options.has_target);
  EXPECT_EQ(options.target, Target::kAmd);
  EXPECT_EQ(options.pass_params["prereduce-atomics"], "max-bins=8");
  ASSERT_EQ(options.pipeline.size(), 4u);
  EXPECT_EQ(options.pipeline[3].params, "max-bins=4");
  EXPECT_EQ(options.block_layout, BlockLayout::kScalar);
  EXPECT_FALSE(ParseOptionFlag("--bogus", &options, &error));
  EXPECT_EQ(error, "unknown flag --bogus");
  EXPECT_FALSE(ParseOptionFlag("--subgroup-size=3", &options, &error));
  EXPECT_FALSE(ParseOptionFlag("--pass-params=nope:x", &options, &error));
}

TEST(OnlyRewrite, ParseOnlyRewriteTakesThreeForms) {
  OnlyRewrite only;
  std::string error;
  ASSERT_TRUE(ParseOnlyRewrite("workgroup-reduce@dir/a:b.comp:12", &only, &error)) << error;
  EXPECT_EQ(only.pass, "workgroup-reduce");
  EXPECT_EQ(only.file, "dir/a:b.comp");
  EXPECT_EQ(only.line, 12u);
  ASSERT_TRUE(ParseOnlyRewrite("morton-remap@%7", &only, &error)) << error;
  EXPECT_EQ(only.site_id, 7u);
  EXPECT_EQ(only.line, 0u);
  EXPECT_EQ(FormatOnlyRewrite(only), "morton-remap@%7");
  for (const char* bad : {"nope@3", "morton-remap@", "morton-remap@-3", "morton-remap@4294967296",
                          "morton-remap@%", "@3", "morton-remap"}) {
    EXPECT_FALSE(ParseOnlyRewrite(bad, &only, &error)) << bad;
  }
  EXPECT_EQ(FormatOnlyRewrite(only), "morton-remap@%7");  // unchanged by failures
}

// The library's selection, set directly: one pass's site rewritten, the
// other pass's left with NotSelected; a bad selection fails the call.
TEST(OnlyRewrite, OneSiteOfOnePass) {
  const std::vector<uint32_t> words = Compile();
  Options options = OptimizeO();
  options.has_target = true;
  options.target = Target::kNvidia;
  Result full;
  ASSERT_TRUE(Optimize(words, options, &full));
  ASSERT_TRUE(Contains(AppliedNames(full.remarks), "BatchedLoads"));
  uint32_t line = 0;
  for (const Remark& r : full.remarks) {
    if (r.kind == RemarkKind::kApplied && r.pass == "prereduce-atomics") line = r.line;
  }
  ASSERT_NE(line, 0u);
  options.only_rewrite.pass = "prereduce-atomics";
  options.only_rewrite.line = line;
  Result one;
  ASSERT_TRUE(Optimize(words, options, &one));
  EXPECT_EQ(AppliedNames(one.remarks), std::vector<std::string>{"SmallBinSet"});
  bool not_selected = false;
  for (const Remark& r : one.remarks) {
    not_selected |= r.pass == "batch-uniform-loads" && r.name == "NotSelected";
  }
  EXPECT_TRUE(not_selected);
  EXPECT_NE(one.words, full.words);
  options.only_rewrite.pass = "nope";
  Result bad;
  EXPECT_FALSE(Optimize(words, options, &bad));
  ASSERT_FALSE(bad.diagnostics.empty());
  EXPECT_NE(bad.diagnostics.back().find("'nope' is no waveopt pass"), std::string::npos)
      << bad.diagnostics.back();
}

TEST(CApi, OptimizesAndReturnsWordsAndRemarks) {
  const std::vector<uint32_t> words = Compile();
  const char* flags[] = {"-O", "--target-env=vulkan1.1"};
  waveopt_result* r = waveopt_optimize(words.data(), words.size(), flags, 2);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(waveopt_result_ok(r), 1) << waveopt_result_error(r);
  EXPECT_STREQ(waveopt_result_error(r), "");
  size_t count = 0;
  const uint32_t* out = waveopt_result_words(r, &count);
  ASSERT_NE(out, nullptr);
  std::vector<uint32_t> module(out, out + count);
  std::string error;
  EXPECT_TRUE(ValidateModule(module, SPV_ENV_VULKAN_1_1, &error)) << error;
  Result same;
  ASSERT_TRUE(Optimize(words, OptimizeO(), &same));
  EXPECT_EQ(module, same.words);
  ASSERT_EQ(waveopt_result_remark_count(r), same.remarks.size());
  waveopt_remark remark;
  ASSERT_EQ(waveopt_result_remark(r, 0, &remark), 1);
  EXPECT_EQ(remark.name, same.remarks[0].name);
  EXPECT_EQ(waveopt_result_remark(r, count, &remark), 0);
  EXPECT_NE(std::string(waveopt_result_remarks_yaml(r)).find("--- !Passed"), std::string::npos);
  waveopt_result_destroy(r);
}

TEST(CApi, FailuresComeBackAsOneLine) {
  const std::vector<uint32_t> words = Compile();
  const char* bad_flag[] = {"--bogus"};
  waveopt_result* r = waveopt_optimize(words.data(), words.size(), bad_flag, 1);
  EXPECT_EQ(waveopt_result_ok(r), 0);
  EXPECT_STREQ(waveopt_result_error(r), "unknown flag --bogus");
  size_t count = 1;
  EXPECT_EQ(waveopt_result_words(r, &count), nullptr);
  EXPECT_EQ(count, 0u);
  waveopt_result_destroy(r);
  const uint32_t garbage[] = {0x07230203, 0x00010300, 0, 5, 0, 99};
  r = waveopt_optimize(garbage, 6, nullptr, 0);
  EXPECT_EQ(waveopt_result_ok(r), 0);
  EXPECT_NE(std::string(waveopt_result_error(r)).find("input is not valid"), std::string::npos);
  waveopt_result_destroy(r);
  EXPECT_EQ(waveopt_result_ok(nullptr), 0);
  waveopt_result_destroy(nullptr);
  EXPECT_STREQ(waveopt_version(), Version());
}

// The remark names of one C API call's result, "applied:"/"missed:" first.
std::vector<std::string> CApiRemarks(const std::vector<uint32_t>& words,
                                     std::vector<const char*> flags, std::string* error) {
  waveopt_result* r = waveopt_optimize(words.data(), words.size(), flags.data(), flags.size());
  std::vector<std::string> names;
  *error = waveopt_result_error(r);
  waveopt_remark remark;
  for (size_t i = 0; waveopt_result_remark(r, i, &remark) == 1; ++i) {
    names.push_back(std::string(remark.kind == WAVEOPT_REMARK_APPLIED ? "applied:" : "missed:") +
                    remark.name);
  }
  waveopt_result_destroy(r);
  return names;
}

TEST(CApi, EmitKeepsTheRewritesEmittable) {
  // A fragment shader's atomic: its rewrite needs IsHelperLane() in HLSL.
  const char* fragment = R"(#version 450
layout(set = 0, binding = 0) buffer Data { uint counter; uint slots[]; };
layout(location = 0) out vec4 color;
void main() {
  uint slot = atomicAdd(counter, 1u);
  slots[slot % 64u] = 1u;
  color = vec4(1.0);
}
)";
  std::vector<uint32_t> words;
  std::string error;
  CompileOptions options;
  options.stage = "frag";
  ASSERT_TRUE(CompileShader(fragment, "f.frag", options, &words, &error)) << error;
  auto has = [](const std::vector<std::string>& v, const std::string& name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  EXPECT_TRUE(has(CApiRemarks(words, {"--prereduce-atomics"}, &error),
                  "applied:UniformAddressUniformValue"))
      << error;
  EXPECT_TRUE(has(CApiRemarks(words, {"--prereduce-atomics", "--emit=glsl"}, &error),
                  "applied:UniformAddressUniformValue"))
      << error;
  EXPECT_TRUE(has(CApiRemarks(words, {"--prereduce-atomics", "--emit=hlsl"}, &error),
                  "missed:NotExpressibleInHlsl"))
      << error;
  EXPECT_TRUE(
      has(CApiRemarks(words, {"--emit=hlsl", "--hlsl-dialect=dxc", "--prereduce-atomics"}, &error),
          "applied:UniformAddressUniformValue"))
      << error;
  CApiRemarks(words, {"--emit=dxil"}, &error);
  EXPECT_EQ(error, "--emit=dxil: --emit takes glsl, hlsl, spv or spvasm");
}

}  // namespace
}  // namespace waveopt
