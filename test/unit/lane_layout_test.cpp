// Lane layout analysis (lib/analysis/lane_layout.h): the evaluator's
// semantics and limits, the classification of lane maps, and whole kernels
// from GLSL (raw front-end output and after SSA rewriting): row splits,
// blocks, columns, quad orders made by hand, from bit fields, and from the
// subgroup built-ins.
#include "analysis/lane_layout.h"

#include <memory>
#include <string>
#include <vector>

#include "analysis/uniformity.h"
#include "gtest/gtest.h"
#include "kernel_module.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waveopt {
namespace {

using spvtools::opt::IRContext;

// A GLSL compute kernel, compiled (and optionally taken to SSA form), with
// the analysis set up on its entry point.
class Kernel {
 public:
  Kernel(const std::string& body, WorkgroupSize size, bool ssa = false) {
    const std::string source =
        "#version 450\n"
        "#extension GL_KHR_shader_subgroup_basic : require\n"
        "layout(local_size_x = " +
        std::to_string(size.x) + ", local_size_y = " + std::to_string(size.y) +
        ", local_size_z = " + std::to_string(size.z) +
        ") in;\n"
        "layout(set = 0, binding = 0, r32f) uniform image2D img;\n"
        "layout(set = 0, binding = 1) buffer B { uint data[]; };\n"
        "layout(set = 0, binding = 2, r32f) uniform imageBuffer texels;\n"
        "layout(push_constant) uniform P { uint offset; uint count; } pc;\n" +
        body;
    const std::vector<uint32_t> words = testing_kernels::CompileKernel(source, ssa);
    if (words.empty()) return;
    context_ = spvtools::BuildModule(SPV_ENV_VULKAN_1_1, nullptr, words.data(), words.size());
    if (!context_) {
      ADD_FAILURE() << "BuildModule failed";
      return;
    }
    uniformity_ = std::make_unique<UniformityAnalysis>(context_.get());
    entry_ = context_->GetFunction(
        context_->module()->entry_points().begin()->GetSingleWordInOperand(1));
    evaluator_ =
        std::make_unique<InvocationEvaluator>(context_.get(), entry_, size, uniformity_.get());
    std::vector<spvtools::opt::Function*> functions;
    for (auto& f : *context_->module()) functions.push_back(&f);
    accesses_ = CollectLaneAccesses(context_.get(), functions);
  }

  bool ok() const { return evaluator_ != nullptr; }
  IRContext* context() { return context_.get(); }
  const std::vector<LaneAccess>& accesses() const { return accesses_; }
  InvocationEvaluator* evaluator() { return evaluator_.get(); }

  // The map of the |n|th access of |kind| in its first frame.
  LaneMap Map(MemoryKind kind, int n = 0, LaneEnv env = LaneEnv()) {
    for (const LaneAccess& a : accesses_) {
      if (a.kind != kind || n-- > 0) continue;
      const auto& frames = evaluator_->Frames(a.function);
      if (frames.empty()) return LaneMap();
      return EvaluateLaneMap(evaluator_.get(), a, frames[0], env);
    }
    ADD_FAILURE() << "no such access";
    return LaneMap();
  }
  LaneLayout Layout(MemoryKind kind, int n = 0, LaneEnv env = LaneEnv()) {
    return ClassifyLaneMap(Map(kind, n, env));
  }
  bool QuadOrdered() {
    LaneMaps maps(evaluator_.get(), accesses_);
    return FirstQuadOrderedItem(&maps) >= 0;
  }

 private:
  std::unique_ptr<IRContext> context_;
  std::unique_ptr<UniformityAnalysis> uniformity_;
  spvtools::opt::Function* entry_ = nullptr;
  std::unique_ptr<InvocationEvaluator> evaluator_;
  std::vector<LaneAccess> accesses_;
};

constexpr MemoryKind kImage = MemoryKind::kStorageImage;

TEST(LaneLayout, RowsOfSixteen) {
  for (bool ssa : {false, true}) {
    Kernel k(R"(void main() {
      uint i = gl_LocalInvocationIndex;
      ivec2 p = ivec2(gl_WorkGroupID.xy * 16u + uvec2(i % 16u, i / 16u));
      imageStore(img, p, vec4(1.0));
    })",
             {256, 1, 1}, ssa);
    ASSERT_TRUE(k.ok());
    const LaneMap map = k.Map(kImage);
    ASSERT_TRUE(map.ok);
    EXPECT_EQ(map.pos[17][0], 1);
    EXPECT_EQ(map.pos[17][1], 1);
    const LaneLayout layout = ClassifyLaneMap(map);
    EXPECT_FALSE(layout.quad_ordered);
    EXPECT_EQ(layout.block, 256u);
    EXPECT_EQ(layout.block_width, 16u);
    EXPECT_EQ(layout.BlockHeight(), 16u);
    EXPECT_FALSE(layout.transposed);
    EXPECT_FALSE(k.QuadOrdered());
  }
}

TEST(LaneLayout, BitFieldsBlocksAndColumns) {
  Kernel bits(R"(void main() {
    uint i = gl_LocalInvocationIndex;
    imageStore(img, ivec2(i & 7u, i >> 3u), vec4(1.0));
  })",
              {64, 1, 1});
  EXPECT_EQ(bits.Layout(kImage).block_width, 8u);
  Kernel blocks(R"(void main() {
    uint i = gl_LocalInvocationIndex;
    uvec2 q = uvec2((i & 7u) + 8u * ((i >> 6u) & 1u), ((i & 63u) >> 3u) + 8u * (i >> 7u));
    imageStore(img, ivec2(q), vec4(1.0));
  })",
                {256, 1, 1});
  const LaneLayout b = blocks.Layout(kImage);
  EXPECT_EQ(b.block, 64u);
  EXPECT_EQ(b.block_width, 8u);
  Kernel columns(R"(void main() {
    uint i = gl_LocalInvocationIndex;
    imageStore(img, ivec2(i / 4u, i % 4u), vec4(1.0));
  })",
                 {64, 1, 1});
  const LaneLayout c = columns.Layout(kImage);
  EXPECT_TRUE(c.transposed);
  EXPECT_EQ(c.block, 64u);
  EXPECT_EQ(c.BlockHeight(), 4u);
  EXPECT_EQ(c.block_width, 16u);
}

TEST(LaneLayout, HandMadeQuadOrders) {
  // FidelityFX-style ARmpRed8x8 from bit fields: standard quad order.
  Kernel red(R"(void main() {
    uint a = gl_LocalInvocationIndex;
    uvec2 q = uvec2(bitfieldInsert(bitfieldExtract(a, 2, 3), a, 0, 1),
                    bitfieldInsert(bitfieldExtract(a, 3, 3), bitfieldExtract(a, 1, 2), 0, 2));
    imageStore(img, ivec2(q * 2u), vec4(1.0));
  })",
             {64, 1, 1});
  LaneLayout l = red.Layout(kImage);
  EXPECT_TRUE(l.quad_ordered);
  EXPECT_TRUE(l.standard_quad_order);
  EXPECT_EQ(l.step_x, 2);
  EXPECT_TRUE(red.QuadOrdered());
  // ARmp8x8: lane ^ 1 is the vertical neighbour.
  Kernel pairs(R"(void main() {
    uint a = gl_LocalInvocationIndex;
    uvec2 q = uvec2(bitfieldExtract(a, 1, 3), bitfieldInsert(bitfieldExtract(a, 3, 3), a, 0, 1));
    imageStore(img, ivec2(q), vec4(1.0));
  })",
               {64, 1, 1});
  l = pairs.Layout(kImage);
  EXPECT_TRUE(l.quad_ordered);
  EXPECT_FALSE(l.standard_quad_order);
  // A row of four is not a quad.
  Kernel row(R"(void main() {
    uint a = gl_LocalInvocationIndex;
    imageStore(img, ivec2(a % 8u, a / 8u), vec4(1.0));
  })",
             {64, 1, 1});
  EXPECT_FALSE(row.Layout(kImage).quad_ordered);
}

TEST(LaneLayout, SubgroupBuiltInsNeedASize) {
  Kernel k(R"(void main() {
    uint i = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    uvec2 q = uvec2((i & 1u) | ((i >> 2) & 6u), ((i >> 1) & 3u) | ((i >> 3) & 4u));
    imageStore(img, ivec2(q), vec4(1.0));
  })",
           {64, 1, 1});
  ASSERT_TRUE(k.ok());
  EXPECT_TRUE(k.evaluator()->ReadsSubgroupBuiltIns());
  EXPECT_FALSE(k.Map(kImage).ok);  // subgroup size 0: unknown
  for (uint32_t s : {4u, 16u, 64u}) {
    LaneEnv env;
    env.subgroup_size = s;
    EXPECT_TRUE(k.Layout(kImage, 0, env).quad_ordered) << s;
  }
  EXPECT_TRUE(k.QuadOrdered());
}

TEST(LaneLayout, LinearMemory) {
  Kernel k(R"(void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    data[g.y * 64u + g.x] = 1u;
    data[1024u + g.y] = 2u;
    imageStore(texels, int(g.y * 64u + g.x), vec4(1.0));
  })",
           {8, 8, 1});
  ASSERT_EQ(k.accesses().size(), 3u);
  EXPECT_EQ(k.accesses()[2].kind, MemoryKind::kTexelBuffer);
  const LaneLayout row_major = k.Layout(MemoryKind::kStorageBuffer, 0);
  EXPECT_TRUE(row_major.varies_within_quads);
  EXPECT_FALSE(row_major.quad_ordered);
  // One element per row: the same for a quad's lanes.
  EXPECT_FALSE(k.Layout(MemoryKind::kStorageBuffer, 1).varies_within_quads);
  EXPECT_TRUE(k.Layout(MemoryKind::kTexelBuffer).varies_within_quads);
}

TEST(LaneLayout, ProbesTakeNeutralElements) {
  // A uniform offset and a uniform loop counter do not hide the split; a
  // value loaded from memory at a varying address is not evaluated.
  Kernel k(R"(void main() {
    uint i = gl_LocalInvocationIndex;
    ivec2 p = ivec2(uvec2(i % 8u, i / 8u) + pc.offset);
    for (int d = 0; d < 3; ++d) imageStore(img, p + ivec2(d, 0), vec4(1.0));
    imageStore(img, ivec2(data[i], 0), vec4(1.0));
  })",
           {64, 1, 1}, /*ssa=*/true);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k.Layout(kImage, 0).block_width, 8u);
  EXPECT_FALSE(k.Map(kImage, 1).ok);
  LaneEnv exact;
  exact.probes = false;
  EXPECT_FALSE(k.Map(kImage, 0, exact).ok);
}

TEST(LaneLayout, FunctionVariablesAndCallPaths) {
  // Raw front-end output: the pixel in a local stored whole, then one
  // component again; a helper called on two paths with different values.
  Kernel k(R"(
    ivec2 at(uvec2 q, uint base) { return ivec2(q + uvec2(base, 0u)); }
    void main() {
      uint i = gl_LocalInvocationIndex;
      uvec2 g = uvec2(i & 7u, i >> 3u);
      imageStore(img, at(g, 0u), vec4(1.0));
      g.x += 8u;
      imageStore(img, at(g, 100u), vec4(1.0));
    })",
           {64, 1, 1});
  ASSERT_TRUE(k.ok());
  const auto& accesses = k.accesses();
  ASSERT_EQ(accesses.size(), 2u);
  const LaneMap first = k.Map(kImage, 0);
  const LaneMap second = k.Map(kImage, 1);
  ASSERT_TRUE(first.ok);
  ASSERT_TRUE(second.ok);
  EXPECT_EQ(first.pos[9][0], 1);
  EXPECT_EQ(second.pos[9][0], 109);  // the second call path: base 100
}

TEST(LaneLayout, SignedArithmetic) {
  Kernel k(R"(void main() {
    int i = int(gl_LocalInvocationIndex) - 32;
    imageStore(img, ivec2(i / 4, i % 4 + (i >> 2)), vec4(1.0));
  })",
           {64, 1, 1});
  const LaneMap map = k.Map(kImage);
  ASSERT_TRUE(map.ok);
  // Lane 1: i = -31: -31 / 4 = -7 (OpSDiv rounds toward zero), -31 % 4 = 1
  // (GLSL's % is OpSMod: the sign of the divisor), -31 >> 2 = -8.
  EXPECT_EQ(map.pos[1][0], -7);
  EXPECT_EQ(map.pos[1][1], -7);
}

// The execution predicate: the image store runs for the invocations with
// x and y even, however the guard is spelled (issue 23's table and more),
// raw and in SSA form.
TEST(LaneLayout, ExecutionPredicateSameForEverySpelling) {
  const char* guards[] = {
      "if (((l.x | l.y) & 1u) == 0u) {",
      "if ((l.x & 1u) == 0u) if ((l.y & 1u) == 0u) {",
      "if (((l.x | l.y) & 1u) != 0u) return; {",
      "if ((l.x & 1u) == 0u && (l.y & 1u) == 0u) {",
      "if (l.x % 2u == 0u && l.y % 2u == 0u) {",
      "if (all(equal(l & 1u, uvec2(0u)))) {",
      "if (!((l.x & 1u) != 0u || (l.y & 1u) != 0u)) {",
      "bool e = (l.x & 1u) == 0u ? (l.y & 1u) == 0u : false; if (e) {",
      ("switch ((l.x & 1u) | ((l.y & 1u) << 1u)) { case 0u: break; "
       "default: return; } {"),
      "if (int(l.x) % 2 == 0 && !any(notEqual(l.yy % 2u, uvec2(0u)))) {",
  };
  for (const char* guard : guards) {
    for (bool ssa : {false, true}) {
      Kernel k(std::string("void main() { ") + "uvec2 l = gl_LocalInvocationID.xy; " + guard +
                   " imageStore(img, ivec2(l), vec4(1.0)); } }",
               {8, 8, 1}, ssa);
      ASSERT_TRUE(k.ok()) << guard;
      ASSERT_EQ(k.accesses().size(), 1u) << guard;
      const auto* block = k.context()->get_instr_block(k.accesses()[0].inst);
      for (uint32_t i = 0; i < 64; ++i) {
        const ReachResult r = k.evaluator()->Reaches(0, block, i, LaneEnv());
        const bool even = (i % 8) % 2 == 0 && (i / 8) % 2 == 0;
        ASSERT_EQ(r.reach, even ? Reach::kYes : Reach::kNo)
            << guard << (ssa ? " (SSA)" : " (raw)") << ", invocation " << i;
      }
    }
  }
}

// An unknown is never a yes: a guard on a push constant is kUnknown and
// names what it could not evaluate; the invocations the known part
// excludes are a definite no.
TEST(LaneLayout, ExecutionPredicateUnknown) {
  for (bool ssa : {false, true}) {
    Kernel k(R"(void main() {
      uvec2 l = gl_LocalInvocationID.xy;
      if ((l.x & 1u) == 0u && l.y < pc.count)
        imageStore(img, ivec2(l), vec4(1.0));
    })",
             {8, 8, 1}, ssa);
    ASSERT_TRUE(k.ok());
    const auto* block = k.context()->get_instr_block(k.accesses()[0].inst);
    LaneEnv exact;
    exact.probes = false;
    for (uint32_t i = 0; i < 64; ++i) {
      const ReachResult r = k.evaluator()->Reaches(0, block, i, exact);
      if (i % 2 == 1) {
        EXPECT_EQ(r.reach, Reach::kNo) << i;
      } else {
        EXPECT_EQ(r.reach, Reach::kUnknown) << i;
        EXPECT_NE(r.unknown, nullptr) << i;
      }
    }
  }
}

// Values through control flow: a local stored on two paths (raw) or a phi
// (SSA) takes the value of the path the invocation took.
TEST(LaneLayout, ValuesThroughBranches) {
  for (bool ssa : {false, true}) {
    Kernel k(R"(void main() {
      uint i = gl_LocalInvocationIndex;
      uint x;
      if ((i & 1u) != 0u) x = i * 3u + 1u; else x = i >> 1u;
      uint y = (i & 2u) != 0u ? i + 5u : i * 7u;
      imageStore(img, ivec2(x, y), vec4(1.0));
    })",
             {64, 1, 1}, ssa);
    const LaneMap map = k.Map(kImage);
    ASSERT_TRUE(map.ok) << (ssa ? "SSA" : "raw");
    for (uint32_t i = 0; i < 64; ++i) {
      EXPECT_EQ(map.pos[i][0], (i & 1u) ? i * 3 + 1 : i >> 1) << i;
      EXPECT_EQ(map.pos[i][1], (i & 2u) ? i + 5 : i * 7) << i;
    }
  }
}

// With the workgroup id unknown, a value evaluates only where it is the
// same in every workgroup, and then it is the value of every workgroup.
TEST(LaneLayout, WorkgroupUnknownIsSound) {
  struct Case {
    const char* expr;
    bool known;
  };
  const Case cases[] = {
      {"g.x & 7u", true},
      {"g.y % 8u", true},
      {"g.x - gl_WorkGroupID.x * 8u", true},
      {"(g.x + 8u * gl_WorkGroupID.y) & 7u", true},
      {"uint(int(g.x) % 2 == 0)", true},
      {"uint(((g.x | g.y) & 1u) == 0u)", true},
      {"(g.x << 1u) & 15u", true},
      {"uint(g.x - 8u * gl_WorkGroupID.x == gl_LocalInvocationID.x)", true},
      {"uint(g.x < 100u)", false},
      {"g.x >> 3u", false},
      {"g.x - gl_WorkGroupID.x * 4u", false},
      {"g.x & 15u", false},
      {"gl_WorkGroupID.x", false},
  };
  std::string body = "void main() { uvec2 g = gl_GlobalInvocationID.xy;\n";
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    body += "  data[" + std::to_string(c) + "] = " + cases[c].expr + ";\n";
  }
  body += "}";
  for (bool ssa : {false, true}) {
    Kernel k(body, {8, 8, 1}, ssa);
    ASSERT_TRUE(k.ok());
    std::vector<spvtools::opt::Instruction*> stores;
    for (const LaneAccess& a : k.accesses()) stores.push_back(a.inst);
    ASSERT_EQ(stores.size(), sizeof(cases) / sizeof(cases[0]));
    LaneEnv unknown;
    unknown.probes = false;
    unknown.workgroup_unknown = true;
    for (size_t c = 0; c < stores.size(); ++c) {
      const uint32_t value = stores[c]->GetSingleWordInOperand(1);
      for (uint32_t i = 0; i < 64; i += 7) {
        LaneValue v;
        const bool known = k.evaluator()->Eval(0, value, i, unknown, &v);
        ASSERT_EQ(known, cases[c].known) << cases[c].expr << ", invocation " << i;
        if (!known) {
          EXPECT_NE(k.evaluator()->FailedAt(), nullptr);
          continue;
        }
        for (const auto& wg : {std::array<uint32_t, 3>{0, 0, 0}, std::array<uint32_t, 3>{3, 5, 2},
                               std::array<uint32_t, 3>{0x1fffffffu, 77, 1}}) {
          LaneEnv concrete;
          concrete.probes = false;
          concrete.workgroup_id = wg;
          LaneValue w;
          ASSERT_TRUE(k.evaluator()->Eval(0, value, i, concrete, &w));
          EXPECT_EQ(v.bits[0], w.bits[0]) << cases[c].expr << ", workgroup " << wg[0];
        }
      }
    }
  }
}

// EvaluateLaneMaps evaluates the first invocation and replays the rest
// (lane_layout.cpp, "Lane replay"): its maps are the ones Eval() gives
// invocation by invocation, in every spelling the replay folds or leaves
// to Compute() (calls, their parameters in variables as compiled, a
// store on one branch,
// bit fields, shuffles, probes), with an access that fails at invocation
// 5 first: the values it shares with the next accesses are not left over
// from an earlier invocation.
TEST(LaneLayout, ReplayedMapsAreEvaluatedOnes) {
  const std::string body = R"(
    uint helper(uint v, uint k) { return bitfieldInsert(v, k, 4, 2) ^ (k << 1); }
    void main() {
      uint i = gl_LocalInvocationIndex;
      uvec2 q = uvec2(bitfieldExtract(i, 0, 3), bitfieldExtract(i, 3, 3)).yx;
      imageStore(img, ivec2(q.x, 100u / (i - 5u)), vec4(1.0));
      uint s = (i * 3u) ^ pc.offset;
      uint t = i;
      if ((i & 1u) == 0u) t = t + 7u;
      uint h = helper(t, q.x);
      imageStore(img, ivec2(q + uvec2(h & 3u, gl_SubgroupInvocationID)), vec4(1.0));
      imageStore(img, ivec2(q.y + s, t), vec4(1.0));
    })";
  for (bool ssa : {false, true}) {
    Kernel k(body, {64, 1, 1}, ssa);
    Kernel reference(body, {64, 1, 1}, ssa);
    ASSERT_TRUE(k.ok() && reference.ok());
    const std::vector<LaneItem> items = LaneItems(*k.evaluator(), k.accesses());
    ASSERT_EQ(items.size(), 3u);
    for (const LaneEnv& env : StandardLaneEnvs(true)) {
      const std::vector<LaneMap> maps = k.evaluator()->EvaluateLaneMaps(items, env);
      for (size_t i = 0; i < items.size(); ++i) {
        const LaneAccess& a = reference.accesses()[i];
        const uint32_t frame = reference.evaluator()->Frames(a.function)[0];
        bool ok = true;
        for (uint32_t l = 0; l < 64 && ok; ++l) {
          LaneValue v;
          ok = reference.evaluator()->Eval(frame, a.location, l, env, &v);
          if (ok && maps[i].ok) {
            EXPECT_EQ(maps[i].pos[l][0], v.Signed(0)) << i << " " << l << " " << ssa;
            EXPECT_EQ(maps[i].pos[l][1], v.Signed(1)) << i << " " << l << " " << ssa;
          }
        }
        EXPECT_EQ(maps[i].ok, ok) << i << " " << ssa << " " << env.subgroup_size;
      }
      EXPECT_FALSE(maps[0].ok);  // 100 / 0 at invocation 5
      EXPECT_TRUE(maps[1].ok) << ssa << " " << env.subgroup_size;
      EXPECT_TRUE(maps[2].ok) << ssa << " " << env.subgroup_size;
    }
  }
}

// The batch (Impl::Batch): values computed node by node over every
// invocation, plain (built-ins, whole and by component, vector arithmetic,
// shuffles, constructs, inserts, unary and signed operations, operations
// on a probe) and not (a probe alone; a
// global id that owes to an unknown workgroup id, which must cancel):
// every map is the one Eval() gives, invocation by invocation, in every
// standard environment and with the workgroup id unknown.
TEST(LaneLayout, BatchedMapsAreEvaluatedOnes) {
  const std::string body = R"(
    void main() {
      uvec3 l = gl_LocalInvocationID;
      uvec2 a = l.yx * uvec2(3u, 5u) + (l.zz ^ uvec2(1u, 2u));
      imageStore(img, ivec2(a), vec4(1.0));
      ivec2 b = ivec2(~l.x, -int(l.y)) >> ivec2(1, 0);
      imageStore(img, b + ivec2(gl_SubgroupInvocationID, gl_SubgroupID), vec4(1.0));
      uvec3 g = gl_GlobalInvocationID - gl_WorkGroupID * gl_WorkGroupSize;
      imageStore(img, ivec2(g.xy + uvec2(gl_NumSubgroups, gl_SubgroupSize)), vec4(1.0));
      imageStore(img, ivec2(int(gl_LocalInvocationIndex) / 3 - 4, int(pc.offset)), vec4(1.0));
      imageStore(img, ivec2(gl_GlobalInvocationID.zy), vec4(1.0));
      imageStore(img, ivec2(l.x | pc.offset, l.y * 3u + pc.count), vec4(1.0));
      uvec2 w = uvec2(0u);
      w.y = l.x * 2u;
      w.x = l.y + l.z;
      imageStore(img, ivec2(w), vec4(1.0));
      uvec2 u = uvec2(0u);
      u.x = l.x + 1u;
      u.y = l.y > 1u ? l.y : 7u;
      imageStore(img, ivec2(u), vec4(1.0));
    })";
  const WorkgroupSize size{8, 4, 2};
  std::vector<LaneEnv> envs = StandardLaneEnvs(true);
  for (LaneEnv e : StandardLaneEnvs(true)) {
    e.workgroup_unknown = true;
    envs.push_back(e);
  }
  for (bool ssa : {false, true}) {
    Kernel k(body, size, ssa);
    Kernel reference(body, size, ssa);
    ASSERT_TRUE(k.ok() && reference.ok());
    const std::vector<LaneItem> items = LaneItems(*k.evaluator(), k.accesses());
    ASSERT_EQ(items.size(), 8u);
    int mapped = 0;
    for (const LaneEnv& env : envs) {
      const std::vector<LaneMap> maps = k.evaluator()->EvaluateLaneMaps(items, env);
      for (size_t i = 0; i < items.size(); ++i) {
        const LaneAccess& a = reference.accesses()[i];
        const uint32_t frame = reference.evaluator()->Frames(a.function)[0];
        bool ok = true;
        for (uint32_t l = 0; l < size.Count() && ok; ++l) {
          LaneValue v;
          ok = reference.evaluator()->Eval(frame, a.location, l, env, &v);
          if (ok && maps[i].ok) {
            EXPECT_EQ(maps[i].pos[l][0], v.Signed(0)) << i << " " << l << " " << ssa;
            EXPECT_EQ(maps[i].pos[l][1], v.Signed(1)) << i << " " << l << " " << ssa;
          }
        }
        EXPECT_EQ(maps[i].ok, ok) << i << " " << ssa << " " << env.subgroup_size << " "
                                  << env.workgroup_unknown;
        mapped += maps[i].ok;
      }
    }
    // Every access maps in every environment but the global id's last
    // one where the workgroup id is unknown.
    EXPECT_EQ(mapped, 8 * 10 + 7 * 10) << ssa;
  }
}

TEST(LaneLayout, ClassifiesSyntheticMaps) {
  LaneMap m;
  m.ok = true;
  m.dims = 1;
  for (int64_t v : {0, 1, 8, 9, 2, 3, 10, 11}) m.pos.push_back({v, 0});
  EXPECT_TRUE(ClassifyLaneMap(m).quad_ordered);  // a row-major 2-D index
  m.pos.clear();
  for (int64_t v = 0; v < 8; ++v) m.pos.push_back({v, 0});
  EXPECT_FALSE(ClassifyLaneMap(m).quad_ordered);  // consecutive
  m.dims = 2;
  m.pos = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 0}, {3, 0}, {2, 1}, {4, 1}};
  EXPECT_FALSE(QuadOrdered2D(m.pos));  // the second quad is not a block
  m.pos[7] = {3, 1};
  EXPECT_TRUE(QuadOrdered2D(m.pos));
}

}  // namespace
}  // namespace waveopt
