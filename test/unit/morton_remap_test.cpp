// morton-remap: the permutations' properties for every supported shape
// (bijections, 2x2 quads in standard order, 4x4 blocks, 8x4 halves, 8x8
// tiles row-major; the index path's decompositions), its parameters, and
// the pass run through Optimize() on assembly (the emitted SPIR-V is
// executed by test/diff/morton-remap).
#include <algorithm>
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

Pos At(uint32_t j, uint32_t w, uint32_t h) {
  Pos p{};
  MortonRemapPass::RemapCoords(j, w, h, &p.x, &p.y);
  return p;
}

const std::pair<uint32_t, uint32_t> kShapes[] = {
    {8, 8}, {16, 16}, {8, 16}, {24, 8}, {32, 8}, {16, 8}, {8, 4},  {32, 32}, {4, 4}, {2, 2},
    {6, 6}, {12, 12}, {2, 8},  {8, 2},  {4, 8},  {16, 4}, {64, 2}, {6, 10},  {10, 4}};

TEST(MortonRemap, PermutesEveryShape) {
  for (auto [w, h] : kShapes) {
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (uint32_t j = 0; j < w * h; ++j) {
      Pos p = At(j, w, h);
      ASSERT_LT(p.x, w) << w << "x" << h << " j=" << j;
      ASSERT_LT(p.y, h) << w << "x" << h << " j=" << j;
      seen.insert({p.x, p.y});
    }
    EXPECT_EQ(seen.size(), w * h) << w << "x" << h << " is not a bijection";
  }
}

TEST(MortonRemap, QuadsAreTwoByTwoInStandardOrder) {
  for (auto [w, h] : kShapes) {
    for (uint32_t j = 0; j < w * h; j += 4) {
      Pos p0 = At(j, w, h);
      EXPECT_EQ(p0.x % 2, 0u);
      EXPECT_EQ(p0.y % 2, 0u);
      // lane ^ 1 is the horizontal neighbour, lane ^ 2 the vertical one.
      Pos p1 = At(j + 1, w, h), p2 = At(j + 2, w, h), p3 = At(j + 3, w, h);
      EXPECT_TRUE(p1.x == p0.x + 1 && p1.y == p0.y) << w << "x" << h;
      EXPECT_TRUE(p2.x == p0.x && p2.y == p0.y + 1) << w << "x" << h;
      EXPECT_TRUE(p3.x == p0.x + 1 && p3.y == p0.y + 1) << w << "x" << h;
    }
  }
}

// Lanes [base, base + n) of a w x h grid cover a bw x bh rectangle.
void ExpectBlock(uint32_t w, uint32_t h, uint32_t base, uint32_t n, uint32_t bw, uint32_t bh) {
  uint32_t min_x = w, min_y = h, max_x = 0, max_y = 0;
  for (uint32_t j = base; j < base + n; ++j) {
    Pos p = At(j, w, h);
    min_x = std::min(min_x, p.x);
    min_y = std::min(min_y, p.y);
    max_x = std::max(max_x, p.x);
    max_y = std::max(max_y, p.y);
  }
  EXPECT_EQ(max_x - min_x + 1, bw) << w << "x" << h << " lanes " << base;
  EXPECT_EQ(max_y - min_y + 1, bh) << w << "x" << h << " lanes " << base;
}

TEST(MortonRemap, GroupsOf16And32AreCompactBlocks) {
  for (uint32_t base = 0; base < 64; base += 16) ExpectBlock(8, 8, base, 16, 4, 4);
  for (uint32_t base = 0; base < 64; base += 32) ExpectBlock(8, 8, base, 32, 8, 4);
  // Smaller groups: 4x4 tiles, 8x4 tiles, 2x2 tiles.
  for (uint32_t base = 0; base < 16; base += 8) ExpectBlock(4, 4, base, 8, 2, 4);
  for (uint32_t base = 0; base < 32; base += 16) ExpectBlock(8, 4, base, 16, 4, 4);
  for (uint32_t base = 0; base < 36; base += 4) ExpectBlock(6, 6, base, 4, 2, 2);
}

TEST(MortonRemap, TilesAreRowMajor) {
  EXPECT_EQ(At(64, 16, 16).x, 8u);
  EXPECT_EQ(At(64, 16, 16).y, 0u);
  EXPECT_EQ(At(128, 16, 16).x, 0u);
  EXPECT_EQ(At(128, 16, 16).y, 8u);
  EXPECT_EQ(At(64 * 4, 24, 16).x, 8u);  // tile 4 of a 3-wide row: (1, 1)
  EXPECT_EQ(At(64 * 4, 24, 16).y, 8u);
  EXPECT_EQ(At(64 * 3, 32, 8).x, 24u);  // 32x8: four tiles in one row
  EXPECT_EQ(At(4, 6, 6).x, 2u);         // 6x6: 2x2 tiles, three per row
  EXPECT_EQ(At(12, 6, 6).y, 2u);
}

// The index path: the new index of every invocation for a decomposition,
// read back through the kernel's own split, puts quads on 2x2 blocks.
TEST(MortonRemap, IndexPathQuadsAreTwoByTwo) {
  using D = MortonRemapPass::Decomposition;
  struct Case {
    uint32_t n;
    D d;
  };
  const Case cases[] = {
      {256, {256, 16, 16, false}},  // x = i % 16, y = i / 16
      {256, {64, 8, 8, false}},     // SPD: 4 tiles of 8x8
      {256, {256, 16, 16, true}},   // x = i / 16, y = i % 16
      {96, {96, 12, 8, false}},     // x = i % 12
      {96, {48, 6, 8, false}},      // blocks of 6x8
      {64, {64, 32, 2, false}},     // two rows of 32
      {128, {128, 4, 32, false}},   // tall and thin
  };
  for (const Case& c : cases) {
    std::set<uint32_t> seen;
    auto split = [&](uint32_t i) {
      const uint32_t j = i % c.d.block, base = i - j;
      const uint32_t x = c.d.transposed ? j / c.d.height : j % c.d.width;
      const uint32_t y = c.d.transposed ? j % c.d.height : j / c.d.width;
      return Pos{x + 1000 * (base / c.d.block), y};
    };
    for (uint32_t l = 0; l < c.n; ++l) {
      const uint32_t i = MortonRemapPass::RemapIndex(l, c.n, c.d);
      ASSERT_LT(i, c.n);
      seen.insert(i);
    }
    EXPECT_EQ(seen.size(), c.n) << "not a bijection: block " << c.d.block;
    for (uint32_t l = 0; l < c.n; l += 4) {
      Pos p[4];
      for (uint32_t k = 0; k < 4; ++k) {
        p[k] = split(MortonRemapPass::RemapIndex(l + k, c.n, c.d));
      }
      EXPECT_TRUE(p[1].x == p[0].x + 1 && p[1].y == p[0].y && p[2].x == p[0].x &&
                  p[2].y == p[0].y + 1 && p[3].x == p[0].x + 1 && p[3].y == p[0].y + 1)
          << "block " << c.d.block << " width " << c.d.width << " lane " << l;
    }
  }
  // SPD's layout is the old 64-block remap: (x, y) -> y * 8 + x in a block.
  const D spd{64, 8, 8, false};
  EXPECT_EQ(MortonRemapPass::RemapIndex(2, 256, spd), 8u);
  EXPECT_EQ(MortonRemapPass::RemapIndex(64 + 3, 256, spd), 64u + 9u);
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
  p = {};
  EXPECT_TRUE(MortonRemapPass::ParseParams("workgroup-size=16x8", &p, &error));
  EXPECT_EQ(p.promised_x, 16u);
  EXPECT_EQ(p.promised_y, 8u);
  EXPECT_EQ(p.promised_z, 1u);
  EXPECT_TRUE(MortonRemapPass::ParseParams("workgroup-size=256", &p, &error));
  EXPECT_EQ(p.promised_x, 256u);
  EXPECT_EQ(p.promised_y, 1u);
  EXPECT_FALSE(MortonRemapPass::ValidateParams("always=1", &error));
  EXPECT_FALSE(MortonRemapPass::ValidateParams("sometimes", &error));
  EXPECT_FALSE(MortonRemapPass::ValidateParams("workgroup-size=", &error));
  EXPECT_FALSE(MortonRemapPass::ValidateParams("workgroup-size=8x", &error));
  EXPECT_FALSE(MortonRemapPass::ValidateParams("workgroup-size=64x64", &error));
  EXPECT_FALSE(MortonRemapPass::ValidateParams("workgroup-size=1x2x3x4", &error));
  EXPECT_FALSE(MortonRemapPass::ValidateParams("workgroup-size=8y8", &error));
}

// An 8x8 shader writing an image at GlobalInvocationId, with an optional
// extra line in the body.
std::string Module(const std::string& extra_decorations, const std::string& extra_globals,
                   const std::string& extra_body) {
  const std::string extra_var =
      extra_globals.empty() ? "" : " " + extra_globals.substr(0, extra_globals.find(' '));
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
  EXPECT_EQ(RunPass(Module("", "", ""), &changed), std::vector<std::string>{"Remapped"});
  EXPECT_TRUE(changed);
}

TEST(MortonRemap, NoOp_SubgroupLocalInvocationId) {
  bool changed = true;
  EXPECT_EQ(RunPass(Module("OpDecorate %slid BuiltIn SubgroupLocalInvocationId",
                           "%slid = OpVariable %ptr_in_uint Input", "%s = OpLoad %uint %slid"),
                    &changed),
            std::vector<std::string>{"UsesSubgroupBuiltIn"});
  EXPECT_FALSE(changed);
}

TEST(MortonRemap, SubgroupSizeDoesNotStopIt) {
  bool changed = false;
  EXPECT_EQ(RunPass(Module("OpDecorate %sgs BuiltIn SubgroupSize",
                           "%sgs = OpVariable %ptr_in_uint Input", "%s = OpLoad %uint %sgs"),
                    &changed),
            std::vector<std::string>{"Remapped"});
  EXPECT_TRUE(changed);
}

}  // namespace
}  // namespace waveopt
