// Workgroup trace (lib/analysis/workgroup_trace.h): the events every
// invocation of a small reduction tree makes, specialization-constant
// workgroup sizes, and the refusals (an unknown index, a branch on a value
// read from the array).
#include "analysis/workgroup_trace.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernel_module.h"
#include "passes/workgroup_reduce_rows.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"
#include "spirv-tools/libspirv.hpp"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waveopt {
namespace {

using spvtools::opt::Instruction;
using spvtools::opt::IRContext;

// A GLSL compute kernel taken to SSA form; |array| is the Workgroup
// variable named "tmp", |first_barrier| the first OpControlBarrier.
class Kernel {
 public:
  explicit Kernel(const std::string& source) {
    const std::vector<uint32_t> words = testing_kernels::CompileKernel(source, true);
    if (words.empty()) return;
    context_ = spvtools::BuildModule(SPV_ENV_VULKAN_1_1, nullptr, words.data(), words.size());
    if (!context_) return;
    entry_ = context_->GetFunction(
        context_->module()->entry_points().begin()->GetSingleWordInOperand(1));
    for (Instruction& inst : context_->debugs2()) {
      if (inst.opcode() == spv::Op::OpName && inst.GetInOperand(1).AsString() == "tmp") {
        array_ = inst.GetSingleWordInOperand(0);
      }
    }
    entry_->ForEachInst([&](Instruction* inst) {
      if (inst->opcode() == spv::Op::OpControlBarrier && barrier_ == nullptr) {
        barrier_ = inst;
      }
    });
    trace_ = std::make_unique<WorkgroupTrace>(context_.get(), entry_, array_);
  }
  bool ok() const { return trace_ != nullptr && array_ != 0 && barrier_ != nullptr; }
  WorkgroupTrace& trace() { return *trace_; }
  Instruction* barrier() { return barrier_; }

 private:
  std::unique_ptr<IRContext> context_;
  spvtools::opt::Function* entry_ = nullptr;
  uint32_t array_ = 0;
  Instruction* barrier_ = nullptr;
  std::unique_ptr<WorkgroupTrace> trace_;
};

const char* kTree = R"(#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { uint data[]; };
shared uint tmp[8];
void main() {
  uint tid = gl_LocalInvocationID.x;
  tmp[tid] = data[tid];
  barrier();
  for (uint s = 4u; s > 0u; s >>= 1) {
    if (tid < s) tmp[tid] = tmp[tid] + tmp[tid + s];
    barrier();
  }
  data[tid] = tmp[0];
}
)";

TEST(WorkgroupTrace, EventsOfATree) {
  Kernel k(kTree);
  ASSERT_TRUE(k.ok());
  std::string reason, why;
  Instruction* where = nullptr;
  ASSERT_TRUE(k.trace().Run(k.barrier(), TraceConfig(), &reason, &why, &where))
      << reason << ": " << why;
  const auto& events = k.trace().events();
  ASSERT_EQ(events.size(), 8u);
  // Invocation 0 combines in every step (s = 4, 2, 1), then reads element 0.
  int barriers = 0, stores = 0, loads = 0;
  for (const TraceEvent& e : events[0]) {
    if (e.kind == TraceEvent::Kind::kBarrier) ++barriers;
    if (e.kind == TraceEvent::Kind::kLoad) ++loads;
    if (e.kind != TraceEvent::Kind::kStore) continue;
    ++stores;
    EXPECT_EQ(e.element, 0);
    EXPECT_EQ(e.value.kind, TraceStoreValue::Kind::kCombined);
    EXPECT_EQ(spv::Op(e.value.op), spv::Op::OpIAdd);
    const TraceEvent& a = events[0][e.value.a];
    const TraceEvent& b = events[0][e.value.b];
    EXPECT_EQ(a.kind, TraceEvent::Kind::kLoad);
    EXPECT_EQ(b.kind, TraceEvent::Kind::kLoad);
    EXPECT_EQ(a.element + b.element, stores == 1 ? 4 : stores == 2 ? 2 : 1);
  }
  EXPECT_EQ(barriers, 4);  // the start and one per step
  EXPECT_EQ(stores, 3);
  EXPECT_EQ(loads, 7);  // two per step and the reader
  // Invocation 5 takes no step: its only access is the reader's load.
  int stores5 = 0;
  for (const TraceEvent& e : events[5]) {
    if (e.kind == TraceEvent::Kind::kStore) ++stores5;
  }
  EXPECT_EQ(stores5, 0);
  // Invocation 3 combines in the first step only: element 3 with 7.
  for (const TraceEvent& e : events[3]) {
    if (e.kind != TraceEvent::Kind::kStore) continue;
    EXPECT_EQ(e.element, 3);
    EXPECT_EQ(events[3][e.value.b].element, 7);
  }
}

TEST(WorkgroupTrace, SpecializationConstantSize) {
  Kernel k(R"(#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint N = 64;
layout(set = 0, binding = 0) buffer B { uint data[]; };
shared uint tmp[N];
void main() {
  uint tid = gl_LocalInvocationID.x;
  tmp[tid] = data[tid];
  barrier();
  for (uint s = N / 2u; s > 0u; s >>= 1) {
    if (tid < s) tmp[tid] = max(tmp[tid], tmp[tid + s]);
    barrier();
  }
  data[tid] = tmp[0];
}
)");
  ASSERT_TRUE(k.ok());
  uint32_t size[3] = {0, 0, 0};
  EXPECT_FALSE(k.trace().WorkgroupCount(TraceConfig(), size));  // unknown
  TraceConfig c;
  c.spec[0] = 16;
  ASSERT_TRUE(k.trace().WorkgroupCount(c, size));
  EXPECT_EQ(size[0], 16u);
  std::string reason, why;
  Instruction* where = nullptr;
  ASSERT_TRUE(k.trace().Run(k.barrier(), c, &reason, &why, &where)) << why;
  int barriers = 0;
  for (const TraceEvent& e : k.trace().events()[0]) {
    if (e.kind == TraceEvent::Kind::kBarrier) ++barriers;
    if (e.kind == TraceEvent::Kind::kStore) {
      EXPECT_EQ(spv::Op(e.value.op), spv::Op::OpExtInst);
      EXPECT_EQ(e.value.ext, 41u);  // UMax
    }
  }
  EXPECT_EQ(barriers, 5);  // 16: s = 8, 4, 2, 1
}

// Arrays of arrays and vector elements: each access's row (the outer
// indices, flattened), innermost index and component; ProjectRow keeps one
// row and makes a store of another row's values no step.
TEST(WorkgroupTrace, RowsAndComponents) {
  Kernel k(R"(#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer B { uint data[]; };
shared uvec2 tmp[2][3][4];
void main() {
  uint tid = gl_LocalInvocationID.x;
  barrier();
  if (tid < 2u) tmp[1][2][tid] = tmp[1][2][tid] + tmp[1][2][tid + 2u];
  if (tid < 2u) tmp[0][1][tid] = tmp[1][0][tid] + tmp[0][1][tid + 2u];
  barrier();
  data[tid] = tmp[1][2][0].y;
}
)");
  ASSERT_TRUE(k.ok());
  std::string reason, why;
  Instruction* where = nullptr;
  ASSERT_TRUE(k.trace().Run(k.barrier(), TraceConfig(), &reason, &why, &where))
      << reason << ": " << why;
  const auto& events = k.trace().events();
  std::vector<std::pair<int64_t, int64_t>> loads;  // (row, element) of invocation 1
  int32_t component = -1;
  for (const TraceEvent& e : events[1]) {
    if (e.kind != TraceEvent::Kind::kLoad) continue;
    loads.emplace_back(e.row, e.element);
    component = e.component;
  }
  const std::vector<std::pair<int64_t, int64_t>> expected = {
      {5, 1}, {5, 3}, {3, 1}, {1, 3}, {5, 0}};
  EXPECT_EQ(loads, expected);
  EXPECT_EQ(component, 1);  // the reader's .y
  // Row 5: the step stays a step; row 1: its store adds row 3's element.
  std::vector<std::vector<TraceEvent>> row;
  ASSERT_TRUE(ProjectRow(events, 5, &row, &why, &where));
  int steps = 0;
  for (const TraceEvent& e : row[1]) {
    if (e.kind != TraceEvent::Kind::kStore) continue;
    ++steps;
    EXPECT_EQ(e.value.kind, TraceStoreValue::Kind::kCombined);
    EXPECT_EQ(row[1][e.value.b].element, 3);
  }
  EXPECT_EQ(steps, 1);
  ASSERT_TRUE(ProjectRow(events, 1, &row, &why, &where));
  for (const TraceEvent& e : row[1]) {
    if (e.kind == TraceEvent::Kind::kStore) {
      EXPECT_EQ(e.value.kind, TraceStoreValue::Kind::kOther);
    }
  }
}

TEST(WorkgroupTrace, RefusesUnknownIndexAndBranchOnValues) {
  Kernel unknown(R"(#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { uint data[]; };
layout(push_constant) uniform P { uint k; } pc;
shared uint tmp[8];
void main() {
  uint tid = gl_LocalInvocationID.x;
  tmp[tid] = data[tid];
  barrier();
  if (tid < 4u) tmp[tid] = tmp[tid] + tmp[(tid + pc.k) & 7u];
  barrier();
  data[tid] = tmp[0];
}
)");
  ASSERT_TRUE(unknown.ok());
  std::string reason, why;
  Instruction* where = nullptr;
  EXPECT_FALSE(unknown.trace().Run(unknown.barrier(), TraceConfig(), &reason, &why, &where));
  EXPECT_EQ(reason, "UnknownIndex");

  Kernel branch(R"(#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer B { uint data[]; };
shared uint tmp[8];
void main() {
  uint tid = gl_LocalInvocationID.x;
  tmp[tid] = data[tid];
  barrier();
  if (tid < 4u && tmp[tid + 4u] > tmp[tid]) tmp[tid] = tmp[tid + 4u];
  barrier();
  data[tid] = tmp[0];
}
)");
  ASSERT_TRUE(branch.ok());
  EXPECT_FALSE(branch.trace().Run(branch.barrier(), TraceConfig(), &reason, &why, &where));
  EXPECT_EQ(reason, "BranchOnArrayValue");
}

TEST(WorkgroupTrace, EvaluatesIdentityPerInvocation) {
  Kernel k(kTree);
  ASSERT_TRUE(k.ok());
  // The init store's index is the invocation's own (LocalInvocationId.x).
  Instruction* store = k.barrier();
  while (store->opcode() != spv::Op::OpStore) store = store->PreviousNode();
  IRContext* context = store->context();
  const Instruction* chain = context->get_def_use_mgr()->GetDef(store->GetSingleWordInOperand(0));
  ASSERT_EQ(chain->opcode(), spv::Op::OpAccessChain);
  for (uint32_t t : {0u, 5u, 7u}) {
    uint64_t v = 99;
    ASSERT_TRUE(k.trace().EvalFor(chain->GetSingleWordInOperand(1), t, TraceConfig(), &v));
    EXPECT_EQ(v, t);
  }
  EXPECT_TRUE(k.trace().Reaches(k.barrier(), TraceConfig()));
}

// A value made before the start and carried through loops by phis that
// copy it (%a and %b are each the loop-carried copy of %tid, %c picks one
// of them after an if): the one value that flows into %c is %tid, so %c is
// the invocation's id (ggml's mul_mat_vec passes tid like this through its
// unrolled loops). %d takes two different values and stays unknown.
TEST(WorkgroupTrace, FollowsPhisThatCopyOneValue) {
  const char* kAsm = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %lid
               OpExecutionMode %main LocalSize 4 1 1
               OpName %tmp "tmp"
               OpName %c "c"
               OpName %d "d"
               OpDecorate %lid BuiltIn LocalInvocationId
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
         %v3 = OpTypeVector %uint 3
        %pin = OpTypePointer Input %v3
        %lid = OpVariable %pin Input
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
         %u4 = OpConstant %uint 4
       %u264 = OpConstant %uint 264
        %arr = OpTypeArray %uint %u4
       %parr = OpTypePointer Workgroup %arr
        %tmp = OpVariable %parr Workgroup
         %pw = OpTypePointer Workgroup %uint
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %v = OpLoad %v3 %lid
        %tid = OpCompositeExtract %uint %v 0
        %odd = OpBitwiseAnd %uint %tid %u1
      %isodd = OpIEqual %bool %odd %u1
               OpSelectionMerge %join None
               OpBranchConditional %isodd %pre1 %pre2
       %pre1 = OpLabel
               OpBranch %h1
         %h1 = OpLabel
          %a = OpPhi %uint %tid %pre1 %a %c1
         %i1 = OpPhi %uint %u0 %pre1 %n1 %c1
               OpLoopMerge %m1 %c1 None
               OpBranch %b1
         %b1 = OpLabel
         %t1 = OpULessThan %bool %i1 %u2
               OpBranchConditional %t1 %c1 %m1
         %c1 = OpLabel
         %n1 = OpIAdd %uint %i1 %u1
               OpBranch %h1
         %m1 = OpLabel
               OpBranch %join
       %pre2 = OpLabel
               OpBranch %h2
         %h2 = OpLabel
          %b = OpPhi %uint %tid %pre2 %b %c2
         %i2 = OpPhi %uint %u0 %pre2 %n2 %c2
               OpLoopMerge %m2 %c2 None
               OpBranch %b2
         %b2 = OpLabel
         %t2 = OpULessThan %bool %i2 %u2
               OpBranchConditional %t2 %c2 %m2
         %c2 = OpLabel
         %n2 = OpIAdd %uint %i2 %u1
               OpBranch %h2
         %m2 = OpLabel
               OpBranch %join
       %join = OpLabel
          %c = OpPhi %uint %a %m1 %b %m2
          %d = OpPhi %uint %a %m1 %i2 %m2
          %p = OpAccessChain %pw %tmp %c
               OpStore %p %c
               OpControlBarrier %u2 %u2 %u264
          %q = OpAccessChain %pw %tmp %d
               OpStore %q %d
               OpReturn
               OpFunctionEnd
)";
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::vector<uint32_t> words;
  ASSERT_TRUE(tools.Assemble(kAsm, &words));
  ASSERT_TRUE(tools.Validate(words));
  std::unique_ptr<IRContext> context =
      spvtools::BuildModule(SPV_ENV_VULKAN_1_1, nullptr, words.data(), words.size());
  ASSERT_NE(context, nullptr);
  uint32_t tmp = 0, c = 0, d = 0;
  for (Instruction& inst : context->debugs2()) {
    const std::string name = inst.GetInOperand(1).AsString();
    const uint32_t id = inst.GetSingleWordInOperand(0);
    (name == "tmp" ? tmp : name == "c" ? c : d) = id;
  }
  spvtools::opt::Function* entry = &*context->module()->begin();
  WorkgroupTrace trace(context.get(), entry, tmp);
  for (uint32_t t : {0u, 1u, 3u}) {
    uint64_t v = 99;
    ASSERT_TRUE(trace.EvalFor(c, t, TraceConfig(), &v)) << "invocation " << t;
    EXPECT_EQ(v, t);
    EXPECT_FALSE(trace.EvalFor(d, t, TraceConfig(), &v));
  }
}

}  // namespace
}  // namespace waveopt
