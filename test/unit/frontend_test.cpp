// Reading today's modules: the memory-effect classifier's lists, the
// resource-binding options' parser and the binding-collision finder.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/analysis/memory_effects.h"
#include "lib/resource_bindings.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"
#include "waveopt/io.h"

namespace waveopt {
namespace {

std::unique_ptr<spvtools::opt::IRContext> Build(const std::string& body) {
  const std::string text = R"(
               OpCapability Shader
               OpCapability CooperativeMatrixKHR
               OpCapability VulkanMemoryModel
               OpExtension "SPV_KHR_cooperative_matrix"
               OpExtension "SPV_KHR_vulkan_memory_model"
          %1 = OpExtInstImport "GLSL.std.450"
          %2 = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
          %3 = OpExtInstImport "SPV_AMD_shader_trinary_minmax"
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main "main" %buf
               OpExecutionMode %main LocalSize 64 1 1
               OpDecorate %arr ArrayStride 4
               OpDecorate %blk Block
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %buf Binding 0
               OpDecorate %buf DescriptorSet 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_3 = OpConstant %uint 3
     %uint_8 = OpConstant %uint 8
    %float_1 = OpConstant %float 1
        %arr = OpTypeRuntimeArray %float
        %blk = OpTypeStruct %arr
    %ptr_blk = OpTypePointer StorageBuffer %blk
  %ptr_float = OpTypePointer StorageBuffer %float
   %ptr_func = OpTypePointer Function %float
        %buf = OpVariable %ptr_blk StorageBuffer
        %mat = OpTypeCooperativeMatrixKHR %float %uint_3 %uint_8 %uint_8 %uint_0
       %main = OpFunction %void None %fn
      %entry = OpLabel
      %local = OpVariable %ptr_func Function
          %p = OpAccessChain %ptr_float %buf %uint_0 %uint_0
)" + body + R"(
               OpReturn
               OpFunctionEnd
)";
  return spvtools::BuildModule(SPV_ENV_VULKAN_1_3, nullptr, text,
                               SPV_TEXT_TO_BINARY_OPTION_PRESERVE_NUMERIC_IDS);
}

// The effect of the last instruction of |body| (the one before OpReturn).
MemoryEffect EffectOf(const std::string& body) {
  auto context = Build(body);
  EXPECT_NE(context, nullptr) << body;
  if (!context) return MemoryEffect::kUnknown;
  const auto& block = *context->module()->begin()->begin();
  return MemoryEffectOf(context.get(), &*(--(--block.end())));
}

TEST(MemoryEffects, KnownInstructions) {
  EXPECT_EQ(EffectOf("%v = OpLoad %float %p"), MemoryEffect::kRead);
  EXPECT_EQ(EffectOf("OpStore %p %float_1"), MemoryEffect::kWrite);
  EXPECT_EQ(EffectOf("%v = OpAtomicFAddEXT %float %p %uint_1 %uint_0 %float_1"),
            MemoryEffect::kWrite);
  EXPECT_EQ(EffectOf("%v = OpFAdd %float %float_1 %float_1"), MemoryEffect::kNone);
  EXPECT_EQ(EffectOf("%v = OpExtInst %float %1 Sqrt %float_1"), MemoryEffect::kNone);
  EXPECT_EQ(EffectOf("%v = OpExtInst %float %1 Modf %float_1 %local"), MemoryEffect::kWrite);
  EXPECT_EQ(EffectOf("OpControlBarrier %uint_3 %uint_3 %uint_0"), MemoryEffect::kBarrier);
  EXPECT_EQ(EffectOf("%m = OpCooperativeMatrixLoadKHR %mat %p %uint_0 %uint_8"),
            MemoryEffect::kRead);
  EXPECT_EQ(EffectOf("%m = OpCooperativeMatrixLoadKHR %mat %p %uint_0 %uint_8\n"
                     "OpCooperativeMatrixStoreKHR %p %m %uint_0 %uint_8"),
            MemoryEffect::kWrite);
}

TEST(MemoryEffects, AnythingElseIsUnknown) {
  // An extended-instruction set the lists do not name, whatever it does.
  EXPECT_EQ(EffectOf("%v = OpExtInst %float %3 FMin3AMD %float_1 %float_1 %float_1"),
            MemoryEffect::kUnknown);
  EXPECT_EQ(EffectOf("%v = OpExtInst %void %2 DebugNoScope"), MemoryEffect::kNone);
}

TEST(MemoryEffects, WrittenOperandNamesThePointer) {
  auto context = Build("OpStore %p %float_1\n%v = OpExtInst %float %1 Modf %float_1 %local");
  ASSERT_NE(context, nullptr);
  const auto& block = *context->module()->begin()->begin();
  std::vector<const spvtools::opt::Instruction*> insts;
  for (const auto& inst : block) insts.push_back(&inst);
  // ..., OpStore, OpExtInst, OpReturn
  const auto* store = insts[insts.size() - 3];
  const auto* modf = insts[insts.size() - 2];
  EXPECT_EQ(WrittenOperand(context.get(), store), 0);
  EXPECT_EQ(WrittenOperand(context.get(), modf), 3);
  EXPECT_EQ(modf->GetSingleWordInOperand(3),
            context->get_def_use_mgr()->GetDef(modf->GetSingleWordInOperand(3))->result_id());
}

std::vector<std::string> Args(std::initializer_list<const char*> a) {
  return std::vector<std::string>(a.begin(), a.end());
}

TEST(BindingOptions, GlslangSpellings) {
  ResourceBindings b;
  std::string error;
  auto args = Args({"--stb", "frag", "5", "1", "6", "2", "in.hlsl"});
  size_t i = 0;
  ASSERT_EQ(ParseBindingOption(args, &i, &b, &error), BindingOptionStatus::kOk) << error;
  EXPECT_EQ(i, 5u);  // the file name is not a value
  ASSERT_EQ(b.shifts.size(), 2u);
  EXPECT_EQ(b.shifts[0].kind, ResourceKind::kTexture);
  EXPECT_EQ(b.shifts[0].base, 5u);
  EXPECT_EQ(b.shifts[0].set, 1);
  EXPECT_EQ(b.shifts[0].stage, "frag");
  EXPECT_EQ(b.shifts[1].set, 2);

  args = Args({"--sbb", "7"});  // glslangValidator: --sbb is the SSBO shift
  i = 0;
  ASSERT_EQ(ParseBindingOption(args, &i, &b, &error), BindingOptionStatus::kOk);
  EXPECT_EQ(b.shifts.back().kind, ResourceKind::kSsbo);
  EXPECT_EQ(b.shifts.back().set, -1);

  args = Args({"--rsb", "comp", "t0", "1", "2", "u3", "0", "4", "x.hlsl"});
  i = 0;
  ASSERT_EQ(ParseBindingOption(args, &i, &b, &error), BindingOptionStatus::kOk);
  ASSERT_EQ(b.resource_set_binding.size(), 1u);
  EXPECT_EQ(b.resource_set_binding[0].stage, "comp");
  EXPECT_EQ(b.resource_set_binding[0].values, Args({"t0", "1", "2", "u3", "0", "4"}));
  EXPECT_EQ(i, 7u);

  args = Args({"--auto-map-bindings"});
  i = 0;
  ASSERT_EQ(ParseBindingOption(args, &i, &b, &error), BindingOptionStatus::kOk);
  EXPECT_TRUE(b.auto_map);
  args = Args({"-O"});
  i = 0;
  EXPECT_EQ(ParseBindingOption(args, &i, &b, &error), BindingOptionStatus::kNotBinding);
}

TEST(BindingOptions, DxcSpellings) {
  ResourceBindings b;
  std::string error;
  auto args = Args({"-fvk-u-shift", "10", "all", "-fvk-bind-register", "t3", "0", "5", "1",
                    "-auto-binding-space", "2"});
  for (size_t i = 0; i < args.size(); ++i) {
    ASSERT_EQ(ParseBindingOption(args, &i, &b, &error), BindingOptionStatus::kOk) << error;
  }
  EXPECT_TRUE(b.hlsl_iomap);
  EXPECT_TRUE(b.auto_map);
  ASSERT_EQ(b.shifts.size(), 1u);
  EXPECT_EQ(b.shifts[0].kind, ResourceKind::kUav);
  EXPECT_EQ(b.shifts[0].set, -1);
  ASSERT_EQ(b.resource_set_binding.size(), 2u);
  EXPECT_EQ(b.resource_set_binding[0].values, Args({"t3", "1", "5"}));  // register, set, binding
  EXPECT_EQ(b.resource_set_binding[1].values, Args({"2"}));

  for (auto bad : {Args({"-fvk-t-shift", "1"}), Args({"-fvk-t-shift", "x", "0"}),
                   Args({"-fvk-bind-register", "q1", "0", "1", "2"}), Args({"--shift-ubo-binding"}),
                   Args({"-auto-binding-space"})}) {
    size_t i = 0;
    error.clear();
    EXPECT_EQ(ParseBindingOption(bad, &i, &b, &error), BindingOptionStatus::kError) << bad[0];
    EXPECT_NE(error.find(bad[0]), std::string::npos) << error;
  }
}

TEST(BindingCollisions, DifferentTypesOnOneBindingOnly) {
  std::vector<uint32_t> words;
  std::string error;
  ASSERT_TRUE(AssembleText(R"(
               OpCapability Shader
               OpCapability SampledBuffer
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %tex "tex"
               OpName %texels "texels"
               OpName %alias1 "alias1"
               OpName %alias2 "alias2"
               OpDecorate %tex Binding 0
               OpDecorate %tex DescriptorSet 0
               OpDecorate %texels Binding 0
               OpDecorate %texels DescriptorSet 0
               OpDecorate %alias1 Binding 1
               OpDecorate %alias1 DescriptorSet 0
               OpDecorate %alias2 Binding 1
               OpDecorate %alias2 DescriptorSet 0
               OpDecorate %blk Block
               OpMemberDecorate %blk 0 Offset 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
        %img = OpTypeImage %float 2D 0 0 0 1 Unknown
       %tbuf = OpTypeImage %float Buffer 0 0 0 1 Unknown
    %ptr_img = OpTypePointer UniformConstant %img
   %ptr_tbuf = OpTypePointer UniformConstant %tbuf
        %blk = OpTypeStruct %float
    %ptr_blk = OpTypePointer StorageBuffer %blk
        %tex = OpVariable %ptr_img UniformConstant
     %texels = OpVariable %ptr_tbuf UniformConstant
     %alias1 = OpVariable %ptr_blk StorageBuffer
     %alias2 = OpVariable %ptr_blk StorageBuffer
       %main = OpFunction %void None %fn
          %l = OpLabel
               OpReturn
               OpFunctionEnd
)",
                           SPV_ENV_UNIVERSAL_1_3, &words, &error))
      << error;
  std::vector<BindingCollision> found = FindBindingCollisions(words);
  ASSERT_EQ(found.size(), 1u);  // the two storage buffers alias legally
  EXPECT_EQ(found[0].first, "tex");
  EXPECT_EQ(found[0].first_kind, "sampled image");
  EXPECT_EQ(found[0].second, "texels");
  EXPECT_EQ(found[0].second_kind, "uniform texel buffer");
  EXPECT_EQ(found[0].binding, 0u);
}

}  // namespace
}  // namespace waveopt
