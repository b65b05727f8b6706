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

// Where a byte offset (from the start of one descriptor's data) lies, for
// messages: "word 17", plus "texel (x,y)" for images ("(x,y,z)" with layers
// or depth).
std::string Position(const ResourcePlan* r, size_t offset) {
  std::string s = "word " + std::to_string(offset / 4);
  if (r && r->width != 0) {
    const FormatInfo& info = GetFormatInfo(r->format);
    size_t texel = offset / info.bytes;
    size_t x = texel % r->width, y = (texel / r->width) % std::max<uint32_t>(r->height, 1);
    size_t z = texel / (size_t{r->width} * std::max<uint32_t>(r->height, 1));
    s += " = texel (" + std::to_string(x) + "," + std::to_string(y) +
         (r->depth > 1 ? "," + std::to_string(z) : std::string()) + ")";
  }
  return s;
}

// The texel of |r| at byte |offset| of |bytes| as the shader sees it, with
// its format: "rgba16f (1, 0.5, 0.25, 1)" (floats of float, unorm and snorm
// formats; signed or unsigned integers).
std::string ShowTexel(const ResourcePlan& r, const std::vector<uint8_t>& bytes, size_t offset) {
  const FormatInfo& info = GetFormatInfo(r.format);
  if (info.components == 0 || offset + info.bytes > bytes.size()) return "?";
  uint64_t c[4];
  waveopt::sim::DecodeTexel(r.format, bytes.data() + offset, c);
  std::string s = std::string(info.name) + " (";
  for (uint32_t i = 0; i < info.components; ++i) {
    char buf[40];
    if (waveopt::sim::TexelIsFloat(r.format)) {
      float f;
      const uint32_t bits = static_cast<uint32_t>(c[i]);
      std::memcpy(&f, &bits, 4);
      std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(f));
    } else if (info.numeric == waveopt::sim::TexelNumeric::kSint) {
      const int64_t v = waveopt::sim::TexelIs64(r.format) ? static_cast<int64_t>(c[i])
                                                          : static_cast<int32_t>(c[i]);
      std::snprintf(buf, sizeof(buf), "%" PRId64, v);
    } else {
      std::snprintf(buf, sizeof(buf), "%" PRIu64, c[i]);
    }
    s += (i ? ", " : "") + std::string(buf);
  }
  return s + ")";
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
bool CompareFlat(const ResourcePlan* r, const Compare& compare, const std::vector<uint8_t>& a,
                 const std::vector<uint8_t>& b, size_t begin, size_t end, const std::string& na,
                 const std::string& nb, std::string* message) {
  bool ulp = compare.kind == Compare::Kind::kUlp;
  bool half = ulp && r && r->width != 0 &&
              GetFormatInfo(r->format).numeric == waveopt::sim::TexelNumeric::kFloat &&
              GetFormatInfo(r->format).bits[0] == 16;
  size_t unit = half ? 2 : 4;
  size_t differing = 0, first = 0;
  for (size_t off = begin; off < end; off += unit) {
    uint32_t x = 0, y = 0;
    std::memcpy(&x, a.data() + off, std::min(unit, end - off));
    std::memcpy(&y, b.data() + off, std::min(unit, end - off));
    bool same = ulp ? WithinUlps(x, y, compare.ulps, half) : x == y;
    if (!same) {
      if (differing == 0) first = off;
      ++differing;
    }
  }
  if (differing == 0) return true;
  size_t word_off = first & ~size_t{3};
  std::string va = ShowWord(Word(a, word_off), ulp), vb = ShowWord(Word(b, word_off), ulp);
  if (r && r->width != 0) {  // texels as values, not the words that pack them
    const size_t texel =
        begin + (first - begin) / GetFormatInfo(r->format).bytes * GetFormatInfo(r->format).bytes;
    va = ShowTexel(*r, a, texel);
    vb = ShowTexel(*r, b, texel);
  }
  *message = std::to_string(differing) + " of " + std::to_string((end - begin + unit - 1) / unit) +
             (half ? " halves" : " words") + " differ, first at " + Position(r, first - begin) +
             ": " + na + "=" + va + " " + nb + "=" + vb;
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

// Multiset comparison of bytes [begin, end) of output |index|: a resource's
// descriptor (|r|) or a pointee (|layout|).
bool CompareMultiset(const Plan& plan, const ResourcePlan* r, const BufferLayout* layout,
                     const Compare& compare, const Outputs& oa, const Outputs& ob, size_t index,
                     size_t begin, size_t end_byte, const std::string& na, const std::string& nb,
                     std::string* message) {
  const std::vector<uint8_t>& a = oa[index];
  const std::vector<uint8_t>& b = ob[index];
  size_t head = 0, stride, total;
  if (r && r->width != 0) {
    stride = GetFormatInfo(r->format).bytes;
    total = (end_byte - begin) / stride;
  } else {
    head = layout->head_bytes;
    stride = layout->array_stride;
    total = stride == 0 || end_byte - begin < head ? 0 : (end_byte - begin - head) / stride;
  }
  if (head > 0) {
    Compare exact;
    if (!CompareFlat(r, exact, a, b, begin, begin + head, na, nb, message)) {
      *message = "(head before the array) " + *message;
      return false;
    }
  }
  size_t count_a = total, count_b = total;
  std::string what = "elements";
  if (compare.kind == Compare::Kind::kMultisetCount) {
    count_a = std::min<uint64_t>(CounterValue(plan, oa, compare), total);
    count_b = std::min<uint64_t>(CounterValue(plan, ob, compare), total);
    if (count_a != count_b) {
      *message = "counts differ: " + na + " has " + std::to_string(count_a) + " elements, " + nb +
                 " has " + std::to_string(count_b);
      return false;
    }
    what = "counted elements";
  }
  auto collect = [&](const std::vector<uint8_t>& bytes, size_t count) {
    std::vector<std::vector<uint8_t>> v(count);
    for (size_t i = 0; i < count; ++i) {
      size_t at = begin + head + i * stride;
      v[i].assign(bytes.begin() + at, bytes.begin() + at + stride);
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
             " differ as multisets, e.g. " + na + " has " + ShowElement(*first_a) + " that " + nb +
             " lacks" +
             (first_b ? ", " + nb + " has " + ShowElement(*first_b) + " that " + na + " lacks"
                      : std::string());
  return false;
}

}  // namespace

std::vector<CompareUnit> ComparedUnits(const Plan& plan) {
  std::vector<CompareUnit> units;
  for (size_t i = 0; i < plan.resources.size(); ++i) {
    const ResourcePlan& r = plan.resources[i];
    if (!r.res.writable || r.compare.kind == Compare::Kind::kIgnore || r.element_bytes == 0) {
      continue;
    }
    for (uint32_t e = 0; e < r.count; ++e) {
      CompareUnit u;
      u.label = ResourceLabel(r) + (r.res.descriptor_array ? "[" + std::to_string(e) + "]" : "");
      u.output = i;
      u.begin = e * r.element_bytes;
      u.end = (e + 1) * r.element_bytes;
      units.push_back(u);
    }
  }
  for (size_t k = 0; k < plan.pointees.size(); ++k) {
    const PointeePlan& p = plan.pointees[k];
    if (p.compare.kind == Compare::Kind::kIgnore) continue;
    CompareUnit u;
    u.label = "pointer " + p.label;
    u.output = plan.resources.size() + k;
    u.begin = 0;
    u.end = p.initial.size();
    units.push_back(u);
  }
  return units;
}

int CompareOutputs(const Plan& plan, const Outputs& a, const Outputs& b, const std::string& name_a,
                   const std::string& name_b, std::vector<std::string>* report,
                   const std::vector<std::string>* skip,
                   std::vector<std::string>* differing_labels) {
  int differing = 0;
  for (const CompareUnit& u : ComparedUnits(plan)) {
    if (skip && std::find(skip->begin(), skip->end(), u.label) != skip->end()) continue;
    bool is_resource = u.output < plan.resources.size();
    const ResourcePlan* r = is_resource ? &plan.resources[u.output] : nullptr;
    const PointeePlan* p = is_resource ? nullptr : &plan.pointees[u.output - plan.resources.size()];
    const Compare& compare = r ? r->compare : p->compare;
    std::string message;
    bool same;
    if (u.output >= a.size() || u.output >= b.size() || a[u.output].size() != b[u.output].size() ||
        a[u.output].size() < u.end) {
      same = false;
      message = "sizes differ";
    } else if (compare.kind == Compare::Kind::kMultiset ||
               compare.kind == Compare::Kind::kMultisetCount) {
      BufferLayout layout = r ? r->res.layout() : p->layout;
      same = CompareMultiset(plan, r, &layout, compare, a, b, u.output, u.begin, u.end, name_a,
                             name_b, &message);
    } else {
      same = CompareFlat(r, compare, a[u.output], b[u.output], u.begin, u.end, name_a, name_b,
                         &message);
    }
    if (!same) {
      ++differing;
      if (differing_labels) differing_labels->push_back(u.label);
      report->push_back(u.label + " [" + CompareName(compare) + "]: " + message);
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
