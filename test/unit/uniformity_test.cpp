// Uniformity analysis: one test per rule, on SPIR-V assembly (names through
// OpName; the assembler keeps them), plus the generated scaling module.
#include "analysis/uniformity.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"

namespace waveopt {
namespace {

using spvtools::opt::IRContext;
constexpr Uniformity kW = Uniformity::kWorkgroupUniform;
constexpr Uniformity kS = Uniformity::kSubgroupUniform;
constexpr Uniformity kD = Uniformity::kDivergent;

// Types, constants and variables every compute test shares. Names in the
// function bodies: %tid (LocalInvocationIndex, divergent), %wg (WorkgroupId.x,
// workgroup), %sg (SubgroupId, subgroup) are loaded by kMainStart.
const char* kComputeHeader = R"(
               OpCapability Shader
               OpCapability GroupNonUniform
               OpCapability GroupNonUniformVote
               OpCapability GroupNonUniformBallot
               OpCapability GroupNonUniformArithmetic
               OpCapability GroupNonUniformShuffle
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 64 1 1
               OpDecorate %lidx BuiltIn LocalInvocationIndex
               OpDecorate %lid BuiltIn LocalInvocationId
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %slid BuiltIn SubgroupLocalInvocationId
               OpDecorate %wgid BuiltIn WorkgroupId
               OpDecorate %nwg BuiltIn NumWorkgroups
               OpDecorate %sgid BuiltIn SubgroupId
               OpDecorate %sgsize BuiltIn SubgroupSize
               OpDecorate %nsg BuiltIn NumSubgroups
               OpDecorate %wgsz BuiltIn WorkgroupSize
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %ssbo_t 0 Offset 0
               OpDecorate %ssbo_t Block
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
               OpDecorate %arr4v4 ArrayStride 16
               OpMemberDecorate %ubo_t 0 Offset 0
               OpDecorate %ubo_t Block
               OpDecorate %ubo DescriptorSet 0
               OpDecorate %ubo Binding 1
               OpMemberDecorate %bb_t 0 Offset 0
               OpDecorate %bb_t BufferBlock
               OpDecorate %bbuf DescriptorSet 0
               OpDecorate %bbuf Binding 2
               OpMemberDecorate %pc_t 0 Offset 0
               OpDecorate %pc_t Block
               OpDecorate %simg DescriptorSet 0
               OpDecorate %simg Binding 3
               OpDecorate %timg DescriptorSet 0
               OpDecorate %timg Binding 4
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
     %v2int = OpTypeVector %int 2
     %v3uint = OpTypeVector %uint 3
     %v4uint = OpTypeVector %uint 4
    %v4float = OpTypeVector %float 4
     %fn_uu = OpTypeFunction %uint %uint
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %c4 = OpConstant %uint 4
        %c64 = OpConstant %uint 64
        %sub = OpConstant %uint 3
       %wgsc = OpConstant %uint 2
        %dev = OpConstant %uint 1
         %i0 = OpConstant %int 0
       %spec = OpSpecConstant %uint 7
%ptr_in_uint = OpTypePointer Input %uint
  %ptr_in_v3 = OpTypePointer Input %v3uint
       %lidx = OpVariable %ptr_in_uint Input
        %lid = OpVariable %ptr_in_v3 Input
        %gid = OpVariable %ptr_in_v3 Input
       %slid = OpVariable %ptr_in_uint Input
       %wgid = OpVariable %ptr_in_v3 Input
        %nwg = OpVariable %ptr_in_v3 Input
       %sgid = OpVariable %ptr_in_uint Input
     %sgsize = OpVariable %ptr_in_uint Input
        %nsg = OpVariable %ptr_in_uint Input
       %wgsz = OpVariable %ptr_in_v3 Input
        %rta = OpTypeRuntimeArray %uint
     %ssbo_t = OpTypeStruct %rta
     %ptr_sb = OpTypePointer StorageBuffer %ssbo_t
%ptr_sb_uint = OpTypePointer StorageBuffer %uint
        %buf = OpVariable %ptr_sb StorageBuffer
     %arr4v4 = OpTypeArray %v4uint %c4
      %ubo_t = OpTypeStruct %arr4v4
      %ptr_u = OpTypePointer Uniform %ubo_t
   %ptr_u_v4 = OpTypePointer Uniform %v4uint
        %ubo = OpVariable %ptr_u Uniform
       %bb_t = OpTypeStruct %uint
     %ptr_bb = OpTypePointer Uniform %bb_t
 %ptr_u_uint = OpTypePointer Uniform %uint
       %bbuf = OpVariable %ptr_bb Uniform
       %pc_t = OpTypeStruct %uint
     %ptr_pc = OpTypePointer PushConstant %pc_t
%ptr_pc_uint = OpTypePointer PushConstant %uint
         %pc = OpVariable %ptr_pc PushConstant
     %arr64 = OpTypeArray %uint %c64
     %ptr_wg = OpTypePointer Workgroup %arr64
%ptr_wg_uint = OpTypePointer Workgroup %uint
     %shared = OpVariable %ptr_wg Workgroup
%ptr_priv_uint = OpTypePointer Private %uint
       %priv = OpVariable %ptr_priv_uint Private
 %ptr_fn_uint = OpTypePointer Function %uint
      %fn_p = OpTypeFunction %void %ptr_fn_uint
      %img_t = OpTypeImage %uint 2D 0 0 0 2 R32ui
 %ptr_uc_img = OpTypePointer UniformConstant %img_t
       %simg = OpVariable %ptr_uc_img UniformConstant
     %timg_t = OpTypeImage %float 2D 0 0 0 1 Unknown
%ptr_uc_timg = OpTypePointer UniformConstant %timg_t
       %timg = OpVariable %ptr_uc_timg UniformConstant
)";

// Opens %main and loads %tid, %wg, %sg, %pcv (push constant) and the
// conditions %cd (divergent), %cs (subgroup) and %cw (workgroup).
const char* kMainStart = R"(
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %tid = OpLoad %uint %lidx
      %wg_p = OpAccessChain %ptr_in_uint %wgid %c0
         %wg = OpLoad %uint %wg_p
         %sg = OpLoad %uint %sgid
      %pcv_p = OpAccessChain %ptr_pc_uint %pc %i0
        %pcv = OpLoad %uint %pcv_p
         %cd = OpULessThan %bool %tid %c4
         %cs = OpULessThan %bool %sg %c4
         %cw = OpULessThan %bool %wg %c4
)";

// The assembler makes no OpName: add one for every defined %name, after
// the OpExecutionMode line, so tests and Print can use the names.
std::string WithNames(const std::string& text) {
  std::string names;
  const std::regex def("%([A-Za-z_][A-Za-z0-9_]*)\\s*=");
  for (std::sregex_iterator it(text.begin(), text.end(), def), end; it != end; ++it) {
    names += "OpName %" + (*it)[1].str() + " \"" + (*it)[1].str() + "\"\n";
  }
  const size_t mode = text.find("OpExecutionMode");
  const size_t eol = text.find('\n', mode);
  return text.substr(0, eol + 1) + names + text.substr(eol + 1);
}

class Analysed {
 public:
  explicit Analysed(const std::string& text, spv_target_env env = SPV_ENV_UNIVERSAL_1_6) {
    context_ = spvtools::BuildModule(
        env,
        [](spv_message_level_t, const char*, const spv_position_t& pos, const char* message) {
          ADD_FAILURE() << "line " << pos.line << ": " << message;
        },
        WithNames(text));
    if (context_) analysis_ = std::make_unique<UniformityAnalysis>(context_.get());
  }
  bool ok() const { return analysis_ != nullptr; }
  // The id OpName gives |name|; a test failure if there is none.
  uint32_t Id(const std::string& name) const {
    for (auto& inst : context_->module()->debugs2()) {
      if (inst.opcode() == spv::Op::OpName && inst.GetInOperand(1).AsString() == name) {
        return inst.GetSingleWordInOperand(0);
      }
    }
    ADD_FAILURE() << "no OpName " << name;
    return 0;
  }
  Uniformity V(const std::string& name) const { return analysis_->ValueLevel(Id(name)); }
  bool Uniform(const std::string& block) const { return analysis_->IsBlockUniform(Id(block)); }
  std::vector<uint32_t> Deps(const std::string& block) const {
    return analysis_->DivergentBranches(Id(block));
  }
  std::vector<uint32_t> Ids(std::initializer_list<const char*> names) const {
    std::vector<uint32_t> ids;
    for (const char* n : names) ids.push_back(Id(n));
    return ids;
  }
  const UniformityAnalysis& analysis() const { return *analysis_; }
  std::string Printed() const {
    std::ostringstream out;
    analysis_->Print(out);
    return out.str();
  }

 private:
  std::unique_ptr<IRContext> context_;
  std::unique_ptr<UniformityAnalysis> analysis_;
};

std::string Compute(const std::string& main_body, const std::string& more_functions = "") {
  return std::string(kComputeHeader) + kMainStart + main_body + "\nOpFunctionEnd\n" +
         more_functions;
}

TEST(UniformityBuiltins, InvocationIdsDivergentGroupIdsUniform) {
  Analysed a(Compute(R"(
      %lid_v = OpLoad %v3uint %lid
    %gid_x_p = OpAccessChain %ptr_in_uint %gid %c0
      %gid_x = OpLoad %uint %gid_x_p
     %slid_v = OpLoad %uint %slid
      %nwg_v = OpLoad %v3uint %nwg
      %sgs_v = OpLoad %uint %sgsize
      %nsg_v = OpLoad %uint %nsg
     %wgsz_v = OpLoad %v3uint %wgsz
     %sum_ws = OpIAdd %uint %wg %sg
     %sum_wd = OpIAdd %uint %wg %tid
     %sum_wc = OpIMul %uint %wg %c4
   %spec_use = OpIAdd %uint %spec %c1
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("tid"), kD);
  EXPECT_EQ(a.V("lid_v"), kD);
  EXPECT_EQ(a.V("gid_x"), kD);
  EXPECT_EQ(a.V("slid_v"), kD);
  EXPECT_EQ(a.V("wg"), kW);
  EXPECT_EQ(a.V("nwg_v"), kW);
  EXPECT_EQ(a.V("nsg_v"), kW);
  EXPECT_EQ(a.V("wgsz_v"), kW);
  EXPECT_EQ(a.V("sg"), kS);
  EXPECT_EQ(a.V("sgs_v"), kS);
  EXPECT_EQ(a.V("sum_ws"), kS);
  EXPECT_EQ(a.V("sum_wd"), kD);
  EXPECT_EQ(a.V("sum_wc"), kW);
  EXPECT_EQ(a.V("spec_use"), kW);
  EXPECT_EQ(a.V("c4"), kW);
  EXPECT_EQ(a.V("cd"), kD);
  EXPECT_EQ(a.V("cs"), kS);
  EXPECT_EQ(a.V("cw"), kW);
}

TEST(UniformityMemory, StorageClassesAndAddresses) {
  Analysed a(Compute(R"(
     %ubo_pw = OpAccessChain %ptr_u_v4 %ubo %i0 %wg
     %ubo_w = OpLoad %v4uint %ubo_pw
     %ubo_pd = OpAccessChain %ptr_u_v4 %ubo %i0 %tid
     %ubo_d = OpLoad %v4uint %ubo_pd
      %sb_pw = OpAccessChain %ptr_sb_uint %buf %i0 %wg
       %sb_w = OpLoad %uint %sb_pw
      %sb_ps = OpAccessChain %ptr_sb_uint %buf %i0 %sg
       %sb_s = OpLoad %uint %sb_ps
      %sb_pd = OpAccessChain %ptr_sb_uint %buf %i0 %tid
       %sb_d = OpLoad %uint %sb_pd
     %sb_vol = OpLoad %uint %sb_pw Volatile
     %atomic = OpAtomicIAdd %uint %sb_pw %dev %c0 %c1
   %atomic_ld = OpAtomicLoad %uint %sb_pw %dev %c0
      %wg_pw = OpAccessChain %ptr_wg_uint %shared %wg
      %wgm_w = OpLoad %uint %wg_pw
      %bb_p = OpAccessChain %ptr_u_uint %bbuf %i0
      %bb_w = OpLoad %uint %bb_p
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("pcv"), kW);
  EXPECT_EQ(a.V("ubo_w"), kW);
  EXPECT_EQ(a.V("ubo_d"), kD);
  EXPECT_EQ(a.V("sb_w"), kS);  // others may write a storage buffer
  EXPECT_EQ(a.V("sb_s"), kS);
  EXPECT_EQ(a.V("sb_d"), kD);
  EXPECT_EQ(a.V("sb_vol"), kD);
  EXPECT_EQ(a.V("atomic"), kD);
  EXPECT_EQ(a.V("atomic_ld"), kD);
  EXPECT_EQ(a.V("wgm_w"), kS);
  EXPECT_EQ(a.V("bb_w"), kS);  // Uniform + BufferBlock is a storage buffer
}

TEST(UniformitySelect, ConditionDecides) {
  Analysed a(Compute(R"(
      %sel_d = OpSelect %uint %cd %c1 %c4
      %sel_s = OpSelect %uint %cs %c1 %wg
      %sel_w = OpSelect %uint %cw %c1 %wg
     %sel_wd = OpSelect %uint %cw %c1 %tid
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("sel_d"), kD);
  EXPECT_EQ(a.V("sel_s"), kS);
  EXPECT_EQ(a.V("sel_w"), kW);
  EXPECT_EQ(a.V("sel_wd"), kD);
}

TEST(UniformityPhi, MergeOfDivergentSubgroupAndWorkgroupBranches) {
  Analysed a(Compute(R"(
               OpSelectionMerge %m1 None
               OpBranchConditional %cd %t1 %m1
         %t1 = OpLabel
               OpBranch %m1
         %m1 = OpLabel
      %phi_d = OpPhi %uint %c1 %t1 %c4 %entry
               OpSelectionMerge %m2 None
               OpBranchConditional %cs %t2 %m2
         %t2 = OpLabel
               OpBranch %m2
         %m2 = OpLabel
      %phi_s = OpPhi %uint %c1 %t2 %c4 %m1
               OpSelectionMerge %m3 None
               OpBranchConditional %cw %t3 %m3
         %t3 = OpLabel
               OpBranch %m3
         %m3 = OpLabel
      %phi_w = OpPhi %uint %c1 %t3 %c4 %m2
     %phi_wd = OpPhi %uint %tid %t3 %c4 %m2
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("phi_d"), kD);
  EXPECT_EQ(a.V("phi_s"), kS);
  EXPECT_EQ(a.V("phi_w"), kW);
  EXPECT_EQ(a.V("phi_wd"), kD);
  EXPECT_FALSE(a.Uniform("t1"));
  EXPECT_EQ(a.Deps("t1"), a.Ids({"entry"}));
  EXPECT_TRUE(a.Uniform("t2"));
  EXPECT_EQ(a.analysis().BlockLevel(a.Id("t2")), kS);
  EXPECT_EQ(a.analysis().BlockLevel(a.Id("t3")), kW);
  EXPECT_TRUE(a.Uniform("m1"));
  EXPECT_TRUE(a.Deps("m1").empty());
  EXPECT_TRUE(a.Uniform("entry"));
}

TEST(UniformityPhi, NestedDivergentIfs) {
  Analysed a(Compute(R"(
       %cd2 = OpULessThan %bool %tid %c64
               OpSelectionMerge %outer_m None
               OpBranchConditional %cd %outer %outer_m
      %outer = OpLabel
               OpSelectionMerge %in_m None
               OpBranchConditional %cw %in_t %in_m
       %in_t = OpLabel
               OpSelectionMerge %in2_m None
               OpBranchConditional %cd2 %in2_t %in2_m
      %in2_t = OpLabel
               OpBranch %in2_m
      %in2_m = OpLabel
    %phi_in2 = OpPhi %uint %c1 %in2_t %c4 %in_t
               OpBranch %in_m
       %in_m = OpLabel
     %phi_in = OpPhi %uint %c1 %in2_m %c4 %outer
               OpBranch %outer_m
    %outer_m = OpLabel
    %phi_out = OpPhi %uint %phi_in %in_m %c4 %entry
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  // Only lanes that took the outer branch meet at %in_m, all through the
  // same edge of a workgroup-uniform branch.
  EXPECT_EQ(a.V("phi_in"), kW);
  EXPECT_EQ(a.V("phi_in2"), kD);
  EXPECT_EQ(a.V("phi_out"), kD);
  EXPECT_FALSE(a.Uniform("outer"));
  EXPECT_FALSE(a.Uniform("in_t"));
  EXPECT_EQ(a.Deps("in_t"), a.Ids({"entry"}));
  EXPECT_EQ(a.Deps("in2_t"), a.Ids({"entry", "in_t"}));
  EXPECT_FALSE(a.Uniform("in2_m"));
  EXPECT_TRUE(a.Uniform("outer_m"));
}

TEST(UniformitySwitch, DivergentAndUniformSelectors) {
  Analysed a(Compute(R"(
               OpSelectionMerge %sm None
               OpSwitch %tid %sdef 0 %case0 1 %case1
      %case0 = OpLabel
               OpBranch %sm
      %case1 = OpLabel
               OpBranch %sm
       %sdef = OpLabel
               OpBranch %sm
         %sm = OpLabel
     %sw_phi = OpPhi %uint %c0 %case0 %c1 %case1 %c4 %sdef
               OpSelectionMerge %um None
               OpSwitch %wg %udef 0 %ucase0
     %ucase0 = OpLabel
               OpBranch %um
       %udef = OpLabel
               OpBranch %um
         %um = OpLabel
     %uw_phi = OpPhi %uint %c0 %ucase0 %c1 %udef
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("sw_phi"), kD);
  EXPECT_FALSE(a.Uniform("case0"));
  EXPECT_FALSE(a.Uniform("sdef"));
  EXPECT_EQ(a.Deps("case1"), a.Ids({"entry"}));
  EXPECT_TRUE(a.Uniform("sm"));
  EXPECT_EQ(a.V("uw_phi"), kW);
  EXPECT_TRUE(a.Uniform("ucase0"));
}

// for (i = 0; i < pcv; ++i) { if (i == tid) break; } use(i)
TEST(UniformityLoop, DivergentBreakMakesValuesUsedAfterDivergent) {
  Analysed a(Compute(R"(
               OpBranch %hdr
        %hdr = OpLabel
          %i = OpPhi %uint %c0 %entry %inext %cont
               OpLoopMerge %exit %cont None
         %lt = OpULessThan %bool %i %pcv
               OpBranchConditional %lt %body %exit
       %body = OpLabel
        %brk = OpIEqual %bool %i %tid
               OpBranchConditional %brk %exit %cont
       %cont = OpLabel
      %inext = OpIAdd %uint %i %c1
               OpBranch %hdr
       %exit = OpLabel
      %after = OpIAdd %uint %i %c1
               OpBranch %hdr2
       %hdr2 = OpLabel
          %j = OpPhi %uint %c0 %exit %jnext %cont2
               OpLoopMerge %exit2 %cont2 None
        %lt2 = OpULessThan %bool %j %pcv
               OpBranchConditional %lt2 %body2 %exit2
      %body2 = OpLabel
      %inner = OpIMul %uint %j %c4
       %brk2 = OpIEqual %bool %inner %tid
               OpBranchConditional %brk2 %exit2 %cont2
      %cont2 = OpLabel
      %jnext = OpIAdd %uint %j %c1
               OpBranch %hdr2
      %exit2 = OpLabel
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.analysis().LoopExitLevel(a.Id("hdr")), kD);
  EXPECT_EQ(a.V("i"), kD);  // used after the loop: temporal divergence
  EXPECT_EQ(a.V("after"), kD);
  EXPECT_FALSE(a.Uniform("hdr"));
  EXPECT_FALSE(a.Uniform("cont"));
  EXPECT_TRUE(a.Uniform("exit"));
  // The same loop without a use after it: inside, the counter is the same
  // in every lane still iterating.
  EXPECT_EQ(a.analysis().LoopExitLevel(a.Id("hdr2")), kD);
  EXPECT_EQ(a.V("j"), kW);
  EXPECT_EQ(a.V("inner"), kW);
  EXPECT_EQ(a.V("brk2"), kD);
}

TEST(UniformityLoop, UniformAndSubgroupUniformBreaks) {
  Analysed a(Compute(R"(
         %sbp = OpAccessChain %ptr_sb_uint %buf %i0 %c0
        %sbn = OpLoad %uint %sbp
               OpBranch %hdr
        %hdr = OpLabel
          %i = OpPhi %uint %c0 %entry %inext %cont
               OpLoopMerge %exit %cont None
         %lt = OpULessThan %bool %i %pcv
               OpBranchConditional %lt %body %exit
       %body = OpLabel
        %brk = OpIEqual %bool %i %wg
               OpBranchConditional %brk %exit %cont
       %cont = OpLabel
      %inext = OpIAdd %uint %i %c1
               OpBranch %hdr
       %exit = OpLabel
      %after = OpIAdd %uint %i %c1
               OpBranch %hdr2
       %hdr2 = OpLabel
          %j = OpPhi %uint %c0 %exit %jnext %cont2
               OpLoopMerge %exit2 %cont2 None
        %lt2 = OpULessThan %bool %j %sbn
               OpBranchConditional %lt2 %cont2 %exit2
      %cont2 = OpLabel
      %jnext = OpIAdd %uint %j %c1
               OpBranch %hdr2
      %exit2 = OpLabel
     %after2 = OpIAdd %uint %j %c1
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.analysis().LoopExitLevel(a.Id("hdr")), kW);
  EXPECT_EQ(a.V("i"), kW);
  EXPECT_EQ(a.V("after"), kW);
  EXPECT_TRUE(a.Uniform("hdr"));
  EXPECT_TRUE(a.Uniform("cont"));
  EXPECT_EQ(a.analysis().LoopExitLevel(a.Id("hdr2")), kS);
  // Used after a loop that whole subgroups leave together: subgroup, not
  // workgroup, uniform (subgroups may leave at different iterations).
  EXPECT_EQ(a.V("j"), kS);
  EXPECT_EQ(a.V("after2"), kS);
  EXPECT_EQ(a.analysis().LoopExitLevel(a.Id("entry")), kD);  // no loop
}

// A divergent if inside a loop whose exits are uniform does not make the
// loop's values divergent after it.
TEST(UniformityLoop, DivergentIfInsideUniformLoop) {
  Analysed a(Compute(R"(
               OpBranch %hdr
        %hdr = OpLabel
          %i = OpPhi %uint %c0 %entry %inext %cont
               OpLoopMerge %exit %cont None
         %lt = OpULessThan %bool %i %pcv
               OpBranchConditional %lt %body %exit
       %body = OpLabel
               OpSelectionMerge %cont None
               OpBranchConditional %cd %then %cont
       %then = OpLabel
               OpBranch %cont
       %cont = OpLabel
      %inext = OpIAdd %uint %i %c1
               OpBranch %hdr
       %exit = OpLabel
      %after = OpIAdd %uint %i %c1
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.analysis().LoopExitLevel(a.Id("hdr")), kW);
  EXPECT_EQ(a.V("after"), kW);
  EXPECT_FALSE(a.Uniform("then"));
  EXPECT_TRUE(a.Uniform("cont"));
}

TEST(UniformityLoop, VariableStoredInDivergentLoopLoadedAfter) {
  Analysed a(Compute(R"(
          %v = OpVariable %ptr_fn_uint Function
               OpStore %v %c0
               OpBranch %hdr
        %hdr = OpLabel
          %i = OpPhi %uint %c0 %entry %inext %cont
               OpLoopMerge %exit %cont None
               OpBranch %body
       %body = OpLabel
               OpStore %v %i
        %brk = OpIEqual %bool %i %tid
               OpBranchConditional %brk %exit %cont
       %cont = OpLabel
      %inext = OpIAdd %uint %i %c1
               OpBranch %hdr
       %exit = OpLabel
     %v_load = OpLoad %uint %v
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("v_load"), kD);
}

TEST(UniformityVariables, StoredValuesAndControl) {
  Analysed a(Compute(R"(
         %vw = OpVariable %ptr_fn_uint Function
         %vs = OpVariable %ptr_fn_uint Function
         %vd = OpVariable %ptr_fn_uint Function
         %vc = OpVariable %ptr_fn_uint Function
         %vu = OpVariable %ptr_fn_uint Function
               OpStore %vw %wg
               OpStore %vs %sg
               OpStore %vd %tid
               OpStore %vc %c0
               OpStore %vu %c0
               OpSelectionMerge %m None
               OpBranchConditional %cd %t %m
          %t = OpLabel
               OpStore %vc %c1
               OpBranch %m
          %m = OpLabel
               OpSelectionMerge %m2 None
               OpBranchConditional %cw %t2 %m2
         %t2 = OpLabel
               OpStore %vu %c1
               OpBranch %m2
         %m2 = OpLabel
      %ld_vw = OpLoad %uint %vw
      %ld_vs = OpLoad %uint %vs
      %ld_vd = OpLoad %uint %vd
      %ld_vc = OpLoad %uint %vc
      %ld_vu = OpLoad %uint %vu
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("ld_vw"), kW);
  EXPECT_EQ(a.V("ld_vs"), kS);
  EXPECT_EQ(a.V("ld_vd"), kD);
  EXPECT_EQ(a.V("ld_vc"), kD);  // stored under divergent control
  EXPECT_EQ(a.V("ld_vu"), kW);
}

TEST(UniformityVariables, PrivateStoredInDivergentlyCalledFunction) {
  Analysed a(Compute(R"(
               OpStore %priv %c0
               OpSelectionMerge %m None
               OpBranchConditional %cd %t %m
          %t = OpLabel
      %setc = OpFunctionCall %void %set
               OpBranch %m
          %m = OpLabel
    %ld_priv = OpLoad %uint %priv
               OpReturn)",
                     R"(
        %set = OpFunction %void None %fn
     %set_e = OpLabel
               OpStore %priv %c1
               OpReturn
               OpFunctionEnd)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("ld_priv"), kD);
  EXPECT_EQ(a.analysis().EntryLevel(a.Id("set")), kD);
  EXPECT_EQ(a.analysis().EntryLevel(a.Id("main")), kW);
}

TEST(UniformityVariables, PointerArgumentStoredByCallee) {
  Analysed a(Compute(R"(
         %pv = OpVariable %ptr_fn_uint Function
               OpStore %pv %c0
      %callw = OpFunctionCall %void %write %pv
     %ld_pv = OpLoad %uint %pv
               OpReturn)",
                     R"(
      %write = OpFunction %void None %fn_p
        %dst = OpFunctionParameter %ptr_fn_uint
    %write_e = OpLabel
       %wtid = OpLoad %uint %lidx
               OpStore %dst %wtid
               OpReturn
               OpFunctionEnd)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("ld_pv"), kD);
}

TEST(UniformityCalls, UniformAndDivergentArguments) {
  Analysed a(Compute(R"(
     %call_f = OpFunctionCall %uint %f %wg
    %call_g1 = OpFunctionCall %uint %g %wg
    %call_g2 = OpFunctionCall %uint %g %tid
               OpSelectionMerge %m None
               OpBranchConditional %cd %t %m
          %t = OpLabel
     %call_h = OpFunctionCall %uint %h %wg
               OpBranch %m
          %m = OpLabel
               OpReturn)",
                     R"(
          %f = OpFunction %uint None %fn_uu
         %fp = OpFunctionParameter %uint
         %fe = OpLabel
         %fr = OpIAdd %uint %fp %c1
               OpReturnValue %fr
               OpFunctionEnd
          %g = OpFunction %uint None %fn_uu
         %gp = OpFunctionParameter %uint
         %ge = OpLabel
         %gr = OpIMul %uint %gp %c4
               OpReturnValue %gr
               OpFunctionEnd
          %h = OpFunction %uint None %fn_uu
         %hp = OpFunctionParameter %uint
         %he = OpLabel
               OpReturnValue %hp
               OpFunctionEnd)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("fp"), kW);
  EXPECT_EQ(a.V("call_f"), kW);
  EXPECT_EQ(a.V("gp"), kD);
  EXPECT_EQ(a.V("gr"), kD);
  EXPECT_EQ(a.V("call_g1"), kD);  // context-insensitive
  EXPECT_EQ(a.V("hp"), kD);       // called under divergent control
  EXPECT_EQ(a.analysis().EntryLevel(a.Id("f")), kW);
  EXPECT_EQ(a.analysis().EntryLevel(a.Id("h")), kD);
  EXPECT_TRUE(a.Uniform("he"));  // relative to the function's entry
}

TEST(UniformityCalls, ReturnsUnderDivergentControl) {
  Analysed a(Compute(R"(
     %call_r = OpFunctionCall %uint %r %wg
               OpSelectionMerge %m None
               OpBranchConditional %cd %early %m
      %early = OpLabel
               OpReturn
          %m = OpLabel
               OpReturn)",
                     R"(
          %r = OpFunction %uint None %fn_uu
         %rp = OpFunctionParameter %uint
         %re = OpLabel
        %rtid = OpLoad %uint %lidx
        %rc = OpULessThan %bool %rtid %rp
               OpSelectionMerge %rm None
               OpBranchConditional %rc %rt %rm
         %rt = OpLabel
               OpReturnValue %c1
         %rm = OpLabel
               OpReturnValue %c4
               OpFunctionEnd)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("call_r"), kD);
  EXPECT_FALSE(a.Uniform("rm"));
  EXPECT_FALSE(a.Uniform("m"));  // after a divergent early return
  EXPECT_EQ(a.Deps("m"), a.Ids({"entry"}));
}

TEST(UniformityImages, ReadsAtCoordinates) {
  Analysed a(Compute(R"(
         %im = OpLoad %img_t %simg
        %tim = OpLoad %timg_t %timg
       %wg_i = OpBitcast %int %wg
      %tid_i = OpBitcast %int %tid
     %crd_w = OpCompositeConstruct %v2int %wg_i %i0
     %crd_d = OpCompositeConstruct %v2int %tid_i %i0
     %read_w = OpImageRead %v4uint %im %crd_w
     %read_d = OpImageRead %v4uint %im %crd_d
    %fetch_w = OpImageFetch %v4float %tim %crd_w
    %fetch_d = OpImageFetch %v4float %tim %crd_d
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("im"), kW);
  EXPECT_EQ(a.V("read_w"), kS);  // storage image: others may write it
  EXPECT_EQ(a.V("read_d"), kD);
  EXPECT_EQ(a.V("fetch_w"), kW);
  EXPECT_EQ(a.V("fetch_d"), kD);
}

TEST(UniformityGroupOps, ResultsAtTheirScope) {
  Analysed a(Compute(R"(
         %el = OpGroupNonUniformElect %bool %sub
        %bal = OpGroupNonUniformBallot %v4uint %sub %cd
         %bc = OpGroupNonUniformBroadcast %uint %sub %tid %c0
         %bf = OpGroupNonUniformBroadcastFirst %uint %sub %tid
        %red = OpGroupNonUniformIAdd %uint %sub Reduce %tid
       %scan = OpGroupNonUniformIAdd %uint %sub InclusiveScan %wg
       %wred = OpGroupNonUniformIAdd %uint %wgsc Reduce %tid
         %ae = OpGroupNonUniformAllEqual %bool %sub %tid
        %all = OpGroupNonUniformAll %bool %sub %cd
       %shfw = OpGroupNonUniformShuffle %uint %sub %tid %wg
       %shfd = OpGroupNonUniformShuffle %uint %sub %tid %tid
      %shfwv = OpGroupNonUniformShuffle %uint %sub %wg %tid
       %bcnt = OpGroupNonUniformBallotBitCount %uint %sub Reduce %bal
      %bscan = OpGroupNonUniformBallotBitCount %uint %sub ExclusiveScan %bal
        %mix = OpIAdd %uint %red %wg
       %wmix = OpIAdd %uint %wred %wg
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("el"), kD);
  EXPECT_EQ(a.V("bal"), kS);
  EXPECT_EQ(a.V("bc"), kS);
  EXPECT_EQ(a.V("bf"), kS);
  EXPECT_EQ(a.V("red"), kS);
  EXPECT_EQ(a.V("scan"), kD);
  EXPECT_EQ(a.V("wred"), kW);
  EXPECT_EQ(a.V("ae"), kS);
  EXPECT_EQ(a.V("all"), kS);
  EXPECT_EQ(a.V("shfw"), kS);
  EXPECT_EQ(a.V("shfd"), kD);
  EXPECT_EQ(a.V("shfwv"), kW);  // every lane holds the same value
  EXPECT_EQ(a.V("bcnt"), kS);
  EXPECT_EQ(a.V("bscan"), kD);
  EXPECT_EQ(a.V("mix"), kS);
  EXPECT_EQ(a.V("wmix"), kW);
}

// SubgroupId is the same in a subgroup only; LocalInvocationIndex differs in
// every lane: branches on them give subgroup-uniform and divergent control.
TEST(UniformityBuiltins, SubgroupIdVersusLocalInvocationIndex) {
  Analysed a(Compute(R"(
        %csg = OpIEqual %bool %sg %c0
               OpSelectionMerge %m1 None
               OpBranchConditional %csg %sg_t %m1
       %sg_t = OpLabel
        %red = OpGroupNonUniformIAdd %uint %sub Reduce %tid
               OpBranch %m1
         %m1 = OpLabel
        %ctd = OpIEqual %bool %tid %c0
               OpSelectionMerge %m2 None
               OpBranchConditional %ctd %tid_t %m2
      %tid_t = OpLabel
               OpBranch %m2
         %m2 = OpLabel
               OpReturn)"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("csg"), kS);
  EXPECT_EQ(a.V("ctd"), kD);
  EXPECT_TRUE(a.Uniform("sg_t"));
  EXPECT_EQ(a.analysis().BlockLevel(a.Id("sg_t")), kS);
  EXPECT_FALSE(a.Uniform("tid_t"));
}

const char* kFragmentHeader = R"(
               OpCapability Shader
               OpCapability DemoteToHelperInvocation
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %fc %attr
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %fc BuiltIn FragCoord
               OpDecorate %attr Location 0
               OpMemberDecorate %pc_t 0 Offset 0
               OpDecorate %pc_t Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
         %f0 = OpConstant %float 0
%ptr_in_float = OpTypePointer Input %float
 %ptr_in_v4 = OpTypePointer Input %v4float
         %fc = OpVariable %ptr_in_v4 Input
       %attr = OpVariable %ptr_in_float Input
       %pc_t = OpTypeStruct %float
     %ptr_pc = OpTypePointer PushConstant %pc_t
%ptr_pc_float = OpTypePointer PushConstant %float
        %int = OpTypeInt 32 1
         %i0 = OpConstant %int 0
         %pc = OpVariable %ptr_pc PushConstant
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %a = OpLoad %float %attr
        %fcv = OpLoad %v4float %fc
      %pcv_p = OpAccessChain %ptr_pc_float %pc %i0
        %pcv = OpLoad %float %pcv_p
         %cd = OpFOrdLessThan %bool %a %f0
         %cw = OpFOrdLessThan %bool %pcv %f0
)";

TEST(UniformityExits, KillUnderDivergentControl) {
  Analysed a(std::string(kFragmentHeader) + R"(
               OpSelectionMerge %m None
               OpBranchConditional %cd %kill %m
       %kill = OpLabel
               OpKill
          %m = OpLabel
               OpSelectionMerge %m2 None
               OpBranchConditional %cw %kill2 %m2
      %kill2 = OpLabel
               OpKill
         %m2 = OpLabel
               OpReturn
               OpFunctionEnd)");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.V("a"), kD);  // per-invocation fragment input
  EXPECT_EQ(a.V("fcv"), kD);
  EXPECT_EQ(a.V("pcv"), kW);
  EXPECT_FALSE(a.Uniform("m"));
  EXPECT_EQ(a.Deps("m"), a.Ids({"entry"}));
  EXPECT_FALSE(a.Uniform("m2"));  // still only the surviving lanes
  EXPECT_TRUE(a.Uniform("entry"));
}

TEST(UniformityExits, UniformKillKeepsControlUniform) {
  Analysed a(std::string(kFragmentHeader) + R"(
               OpSelectionMerge %m None
               OpBranchConditional %cw %kill %m
       %kill = OpLabel
               OpTerminateInvocation
          %m = OpLabel
               OpReturn
               OpFunctionEnd)");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a.Uniform("m"));
}

TEST(UniformityExits, DemoteUnderDivergentControl) {
  Analysed a(std::string(kFragmentHeader) + R"(
               OpSelectionMerge %m None
               OpBranchConditional %cd %dem %m
        %dem = OpLabel
               OpDemoteToHelperInvocation
               OpBranch %m
          %m = OpLabel
               OpSelectionMerge %m2 None
               OpBranchConditional %cw %t2 %m2
         %t2 = OpLabel
               OpBranch %m2
         %m2 = OpLabel
               OpReturn
               OpFunctionEnd)");
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a.Uniform("m"));
  EXPECT_EQ(a.Deps("m"), a.Ids({"dem"}));
  EXPECT_FALSE(a.Uniform("m2"));
  EXPECT_EQ(a.Deps("m2"), a.Ids({"dem"}));
}

TEST(UniformityExits, CallToKillingFunctionUnderDivergentControl) {
  Analysed a(std::string(kFragmentHeader) + R"(
               OpSelectionMerge %m None
               OpBranchConditional %cd %t %m
          %t = OpLabel
       %call = OpFunctionCall %void %discard
               OpBranch %m
          %m = OpLabel
      %call2 = OpFunctionCall %void %maybe
               OpBranch %after
      %after = OpLabel
               OpReturn
               OpFunctionEnd
    %discard = OpFunction %void None %fn
         %de = OpLabel
               OpKill
               OpFunctionEnd
      %maybe = OpFunction %void None %fn
         %me = OpLabel
         %ma = OpLoad %float %attr
        %mcd = OpFOrdLessThan %bool %ma %f0
               OpSelectionMerge %mm None
               OpBranchConditional %mcd %mk %mm
         %mk = OpLabel
               OpKill
         %mm = OpLabel
               OpReturn
               OpFunctionEnd)");
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a.Uniform("m"));
  EXPECT_EQ(a.Deps("m"), a.Ids({"t"}));
  // %maybe kills some lanes itself: after the call, control is divergent
  // even though the call is reached uniformly... from %m, which is not.
  EXPECT_FALSE(a.Uniform("after"));
  EXPECT_EQ(a.Deps("after"), a.Ids({"t", "m"}));
}

TEST(UniformityPrint, FormatIsStableAndInProgramOrder) {
  const std::string text = Compute(R"(
               OpSelectionMerge %m1 None
               OpBranchConditional %cd %t1 %m1
         %t1 = OpLabel
               OpBranch %m1
         %m1 = OpLabel
      %phi_d = OpPhi %uint %c1 %t1 %c4 %entry
               OpReturn)");
  Analysed a(text);
  ASSERT_TRUE(a.ok());
  const std::string printed = a.Printed();
  Analysed b(text);
  EXPECT_EQ(printed, b.Printed());
  auto id = [&](const char* n) { return std::to_string(a.Id(n)); };
  const std::string expected =
      "function %" + id("main") + " \"main\"\n" + "  value %" + id("tid") + " \"tid\" divergent\n" +
      "  value %" + id("wg_p") + " \"wg_p\" workgroup\n" + "  value %" + id("wg") +
      " \"wg\" workgroup\n" + "  value %" + id("sg") + " \"sg\" subgroup\n" + "  value %" +
      id("pcv_p") + " \"pcv_p\" workgroup\n" + "  value %" + id("pcv") + " \"pcv\" workgroup\n" +
      "  value %" + id("cd") + " \"cd\" divergent\n" + "  value %" + id("cs") +
      " \"cs\" subgroup\n" + "  value %" + id("cw") + " \"cw\" workgroup\n" + "  value %" +
      id("phi_d") + " \"phi_d\" divergent\n" + "  block %" + id("entry") + " \"entry\" uniform\n" +
      "  block %" + id("t1") + " \"t1\" divergent deps %" + id("entry") + "\n" + "  block %" +
      id("m1") + " \"m1\" uniform\n";
  EXPECT_EQ(printed, expected);
}

TEST(UniformityAnalysisApi, UnknownIdsAreDivergent) {
  Analysed a(Compute("OpReturn"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.analysis().ValueLevel(100000), kD);
  EXPECT_FALSE(a.analysis().IsBlockUniform(100000));
  EXPECT_TRUE(a.analysis().DivergentBranches(100000).empty());
  EXPECT_EQ(a.analysis().EntryLevel(100000), kD);
  EXPECT_STREQ(UniformityName(kW), "workgroup");
  EXPECT_STREQ(UniformityName(kS), "subgroup");
  EXPECT_STREQ(UniformityName(kD), "divergent");
}

// ---- scaling ----

// A compute shader of |segments| copies of a segment of about 100
// instructions: a divergent if with a phi, a workgroup-uniform loop, a loop
// with a divergent break whose counter is used after it, Function variable
// stores and loads, and subgroup operations.
std::string ScalingModule(int segments) {
  std::ostringstream s;
  s << kComputeHeader << kMainStart;
  s << "%acc = OpVariable %ptr_fn_uint Function\n"
       "%wacc = OpVariable %ptr_fn_uint Function\n"
       "OpStore %acc %c0\nOpStore %wacc %c0\nOpBranch %seg0\n";
  for (int k = 0; k < segments; ++k) {
    const std::string n = std::to_string(k);
    const std::string next = "%seg" + std::to_string(k + 1);
    s << "%seg" << n << " = OpLabel\n"
      << "%x" << n << " = OpIAdd %uint %tid %c" << (k % 2 ? "1" : "4") << "\n"
      << "%y" << n << " = OpIMul %uint %wg %c4\n"
      << "%cc" << n << " = OpULessThan %bool %x" << n << " %c64\n"
      << "OpSelectionMerge %m" << n << " None\n"
      << "OpBranchConditional %cc" << n << " %t" << n << " %e" << n << "\n"
      << "%t" << n << " = OpLabel\n";
    for (int r = 0; r < 8; ++r) {
      s << "%ta" << n << "_" << r << " = OpIAdd %uint %y" << n << " %c" << (r % 2 ? "1" : "4")
        << "\n";
    }
    s << "OpBranch %m" << n << "\n"
      << "%e" << n << " = OpLabel\n"
      << "%ea" << n << " = OpIMul %uint %y" << n << " %c1\n"
      << "OpBranch %m" << n << "\n"
      << "%m" << n << " = OpLabel\n"
      << "%phi" << n << " = OpPhi %uint %ta" << n << "_7 %t" << n << " %ea" << n << " %e" << n
      << "\n"
      << "OpStore %acc %phi" << n
      << "\n"
      // Workgroup-uniform loop.
      << "OpBranch %uh" << n << "\n"
      << "%uh" << n << " = OpLabel\n"
      << "%ui" << n << " = OpPhi %uint %c0 %m" << n << " %un" << n << " %uc" << n << "\n"
      << "OpLoopMerge %ux" << n << " %uc" << n << " None\n"
      << "%ul" << n << " = OpULessThan %bool %ui" << n << " %pcv\n"
      << "OpBranchConditional %ul" << n << " %ub" << n << " %ux" << n << "\n"
      << "%ub" << n << " = OpLabel\n";
    for (int r = 0; r < 16; ++r) {
      s << "%ua" << n << "_" << r << " = OpIAdd %uint %ui" << n << " %y" << n << "\n";
    }
    s << "%up" << n << " = OpAccessChain %ptr_sb_uint %buf %i0 %ua" << n << "_15\n"
      << "%uv" << n << " = OpLoad %uint %up" << n << "\n"
      << "%ured" << n << " = OpGroupNonUniformIAdd %uint %sub Reduce %x" << n << "\n"
      << "OpStore %wacc %ua" << n << "_3\n"
      << "OpBranch %uc" << n << "\n"
      << "%uc" << n << " = OpLabel\n"
      << "%un" << n << " = OpIAdd %uint %ui" << n << " %c1\n"
      << "OpBranch %uh" << n << "\n"
      << "%ux" << n << " = OpLabel\n"
      << "%uafter" << n << " = OpIAdd %uint %ui" << n
      << " %c1\n"
      // Loop with a divergent break, counter used after it.
      << "OpBranch %dh" << n << "\n"
      << "%dh" << n << " = OpLabel\n"
      << "%di" << n << " = OpPhi %uint %c0 %ux" << n << " %dn" << n << " %dc" << n << "\n"
      << "OpLoopMerge %dx" << n << " %dc" << n << " None\n"
      << "%dl" << n << " = OpULessThan %bool %di" << n << " %pcv\n"
      << "OpBranchConditional %dl" << n << " %db" << n << " %dx" << n << "\n"
      << "%db" << n << " = OpLabel\n";
    for (int r = 0; r < 16; ++r) {
      s << "%da" << n << "_" << r << " = OpIMul %uint %di" << n << " %c" << (r % 2 ? "1" : "4")
        << "\n";
    }
    s << "%dbrk" << n << " = OpIEqual %bool %da" << n << "_15 %tid\n"
      << "OpBranchConditional %dbrk" << n << " %dx" << n << " %dc" << n << "\n"
      << "%dc" << n << " = OpLabel\n"
      << "%dn" << n << " = OpIAdd %uint %di" << n << " %c1\n"
      << "OpBranch %dh" << n << "\n"
      << "%dx" << n << " = OpLabel\n"
      << "%dafter" << n << " = OpIAdd %uint %di" << n << " %c1\n"
      << "%lacc" << n << " = OpLoad %uint %acc\n"
      << "%lwacc" << n << " = OpLoad %uint %wacc\n";
    for (int r = 0; r < 20; ++r) {
      s << "%w" << n << "_" << r << " = OpIAdd %uint %uafter" << n << " %y" << n << "\n";
    }
    s << "OpBranch " << next << "\n";
  }
  s << "%seg" << segments << " = OpLabel\nOpReturn\nOpFunctionEnd\n";
  return s.str();
}

// Runs the analysis on the generated module and checks its answers. The
// time is printed (not asserted); WAVEOPT_UNIFORMITY_SCALES="1,2,4,8,16"
// measures those multiples of ~100,000 instructions (docs/uniformity.md).
TEST(UniformityScaling, GeneratedModule) {
  std::vector<int> scales{1};
  if (const char* env = std::getenv("WAVEOPT_UNIFORMITY_SCALES")) {
    scales.clear();
    std::stringstream list(env);
    for (std::string item; std::getline(list, item, ',');) {
      scales.push_back(std::stoi(item));
    }
  }
  constexpr int kSegmentsPerScale = 925;  // ~108 instructions each
  for (int scale : scales) {
    const int segments = kSegmentsPerScale * scale;
    auto context =
        spvtools::BuildModule(SPV_ENV_UNIVERSAL_1_6, nullptr, WithNames(ScalingModule(segments)));
    ASSERT_NE(context, nullptr);
    size_t instructions = 0;  // inside functions; OpNames not counted
    for (auto& func : *context->module()) {
      func.ForEachInst([&](const spvtools::opt::Instruction*) { ++instructions; });
    }
    // Timed: (1) SPIRV-Tools' def-use manager, CFG and instruction-to-block
    // map, which a pass usually has already; (2) the analysis itself (with
    // the dominator trees and control dependences it builds). Not timed:
    // assembling and loading the module.
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    const auto t0 = Clock::now();
    context->get_def_use_mgr();
    context->cfg();
    context->get_instr_block(context->module()->begin()->entry()->GetLabelInst());
    const auto t1 = Clock::now();
    UniformityAnalysis analysis(context.get());
    const auto t2 = Clock::now();
    std::cout << "[ uniformity ] scale " << scale << ": " << instructions
              << " instructions, def-use/cfg " << ms(t0, t1) << " ms, analysis " << ms(t1, t2)
              << " ms\n";
    auto id = [&](const std::string& name) {
      for (auto& inst : context->module()->debugs2()) {
        if (inst.opcode() == spv::Op::OpName && inst.GetInOperand(1).AsString() == name) {
          return inst.GetSingleWordInOperand(0);
        }
      }
      return 0u;
    };
    for (int k : {0, segments / 2, segments - 1}) {
      const std::string n = std::to_string(k);
      EXPECT_EQ(analysis.ValueLevel(id("phi" + n)), kD) << n;
      EXPECT_EQ(analysis.ValueLevel(id("ui" + n)), kW) << n;
      EXPECT_EQ(analysis.ValueLevel(id("uafter" + n)), kW) << n;
      EXPECT_EQ(analysis.ValueLevel(id("uv" + n)), kS) << n;
      EXPECT_EQ(analysis.ValueLevel(id("ured" + n)), kS) << n;
      EXPECT_EQ(analysis.ValueLevel(id("di" + n)), kD) << n;
      EXPECT_EQ(analysis.ValueLevel(id("dafter" + n)), kD) << n;
      EXPECT_EQ(analysis.ValueLevel(id("lacc" + n)), kD) << n;
      EXPECT_EQ(analysis.ValueLevel(id("lwacc" + n)), kW) << n;
      EXPECT_EQ(analysis.ValueLevel(id("w" + n + "_19")), kW) << n;
      EXPECT_FALSE(analysis.IsBlockUniform(id("t" + n))) << n;
      EXPECT_TRUE(analysis.IsBlockUniform(id("ub" + n))) << n;
      EXPECT_FALSE(analysis.IsBlockUniform(id("db" + n))) << n;
      EXPECT_TRUE(analysis.IsBlockUniform(id("dx" + n))) << n;
      EXPECT_EQ(analysis.LoopExitLevel(id("uh" + n)), kW) << n;
      EXPECT_EQ(analysis.LoopExitLevel(id("dh" + n)), kD) << n;
    }
    if (scale == 1) {
      EXPECT_GT(instructions, 95000u);
      EXPECT_LT(instructions, 130000u);
    }
  }
}

// The kept analysis is the one built on the same context while that
// context's def-use manager stands; another context, an invalidated
// def-use manager, or Forget() builds a new one.
TEST(SharedUniformity, KeptOnlyForTheSameContextAndDefUse) {
  const std::string text = WithNames(Compute("%x = OpIAdd %uint %tid %c1\nOpReturn"));
  std::unique_ptr<IRContext> a = spvtools::BuildModule(SPV_ENV_UNIVERSAL_1_6, nullptr, text);
  std::unique_ptr<IRContext> b = spvtools::BuildModule(SPV_ENV_UNIVERSAL_1_6, nullptr, text);
  ASSERT_TRUE(a && b);
  SharedUniformity shared;
  EXPECT_FALSE(shared.Kept(a.get()));
  const UniformityAnalysis* first = &shared.Of(a.get());
  EXPECT_TRUE(shared.Kept(a.get()));
  EXPECT_FALSE(shared.Kept(b.get()));
  EXPECT_EQ(&shared.Of(a.get()), first);
  std::unique_ptr<UniformityAnalysis> own;
  EXPECT_EQ(&UniformityOf(a.get(), &shared, &own), first);
  EXPECT_EQ(own, nullptr);
  EXPECT_NE(&UniformityOf(a.get(), nullptr, &own), first);
  EXPECT_NE(own, nullptr);

  // The analysis reads the def-use manager it was built with.
  a->InvalidateAnalyses(IRContext::kAnalysisDefUse);
  EXPECT_FALSE(shared.Kept(a.get()));
  shared.Of(a.get());
  EXPECT_TRUE(shared.Kept(a.get()));
  shared.Forget();
  EXPECT_FALSE(shared.Kept(a.get()));
  shared.Of(b.get());
  EXPECT_TRUE(shared.Kept(b.get()));
  EXPECT_FALSE(shared.Kept(a.get()));
}

}  // namespace
}  // namespace waveopt
