// The simulator's texel formats (lib/sim/texel.h): the table, and the
// conversions as lavapipe does them (measured; test/lit/sim/resources.test
// checks them against lavapipe on every format).
#include "lib/sim/texel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace waveopt {
namespace sim {
namespace {

uint64_t F(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float AsFloat(uint64_t v) {
  uint32_t u = static_cast<uint32_t>(v);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(TexelTest, TableIsConsistent) {
  for (int i = 1; i < static_cast<int>(TexelFormat::kCount); ++i) {
    TexelFormat f = static_cast<TexelFormat>(i);
    const TexelFormatInfo& info = GetTexelFormatInfo(f);
    EXPECT_EQ(TexelFormatFromSpirv(info.spirv), f) << info.name;
    TexelFormat parsed;
    ASSERT_TRUE(ParseTexelFormat(info.name, &parsed)) << info.name;
    EXPECT_EQ(parsed, f);
    uint32_t bits = 0;
    for (uint32_t c = 0; c < info.components; ++c) bits += info.bits[c];
    EXPECT_EQ(bits, info.packed ? 32u : info.bytes * 8) << info.name;
  }
  TexelFormat f;
  EXPECT_TRUE(ParseTexelFormat("r11g11b10f", &f));
  EXPECT_EQ(f, TexelFormat::kR11fG11fB10f);
  EXPECT_FALSE(ParseTexelFormat("bgra8", &f));
  EXPECT_EQ(TexelFormatFromSpirv(0), TexelFormat::kUnknown);
}

TEST(TexelTest, MissingComponentsReadAsZeroAndOne) {
  uint8_t p[4] = {0x80, 0, 0, 0};
  uint64_t out[4];
  DecodeTexel(TexelFormat::kR8, p, out);
  EXPECT_EQ(AsFloat(out[0]), 128.0f * (1.0f / 255.0f));
  EXPECT_EQ(out[1], 0u);
  EXPECT_EQ(AsFloat(out[3]), 1.0f);
  DecodeTexel(TexelFormat::kR8ui, p, out);
  EXPECT_EQ(out[0], 128u);
  EXPECT_EQ(out[3], 1u);
  DecodeTexel(TexelFormat::kR8i, p, out);
  EXPECT_EQ(out[0], 0xffffff80u);  // -128, as a 32-bit pattern
}

TEST(TexelTest, NarrowIntegersSaturate) {
  uint8_t p[8] = {};
  uint64_t v[4] = {300, 0, 0, 0};
  EncodeTexel(TexelFormat::kR8ui, v, p);
  EXPECT_EQ(p[0], 255);
  uint64_t s[4] = {static_cast<uint32_t>(-200), static_cast<uint32_t>(40000), 0, 0};
  EncodeTexel(TexelFormat::kRg16i, s, p);
  int16_t h[2];
  std::memcpy(h, p, 4);
  EXPECT_EQ(h[0], -200);
  EXPECT_EQ(h[1], 32767);
  uint64_t packed[4] = {2000, 5, 1023, 7};
  EncodeTexel(TexelFormat::kRgb10A2ui, packed, p);
  uint32_t w;
  std::memcpy(&w, p, 4);
  EXPECT_EQ(w, 1023u | (5u << 10) | (1023u << 20) | (3u << 30));
}

TEST(TexelTest, NormalizedRoundToNearestAndNaNIsOne) {
  uint8_t p[4] = {};
  uint64_t v[4] = {F(0.5f), F(-1.0f), F(NAN), F(2.0f)};
  EncodeTexel(TexelFormat::kRgba8, v, p);
  EXPECT_EQ(p[0], 128);  // 127.5 rounds to even
  EXPECT_EQ(p[1], 0);
  EXPECT_EQ(p[2], 255);
  EXPECT_EQ(p[3], 255);
  EncodeTexel(TexelFormat::kRgba8Snorm, v, p);
  EXPECT_EQ(p[0], 64);  // 63.5 -> 64
  EXPECT_EQ(static_cast<int8_t>(p[1]), -127);
  EXPECT_EQ(p[2], 127);
}

TEST(TexelTest, SmallFloatsTruncate) {
  uint8_t p[4] = {};
  uint64_t v[4] = {F(NAN), F(INFINITY), F(-3.0f), 0};
  EncodeTexel(TexelFormat::kR11fG11fB10f, v, p);
  uint32_t w;
  std::memcpy(&w, p, 4);
  EXPECT_EQ(w & 0x7ffu, 0x7e0u);          // NaN: exponent 31, top mantissa bit
  EXPECT_EQ((w >> 11) & 0x7ffu, 0x7c0u);  // infinity
  EXPECT_EQ(w >> 22, 0u);                 // negative: 0
  uint64_t one[4] = {F(1.0f + 1.0f / 128.0f), F(1.0f), F(0.5f), 0};
  EncodeTexel(TexelFormat::kR11fG11fB10f, one, p);
  uint64_t out[4];
  DecodeTexel(TexelFormat::kR11fG11fB10f, p, out);
  EXPECT_EQ(AsFloat(out[0]), 1.0f);  // 6 mantissa bits: the 1/128 is cut
  EXPECT_EQ(AsFloat(out[1]), 1.0f);
  EXPECT_EQ(AsFloat(out[2]), 0.5f);
  EXPECT_EQ(AsFloat(out[3]), 1.0f);
}

}  // namespace
}  // namespace sim
}  // namespace waveopt
