// morton-remap: the permutation's properties for every supported shape
// (a bijection, 2x2 quads in standard order, 4x4 blocks, 8x4 halves, 8x8
// tiles row-major), its parameters, and the pass run through Optimize() on
// assembly (the emitted SPIR-V is executed by test/diff/morton-remap).
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "passes/morton_remap_pass.h"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waveopt {
namespace {

struct Pos {
  uint32_t x, y;
};

Pos At(uint32_t l, uint32_t sx, uint32_t sy) {
  Pos p{};
  MortonRemapPass::RemapIndex(l, sx, sy, &p.x, &p.y);
  return p;
}

TEST(MortonRemap, PermutesEveryShape) {
  const std::pair<uint32_t, uint32_t> shapes[] = {
      {8, 8}, {16, 16}, {8, 16}, {24, 8}, {32, 8}, {64, 1}, {256, 1}};
  for (auto [sx, sy] : shapes) {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (uint32_t l = 0; l < sx * sy; ++l) {
      Pos p = At(l, sx, sy);
      ASSERT_LT(p.x, sx) << sx << "x" << sy << " l=" << l;
      ASSERT_LT(p.y, sy) << sx << "x" << sy << " l=" << l;
      seen.insert({p.x, p.y});
    }
    EXPECT_EQ(seen.size(), sx * sy) << sx << "x" << sy << " is not a bijection";
  }
}

TEST(MortonRemap, QuadsAreTwoByTwoInStandardOrder) {
  for (uint32_t l = 0; l < 256; l += 4) {
    Pos p0 = At(l, 16, 16);
    EXPECT_EQ(p0.x % 2, 0u);
    EXPECT_EQ(p0.y % 2, 0u);
    // lane ^ 1 is the horizontal neighbour, lane ^ 2 the vertical one.
    Pos p1 = At(l + 1, 16, 16), p2 = At(l + 2, 16, 16), p3 = At(l + 3, 16, 16);
    EXPECT_TRUE(p1.x == p0.x + 1 && p1.y == p0.y);
    EXPECT_TRUE(p2.x == p0.x && p2.y == p0.y + 1);
    EXPECT_TRUE(p3.x == p0.x + 1 && p3.y == p0.y + 1);
  }
}

// Lanes [base, base + n) of an 8x8 workgroup cover a w x h rectangle.
void ExpectBlock(uint32_t base, uint32_t n, uint32_t w, uint32_t h) {
  uint32_t min_x = 8, min_y = 8, max_x = 0, max_y = 0;
  for (uint32_t l = base; l < base + n; ++l) {
    Pos p = At(l, 8, 8);
    min_x = std::min(min_x, p.x);
    min_y = std::min(min_y, p.y);
    max_x = std::max(max_x, p.x);
    max_y = std::max(max_y, p.y);
  }
  EXPECT_EQ(max_x - min_x + 1, w) << "lanes " << base << "+" << n;
  EXPECT_EQ(max_y - min_y + 1, h) << "lanes " << base << "+" << n;
}

TEST(MortonRemap, GroupsOf16And32AreCompactBlocks) {
  for (uint32_t base = 0; base < 64; base += 16) ExpectBlock(base, 16, 4, 4);
  for (uint32_t base = 0; base < 64; base += 32) ExpectBlock(base, 32, 8, 4);
}

TEST(MortonRemap, TilesAreRowMajorAndOneDKeepsBlocks) {
  EXPECT_EQ(At(64, 16, 16).x, 8u);
  EXPECT_EQ(At(64, 16, 16).y, 0u);
  EXPECT_EQ(At(128, 16, 16).x, 0u);
  EXPECT_EQ(At(128, 16, 16).y, 8u);
  EXPECT_EQ(At(64 * 4, 24, 16).x, 8u);  // tile 4 of a 3-wide row: (1, 1)
  EXPECT_EQ(At(64 * 4, 24, 16).y, 8u);
  // 1-D: the index stays in its 64-block; inside, (x, y) becomes y * 8 + x.
  EXPECT_EQ(At(2, 256, 1).x, 8u);
  EXPECT_EQ(At(64 + 3, 256, 1).x, 64u + 9u);
}

TEST(MortonRemap, Params) {
  MortonRemapPass::Params p;
  std::string error;
  EXPECT_TRUE(MortonRemapPass::ParseParams("", &p, &error));
  EXPECT_EQ(p.mode, MortonRemapPass::Mode::kProfitable);
  EXPECT_TRUE(MortonRemapPass::ParseParams("always", &p, &error));
  EXPECT_EQ(p.mode, MortonRemapPass::Mode::kAlways);
  p = {};
  EXPECT_TRUE(MortonRemapPass::ParseParams("force,always", &p, &error));
  EXPECT_EQ(p.mode, MortonRemapPass::Mode::kForce);
  EXPECT_FALSE(MortonRemapPass::ValidateParams("always=1", &error));
  EXPECT_FALSE(MortonRemapPass::ValidateParams("sometimes", &error));
}

// An 8x8 shader writing an image at GlobalInvocationId, with an optional
// extra line in the body.
std::string Module(const std::string& extra_decorations,
                   const std::string& extra_globals,
                   const std::string& extra_body) {
  const std::string extra_var =
      extra_globals.empty()
          ? ""
          : " " + extra_globals.substr(0, extra_globals.find(' '));
  return R"(
               OpCapability Shader
               OpCapability GroupNonUniform
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid)" +
         extra_var + R"(
               OpExecutionMode %main LocalSize 8 8 1
               OpName %main "main"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %img DescriptorSet 0
               OpDecorate %img Binding 0
               OpDecorate %img NonReadable
)" + extra_decorations +
         R"(
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
     %v2uint = OpTypeVector %uint 2
     %v3uint = OpTypeVector %uint 3
    %float_1 = OpConstant %float 1
       %ones = OpConstantComposite %v4float %float_1 %float_1 %float_1 %float_1
     %ptr_in = OpTypePointer Input %v3uint
 %ptr_in_uint = OpTypePointer Input %uint
        %gid = OpVariable %ptr_in Input
      %image = OpTypeImage %float 2D 0 0 0 2 R32f
  %ptr_image = OpTypePointer UniformConstant %image
        %img = OpVariable %ptr_image UniformConstant
    %fn_void = OpTypeFunction %void
)" + extra_globals +
         R"(
       %main = OpFunction %void None %fn_void
         %m0 = OpLabel
          %g = OpLoad %v3uint %gid
          %p = OpVectorShuffle %v2uint %g %g 0 1
          %i = OpLoad %image %img
)" + extra_body +
         R"(
               OpImageWrite %i %p %ones
               OpReturn
               OpFunctionEnd
)";
}

// Runs --morton-remap on |text|; returns its remark names and sets
// |*changed| when the output differs from a run without passes.
std::vector<std::string> RunPass(const std::string& text, bool* changed) {
  std::vector<uint32_t> words;
  std::string error;
  EXPECT_TRUE(AssembleText(text, SPV_ENV_VULKAN_1_1, &words, &error)) << error;
  Result unchanged;
  EXPECT_TRUE(Optimize(words, Options(), &unchanged));
  Options options;
  PipelineStep step;
  step.name = "morton-remap";
  options.pipeline.push_back(step);
  Result result;
  EXPECT_TRUE(Optimize(words, options, &result));
  for (const std::string& d : result.diagnostics) ADD_FAILURE() << d;
  *changed = result.words != unchanged.words;
  std::vector<std::string> names;
  for (const Remark& r : result.remarks) {
    if (r.pass == "morton-remap") names.push_back(r.name);
  }
  return names;
}

TEST(MortonRemap, RemapsImageShader) {
  bool changed = false;
  EXPECT_EQ(RunPass(Module("", "", ""), &changed),
            std::vector<std::string>{"Remapped"});
  EXPECT_TRUE(changed);
}

TEST(MortonRemap, NoOp_SubgroupLocalInvocationId) {
  bool changed = true;
  EXPECT_EQ(RunPass(Module("OpDecorate %slid BuiltIn SubgroupLocalInvocationId",
                           "%slid = OpVariable %ptr_in_uint Input",
                           "%s = OpLoad %uint %slid"),
                    &changed),
            std::vector<std::string>{"UsesSubgroupBuiltIn"});
  EXPECT_FALSE(changed);
}

TEST(MortonRemap, SubgroupSizeDoesNotStopIt) {
  bool changed = false;
  EXPECT_EQ(RunPass(Module("OpDecorate %sgs BuiltIn SubgroupSize",
                           "%sgs = OpVariable %ptr_in_uint Input",
                           "%s = OpLoad %uint %sgs"),
                    &changed),
            std::vector<std::string>{"Remapped"});
  EXPECT_TRUE(changed);
}

}  // namespace
}  // namespace waveopt
