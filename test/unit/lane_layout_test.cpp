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
        ") in;\n"
        "layout(set = 0, binding = 0, r32f) uniform image2D img;\n"
        "layout(set = 0, binding = 1) buffer B { uint data[]; };\n"
        "layout(set = 0, binding = 2, r32f) uniform imageBuffer texels;\n"
        "layout(push_constant) uniform P { uint offset; uint count; } pc;\n" +
        body;
    CompileOptions options;
    options.stage = "comp";
    std::vector<uint32_t> words;
    std::string error;
    if (!CompileShader(source, "kernel.comp", options, &words, &error)) {
      ADD_FAILURE() << error;
      return;
    }
    if (ssa) {
      Options o;
      for (const char* flag : {"--inline-entry-points-exhaustive",
                               "--eliminate-dead-functions",
                               "--scalar-replacement",
                               "--convert-local-access-chains",
                               "--ssa-rewrite"}) {
        PipelineStep step;
        step.kind = PipelineStep::Kind::kSpirvOpt;
        step.name = flag;
        o.pipeline.push_back(step);
      }
      Result r;
      if (!Optimize(words, o, &r)) {
        ADD_FAILURE() << (r.diagnostics.empty() ? "" : r.diagnostics.back());
        return;
      }
      words = r.words;
    }
    context_ = spvtools::BuildModule(SPV_ENV_VULKAN_1_1, nullptr, words.data(),
                                     words.size());
    if (!context_) {
      ADD_FAILURE() << "BuildModule failed";
      return;
    }
    uniformity_ = std::make_unique<UniformityAnalysis>(context_.get());
    entry_ = context_->GetFunction(
        context_->module()->entry_points().begin()->GetSingleWordInOperand(1));
    evaluator_ = std::make_unique<InvocationEvaluator>(context_.get(), entry_,
                                                       size, uniformity_.get());
    std::vector<spvtools::opt::Function*> functions;
    for (auto& f : *context_->module()) functions.push_back(&f);
    accesses_ = CollectLaneAccesses(context_.get(), functions);
  }

  bool ok() const { return evaluator_ != nullptr; }
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
