// Barrier facts (lib/analysis/barriers.h): RedundantBarrier, UsesDominator,
// MayWriteAfter and StoreMayCross on small GLSL and HLSL kernels (in the
// SSA form -O hands the passes, or as compiled where a call must stay) and
// on SPIR-V assembly for what the languages cannot write (a Workgroup
// pointer chosen by OpSelect, a barrier with semantics 0x48). Every test
// pins one answer of the contract; where the shape could be right for an
// unrelated reason, a control beside it shows the other answer.
#include "analysis/barriers.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/loops.h"
#include "gtest/gtest.h"
#include "kernel_module.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;

// A module and its entry function, with lookups in block order.
class Module {
 public:
  explicit Module(std::unique_ptr<IRContext> context) : context_(std::move(context)) {
    if (!context_ || context_->module()->entry_points().empty()) return;
    entry_ = context_->GetFunction(
        context_->module()->entry_points().begin()->GetSingleWordInOperand(1));
  }
  bool ok() const { return entry_ != nullptr; }
  IRContext* context() { return context_.get(); }
  Function* entry() { return entry_; }

  // The Workgroup variable named |name| (0 when none).
  uint32_t Shared(const std::string& name) {
    for (Instruction& inst : context_->debugs2()) {
      if (inst.opcode() != spv::Op::OpName || inst.GetInOperand(1).AsString() != name) continue;
      const uint32_t id = inst.GetSingleWordInOperand(0);
      const Instruction* def = context_->get_def_use_mgr()->GetDef(id);
      if (def != nullptr && def->opcode() == spv::Op::OpVariable &&
          spv::StorageClass(def->GetSingleWordInOperand(0)) == spv::StorageClass::Workgroup) {
        return id;
      }
    }
    return 0;
  }
  // The entry function's instructions for which |pred| holds, in block order.
  std::vector<Instruction*> Find(const std::function<bool(Instruction*)>& pred) {
    std::vector<Instruction*> found;
    entry_->ForEachInst([&](Instruction* inst) {
      if (pred(inst)) found.push_back(inst);
    });
    return found;
  }
  std::vector<Instruction*> All(spv::Op op) {
    return Find([op](Instruction* inst) { return inst->opcode() == op; });
  }
  std::vector<Instruction*> Barriers() { return All(spv::Op::OpControlBarrier); }
  // The loads (or stores, |op|) through a pointer derived from |var|.
  std::vector<Instruction*> Accesses(spv::Op op, uint32_t var) {
    return Find([&](Instruction* inst) {
      if (inst->opcode() != op) return false;
      const Instruction* root = RootVariable(context(), inst->GetSingleWordInOperand(0));
      return root != nullptr && root->result_id() == var;
    });
  }
  BasicBlock* BlockOf(Instruction* inst) { return context_->get_instr_block(inst); }
  BasicBlock* BlockOf(uint32_t label) { return context_->get_instr_block(label); }

 private:
  std::unique_ptr<IRContext> context_;
  Function* entry_ = nullptr;
};

std::unique_ptr<IRContext> Build(const std::vector<uint32_t>& words) {
  if (words.empty()) return nullptr;
  return spvtools::BuildModule(SPV_ENV_VULKAN_1_1, nullptr, words.data(), words.size());
}

// Two shared arrays |a| and |b| and a buffer |data|; |body| is the rest.
const char* kGlslHeader = R"(#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint data[]; };
shared uint a[16];
shared uint b[16];
)";

Module Glsl(const std::string& body, bool ssa = true) {
  return Module(Build(testing_kernels::CompileKernel(kGlslHeader + body, ssa)));
}

// The same in HLSL; |barrier| is the intrinsic both barriers use.
Module Hlsl(const std::string& barrier) {
  const std::string source = "#define BARRIER " + barrier + R"(
RWStructuredBuffer<uint> data : register(u0);
groupshared uint a[16];
groupshared uint b[16];
[numthreads(64, 1, 1)]
void main(uint tid : SV_GroupIndex) {
  uint x = data[tid];
  if (WaveIsFirstLane()) a[tid % 16] = x;
  BARRIER();
  if (WaveIsFirstLane()) b[tid % 16] = x + 1;
  BARRIER();
  data[tid] = a[tid % 16] + b[tid % 16];
}
)";
  return Module(Build(testing_kernels::CompileKernel(source, true, SourceLanguage::kHlsl)));
}

// A store to |a|, barrier, |between|, barrier, an unused OpIAdd; both
// barriers have the memory semantics constant |semantics| (%sem_shared is
// 0x108, %sem_uniform 0x48). %pa and %pb point into |a| and |b|.
Module Asm(const std::string& semantics, const std::string& between) {
  const std::string text = R"(
               OpCapability Shader
               OpCapability VariablePointers
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %lidx
               OpExecutionMode %main LocalSize 64 1 1
               OpName %a "a"
               OpName %b "b"
               OpDecorate %lidx BuiltIn LocalInvocationIndex
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
    %uint_16 = OpConstant %uint 16
 %sem_shared = OpConstant %uint 264
%sem_uniform = OpConstant %uint 72
        %arr = OpTypeArray %uint %uint_16
 %ptr_wg_arr = OpTypePointer Workgroup %arr
%ptr_wg_uint = OpTypePointer Workgroup %uint
%ptr_in_uint = OpTypePointer Input %uint
          %a = OpVariable %ptr_wg_arr Workgroup
          %b = OpVariable %ptr_wg_arr Workgroup
       %lidx = OpVariable %ptr_in_uint Input
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %tid = OpLoad %uint %lidx
        %idx = OpUMod %uint %tid %uint_16
         %pa = OpAccessChain %ptr_wg_uint %a %idx
         %pb = OpAccessChain %ptr_wg_uint %b %idx
               OpStore %pa %tid
               OpControlBarrier %uint_2 %uint_2 )" +
                           semantics + "\n" + between + R"(
               OpControlBarrier %uint_2 %uint_2 )" +
                           semantics + R"(
     %unused = OpIAdd %uint %tid %uint_1
               OpReturn
               OpFunctionEnd
)";
  return Module(spvtools::BuildModule(
      SPV_ENV_UNIVERSAL_1_3,
      [](spv_message_level_t, const char*, const spv_position_t& pos, const char* message) {
        ADD_FAILURE() << "line " << pos.line << ": " << message;
      },
      text));
}

// Between the barriers: a store through a pointer OpSelect picks from %pa
// and %pb (derived from no one variable).
const char* kSelectedStore = R"(
        %low = OpULessThan %bool %tid %uint_1
         %pq = OpSelect %ptr_wg_uint %low %pa %pb
               OpStore %pq %tid)";

bool Redundant(Module& m, Instruction* barrier, Instruction** next = nullptr,
               std::string* why = nullptr) {
  return RedundantBarrier(m.context(), m.entry(), barrier, next, why);
}

// ---------------------------------------------------------------------------
// RedundantBarrier

// The shape workgroup-reduce leaves: one elected invocation per subgroup
// writes |a|, barrier, then |b|, barrier, then both are read.
const char* kElect = R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint x = data[tid];
  if (subgroupElect()) a[gl_SubgroupID] = x;
  barrier();
  if (subgroupElect()) b[gl_SubgroupID] = x + 1u;
  barrier();
  data[tid] = a[tid % 16u] + b[tid % 16u];
}
)";

TEST(BarriersRedundant, TrueWhenOnlyAnotherArrayIsWrittenBetween) {
  Module m = Glsl(kElect);
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  Instruction* next = nullptr;
  std::string why;
  EXPECT_TRUE(Redundant(m, barriers[0], &next, &why)) << why;
  EXPECT_EQ(next, barriers[1]);
}

TEST(BarriersRedundant, FalseInACalledFunction) {
  // kElect's shape inside a function main calls: what main did with the
  // arrays before the call is not looked at, so the answer is no.
  Module m = Glsl(R"(
void body(uint tid, uint x) {
  if (subgroupElect()) a[gl_SubgroupID] = x;
  barrier();
  if (subgroupElect()) b[gl_SubgroupID] = x + 1u;
  barrier();
  data[tid] = a[tid % 16u] + b[tid % 16u];
}
void main() {
  uint tid = gl_LocalInvocationIndex;
  body(tid, data[tid]);
}
)",
                  /*ssa=*/false);
  ASSERT_TRUE(m.ok());
  std::vector<Instruction*> barriers;
  spvtools::opt::Function* callee = nullptr;
  for (spvtools::opt::Function& f : *m.context()->module()) {
    f.ForEachInst([&](Instruction* inst) {
      if (inst->opcode() != spv::Op::OpControlBarrier) return;
      barriers.push_back(inst);
      callee = &f;
    });
  }
  ASSERT_EQ(barriers.size(), 2u);
  ASSERT_NE(callee, m.entry());
  std::string why;
  EXPECT_FALSE(RedundantBarrier(m.context(), callee, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("entry point"), std::string::npos) << why;
}

TEST(BarriersRedundant, FalseWhenNoBarrierFollows) {
  Module m = Glsl(kElect);
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  Instruction* next = nullptr;
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[1], &next, &why));
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(next, nullptr);
}

TEST(BarriersRedundant, FalseWhenStoredBeforeAndLoadedBetween) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint x = data[tid];
  if (subgroupElect()) a[gl_SubgroupID] = x;
  barrier();
  uint y = a[tid % 16u];
  if (subgroupElect()) b[gl_SubgroupID] = y;
  barrier();
  data[tid] = b[tid % 16u];
}
)");
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("accessed before"), std::string::npos) << why;
}

TEST(BarriersRedundant, FalseWhenLoadedBeforeAndStoredBetween) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint y = a[tid % 16u];
  barrier();
  if (subgroupElect()) a[gl_SubgroupID] = y;
  barrier();
  data[tid] = a[tid % 16u];
}
)");
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("accessed before"), std::string::npos) << why;
}

// Reads of |a| on both sides of barriers[1] (its only write is behind
// barriers[0]): reads do not conflict, so barriers[1] goes; barriers[0]
// stays (written before, read after).
TEST(BarriersRedundant, TrueWhenBothSidesOnlyReadTheSameArray) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  a[tid % 16u] = data[tid];
  barrier();
  uint y = a[(tid + 1u) % 16u];
  barrier();
  uint z = a[(tid + 2u) % 16u];
  barrier();
  data[tid] = y + z;
}
)");
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 3u);
  Instruction* next = nullptr;
  std::string why;
  EXPECT_TRUE(Redundant(m, barriers[1], &next, &why)) << why;
  EXPECT_EQ(next, barriers[2]);
  EXPECT_FALSE(Redundant(m, barriers[0], nullptr, &why));
}

TEST(BarriersRedundant, FalseWhenSemanticsIncludeUniformMemoryHlsl) {
  Module all = Hlsl("AllMemoryBarrierWithGroupSync");
  ASSERT_TRUE(all.ok());
  std::vector<Instruction*> barriers = all.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  std::string why;
  EXPECT_FALSE(Redundant(all, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("other than shared memory"), std::string::npos) << why;

  // Control: the same kernel with a shared-memory-only barrier.
  Module group = Hlsl("GroupMemoryBarrierWithGroupSync");
  ASSERT_TRUE(group.ok());
  barriers = group.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  Instruction* next = nullptr;
  EXPECT_TRUE(Redundant(group, barriers[0], &next, &why)) << why;
  EXPECT_EQ(next, barriers[1]);
}

TEST(BarriersRedundant, FalseWhenSemanticsIncludeUniformMemoryAsm) {
  Module uniform = Asm("%sem_uniform", "OpStore %pb %tid");
  ASSERT_TRUE(uniform.ok());
  std::vector<Instruction*> barriers = uniform.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  std::string why;
  EXPECT_FALSE(Redundant(uniform, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("other than shared memory"), std::string::npos) << why;

  Module shared = Asm("%sem_shared", "OpStore %pb %tid");
  ASSERT_TRUE(shared.ok());
  barriers = shared.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  Instruction* next = nullptr;
  EXPECT_TRUE(Redundant(shared, barriers[0], &next, &why)) << why;
  EXPECT_EQ(next, barriers[1]);
}

TEST(BarriersRedundant, FalseWhenTheNextBarrierHasOtherSemantics) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint x = data[tid];
  if (subgroupElect()) a[gl_SubgroupID] = x;
  barrier();
  if (subgroupElect()) b[gl_SubgroupID] = x + 1u;
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared,
                 gl_SemanticsAcquire);
  data[tid] = a[tid % 16u] + b[tid % 16u];
}
)");
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("other scopes or semantics"), std::string::npos) << why;
}

TEST(BarriersRedundant, FalseWhenAPathReturnsBeforeTheNextBarrier) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint x = data[tid];
  if (subgroupElect()) a[gl_SubgroupID] = x;
  barrier();
  if (data[0] == 7u) return;
  if (subgroupElect()) b[gl_SubgroupID] = x + 1u;
  barrier();
  data[tid] = a[tid % 16u] + b[tid % 16u];
}
)");
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("ends before another barrier"), std::string::npos) << why;
}

TEST(BarriersRedundant, FalseWhenPathsReachDifferentBarriers) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint x = data[tid];
  if (subgroupElect()) a[gl_SubgroupID] = x;
  barrier();
  if (data[0] == 7u) {
    b[tid % 16u] = x;
    barrier();
  } else {
    barrier();
  }
  data[tid] = a[tid % 16u] + b[tid % 16u];
}
)");
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 3u);
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("different barriers"), std::string::npos) << why;
}

TEST(BarriersRedundant, FalseInsideALoop) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint x = data[tid];
  for (uint i = 0u; i < 4u; ++i) {
    if (subgroupElect()) a[gl_SubgroupID] = x + i;
    barrier();
    if (subgroupElect()) b[gl_SubgroupID] = x;
    barrier();
  }
  data[tid] = a[tid % 16u] + b[tid % 16u];
}
)");
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("loop"), std::string::npos) << why;
}

TEST(BarriersRedundant, FalseWhenAMemoryBarrierIsBetween) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint x = data[tid];
  if (subgroupElect()) a[gl_SubgroupID] = x;
  barrier();
  memoryBarrierShared();
  if (subgroupElect()) b[gl_SubgroupID] = x + 1u;
  barrier();
  data[tid] = a[tid % 16u] + b[tid % 16u];
}
)");
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  ASSERT_EQ(m.All(spv::Op::OpMemoryBarrier).size(), 1u);
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("memory barrier"), std::string::npos) << why;
}

// |b| is written by a function; compiled as is, main calls it between the
// barriers.
const char* kCallBetween = R"(
void put(uint v) {
  if (subgroupElect()) b[gl_SubgroupID] = v;
}
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint x = data[tid];
  if (subgroupElect()) a[gl_SubgroupID] = x;
  barrier();
  put(x + 1u);
  barrier();
  data[tid] = a[tid % 16u] + b[tid % 16u];
}
)";

TEST(BarriersRedundant, FalseWhenAFunctionIsCalledBetween) {
  Module m = Glsl(kCallBetween, /*ssa=*/false);
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  ASSERT_EQ(m.All(spv::Op::OpFunctionCall).size(), 1u);
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("cannot be attributed"), std::string::npos) << why;

  // Control: with the call inlined the barrier goes.
  Module inlined = Glsl(kCallBetween, /*ssa=*/true);
  ASSERT_TRUE(inlined.ok());
  const std::vector<Instruction*> inlined_barriers = inlined.Barriers();
  ASSERT_EQ(inlined_barriers.size(), 2u);
  Instruction* next = nullptr;
  EXPECT_TRUE(Redundant(inlined, inlined_barriers[0], &next, &why)) << why;
  EXPECT_EQ(next, inlined_barriers[1]);
}

// The control barrier before barriers[1] is subgroupBarrier(): it orders
// nothing between subgroups, so the write of |a| before it is still ordered
// against the read between barriers[1] and barriers[2] only by
// barriers[1]. With barrier() there instead, barriers[1] goes.
const char* kPreviousBarrier = R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  a[tid % 16u] = data[tid];
  PREVIOUS();
  barrier();
  uint y = a[(tid + 1u) % 16u];
  barrier();
  data[tid] = y;
}
)";

TEST(BarriersRedundant, FalseWhenThePreviousBarrierIsASubgroupBarrier) {
  Module m = Glsl(std::string("#define PREVIOUS subgroupBarrier\n") + kPreviousBarrier);
  ASSERT_TRUE(m.ok());
  std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 3u);
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[1], nullptr, &why));
  EXPECT_NE(why.find("accessed before"), std::string::npos) << why;

  Module workgroup = Glsl(std::string("#define PREVIOUS barrier\n") + kPreviousBarrier);
  ASSERT_TRUE(workgroup.ok());
  barriers = workgroup.Barriers();
  ASSERT_EQ(barriers.size(), 3u);
  Instruction* next = nullptr;
  EXPECT_TRUE(Redundant(workgroup, barriers[1], &next, &why)) << why;
  EXPECT_EQ(next, barriers[2]);
}

TEST(BarriersRedundant, FalseWhenAPointerHasNoKnownVariable) {
  Module m = Asm("%sem_shared", kSelectedStore);
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  std::string why;
  EXPECT_FALSE(Redundant(m, barriers[0], nullptr, &why));
  EXPECT_NE(why.find("cannot be attributed"), std::string::npos) << why;
}

TEST(BarriersRedundant, FalseForAnInstructionThatIsNoControlBarrier) {
  Module m = Glsl(kElect);
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> stores = m.Accesses(spv::Op::OpStore, m.Shared("a"));
  ASSERT_EQ(stores.size(), 1u);
  std::string why;
  EXPECT_FALSE(Redundant(m, stores[0], nullptr, &why));
  EXPECT_NE(why.find("not a control barrier"), std::string::npos) << why;
}

// ---------------------------------------------------------------------------
// UsesDominator

// The single OpIMul of a kernel: the def the tests ask about.
Instruction* OnlyProduct(Module& m) {
  const std::vector<Instruction*> products = m.All(spv::Op::OpIMul);
  EXPECT_EQ(products.size(), 1u);
  return products.empty() ? nullptr : products[0];
}

TEST(BarriersUsesDominator, UsesInBothBranchesGiveTheBranchingBlock) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint v = data[tid] * 3u;
  if (tid == 5u) data[0] = 1u;
  if (tid < 32u) data[tid] = v + 1u; else data[tid] = v + 2u;
}
)");
  ASSERT_TRUE(m.ok());
  Instruction* v = OnlyProduct(m);
  ASSERT_NE(v, nullptr);
  const std::vector<Instruction*> branches = m.All(spv::Op::OpBranchConditional);
  ASSERT_EQ(branches.size(), 2u);
  BasicBlock* header = m.BlockOf(branches[1]);
  ASSERT_NE(header, m.BlockOf(v));  // the first if's merge, after v
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {v}), header);
}

// Two defs, one used in each branch: the blocks of both defs' uses meet at
// the branching block.
TEST(BarriersUsesDominator, UsesOfTwoDefsMeetAtTheirCommonDominator) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint v = data[tid] * 3u;
  uint w = data[tid + 1u] + 5u;
  if (tid == 5u) data[0] = 1u;
  if (tid < 32u) data[tid] = v; else data[tid] = w;
}
)");
  ASSERT_TRUE(m.ok());
  Instruction* v = OnlyProduct(m);
  ASSERT_NE(v, nullptr);
  // tid + 1u, then the load plus 5u: w.
  const std::vector<Instruction*> adds = m.All(spv::Op::OpIAdd);
  ASSERT_EQ(adds.size(), 2u);
  Instruction* w = adds[1];
  const std::vector<Instruction*> branches = m.All(spv::Op::OpBranchConditional);
  ASSERT_EQ(branches.size(), 2u);
  BasicBlock* then_block = m.BlockOf(branches[1]->GetSingleWordInOperand(1));
  BasicBlock* else_block = m.BlockOf(branches[1]->GetSingleWordInOperand(2));
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {v}), then_block);
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {w}), else_block);
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {v, w}), m.BlockOf(branches[1]));
}

TEST(BarriersUsesDominator, UseOnlyUnderTidZeroGivesThatBlock) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint v = data[tid] * 3u;
  if (tid == 0u) data[0] = v + 1u;
  data[tid] = 0u;
}
)");
  ASSERT_TRUE(m.ok());
  Instruction* v = OnlyProduct(m);
  ASSERT_NE(v, nullptr);
  const std::vector<Instruction*> branches = m.All(spv::Op::OpBranchConditional);
  ASSERT_EQ(branches.size(), 1u);
  BasicBlock* then_block = m.BlockOf(branches[0]->GetSingleWordInOperand(1));
  ASSERT_NE(then_block, m.BlockOf(v));
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {v}), then_block);
}

// |v| reaches the merge only through the phi, from the else block: that
// block, not the phi's, is where it is used.
TEST(BarriersUsesDominator, PhiUseCountsInItsIncomingBlock) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint v = data[tid] * 3u;
  uint r;
  if (tid < 32u) { r = data[5]; } else { r = v; }
  data[tid] = r;
}
)");
  ASSERT_TRUE(m.ok());
  Instruction* v = OnlyProduct(m);
  ASSERT_NE(v, nullptr);
  const std::vector<Instruction*> phis = m.All(spv::Op::OpPhi);
  ASSERT_EQ(phis.size(), 1u);
  const std::vector<Instruction*> branches = m.All(spv::Op::OpBranchConditional);
  ASSERT_EQ(branches.size(), 1u);
  const uint32_t else_label = branches[0]->GetSingleWordInOperand(2);
  // The phi takes v from the else block.
  bool from_else = false;
  for (uint32_t i = 0; i + 1 < phis[0]->NumInOperands(); i += 2) {
    if (phis[0]->GetSingleWordInOperand(i) == v->result_id()) {
      from_else = phis[0]->GetSingleWordInOperand(i + 1) == else_label;
    }
  }
  ASSERT_TRUE(from_else);
  ASSERT_NE(m.BlockOf(phis[0]), m.BlockOf(else_label));
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {v}), m.BlockOf(else_label));
}

// What ssa-rewrite leaves of `uint v = ...`: a store of v into the local
// nothing loads any more, in v's own block. It is no use; the one in the
// branch is.
const char* kLocal = R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  uint v = data[tid] * 3u;
  if (tid == 0u) data[0] = v;
}
)";

TEST(BarriersUsesDominator, StoreIntoAnUnloadedLocalIsNoUse) {
  Module m = Glsl(kLocal);
  ASSERT_TRUE(m.ok());
  Instruction* v = OnlyProduct(m);
  ASSERT_NE(v, nullptr);
  // The shape holds the dead store the test is about.
  const std::vector<Instruction*> dead = m.Find([&](Instruction* inst) {
    if (inst->opcode() != spv::Op::OpStore || inst->GetSingleWordInOperand(1) != v->result_id()) {
      return false;
    }
    return PointerClass(m.context(), inst->GetSingleWordInOperand(0)) ==
           spv::StorageClass::Function;
  });
  ASSERT_EQ(dead.size(), 1u);
  const uint32_t local = dead[0]->GetSingleWordInOperand(0);
  ASSERT_TRUE(m.Find([&](Instruction* inst) {
                 return inst->opcode() == spv::Op::OpLoad &&
                        inst->GetSingleWordInOperand(0) == local;
               }).empty());
  ASSERT_EQ(m.BlockOf(dead[0]), m.BlockOf(v));
  const std::vector<Instruction*> branches = m.All(spv::Op::OpBranchConditional);
  ASSERT_EQ(branches.size(), 1u);
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {v}),
            m.BlockOf(branches[0]->GetSingleWordInOperand(1)));
}

// Control: compiled as is, the local is loaded again in the branch, so the
// store into it is v's one use.
TEST(BarriersUsesDominator, StoreIntoALoadedLocalIsAUse) {
  Module m = Glsl(kLocal, /*ssa=*/false);
  ASSERT_TRUE(m.ok());
  Instruction* v = OnlyProduct(m);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {v}), m.BlockOf(v));
}

TEST(BarriersUsesDominator, NoUsesGiveNull) {
  Module m = Asm("%sem_shared", "OpStore %pb %tid");
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> adds = m.All(spv::Op::OpIAdd);
  ASSERT_EQ(adds.size(), 1u);  // %unused
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {adds[0]}), nullptr);
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {}), nullptr);
  // Control: %tid is used.
  const std::vector<Instruction*> loads = m.All(spv::Op::OpLoad);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(UsesDominator(m.context(), m.entry(), {loads[0]}), m.BlockOf(loads[0]));
}

// ---------------------------------------------------------------------------
// MayWriteAfter

TEST(BarriersMayWriteAfter, TrueForALaterStoreBehindABarrierInABranch) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  a[tid % 16u] = tid;
  barrier();
  uint y = a[(tid + 1u) % 16u];
  barrier();
  if (y == 3u) a[tid % 16u] = y;
  data[tid] = y;
}
)");
  ASSERT_TRUE(m.ok());
  const uint32_t a = m.Shared("a");
  const std::vector<Instruction*> loads = m.Accesses(spv::Op::OpLoad, a);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_TRUE(MayWriteAfter(m.context(), loads[0], a));
  EXPECT_FALSE(MayWriteAfter(m.context(), loads[0], m.Shared("b")));
}

TEST(BarriersMayWriteAfter, FalseWhenOnlyAnotherArrayIsWrittenAfter) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  a[tid % 16u] = tid;
  barrier();
  uint y = a[(tid + 1u) % 16u];
  barrier();
  if (y == 3u) b[tid % 16u] = y;
  data[tid] = y + b[0];
}
)");
  ASSERT_TRUE(m.ok());
  const uint32_t a = m.Shared("a");
  const std::vector<Instruction*> loads = m.Accesses(spv::Op::OpLoad, a);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_FALSE(MayWriteAfter(m.context(), loads[0], a));
  EXPECT_TRUE(MayWriteAfter(m.context(), loads[0], m.Shared("b")));
}

const char* kCallAfter = R"(
void put(uint v) {
  b[v % 16u] = v;
}
void main() {
  uint tid = gl_LocalInvocationIndex;
  a[tid % 16u] = tid;
  barrier();
  uint y = a[(tid + 1u) % 16u];
  put(y);
  data[tid] = y;
}
)";

TEST(BarriersMayWriteAfter, TrueForACallAfter) {
  Module m = Glsl(kCallAfter, /*ssa=*/false);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m.All(spv::Op::OpFunctionCall).size(), 1u);
  const uint32_t a = m.Shared("a");
  const std::vector<Instruction*> loads = m.Accesses(spv::Op::OpLoad, a);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_TRUE(MayWriteAfter(m.context(), loads[0], a));

  // Control: inlined, only |b| is written after the load.
  Module inlined = Glsl(kCallAfter, /*ssa=*/true);
  ASSERT_TRUE(inlined.ok());
  const std::vector<Instruction*> inlined_loads = inlined.Accesses(spv::Op::OpLoad, a);
  ASSERT_EQ(inlined_loads.size(), 1u);
  EXPECT_FALSE(MayWriteAfter(inlined.context(), inlined_loads[0], a));
}

TEST(BarriersMayWriteAfter, TrueWhenTheInstructionItselfStores) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  a[tid % 16u] = tid;
  data[tid] = tid;
}
)");
  ASSERT_TRUE(m.ok());
  const uint32_t a = m.Shared("a");
  const std::vector<Instruction*> stores = m.Accesses(spv::Op::OpStore, a);
  ASSERT_EQ(stores.size(), 1u);
  EXPECT_TRUE(MayWriteAfter(m.context(), stores[0], a));
  // Control: from the instruction after it, nothing writes |a|.
  Instruction* after = stores[0]->NextNode();
  ASSERT_NE(after, nullptr);
  EXPECT_FALSE(MayWriteAfter(m.context(), after, a));
}

// The store earlier in the loop's body (in the load's own block, before it)
// runs again after the load, on the next iteration: the load's block is
// scanned again from its start.
TEST(BarriersMayWriteAfter, TrueForAStoreEarlierInTheSameLoop) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  for (uint i = 0u; i < 4u; ++i) {
    a[(tid + i) % 16u] = tid;
    barrier();
    data[tid] += a[(tid + 1u) % 16u];
    barrier();
  }
}
)");
  ASSERT_TRUE(m.ok());
  const uint32_t a = m.Shared("a");
  const std::vector<Instruction*> loads = m.Accesses(spv::Op::OpLoad, a);
  const std::vector<Instruction*> stores = m.Accesses(spv::Op::OpStore, a);
  ASSERT_EQ(loads.size(), 1u);
  ASSERT_EQ(stores.size(), 1u);
  ASSERT_EQ(m.BlockOf(loads[0]), m.BlockOf(stores[0]));
  bool store_first = false;
  for (Instruction& inst : *m.BlockOf(loads[0])) {
    if (&inst == stores[0]) store_first = true;
    if (&inst == loads[0]) break;
  }
  ASSERT_TRUE(store_first);
  EXPECT_TRUE(MayWriteAfter(m.context(), loads[0], a));
}

TEST(BarriersMayWriteAfter, TrueForAStoreThroughAPointerWithNoKnownVariable) {
  Module m = Asm("%sem_shared", kSelectedStore);
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 2u);
  EXPECT_TRUE(MayWriteAfter(m.context(), barriers[0], m.Shared("a")));

  // Control: a store through %pb writes |b| only.
  Module known = Asm("%sem_shared", "OpStore %pb %tid");
  ASSERT_TRUE(known.ok());
  const std::vector<Instruction*> known_barriers = known.Barriers();
  ASSERT_EQ(known_barriers.size(), 2u);
  EXPECT_FALSE(MayWriteAfter(known.context(), known_barriers[0], known.Shared("a")));
  EXPECT_TRUE(MayWriteAfter(known.context(), known_barriers[0], known.Shared("b")));
}

// ---------------------------------------------------------------------------
// StoreMayCross

TEST(BarriersStoreMayCross, FalseForABarrier) {
  Module m = Glsl(R"(
void main() {
  uint tid = gl_LocalInvocationIndex;
  a[tid % 16u] = tid;
  barrier();
  memoryBarrierShared();
  data[tid] = a[0];
}
)");
  ASSERT_TRUE(m.ok());
  const uint32_t b = m.Shared("b");  // not accessed at all
  const std::vector<Instruction*> barriers = m.Barriers();
  ASSERT_EQ(barriers.size(), 1u);
  EXPECT_FALSE(StoreMayCross(m.context(), barriers[0], b));
  const std::vector<Instruction*> memory_barriers = m.All(spv::Op::OpMemoryBarrier);
  ASSERT_EQ(memory_barriers.size(), 1u);
  EXPECT_FALSE(StoreMayCross(m.context(), memory_barriers[0], b));
}

TEST(BarriersStoreMayCross, FalseForAnAccessToTheSameVariable) {
  Module m = Glsl(kElect);
  ASSERT_TRUE(m.ok());
  const uint32_t a = m.Shared("a");
  const uint32_t b = m.Shared("b");
  const std::vector<Instruction*> loads = m.Accesses(spv::Op::OpLoad, a);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_FALSE(StoreMayCross(m.context(), loads[0], a));
  const std::vector<Instruction*> stores = m.Accesses(spv::Op::OpStore, a);
  ASSERT_EQ(stores.size(), 1u);
  EXPECT_FALSE(StoreMayCross(m.context(), stores[0], a));
  // Control: a store to |b| may cross either.
  EXPECT_TRUE(StoreMayCross(m.context(), loads[0], b));
  EXPECT_TRUE(StoreMayCross(m.context(), stores[0], b));
}

TEST(BarriersStoreMayCross, TrueForArithmeticAndALoadOfAnotherVariable) {
  Module m = Glsl(kElect);
  ASSERT_TRUE(m.ok());
  const uint32_t a = m.Shared("a");
  const std::vector<Instruction*> loads_b = m.Accesses(spv::Op::OpLoad, m.Shared("b"));
  ASSERT_EQ(loads_b.size(), 1u);
  EXPECT_TRUE(StoreMayCross(m.context(), loads_b[0], a));
  const std::vector<Instruction*> adds = m.All(spv::Op::OpIAdd);
  ASSERT_FALSE(adds.empty());
  for (Instruction* add : adds) EXPECT_TRUE(StoreMayCross(m.context(), add, a));
  // A load from the buffer is another variable too.
  const std::vector<Instruction*> buffer_loads = m.Find([&](Instruction* inst) {
    return inst->opcode() == spv::Op::OpLoad &&
           PointerClass(m.context(), inst->GetSingleWordInOperand(0)) ==
               spv::StorageClass::StorageBuffer;
  });
  ASSERT_FALSE(buffer_loads.empty());
  EXPECT_TRUE(StoreMayCross(m.context(), buffer_loads[0], a));
}

TEST(BarriersStoreMayCross, FalseForACall) {
  Module m = Glsl(kCallAfter, /*ssa=*/false);
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> calls = m.All(spv::Op::OpFunctionCall);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(StoreMayCross(m.context(), calls[0], m.Shared("a")));
}

TEST(BarriersStoreMayCross, FalseForAWorkgroupPointerWithNoKnownVariable) {
  Module m = Asm("%sem_shared", kSelectedStore);
  ASSERT_TRUE(m.ok());
  const std::vector<Instruction*> selected = m.Find([](Instruction* inst) {
    return inst->opcode() == spv::Op::OpStore && inst->PreviousNode() != nullptr &&
           inst->PreviousNode()->opcode() == spv::Op::OpSelect;
  });
  ASSERT_EQ(selected.size(), 1u);
  EXPECT_FALSE(StoreMayCross(m.context(), selected[0], m.Shared("a")));
  EXPECT_FALSE(StoreMayCross(m.context(), selected[0], m.Shared("b")));
  // Control: the store through %pa may cross for |b|.
  const std::vector<Instruction*> stores_a = m.Accesses(spv::Op::OpStore, m.Shared("a"));
  ASSERT_EQ(stores_a.size(), 1u);
  EXPECT_TRUE(StoreMayCross(m.context(), stores_a[0], m.Shared("b")));
}

}  // namespace
}  // namespace waveopt
