#include "tools/waverun/compare.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace waverun {
namespace {

std::string Hex32(uint32_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%08" PRIx32, v);
  return buf;
}

uint32_t Word(const std::vector<uint8_t>& bytes, size_t offset) {
  uint32_t v = 0;
  std::memcpy(&v, bytes.data() + offset, std::min<size_t>(4, bytes.size() - offset));
  return v;
}

std::string ShowWord(uint32_t v, bool as_float) {
  char buf[64];
  if (as_float) {
    float f;
    std::memcpy(&f, &v, 4);
    std::snprintf(buf, sizeof(buf), "%s (%.9g)", Hex32(v).c_str(), static_cast<double>(f));
  } else {
    std::snprintf(buf, sizeof(buf), "%s (%" PRIu32 ")", Hex32(v).c_str(), v);
  }
  return buf;
}

// Where a byte offset lies, for messages: "word 17", plus "texel (x,y)" for
// images.
std::string Position(const ResourcePlan& r, size_t offset) {
  std::string s = "word " + std::to_string(offset / 4);
  if (r.width != 0) {
    const FormatInfo& info = GetFormatInfo(r.format);
    size_t texel = offset / (info.components * info.component_bytes);
    s += " = texel (" + std::to_string(texel % r.width) + "," + std::to_string(texel / r.width) +
         ")";
  }
  return s;
}

// Orders float bit patterns so that neighbours differ by one.
int64_t OrderedFloat(uint32_t bits, int sign_bit) {
  uint32_t sign = 1u << sign_bit;
  return (bits & sign) ? -static_cast<int64_t>(bits & ~sign) : static_cast<int64_t>(bits);
}

bool WithinUlps(uint32_t a, uint32_t b, uint32_t ulps, bool half) {
  if (a == b) return true;
  int exp_shift = half ? 10 : 23;
  uint32_t exp_mask = half ? 0x1fu : 0xffu;
  uint32_t mant_mask = half ? 0x3ffu : 0x7fffffu;
  bool nan_a = ((a >> exp_shift) & exp_mask) == exp_mask && (a & mant_mask);
  bool nan_b = ((b >> exp_shift) & exp_mask) == exp_mask && (b & mant_mask);
  if (nan_a || nan_b) return nan_a && nan_b;
  int sign_bit = half ? 15 : 31;
  int64_t d = OrderedFloat(a, sign_bit) - OrderedFloat(b, sign_bit);
  return static_cast<uint64_t>(d < 0 ? -d : d) <= ulps;
}

// Exact or ULP comparison of bytes [begin, end). Returns false and sets
// |message| on a difference.
bool CompareFlat(const ResourcePlan& r, const std::vector<uint8_t>& a,
                 const std::vector<uint8_t>& b, size_t begin, size_t end,
                 const std::string& na, const std::string& nb, std::string* message) {
  bool ulp = r.compare.kind == Compare::Kind::kUlp;
  bool half = ulp && r.format == ImageFormat::kRgba16f;
  size_t unit = half ? 2 : 4;
  size_t differing = 0, first = 0;
  for (size_t off = begin; off < end; off += unit) {
    uint32_t x = 0, y = 0;
    std::memcpy(&x, a.data() + off, std::min(unit, end - off));
    std::memcpy(&y, b.data() + off, std::min(unit, end - off));
    bool same = ulp ? WithinUlps(x, y, r.compare.ulps, half) : x == y;
    if (!same) {
      if (differing == 0) first = off;
      ++differing;
    }
  }
  if (differing == 0) return true;
  size_t word_off = first & ~size_t{3};
  *message = std::to_string(differing) + " of " + std::to_string((end - begin + unit - 1) / unit) +
             (half ? " halves" : " words") + " differ, first at " + Position(r, first) + ": " +
             na + "=" + ShowWord(Word(a, word_off), ulp) + " " + nb + "=" +
             ShowWord(Word(b, word_off), ulp);
  return false;
}

std::string ShowElement(const std::vector<uint8_t>& e) {
  std::string s = "[";
  for (size_t i = 0; i < e.size(); i += 4) {
    uint32_t v = 0;
    std::memcpy(&v, e.data() + i, std::min<size_t>(4, e.size() - i));
    s += (i ? " " : "") + std::to_string(v);
  }
  return s + "]";
}

uint64_t CounterValue(const Plan& plan, const Outputs& out, const Compare& c) {
  for (size_t i = 0; i < plan.resources.size(); ++i) {
    const ResourcePlan& r = plan.resources[i];
    if (r.key == BindingKey(c.counter_set, c.counter_binding)) {
      size_t off = size_t{c.counter_word} * 4;
      return off + 4 <= out[i].size() ? Word(out[i], off) : 0;
    }
  }
  return 0;
}

bool CompareMultiset(const Plan& plan, const ResourcePlan& r, const Outputs& oa,
                     const Outputs& ob, size_t index, const std::string& na,
                     const std::string& nb, std::string* message) {
  const std::vector<uint8_t>& a = oa[index];
  const std::vector<uint8_t>& b = ob[index];
  size_t head = 0, stride, total;
  if (r.width != 0) {
    const FormatInfo& info = GetFormatInfo(r.format);
    stride = info.components * info.component_bytes;
    total = size_t{r.width} * r.height;
  } else {
    head = r.res.head_bytes;
    stride = r.res.array_stride;
    total = r.elements;
  }
  if (head > 0) {
    ResourcePlan exact = r;
    exact.compare.kind = Compare::Kind::kExact;
    if (!CompareFlat(exact, a, b, 0, head, na, nb, message)) {
      *message = "(head before the array) " + *message;
      return false;
    }
  }
  size_t count_a = total, count_b = total;
  std::string what = "elements";
  if (r.compare.kind == Compare::Kind::kMultisetCount) {
    count_a = std::min<uint64_t>(CounterValue(plan, oa, r.compare), total);
    count_b = std::min<uint64_t>(CounterValue(plan, ob, r.compare), total);
    if (count_a != count_b) {
      *message = "counts differ: " + na + " has " + std::to_string(count_a) + " elements, " +
                 nb + " has " + std::to_string(count_b);
      return false;
    }
    what = "counted elements";
  }
  auto collect = [&](const std::vector<uint8_t>& bytes, size_t count) {
    std::vector<std::vector<uint8_t>> v(count);
    for (size_t i = 0; i < count; ++i) {
      v[i].assign(bytes.begin() + head + i * stride, bytes.begin() + head + (i + 1) * stride);
    }
    std::sort(v.begin(), v.end());
    return v;
  };
  std::vector<std::vector<uint8_t>> ea = collect(a, count_a), eb = collect(b, count_b);
  // Walk both sorted lists; count the elements of |ea| that |eb| lacks.
  size_t i = 0, j = 0, only_a = 0;
  const std::vector<uint8_t>* first_a = nullptr;
  const std::vector<uint8_t>* first_b = nullptr;
  while (i < ea.size() || j < eb.size()) {
    if (j == eb.size() || (i < ea.size() && ea[i] < eb[j])) {
      if (!first_a) first_a = &ea[i];
      ++only_a;
      ++i;
    } else if (i == ea.size() || eb[j] < ea[i]) {
      if (!first_b) first_b = &eb[j];
      ++j;
    } else {
      ++i;
      ++j;
    }
  }
  if (only_a == 0) return true;
  *message = std::to_string(only_a) + " of " + std::to_string(count_a) + " " + what +
             " differ as multisets, e.g. " + na + " has " + ShowElement(*first_a) +
             " that " + nb + " lacks" +
             (first_b ? ", " + nb + " has " + ShowElement(*first_b) + " that " + na + " lacks"
                      : std::string());
  return false;
}

}  // namespace

int CompareOutputs(const Plan& plan, const Outputs& a, const Outputs& b,
                   const std::string& name_a, const std::string& name_b,
                   std::vector<std::string>* report) {
  int differing = 0;
  for (size_t i = 0; i < plan.resources.size(); ++i) {
    const ResourcePlan& r = plan.resources[i];
    if (!r.res.writable || r.compare.kind == Compare::Kind::kIgnore) continue;
    std::string message;
    bool same;
    if (a[i].size() != b[i].size()) {
      same = false;
      message = "sizes differ";
    } else if (r.compare.kind == Compare::Kind::kMultiset ||
               r.compare.kind == Compare::Kind::kMultisetCount) {
      same = CompareMultiset(plan, r, a, b, i, name_a, name_b, &message);
    } else {
      same = CompareFlat(r, a[i], b[i], 0, a[i].size(), name_a, name_b, &message);
    }
    if (!same) {
      ++differing;
      report->push_back(ResourceLabel(r) + " [" + CompareName(r.compare) + "]: " + message);
    }
  }
  return differing;
}

uint64_t Fingerprint(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace waverun
