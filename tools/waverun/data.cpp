#include "tools/waverun/data.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace waverun {
namespace {

const FormatInfo kFormats[] = {
    {"unknown", 0, 0, ComponentType::kFloat, false},
    {"r32ui", 1, 4, ComponentType::kUint, false},
    {"r32i", 1, 4, ComponentType::kInt, false},
    {"r32f", 1, 4, ComponentType::kFloat, false},
    {"rgba8", 4, 1, ComponentType::kFloat, true},
    {"rgba16f", 4, 2, ComponentType::kFloat, false},
    {"rgba32f", 4, 4, ComponentType::kFloat, false},
    {"rgba32ui", 4, 4, ComponentType::kUint, false},
    {"rgba32i", 4, 4, ComponentType::kInt, false},
};

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
  if (!t.empty() && (t.back() == 'f' || t.back() == 'F') &&
      t.find("inf") == std::string::npos) {
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
  }
  return 0;
}

}  // namespace

const FormatInfo& GetFormatInfo(ImageFormat format) {
  return kFormats[static_cast<int>(format)];
}

bool ParseImageFormat(const std::string& name, ImageFormat* format) {
  for (size_t i = 1; i < sizeof(kFormats) / sizeof(kFormats[0]); ++i) {
    if (name == kFormats[i].name) {
      *format = static_cast<ImageFormat>(i);
      return true;
    }
  }
  return false;
}

bool ParseValue(const std::string& text, uint32_t* bits, bool* is_float) {
  bool looks_float = text.find('.') != std::string::npos ||
                     text.find("inf") != std::string::npos ||
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
  } else {
    ok = false;
  }
  if (!ok) {
    *error = "bad fill '" + text +
             "' (expected random, zero, seq[:START[:STEP]], mod:N, float:LO:HI or const:V)";
    return false;
  }
  *fill = f;
  return true;
}

std::string FillName(const Fill& fill) {
  switch (fill.kind) {
    case Fill::Kind::kRandom: return "random";
    case Fill::Kind::kZero: return "zero";
    case Fill::Kind::kSequence:
      return "seq:" + std::to_string(fill.start) + ":" + std::to_string(fill.step);
    case Fill::Kind::kModulo: return "mod:" + std::to_string(fill.modulus);
    case Fill::Kind::kFloat: return "float";
    case Fill::Kind::kConst: return "const";
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

void FillTexels(const Fill& fill, uint64_t seed, ImageFormat format,
                std::vector<uint8_t>* bytes) {
  const FormatInfo& info = GetFormatInfo(format);
  Random rng(seed);
  bool as_float = info.type == ComponentType::kFloat;
  size_t count = bytes->size() / info.component_bytes;
  for (size_t i = 0; i < count; ++i) {
    uint8_t* dst = bytes->data() + i * info.component_bytes;
    if (info.component_bytes == 4) {
      uint32_t v = NextValue(fill, &rng, i, as_float);
      std::memcpy(dst, &v, 4);
    } else if (info.component_bytes == 2) {  // 16-bit float
      uint16_t h = FloatToHalf(BitsFloat(NextValue(fill, &rng, i, true)));
      std::memcpy(dst, &h, 2);
    } else {  // unorm8: integers are raw bytes, floats are scaled
      if (fill.kind == Fill::Kind::kFloat || fill.kind == Fill::Kind::kRandom ||
          (fill.kind == Fill::Kind::kConst && fill.value_is_float)) {
        float f = BitsFloat(NextValue(fill, &rng, i, true));
        f = f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
        *dst = static_cast<uint8_t>(std::lround(f * 255.0f));
      } else {
        *dst = static_cast<uint8_t>(NextValue(fill, &rng, i, false));
      }
    }
  }
}

}  // namespace waverun
