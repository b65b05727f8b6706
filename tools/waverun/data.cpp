#include "tools/waverun/data.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace waverun {
namespace {

uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

float BitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

bool ParseInt64(const std::string& text, int64_t* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 0);
  if (errno != 0 || *end != '\0') {
    // Large unsigned values ("0xffffffff" fits; allow up to 2^64-1).
    errno = 0;
    unsigned long long u = std::strtoull(text.c_str(), &end, 0);
    if (errno != 0 || *end != '\0' || text[0] == '-') return false;
    v = static_cast<long long>(u);
  }
  *value = v;
  return true;
}

bool ParseFloat(const std::string& text, float* value) {
  std::string t = text;
  if (!t.empty() && (t.back() == 'f' || t.back() == 'F') && t.find("inf") == std::string::npos) {
    t.pop_back();
  }
  if (t.empty()) return false;
  char* end = nullptr;
  *value = std::strtof(t.c_str(), &end);
  return *end == '\0';
}

std::vector<std::string> SplitColon(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    size_t colon = text.find(':', begin);
    parts.push_back(text.substr(begin, colon - begin));
    if (colon == std::string::npos) break;
    begin = colon + 1;
  }
  return parts;
}

// One component value as a 32-bit pattern for a word of a buffer or a 32-bit
// integer/float component. |as_float|: the destination holds floats.
uint32_t NextValue(const Fill& fill, Random* rng, uint64_t index, bool as_float) {
  switch (fill.kind) {
    case Fill::Kind::kRandom:
      return as_float ? FloatBits(rng->NextUnit()) : rng->Next32();
    case Fill::Kind::kZero:
      return 0;
    case Fill::Kind::kSequence: {
      int64_t v = fill.start + fill.step * static_cast<int64_t>(index);
      return as_float ? FloatBits(static_cast<float>(v)) : static_cast<uint32_t>(v);
    }
    case Fill::Kind::kModulo: {
      uint32_t v = static_cast<uint32_t>(rng->Next() % fill.modulus);
      return as_float ? FloatBits(static_cast<float>(v)) : v;
    }
    case Fill::Kind::kFloat:
      return FloatBits(fill.lo + (fill.hi - fill.lo) * rng->NextUnit());
    case Fill::Kind::kConst:
      if (as_float && !fill.value_is_float) {
        return FloatBits(static_cast<float>(static_cast<int32_t>(fill.value_bits)));
      }
      return fill.value_bits;
    case Fill::Kind::kTyped:
      return static_cast<uint32_t>(TypedValue(fill, rng, as_float, 4));
  }
  return 0;
}

}  // namespace

const FormatInfo& GetFormatInfo(ImageFormat format) {
  return waveopt::sim::GetTexelFormatInfo(format);
}

ComponentType FormatComponentType(ImageFormat format) {
  switch (GetFormatInfo(format).numeric) {
    case waveopt::sim::TexelNumeric::kSint:
      return ComponentType::kInt;
    case waveopt::sim::TexelNumeric::kUint:
      return ComponentType::kUint;
    default:
      return ComponentType::kFloat;
  }
}

bool ParseImageFormat(const std::string& name, ImageFormat* format) {
  return waveopt::sim::ParseTexelFormat(name, format);
}

uint64_t TypedValue(const Fill& fill, Random* rng, bool is_float, uint32_t bytes) {
  if (is_float) {
    float f = rng->NextUnit();
    if (bytes == 2) return FloatToHalf(f);
    if (bytes == 8) {
      double d = static_cast<double>(f);
      uint64_t u;
      std::memcpy(&u, &d, 8);
      return u;
    }
    return FloatBits(f);
  }
  uint64_t span = static_cast<uint64_t>(fill.int_hi - fill.int_lo);
  int64_t v = fill.int_lo + static_cast<int64_t>(span == 0 ? 0 : rng->Next() % span);
  uint64_t u = static_cast<uint64_t>(v);
  return bytes >= 8 ? u : u & ((uint64_t{1} << (8 * bytes)) - 1);
}

bool ParseValue(const std::string& text, uint32_t* bits, bool* is_float) {
  bool looks_float = text.find('.') != std::string::npos || text.find("inf") != std::string::npos ||
                     text.find("nan") != std::string::npos ||
                     (text.find("0x") == std::string::npos &&
                      (text.find('e') != std::string::npos ||
                       (!text.empty() && (text.back() == 'f' || text.back() == 'F'))));
  if (looks_float) {
    float f;
    if (!ParseFloat(text, &f)) return false;
    *bits = FloatBits(f);
    *is_float = true;
    return true;
  }
  int64_t v;
  if (!ParseInt64(text, &v)) return false;
  if (v < INT32_MIN || v > static_cast<int64_t>(UINT32_MAX)) return false;
  *bits = static_cast<uint32_t>(v);
  *is_float = false;
  return true;
}

bool ParseFill(const std::string& text, Fill* fill, std::string* error) {
  std::vector<std::string> p = SplitColon(text);
  Fill f;
  const std::string& k = p[0];
  bool ok = true;
  if (k == "random" && p.size() == 1) {
    f.kind = Fill::Kind::kRandom;
  } else if (k == "zero" && p.size() == 1) {
    f.kind = Fill::Kind::kZero;
  } else if (k == "seq" && p.size() <= 3) {
    f.kind = Fill::Kind::kSequence;
    if (p.size() > 1) ok = ParseInt64(p[1], &f.start);
    if (ok && p.size() > 2) ok = ParseInt64(p[2], &f.step);
  } else if (k == "mod" && p.size() == 2) {
    int64_t n = 0;
    f.kind = Fill::Kind::kModulo;
    ok = ParseInt64(p[1], &n) && n >= 1 && n <= static_cast<int64_t>(UINT32_MAX);
    f.modulus = static_cast<uint32_t>(n);
  } else if (k == "float" && p.size() == 3) {
    f.kind = Fill::Kind::kFloat;
    ok = ParseFloat(p[1], &f.lo) && ParseFloat(p[2], &f.hi) && f.lo <= f.hi;
  } else if (k == "const" && p.size() == 2) {
    f.kind = Fill::Kind::kConst;
    ok = ParseValue(p[1], &f.value_bits, &f.value_is_float);
  } else if (k == "typed" && (p.size() == 1 || p.size() == 3)) {
    f.kind = Fill::Kind::kTyped;
    if (p.size() == 3) {
      ok = ParseInt64(p[1], &f.int_lo) && ParseInt64(p[2], &f.int_hi) && f.int_lo < f.int_hi;
    }
  } else {
    ok = false;
  }
  if (!ok) {
    *error = "bad fill '" + text +
             "' (expected random, zero, seq[:START[:STEP]], mod:N, float:LO:HI, const:V or "
             "typed[:LO:HI])";
    return false;
  }
  *fill = f;
  return true;
}

std::string FillName(const Fill& fill) {
  switch (fill.kind) {
    case Fill::Kind::kRandom:
      return "random";
    case Fill::Kind::kZero:
      return "zero";
    case Fill::Kind::kSequence:
      return "seq:" + std::to_string(fill.start) + ":" + std::to_string(fill.step);
    case Fill::Kind::kModulo:
      return "mod:" + std::to_string(fill.modulus);
    case Fill::Kind::kFloat: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "float:%.9g:%.9g", static_cast<double>(fill.lo),
                    static_cast<double>(fill.hi));
      return buf;
    }
    case Fill::Kind::kConst: {
      if (fill.value_is_float) {
        char buf[48];
        std::snprintf(buf, sizeof(buf), "const:%.9g",
                      static_cast<double>(BitsFloat(fill.value_bits)));
        std::string t = buf;
        if (t.find_first_of(".en") == std::string::npos) t += ".0";
        return t;
      }
      return "const:" + std::to_string(static_cast<int32_t>(fill.value_bits));
    }
    case Fill::Kind::kTyped:
      return "typed:" + std::to_string(fill.int_lo) + ":" + std::to_string(fill.int_hi);
  }
  return "?";
}

uint64_t Random::Next() {
  state_ += 0x9e3779b97f4a7c15ull;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t StreamSeed(uint64_t seed, uint64_t stream) {
  Random r(seed * 0x100000001b3ull ^ (stream + 0x51ed27u));
  r.Next();
  return r.Next();
}

void FillWords(const Fill& fill, uint64_t seed, std::vector<uint8_t>* bytes) {
  Random rng(seed);
  bool as_float = fill.kind == Fill::Kind::kFloat;
  for (size_t i = 0; i + 4 <= bytes->size(); i += 4) {
    uint32_t v = NextValue(fill, &rng, i / 4, as_float);
    std::memcpy(bytes->data() + i, &v, 4);
  }
}

void FillTexels(const Fill& fill, uint64_t seed, ImageFormat format, std::vector<uint8_t>* bytes) {
  const FormatInfo& info = GetFormatInfo(format);
  if (info.bytes == 0) return;
  Random rng(seed);
  bool shader_float = FormatComponentType(format) == ComponentType::kFloat;
  bool normalized = info.numeric == waveopt::sim::TexelNumeric::kUnorm ||
                    info.numeric == waveopt::sim::TexelNumeric::kSnorm;
  bool float_fill = fill.kind == Fill::Kind::kFloat || fill.kind == Fill::Kind::kRandom ||
                    fill.kind == Fill::Kind::kTyped ||
                    (fill.kind == Fill::Kind::kConst && fill.value_is_float);
  size_t texels = bytes->size() / info.bytes;
  for (size_t t = 0; t < texels; ++t) {
    uint8_t* dst = bytes->data() + t * info.bytes;
    uint64_t v[4] = {0, 0, 0, 0};
    for (uint32_t c = 0; c < info.components; ++c) {
      uint64_t index = t * info.components + c;
      if (waveopt::sim::TexelIs64(format)) {
        if (fill.kind == Fill::Kind::kTyped) {
          v[c] = TypedValue(fill, &rng, false, 8);
        } else {
          v[c] = NextValue(fill, &rng, index, false);
          if (fill.kind == Fill::Kind::kRandom) v[c] |= uint64_t{rng.Next32()} << 32;
        }
      } else {
        v[c] = NextValue(fill, &rng, index, shader_float && (float_fill || !normalized));
      }
    }
    if (normalized && !float_fill) {
      // Integer fills of normalized formats give the stored bits.
      uint32_t word = 0, shift = 0;
      for (uint32_t c = 0; c < info.components; ++c) {
        uint32_t b = info.bits[c];
        uint64_t raw = v[c] & ((uint64_t{1} << b) - 1);
        if (info.packed) {
          word |= static_cast<uint32_t>(raw) << shift;
          shift += b;
        } else {
          std::memcpy(dst + c * (b / 8), &raw, b / 8);
        }
      }
      if (info.packed) std::memcpy(dst, &word, 4);
      continue;
    }
    waveopt::sim::EncodeTexel(format, v, dst);
  }
}

}  // namespace waverun
