// Loop analyses (lib/analysis/loops.h): shapes, induction variables of every
// step kind (additions, products, shifts, unsigned divisions by powers of
// two; SSA phis and Function-variable counters), exits, trip counts, what a
// loop writes, load hazards, invariance and recomputation, on GLSL kernels
// compiled by glslang (raw, and taken to SSA form).
#include "analysis/loops.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernel_module.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"
#include "source/opt/loop_descriptor.h"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;
using spvtools::opt::Loop;

// A GLSL compute kernel (optionally taken to SSA form) and the loops of its
// entry point in function order.
class Kernel {
 public:
  explicit Kernel(const std::string& body, bool ssa = true) {
    const std::string source =
        "#version 450\n"
        "layout(local_size_x = 64) in;\n"
        "layout(set = 0, binding = 0) buffer B { uint data[]; };\n"
        "layout(set = 0, binding = 1) readonly buffer R { uint ro[]; };\n"
        "layout(push_constant) uniform P { uint n; } pc;\n"
        "shared uint tmp[64];\n" +
        body;
    const std::vector<uint32_t> words = testing_kernels::CompileKernel(source, ssa);
    if (words.empty()) return;
    context_ = spvtools::BuildModule(SPV_ENV_VULKAN_1_1, nullptr, words.data(), words.size());
    if (!context_) {
      ADD_FAILURE() << "BuildModule failed";
      return;
    }
    func_ = context_->GetFunction(
        context_->module()->entry_points().begin()->GetSingleWordInOperand(1));
    for (BasicBlock& block : *func_) {
      if (block.GetLoopMergeInst() == nullptr) continue;
      loops_.push_back((*context_->GetLoopDescriptor(func_))[block.id()]);
    }
    analysis_ = std::make_unique<LoopAnalysis>(context_.get());
  }

  bool ok() const { return analysis_ != nullptr; }
  IRContext* context() { return context_.get(); }
  Function* func() { return func_; }
  LoopAnalysis& analysis() { return *analysis_; }
  Loop* loop(size_t n) { return n < loops_.size() ? loops_[n] : nullptr; }
  size_t loop_count() const { return loops_.size(); }

  // The shape of loop |n| (a test failure when it has none).
  LoopShape Shape(size_t n) {
    LoopShape shape;
    std::string why;
    Instruction* where = nullptr;
    EXPECT_TRUE(analysis_->Shape(func_, loop(n), &shape, &why, &where)) << why;
    return shape;
  }
  // The trip count of loop |n|'s body (the point after every exit test at
  // the top), exact.
  int64_t Trips(size_t n) {
    LoopShape shape = Shape(n);
    const std::vector<Induction> ivs = analysis_->Inductions(shape);
    const LoopExits exits = analysis_->Exits(shape, ivs);
    std::vector<size_t> before;
    for (size_t e = 0; e < exits.predictable.size(); ++e) {
      if (exits.predictable[e].from != shape.latch) before.push_back(e);
    }
    return analysis_->CountTrips(shape, ivs, exits, before).exact;
  }
  // The first instruction of |op| in loop |n|'s blocks.
  Instruction* First(size_t n, spv::Op op) {
    for (BasicBlock* block : analysis_->Blocks(*loop(n))) {
      for (Instruction& inst : *block) {
        if (inst.opcode() == op) return &inst;
      }
    }
    return nullptr;
  }

 private:
  std::unique_ptr<IRContext> context_;
  Function* func_ = nullptr;
  std::vector<Loop*> loops_;
  std::unique_ptr<LoopAnalysis> analysis_;
};

using Kind = Induction::Kind;

TEST(Loops, ShapeOfForLoop) {
  Kernel k(R"(void main() {
    uint s = 0;
    for (uint i = 0; i < pc.n; ++i) s += ro[i];
    data[gl_LocalInvocationIndex] = s;
  })");
  ASSERT_TRUE(k.ok());
  ASSERT_EQ(k.loop_count(), 1u);
  LoopShape shape = k.Shape(0);
  EXPECT_EQ(shape.header, k.loop(0)->GetHeaderBlock());
  EXPECT_EQ(shape.merge, k.loop(0)->GetMergeBlock());
  ASSERT_NE(shape.latch, nullptr);
  EXPECT_TRUE(shape.block_ids.count(shape.latch->id()));
  ASSERT_EQ(shape.entries.size(), 1u);
  EXPECT_EQ(shape.preheader, shape.entries[0]);
  EXPECT_EQ(shape.exit_sources.size(), 1u);
  EXPECT_TRUE(shape.dominate_latch.count(shape.header->id()));
  EXPECT_EQ(shape.blocks.size(), k.analysis().Blocks(*k.loop(0)).size());
}

TEST(Loops, ReturnInLoopIsUnpredictableExit) {
  // A return inside the loop: the loop keeps its shape (nothing branches
  // out of it but to the merge block), and the return is a way out that no
  // later iteration's counter predicts (it depends on what the loop loads).
  Kernel k(R"(void main() {
    for (uint i = 0; i < pc.n; ++i) {
      if (ro[i] == 7u) { data[0] = i; return; }
    }
    data[1] = 1u;
  })",
           /*ssa=*/false);
  ASSERT_TRUE(k.ok());
  ASSERT_EQ(k.loop_count(), 1u);
  LoopShape shape;
  std::string why;
  Instruction* where = nullptr;
  ASSERT_TRUE(k.analysis().Shape(k.func(), k.loop(0), &shape, &why, &where)) << why;
  const LoopExits exits = k.analysis().Exits(shape, k.analysis().Inductions(shape));
  EXPECT_TRUE(exits.unpredictable);
  ASSERT_NE(exits.unpredictable_where, nullptr);
  EXPECT_EQ(exits.unpredictable_where->opcode(), spv::Op::OpBranchConditional);
}

struct StepCase {
  const char* loop;  // the for-header
  Kind kind;
  uint64_t step;
  int64_t trips;
};

TEST(Loops, InductionKindsAndTripCounts) {
  const StepCase cases[] = {
      {"for (uint i = 0u; i < 10u; ++i)", Kind::kAdd, 1, 10},
      {"for (uint i = 2u; i < 20u; i += 3u)", Kind::kAdd, 3, 6},
      {"for (int i = 9; i >= 0; --i)", Kind::kAdd, 0xffffffffu, 10},
      {"for (uint s = 32u; s > 0u; s >>= 1u)", Kind::kShiftRightLogical, 1, 6},
      {"for (int s = 256 / 2; s > 0; s >>= 1)", Kind::kShiftRightArithmetic, 1, 8},
      {"for (uint s = 1u; s < 64u; s <<= 1u)", Kind::kShiftLeft, 1, 6},
      {"for (uint s = 1u; s < 100u; s *= 3u)", Kind::kMul, 3, 5},
      {"for (uint s = 64u; s != 0u; s /= 4u)", Kind::kShiftRightLogical, 2, 4},
  };
  for (const StepCase& c : cases) {
    Kernel k(std::string("void main() { uint a = 0u; ") + c.loop +
             " { a += ro[a]; } data[0] = a; }");
    ASSERT_TRUE(k.ok()) << c.loop;
    ASSERT_EQ(k.loop_count(), 1u) << c.loop;
    LoopShape shape = k.Shape(0);
    const std::vector<Induction> ivs = k.analysis().Inductions(shape);
    ASSERT_EQ(ivs.size(), 1u) << c.loop;
    EXPECT_EQ(ivs[0].kind, c.kind) << c.loop;
    EXPECT_EQ(ivs[0].step, c.step) << c.loop;
    EXPECT_EQ(ivs[0].width, 32u) << c.loop;
    uint64_t start = 0;
    EXPECT_TRUE(k.analysis().StartValue(shape.latch, ivs[0], &start)) << c.loop;
    EXPECT_EQ(k.Trips(0), c.trips) << c.loop;
  }
}

TEST(Loops, InductionNext) {
  Induction iv;
  iv.width = 32;
  iv.kind = Kind::kAdd;
  iv.step = 0xffffffffu;
  EXPECT_EQ(iv.Next(0), 0xffffffffu);  // wraps
  iv.kind = Kind::kShiftRightArithmetic;
  iv.step = 1;
  EXPECT_EQ(iv.Next(0x80000000u), 0xc0000000u);
  iv.kind = Kind::kShiftRightLogical;
  EXPECT_EQ(iv.Next(0x80000000u), 0x40000000u);
  iv.kind = Kind::kMul;
  iv.step = 3;
  EXPECT_EQ(iv.Next(0x80000000u), 0x80000000u);  // 3 * 2^31 mod 2^32
  iv.kind = Kind::kShiftLeft;
  iv.step = 4;
  EXPECT_EQ(iv.Next(0x10000000u), 0u);
}

TEST(Loops, NoInductionForLoopComputedSteps) {
  Kernel k(R"(void main() {
    uint a = 0u;
    for (uint i = 0u; i < pc.n; i = ro[i]) a += i;
    data[0] = a;
  })");
  ASSERT_TRUE(k.ok());
  LoopShape shape = k.Shape(0);
  EXPECT_TRUE(k.analysis().Inductions(shape).empty());
  EXPECT_EQ(k.Trips(0), -1);
}

TEST(Loops, TripCountUpperBoundFromMin) {
  Kernel k(R"(void main() {
    uint a = 0u;
    for (uint i = 0u; i < min(pc.n, 12u); ++i) a += ro[i];
    data[0] = a;
  })");
  ASSERT_TRUE(k.ok());
  LoopShape shape = k.Shape(0);
  const std::vector<Induction> ivs = k.analysis().Inductions(shape);
  const LoopExits exits = k.analysis().Exits(shape, ivs);
  ASSERT_EQ(exits.predictable.size(), 1u);
  const TripCount trips = k.analysis().CountTrips(shape, ivs, exits, {0});
  EXPECT_EQ(trips.exact, -1);
  EXPECT_EQ(trips.at_most, 12);
}

TEST(Loops, DoWhileRunsTheBodyOnceMore) {
  Kernel k(R"(void main() {
    uint a = 0u;
    uint i = 0u;
    do { a += ro[i]; ++i; } while (i < 5u);
    data[0] = a;
  })");
  ASSERT_TRUE(k.ok());
  ASSERT_EQ(k.loop_count(), 1u);
  // The body runs before the test: 5 times, as a point before every exit.
  EXPECT_EQ(k.Trips(0), 5);
  EXPECT_EQ(k.analysis().SingleExitTripCount(k.func(), k.loop(0), 4096), 5);
}

TEST(Loops, SingleExitTripCountInMemoryForm) {
  // Before SSA rewriting the counter is a Function variable.
  for (bool ssa : {false, true}) {
    Kernel k(R"(void main() {
      uint a = 0u;
      for (uint i = 0u; i < 8u; ++i) a += ro[i];
      for (uint s = 128u; s > 1u; s >>= 1u) a += ro[s];
      data[0] = a;
    })",
             ssa);
    ASSERT_TRUE(k.ok());
    ASSERT_EQ(k.loop_count(), 2u);
    EXPECT_EQ(k.analysis().SingleExitTripCount(k.func(), k.loop(0), 4096), 8) << "ssa=" << ssa;
    EXPECT_EQ(k.analysis().SingleExitTripCount(k.func(), k.loop(1), 4096), 7) << "ssa=" << ssa;
    // Over the limit: unknown.
    EXPECT_EQ(k.analysis().SingleExitTripCount(k.func(), k.loop(0), 6), -1);
  }
}

TEST(Loops, SingleExitRefusesTwoExits) {
  Kernel k(R"(void main() {
    uint a = 0u;
    for (uint i = 0u; i < 8u; ++i) { if (ro[i] == 0u) break; a += ro[i]; }
    data[0] = a;
  })");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k.analysis().SingleExitBlock(k.func(), k.loop(0)), nullptr);
  EXPECT_EQ(k.analysis().SingleExitTripCount(k.func(), k.loop(0), 4096), -1);
}

TEST(Loops, ExitsPredictableAndPrefix) {
  Kernel k(R"(void main() {
    uint a = 0u;
    for (uint i = 0u; i < pc.n; ++i) {
      a += ro[i];
      if (a > 100u) break;  // depends on what the loop computes
    }
    data[0] = a;
  })");
  ASSERT_TRUE(k.ok());
  LoopShape shape = k.Shape(0);
  const std::vector<Induction> ivs = k.analysis().Inductions(shape);
  const LoopExits exits = k.analysis().Exits(shape, ivs);
  ASSERT_EQ(exits.predictable.size(), 1u);  // i < n
  EXPECT_TRUE(shape.dominate_latch.count(exits.predictable[0].from->id()));
  EXPECT_FALSE(exits.predictable[0].fires_when_true);
  EXPECT_TRUE(exits.unpredictable);  // a > 100
  EXPECT_NE(exits.unpredictable_where, nullptr);
  EXPECT_TRUE(exits.prefix.count(shape.header->id()));
}

TEST(Loops, WritesAndHazards) {
  Kernel k(R"(void main() {
    uint a = 0u;
    for (uint i = 0u; i < pc.n; ++i) {
      a += ro[i] + data[i];
      data[i + 1u] = a;
    }
    for (uint i = 0u; i < pc.n; ++i) {
      tmp[i % 64u] = ro[i];
      barrier();
      a += tmp[(i + 1u) % 64u];
    }
    data[0] = a;
  })");
  ASSERT_TRUE(k.ok());
  ASSERT_EQ(k.loop_count(), 2u);
  const LoopWrites& w0 = k.analysis().Writes(*k.loop(0));
  EXPECT_FALSE(w0.barrier);
  EXPECT_TRUE(w0.buffers);
  Instruction* store = k.First(0, spv::Op::OpStore);
  ASSERT_NE(store, nullptr);
  Instruction* data_var = RootVariable(k.context(), store->GetSingleWordInOperand(0));
  ASSERT_NE(data_var, nullptr);
  EXPECT_TRUE(w0.roots.count(data_var->result_id()));
  const LoopWrites& w1 = k.analysis().Writes(*k.loop(1));
  EXPECT_TRUE(w1.barrier);
  EXPECT_FALSE(w1.buffers);

  LoopShape shape = k.Shape(0);
  std::vector<Instruction*> loads;
  for (BasicBlock* block : shape.blocks) {
    for (Instruction& inst : *block) {
      if (inst.opcode() == spv::Op::OpLoad &&
          PointerClass(k.context(), inst.GetSingleWordInOperand(0)) ==
              spv::StorageClass::StorageBuffer) {
        loads.push_back(&inst);
      }
    }
  }
  ASSERT_EQ(loads.size(), 2u);
  std::string why;
  EXPECT_EQ(k.analysis().Hazard(shape, loads[0], &why), LoadHazard::kNone);
  EXPECT_EQ(k.analysis().Hazard(shape, loads[1], &why), LoadHazard::kLoopWritesMemory);
  EXPECT_STREQ(LoadHazardName(LoadHazard::kLoopWritesMemory), "LoopWritesMemory");
  EXPECT_FALSE(why.empty());

  LoopShape shape1 = k.Shape(1);
  Instruction* shared_load = nullptr;
  for (BasicBlock* block : shape1.blocks) {
    for (Instruction& inst : *block) {
      if (inst.opcode() == spv::Op::OpLoad &&
          PointerClass(k.context(), inst.GetSingleWordInOperand(0)) ==
              spv::StorageClass::Workgroup) {
        shared_load = &inst;
      }
    }
  }
  ASSERT_NE(shared_load, nullptr);
  EXPECT_EQ(k.analysis().Hazard(shape1, shared_load, &why), LoadHazard::kBarrierInLoop);
}

TEST(Loops, InvariancePredictabilityAndClone) {
  Kernel k(R"(void main() {
    uint a = 0u;
    uint base = gl_WorkGroupID.x * 4u;
    for (uint i = 0u; i < pc.n; ++i) {
      uint idx = base + i * 2u;
      a += ro[idx] + data[a % 8u];
    }
    data[0] = a;
  })");
  ASSERT_TRUE(k.ok());
  LoopShape shape = k.Shape(0);
  const std::vector<Induction> ivs = k.analysis().Inductions(shape);
  ASSERT_FALSE(ivs.empty());
  // The readonly load's address: predictable and an address of the
  // inductions; the other load's address depends on what the loop computes.
  Instruction* ro_load = nullptr;
  Instruction* rw_load = nullptr;
  for (BasicBlock* block : shape.blocks) {
    for (Instruction& inst : *block) {
      if (inst.opcode() != spv::Op::OpLoad) continue;
      Instruction* root = RootVariable(k.context(), inst.GetSingleWordInOperand(0));
      if (root == nullptr ||
          PointerClass(k.context(), root->result_id()) != spv::StorageClass::StorageBuffer) {
        continue;
      }
      (ro_load == nullptr ? ro_load : rw_load) = &inst;
    }
  }
  ASSERT_NE(ro_load, nullptr);
  ASSERT_NE(rw_load, nullptr);
  const uint32_t ro_ptr = ro_load->GetSingleWordInOperand(0);
  const uint32_t rw_ptr = rw_load->GetSingleWordInOperand(0);
  EXPECT_FALSE(k.analysis().IsInvariant(ro_ptr, shape, nullptr));
  EXPECT_TRUE(k.analysis().IsPredictable(ro_ptr, shape, ivs, nullptr));
  bool uses_iv = false, indexed = false;
  EXPECT_TRUE(k.analysis().IsAddressOf(ro_ptr, shape, ivs, true, &uses_iv, &indexed));
  EXPECT_TRUE(uses_iv);
  EXPECT_FALSE(indexed);
  uses_iv = false;
  EXPECT_FALSE(k.analysis().IsAddressOf(rw_ptr, shape, ivs, true, &uses_iv, &indexed));
  // The exit test reads the counter; its bound is invariant (a push
  // constant loaded in the loop).
  const uint32_t cond = k.analysis().Exits(shape, ivs).predictable[0].cond;
  EXPECT_FALSE(k.analysis().IsInvariant(cond, shape, nullptr));
  Instruction* cmp = k.context()->get_def_use_mgr()->GetDef(cond);
  ASSERT_EQ(cmp->opcode(), spv::Op::OpULessThan);
  EXPECT_TRUE(k.analysis().IsInvariant(cmp->GetSingleWordInOperand(1), shape, nullptr));

  // Recompute the readonly address in the preheader for the first
  // iteration (the counter's start value).
  ASSERT_NE(shape.preheader, nullptr);
  uint32_t start = 0;
  for (uint32_t i = 0; i + 1 < ivs[0].phi->NumInOperands(); i += 2) {
    if (ivs[0].phi->GetSingleWordInOperand(i + 1) == shape.preheader->id()) {
      start = ivs[0].phi->GetSingleWordInOperand(i);
    }
  }
  ASSERT_NE(start, 0u);
  std::unordered_map<uint32_t, uint32_t> map = {{ivs[0].phi->result_id(), start}};
  const uint32_t clone = k.analysis().CloneAt(ro_ptr, shape, shape.preheader, &map);
  ASSERT_NE(clone, 0u);
  EXPECT_NE(clone, ro_ptr);
  Instruction* c = k.context()->get_def_use_mgr()->GetDef(clone);
  EXPECT_EQ(k.context()->get_instr_block(c), shape.preheader);
  EXPECT_EQ(c->opcode(), spv::Op::OpAccessChain);
  // Memoised: a second request gives the same clone.
  EXPECT_EQ(k.analysis().CloneAt(ro_ptr, shape, shape.preheader, &map), clone);
  // Without the counter mapped there is nothing to clone from.
  std::unordered_map<uint32_t, uint32_t> empty;
  EXPECT_EQ(k.analysis().CloneAt(ro_ptr, shape, shape.preheader, &empty), 0u);
}

TEST(Loops, CompareIntsAndAffine) {
  bool known = false;
  EXPECT_TRUE(CompareInts(spv::Op::OpSLessThan, 0xffffffffu, 0, 32, &known));
  EXPECT_TRUE(known);
  EXPECT_FALSE(CompareInts(spv::Op::OpULessThan, 0xffffffffu, 0, 32, &known));
  CompareInts(spv::Op::OpFOrdLessThan, 0, 0, 32, &known);
  EXPECT_FALSE(known);
  EXPECT_EQ(SignExtend(0x80u, 8), -128);
  EXPECT_EQ(MaskTo(0x1ffu, 8), 0xffu);
}

}  // namespace
}  // namespace waveopt
