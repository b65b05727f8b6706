// Texel formats: the table and the conversions between a texel's bytes and
// the values a shader reads and writes. Rounding follows lavapipe (Mesa
// 22.3), measured: see docs/sim.md.
#include "lib/sim/texel.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "lib/sim/half.h"

namespace waveopt {
namespace sim {
namespace {

using N = TexelNumeric;

// Indexed by TexelFormat.
const TexelFormatInfo kInfo[] = {
    {"unknown", 0, 0, 0, N::kFloat, {0, 0, 0, 0}, false},
    {"rgba32f", 1, 4, 16, N::kFloat, {32, 32, 32, 32}, false},
    {"rgba16f", 2, 4, 8, N::kFloat, {16, 16, 16, 16}, false},
    {"r32f", 3, 1, 4, N::kFloat, {32, 0, 0, 0}, false},
    {"rgba8", 4, 4, 4, N::kUnorm, {8, 8, 8, 8}, false},
    {"rgba8_snorm", 5, 4, 4, N::kSnorm, {8, 8, 8, 8}, false},
    {"rg32f", 6, 2, 8, N::kFloat, {32, 32, 0, 0}, false},
    {"rg16f", 7, 2, 4, N::kFloat, {16, 16, 0, 0}, false},
    {"r11f_g11f_b10f", 8, 3, 4, N::kFloat, {11, 11, 10, 0}, true},
    {"r16f", 9, 1, 2, N::kFloat, {16, 0, 0, 0}, false},
    {"rgba16", 10, 4, 8, N::kUnorm, {16, 16, 16, 16}, false},
    {"rgb10_a2", 11, 4, 4, N::kUnorm, {10, 10, 10, 2}, true},
    {"rg16", 12, 2, 4, N::kUnorm, {16, 16, 0, 0}, false},
    {"rg8", 13, 2, 2, N::kUnorm, {8, 8, 0, 0}, false},
    {"r16", 14, 1, 2, N::kUnorm, {16, 0, 0, 0}, false},
    {"r8", 15, 1, 1, N::kUnorm, {8, 0, 0, 0}, false},
    {"rgba16_snorm", 16, 4, 8, N::kSnorm, {16, 16, 16, 16}, false},
    {"rg16_snorm", 17, 2, 4, N::kSnorm, {16, 16, 0, 0}, false},
    {"rg8_snorm", 18, 2, 2, N::kSnorm, {8, 8, 0, 0}, false},
    {"r16_snorm", 19, 1, 2, N::kSnorm, {16, 0, 0, 0}, false},
    {"r8_snorm", 20, 1, 1, N::kSnorm, {8, 0, 0, 0}, false},
    {"rgba32i", 21, 4, 16, N::kSint, {32, 32, 32, 32}, false},
    {"rgba16i", 22, 4, 8, N::kSint, {16, 16, 16, 16}, false},
    {"rgba8i", 23, 4, 4, N::kSint, {8, 8, 8, 8}, false},
    {"r32i", 24, 1, 4, N::kSint, {32, 0, 0, 0}, false},
    {"rg32i", 25, 2, 8, N::kSint, {32, 32, 0, 0}, false},
    {"rg16i", 26, 2, 4, N::kSint, {16, 16, 0, 0}, false},
    {"rg8i", 27, 2, 2, N::kSint, {8, 8, 0, 0}, false},
    {"r16i", 28, 1, 2, N::kSint, {16, 0, 0, 0}, false},
    {"r8i", 29, 1, 1, N::kSint, {8, 0, 0, 0}, false},
    {"rgba32ui", 30, 4, 16, N::kUint, {32, 32, 32, 32}, false},
    {"rgba16ui", 31, 4, 8, N::kUint, {16, 16, 16, 16}, false},
    {"rgba8ui", 32, 4, 4, N::kUint, {8, 8, 8, 8}, false},
    {"r32ui", 33, 1, 4, N::kUint, {32, 0, 0, 0}, false},
    {"rgb10_a2ui", 34, 4, 4, N::kUint, {10, 10, 10, 2}, true},
    {"rg32ui", 35, 2, 8, N::kUint, {32, 32, 0, 0}, false},
    {"rg16ui", 36, 2, 4, N::kUint, {16, 16, 0, 0}, false},
    {"rg8ui", 37, 2, 2, N::kUint, {8, 8, 0, 0}, false},
    {"r16ui", 38, 1, 2, N::kUint, {16, 0, 0, 0}, false},
    {"r8ui", 39, 1, 1, N::kUint, {8, 0, 0, 0}, false},
    {"r64ui", 40, 1, 8, N::kUint, {64, 0, 0, 0}, false},
    {"r64i", 41, 1, 8, N::kSint, {64, 0, 0, 0}, false},
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == static_cast<size_t>(TexelFormat::kCount),
              "one row per TexelFormat");

float Bits(uint64_t v) {
  uint32_t u = static_cast<uint32_t>(v);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint64_t FromFloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Unsigned small floats of r11f_g11f_b10f: 5 exponent bits (bias 15) and
// |mant| mantissa bits, no sign.
float SmallFloatToFloat(uint32_t v, uint32_t mant_bits) {
  uint32_t exp = v >> mant_bits;
  uint32_t mant = v & ((1u << mant_bits) - 1);
  float scale = static_cast<float>(1u << mant_bits);
  if (exp == 0) return std::ldexp(static_cast<float>(mant) / scale, -14);
  if (exp == 31) return mant ? NAN : INFINITY;
  return std::ldexp(1.0f + static_cast<float>(mant) / scale, static_cast<int>(exp) - 15);
}

// Float to an unsigned small float: negative values and -0 give 0, NaN the
// quiet NaN, values past the largest finite one the largest finite one;
// rounds toward zero (all as lavapipe).
uint32_t FloatToSmallFloat(float f, uint32_t mant_bits) {
  uint32_t max_finite = (30u << mant_bits) | ((1u << mant_bits) - 1);
  if (std::isnan(f)) return (31u << mant_bits) | (1u << (mant_bits - 1));  // as lavapipe
  if (!(f > 0.0f)) return 0;
  if (std::isinf(f)) return 31u << mant_bits;
  // Through the half conversion: the same exponent range (bias 15), more
  // mantissa bits, truncated.
  uint16_t h = FloatToHalf(f, /*toward_zero=*/true);
  uint32_t he = (h >> 10) & 0x1fu, hm = h & 0x3ffu;
  if (he == 31) return max_finite;
  return (he << mant_bits) | (hm >> (10 - mant_bits));
}

uint32_t EncodeUnorm(float f, uint32_t bits) {
  float max = static_cast<float>((uint64_t{1} << bits) - 1);
  if (std::isnan(f)) return static_cast<uint32_t>(max);  // NaN stores as 1.0 on lavapipe
  f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
  return static_cast<uint32_t>(std::lrintf(f * max));
}

uint32_t EncodeSnorm(float f, uint32_t bits) {
  float max = static_cast<float>((uint64_t{1} << (bits - 1)) - 1);
  if (std::isnan(f)) return static_cast<uint32_t>(max);  // NaN stores as 1.0 on lavapipe
  f = f < -1.0f ? -1.0f : (f > 1.0f ? 1.0f : f);
  int32_t q = static_cast<int32_t>(std::lrintf(f * max));
  return static_cast<uint32_t>(q) & ((1u << bits) - 1);
}

float DecodeUnorm(uint32_t v, uint32_t bits) {
  float max = static_cast<float>((uint64_t{1} << bits) - 1);
  return static_cast<float>(v) * (1.0f / max);
}

float DecodeSnorm(uint32_t v, uint32_t bits) {
  int32_t s = static_cast<int32_t>(v << (32 - bits)) >> (32 - bits);
  float max = static_cast<float>((uint64_t{1} << (bits - 1)) - 1);
  float f = static_cast<float>(s) * (1.0f / max);
  return f < -1.0f ? -1.0f : f;
}

// Component |c| (bits |bits|) of an unpacked texel.
uint64_t ReadComponent(const uint8_t* p, uint32_t c, uint32_t bits) {
  uint64_t v = 0;
  std::memcpy(&v, p + c * (bits / 8), bits / 8);
  return v;
}

void WriteComponent(uint8_t* p, uint32_t c, uint32_t bits, uint64_t v) {
  std::memcpy(p + c * (bits / 8), &v, bits / 8);
}

}  // namespace

const TexelFormatInfo& GetTexelFormatInfo(TexelFormat format) {
  size_t i = static_cast<size_t>(format);
  return kInfo[i < static_cast<size_t>(TexelFormat::kCount) ? i : 0];
}

bool ParseTexelFormat(const std::string& name, TexelFormat* format) {
  std::string n = name;
  if (n == "r11g11b10f") n = "r11f_g11f_b10f";
  if (n == "rgb10a2") n = "rgb10_a2";
  if (n == "rgb10a2ui") n = "rgb10_a2ui";
  for (size_t i = 1; i < static_cast<size_t>(TexelFormat::kCount); ++i) {
    if (n == kInfo[i].name) {
      *format = static_cast<TexelFormat>(i);
      return true;
    }
  }
  return false;
}

TexelFormat TexelFormatFromSpirv(uint32_t spirv_format) {
  for (size_t i = 1; i < static_cast<size_t>(TexelFormat::kCount); ++i) {
    if (kInfo[i].spirv == spirv_format) return static_cast<TexelFormat>(i);
  }
  return TexelFormat::kUnknown;
}

void DecodeTexel(TexelFormat format, const uint8_t* p, uint64_t out[4]) {
  const TexelFormatInfo& info = GetTexelFormatInfo(format);
  bool is_float = TexelIsFloat(format);
  out[0] = out[1] = out[2] = 0;
  out[3] = is_float ? FromFloat(1.0f) : 1;
  if (info.packed) {
    uint32_t word;
    std::memcpy(&word, p, 4);
    uint32_t shift = 0;
    for (uint32_t c = 0; c < info.components; ++c) {
      uint32_t bits = info.bits[c];
      uint32_t v = (word >> shift) & ((1u << bits) - 1);
      shift += bits;
      if (format == TexelFormat::kR11fG11fB10f) {
        out[c] = FromFloat(SmallFloatToFloat(v, bits - 5));
      } else if (info.numeric == N::kUnorm) {
        out[c] = FromFloat(DecodeUnorm(v, bits));
      } else {
        out[c] = v;
      }
    }
    return;
  }
  for (uint32_t c = 0; c < info.components; ++c) {
    uint32_t bits = info.bits[c];
    uint64_t v = ReadComponent(p, c, bits);
    switch (info.numeric) {
      case N::kFloat:
        out[c] = bits == 16 ? FromFloat(HalfToFloat(static_cast<uint16_t>(v))) : v;
        break;
      case N::kUnorm:
        out[c] = FromFloat(DecodeUnorm(static_cast<uint32_t>(v), bits));
        break;
      case N::kSnorm:
        out[c] = FromFloat(DecodeSnorm(static_cast<uint32_t>(v), bits));
        break;
      case N::kSint:
        if (bits < 64) {
          int64_t s = static_cast<int64_t>(v << (64 - bits)) >> (64 - bits);
          out[c] = static_cast<uint64_t>(s) & 0xffffffffu;
        } else {
          out[c] = v;
        }
        break;
      case N::kUint:
        out[c] = v;
        break;
    }
  }
}

void EncodeTexel(TexelFormat format, const uint64_t in[4], uint8_t* p) {
  const TexelFormatInfo& info = GetTexelFormatInfo(format);
  if (info.packed) {
    uint32_t word = 0, shift = 0;
    for (uint32_t c = 0; c < info.components; ++c) {
      uint32_t bits = info.bits[c];
      uint32_t v;
      if (format == TexelFormat::kR11fG11fB10f) {
        v = FloatToSmallFloat(Bits(in[c]), bits - 5);
      } else if (info.numeric == N::kUnorm) {
        v = EncodeUnorm(Bits(in[c]), bits);
      } else {
        v = std::min<uint32_t>(static_cast<uint32_t>(in[c]), (1u << bits) - 1);  // saturated
      }
      word |= v << shift;
      shift += bits;
    }
    std::memcpy(p, &word, 4);
    return;
  }
  for (uint32_t c = 0; c < info.components; ++c) {
    uint32_t bits = info.bits[c];
    uint64_t v = 0;
    switch (info.numeric) {
      case N::kFloat:
        v = bits == 16 ? FloatToHalf(Bits(in[c]), /*toward_zero=*/true) : in[c];
        break;
      case N::kUnorm:
        v = EncodeUnorm(Bits(in[c]), bits);
        break;
      case N::kSnorm:
        v = EncodeSnorm(Bits(in[c]), bits);
        break;
      case N::kSint:
        if (bits < 32) {  // saturated, as lavapipe does
          int64_t x = static_cast<int32_t>(static_cast<uint32_t>(in[c]));
          int64_t hi = (int64_t{1} << (bits - 1)) - 1, lo = -(int64_t{1} << (bits - 1));
          v = static_cast<uint64_t>(std::min(std::max(x, lo), hi));
        } else {
          v = in[c];
        }
        break;
      case N::kUint:
        v = bits < 32 ? std::min<uint64_t>(in[c] & 0xffffffffu, (uint64_t{1} << bits) - 1) : in[c];
        break;
    }
    WriteComponent(p, c, bits, v);
  }
}

}  // namespace sim
}  // namespace waveopt
