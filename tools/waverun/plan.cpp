#include "tools/waverun/plan.h"

#include <algorithm>
#include <cstring>

namespace waverun {
namespace {

// Runtime descriptor arrays without count=, and pointees without size=.
constexpr uint32_t kDefaultDescriptorCount = 8;
constexpr uint64_t kDefaultPointeeElements = 1024;
// The largest allocation waverun makes for one resource.
constexpr uint64_t kMaxBytes = uint64_t{1} << 31;

ImageFormat DefaultFormat(ComponentType t) {
  switch (t) {
    case ComponentType::kInt:
      return ImageFormat::kRgba32i;
    case ComponentType::kUint:
      return ImageFormat::kRgba32ui;
    case ComponentType::kFloat:
      return ImageFormat::kRgba32f;
  }
  return ImageFormat::kRgba32f;
}

void OverwriteWords(const std::vector<uint32_t>& words, uint8_t* bytes, size_t size) {
  size_t n = std::min(words.size(), size / 4);
  if (n != 0) std::memcpy(bytes, words.data(), n * 4);
}

void WriteValue(uint8_t* base, uint64_t size, uint64_t offset, uint64_t value, uint32_t bytes) {
  if (offset + bytes > size) return;
  std::memcpy(base + offset, &value, bytes);
}

// Fills |size| bytes at |base| by |layout|: the head's fields, then as many
// trailing array elements as fit. Floats in [0, 1), integers in the fill's
// range, booleans 0 or 1; pointers and padding stay zero.
void FillTyped(const Fill& fill, uint64_t seed, const BufferLayout& layout, uint8_t* base,
               uint64_t size) {
  std::memset(base, 0, size);
  Random rng(seed);
  auto fields = [&](const std::vector<Field>& fs, uint64_t at) {
    for (const Field& f : fs) {
      for (uint32_t k = 0; k < f.count; ++k) {
        uint64_t off = at + f.offset + uint64_t{k} * f.stride;
        if (off + f.bytes > size) break;
        switch (f.kind) {
          case Field::Kind::kFloat:
            WriteValue(base, size, off, TypedValue(fill, &rng, true, f.bytes), f.bytes);
            break;
          case Field::Kind::kSint:
          case Field::Kind::kUint:
            WriteValue(base, size, off, TypedValue(fill, &rng, false, f.bytes), f.bytes);
            break;
          case Field::Kind::kBool:
            WriteValue(base, size, off, rng.Next() & 1, 4);
            break;
          case Field::Kind::kPointer:
            break;
        }
      }
    }
  };
  fields(layout.head_fields, 0);
  if (layout.array_stride == 0) return;
  for (uint64_t at = layout.head_bytes; at + layout.array_stride <= size;
       at += layout.array_stride) {
    fields(layout.element_fields, at);
  }
}

// The device addresses of |layout|'s pointer fields in |size| bytes at byte
// |base_offset| of the data.
void PointerSlots(const BufferLayout& layout, uint64_t base_offset, uint64_t size,
                  std::vector<PointerSlot>* out) {
  auto fields = [&](const std::vector<Field>& fs, uint64_t at) {
    for (const Field& f : fs) {
      if (f.kind != Field::Kind::kPointer || f.pointee < 0) continue;
      for (uint32_t k = 0; k < f.count; ++k) {
        uint64_t off = at + f.offset + uint64_t{k} * f.stride;
        if (off + 8 > size) break;
        out->push_back({base_offset + off, f.pointee});
      }
    }
  };
  fields(layout.head_fields, 0);
  if (layout.array_stride == 0) return;
  bool any = false;
  for (const Field& f : layout.element_fields) any = any || f.kind == Field::Kind::kPointer;
  if (!any) return;
  for (uint64_t at = layout.head_bytes; at + layout.array_stride <= size;
       at += layout.array_stride) {
    fields(layout.element_fields, at);
  }
}

void WriteAddresses(const std::vector<PointerSlot>& slots, std::vector<uint8_t>* bytes) {
  for (const PointerSlot& s : slots) {
    uint64_t a = CanonicalAddress(s.pointee);
    if (s.offset + 8 <= bytes->size()) std::memcpy(bytes->data() + s.offset, &a, 8);
  }
}

uint64_t LabelStream(const std::string& label) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : label) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// The data of |fill| for one buffer of |size| bytes.
void FillBuffer(const Fill& fill, uint64_t seed, const BufferLayout& layout, uint8_t* base,
                uint64_t size) {
  if (fill.kind == Fill::Kind::kTyped) {
    FillTyped(fill, seed, layout, base, size);
    return;
  }
  std::vector<uint8_t> tmp(size);
  FillWords(fill, seed, &tmp);
  if (size) std::memcpy(base, tmp.data(), size);
}

}  // namespace

uint64_t CanonicalAddress(int pointee) {
  return (uint64_t{0x7000} + static_cast<uint64_t>(pointee)) << 32;
}

std::string ResourceLabel(const ResourcePlan& r) {
  if (r.res.color_location >= 0) {
    std::string s = "color output " + std::to_string(r.res.color_location);
    if (!r.res.name.empty()) s += " ('" + r.res.name + "')";
    return s;
  }
  std::string s = "binding " + BindingKeyName(r.key);
  if (!r.res.name.empty()) s += " ('" + r.res.name + "')";
  return s;
}

// The storage buffers of a fragment shader's color outputs
// (fragment_outputs.h): one per location, |words| 32-bit words each
// (RGBA per pixel), zero at first, in the set after the module's last one
// (or after its last binding in set 7).
static void ColorBuffers(const ModuleInterface& iface, uint64_t words, std::vector<Resource>* out,
                         std::map<BindingKey, BindingSpec>* specs) {
  uint32_t set = 0, last = 0;
  bool any = false;
  for (const Resource& r : iface.resources) {
    set = std::max(set, r.set);
    any = true;
  }
  set = any ? set + 1 : 0;
  uint32_t first = 0;
  if (set > 7) {
    set = 7;
    for (const Resource& r : iface.resources) {
      if (r.set == 7) last = std::max(last, r.binding);
    }
    first = last + 1;
  }
  for (const ColorOutput& o : iface.color_outputs) {
    Resource r;
    r.kind = ResourceKind::kStorageBuffer;
    r.set = set;
    r.binding = first + o.location;
    r.name = o.name;
    r.writable = r.used = true;
    r.color_location = static_cast<int32_t>(o.location);
    View v;
    v.name = o.name;
    v.writable = v.used = true;
    v.layout.array_stride = 4;
    v.layout.runtime_array = true;
    Field f;
    f.kind = o.type == ComponentType::kFloat ? Field::Kind::kFloat
             : o.type == ComponentType::kInt ? Field::Kind::kSint
                                             : Field::Kind::kUint;
    v.layout.element_fields.push_back(f);
    v.layout.type_name = "color";
    r.views.push_back(v);
    out->push_back(r);
    BindingSpec b;
    b.elements = words;
    Fill zero;
    zero.kind = Fill::Kind::kZero;
    b.fill = zero;
    (*specs)[{r.set, r.binding}] = b;
  }
}

namespace {

// Whether every value |p| holds is a float --ulp may compare: the texels
// of a float format, or a block whose scalars are all 32-bit floats.
bool FloatOutput(const ResourcePlan& p) {
  if (p.width != 0) return GetFormatInfo(p.format).numeric == waveopt::sim::TexelNumeric::kFloat;
  bool any = false;
  for (const View& v : p.res.views) {
    for (const auto* fields : {&v.layout.head_fields, &v.layout.element_fields}) {
      for (const Field& f : *fields) {
        if (f.kind != Field::Kind::kFloat || f.bytes != 4) return false;
        any = true;
      }
    }
  }
  return any;
}

// The stage's part of the plan: a draw size for fragment shaders, a
// dispatch for compute shaders.
bool PlanStage(const ModuleInterface& iface, const RunSpec& spec, Plan* plan, std::string* error) {
  if (iface.stage == Stage::kFragment) {
    if (spec.dispatch_given) {
      *error = spec.dispatch_origin +
               ": 'dispatch' is for compute shaders; a fragment shader "
               "runs with 'draw fullscreen WxH'";
      return false;
    }
    if (!spec.draw_given) {
      *error =
          "a fragment shader needs a draw size: give its spec 'draw fullscreen WxH', e.g. "
          "'draw fullscreen 37x23'";
      return false;
    }
    plan->draw_width = spec.draw_width;
    plan->draw_height = spec.draw_height;
    plan->color_outputs = iface.color_outputs;
    plan->fragment_inputs = iface.fragment_inputs;
  } else if (spec.draw_given) {
    *error = spec.draw_origin +
             ": 'draw' is for fragment shaders; a compute shader runs with "
             "'dispatch X [Y [Z]]'";
    return false;
  }
  return true;
}

// Every binding and pointer field the spec names is the module's.
bool CheckSpecNames(const ModuleInterface& iface, const RunSpec& spec, std::string* error) {
  for (const auto& entry : spec.bindings) {
    bool found = false;
    for (const Resource& r : iface.resources) {
      found = found || (BindingKey(r.set, r.binding) == entry.first);
    }
    if (!found) {
      *error = entry.second.origin + ": the module has no binding " + BindingKeyName(entry.first);
      return false;
    }
  }
  for (const auto& entry : spec.pointers) {
    bool found = false;
    for (const Pointee& p : iface.pointees) found = found || p.label == entry.first;
    if (!found) {
      *error = entry.second.origin + ": the module has no pointer field " + entry.first +
               " (pointer fields: " +
               (iface.pointees.empty() ? std::string("none") : iface.pointees[0].label + ", ...") +
               ")";
      return false;
    }
  }
  return true;
}

// The buffer waverun allocates for the module's device-address field |i|.
bool PlanPointee(const ModuleInterface& iface, size_t i, const RunSpec& spec, PointeePlan* out,
                 std::string* error) {
  const Pointee& p = iface.pointees[i];
  PointeePlan& pp = *out;
  pp.label = p.label;
  pp.layout = p.layout;
  pp.address = CanonicalAddress(static_cast<int>(i));
  if (pp.layout.array_stride == 0) {
    // A pointer to a struct: the struct repeated, for pointer arithmetic.
    pp.layout.element_fields = pp.layout.head_fields;
    pp.layout.head_fields.clear();
    pp.layout.array_stride =
        static_cast<uint32_t>(std::max<uint64_t>((pp.layout.head_bytes + 3) & ~uint64_t{3}, 4));
    pp.layout.head_bytes = 0;
    pp.layout.runtime_array = true;
  }
  static const PointerSpec kNoPointer;
  auto it = spec.pointers.find(p.label);
  const PointerSpec& ps = it == spec.pointers.end() ? kNoPointer : it->second;
  pp.elements = ps.elements ? *ps.elements : kDefaultPointeeElements;
  uint64_t bytes = pp.layout.head_bytes + pp.elements * pp.layout.array_stride;
  bytes = (std::max<uint64_t>(bytes, 4) + 3) & ~uint64_t{3};
  if (bytes > kMaxBytes || bytes >= kPointeeAddressSpan) {
    *error = "pointer " + p.label + ": " + std::to_string(bytes) + " bytes is too large";
    return false;
  }
  pp.initial.resize(bytes);
  FillBuffer(ps.fill ? *ps.fill : Fill(), StreamSeed(spec.seed, LabelStream(p.label)), pp.layout,
             pp.initial.data(), bytes);
  PointerSlots(pp.layout, 0, bytes, &pp.pointers);
  WriteAddresses(pp.pointers, &pp.initial);
  OverwriteWords(ps.words, pp.initial.data(), pp.initial.size());
  if (ps.compare) {
    pp.compare = *ps.compare;
    if (pp.compare.kind == Compare::Kind::kMultisetCount) {
      *error = "pointer " + p.label + ": multiset-count is for bindings";
      return false;
    }
  }
  return true;
}

// An image's or a texel buffer's size (WxHxD), from the spec.
bool PlanImageSize(const Resource& r, const BindingSpec& b, const std::string& label,
                   ResourcePlan* out, std::string* error) {
  ResourcePlan& p = *out;
  const bool texel_buffer = IsTexelBufferKind(r.kind);
  bool one_d = r.dim == ImageDim::k1D || texel_buffer;
  if (b.elements && !one_d) {
    *error = label + ": a " + ImageDimName(r.dim, r.arrayed) + " image's size is " +
             (r.dim == ImageDim::k3D || r.arrayed ? "WxHxD" : "WxH");
    return false;
  }
  if (one_d && b.elements) {
    p.width = static_cast<uint32_t>(std::min<uint64_t>(*b.elements, UINT32_MAX));
    p.height = 1;
    p.depth = 1;
  } else if (b.width != 0) {
    p.width = b.width;
    p.height = b.height;
    p.depth = b.depth;
    if (texel_buffer) {
      *error = label + ": a texel buffer's size is its texel count, e.g. size=256";
      return false;
    }
    if (r.dim == ImageDim::k1D) {
      // 1-D: WxL (arrayed: L layers).
      if (!r.arrayed || b.depth != 0) {
        *error = label + ": a 1-D image's size is W" + (r.arrayed ? "xL" : "");
        return false;
      }
      p.depth = b.height;
      p.height = 1;
    }
  } else {
    std::string example = texel_buffer               ? "size=256"
                          : r.dim == ImageDim::k1D   ? (r.arrayed ? "size=64x4" : "size=64")
                          : r.dim == ImageDim::k3D   ? "size=16x16x16"
                          : r.dim == ImageDim::kCube ? (r.arrayed ? "size=16x16x12" : "size=16x16")
                          : r.arrayed                ? "size=16x16x4"
                                                     : "size=16x16";
    *error = label + " is not covered: give it a size, e.g. 'binding " + BindingKeyName(p.key) +
             " " + example + "'";
    return false;
  }
  if (p.depth == 0) p.depth = r.dim == ImageDim::kCube ? 6 : 1;
  if (r.dim == ImageDim::kCube) {
    if (p.width != p.height || p.depth % 6 != 0 || (!r.arrayed && p.depth != 6)) {
      *error = label + ": a cube image is square with 6 faces per cube (e.g. size=16x16" +
               std::string(r.arrayed ? "x12" : "") + ")";
      return false;
    }
  } else if (p.depth != 1 && r.dim != ImageDim::k3D && !r.arrayed) {
    *error = label + ": only 3-D and arrayed images have a third size";
    return false;
  }
  return true;
}

// An image's or a texel buffer's format and texels.
bool PlanTexels(const Resource& r, const BindingSpec& b, const RunSpec& spec,
                const std::string& label, ResourcePlan* out, std::string* error) {
  ResourcePlan& p = *out;
  Fill fill = b.fill ? *b.fill : Fill();
  // Format.
  ImageFormat declared = r.format;
  if (b.format && declared != ImageFormat::kUnknown && *b.format != declared) {
    *error = label + ": format= disagrees with the module's " + GetFormatInfo(declared).name;
    return false;
  }
  p.format = b.format                            ? *b.format
             : declared != ImageFormat::kUnknown ? declared
                                                 : DefaultFormat(r.sampled_type);
  if (FormatComponentType(p.format) != r.sampled_type) {
    *error = label + ": format " + GetFormatInfo(p.format).name + " does not match the shader's " +
             (r.sampled_type == ComponentType::kFloat ? "float"
              : r.sampled_type == ComponentType::kInt ? "int"
                                                      : "uint") +
             " texels";
    return false;
  }
  uint64_t texels = uint64_t{p.width} * p.height * p.depth;
  p.element_bytes = texels * GetFormatInfo(p.format).bytes;
  if (p.element_bytes * p.count > kMaxBytes) {
    *error = label + ": " + std::to_string(p.element_bytes * p.count) + " bytes is too large";
    return false;
  }
  p.initial.resize(p.element_bytes * p.count);
  for (uint32_t e = 0; e < p.count; ++e) {
    uint64_t seed = StreamSeed(spec.seed, (uint64_t{r.set} << 32) | r.binding);
    if (e > 0) seed = StreamSeed(seed, e);
    std::vector<uint8_t> texel_bytes(p.element_bytes);
    FillTexels(fill, seed, p.format, &texel_bytes);
    OverwriteWords(b.words, texel_bytes.data(), texel_bytes.size());
    if (!texel_bytes.empty()) {
      std::memcpy(p.initial.data() + e * p.element_bytes, texel_bytes.data(), p.element_bytes);
    }
  }
  return true;
}

// A buffer's size (its runtime array's length from the spec) and contents.
bool PlanBuffer(const Resource& r, const BindingSpec& b, const RunSpec& spec,
                const std::string& label, ResourcePlan* out, std::string* error) {
  ResourcePlan& p = *out;
  Fill fill = b.fill ? *b.fill : Fill();
  if (b.width != 0 || b.format) {
    *error = label + ": size=WxH and format= are for images";
    return false;
  }
  const BufferLayout& main = r.layout();
  bool runtime = false;
  uint64_t max_runtime_stride = 0;
  for (const View& v : r.views) {
    if (v.layout.runtime_array) {
      runtime = true;
      max_runtime_stride = std::max<uint64_t>(max_runtime_stride, v.layout.array_stride);
    }
  }
  if (runtime) {
    if (!b.elements) {
      *error = label + " is not covered: its runtime array needs a length, e.g. 'binding " +
               BindingKeyName(p.key) + " size=256'";
      return false;
    }
    p.elements = *b.elements;
  } else {
    if (b.elements) {
      *error = label + ": size= is only for blocks that end in a runtime array";
      return false;
    }
    p.elements = main.array_length;
  }
  uint64_t bytes = 0;
  for (const View& v : r.views) {
    uint64_t need = v.layout.runtime_array ? v.layout.head_bytes + p.elements * max_runtime_stride
                                           : v.layout.head_bytes + uint64_t{v.layout.array_length} *
                                                                       v.layout.array_stride;
    bytes = std::max(bytes, need);
  }
  if (bytes == 0) bytes = 4;  // a zero-length buffer cannot be bound
  bytes = (bytes + 3) & ~uint64_t{3};
  if (bytes * p.count > kMaxBytes) {
    *error = label + ": " + std::to_string(bytes * p.count) + " bytes is too large";
    return false;
  }
  p.element_bytes = bytes;
  p.initial.resize(bytes * p.count);
  for (uint32_t e = 0; e < p.count; ++e) {
    uint64_t seed = StreamSeed(spec.seed, (uint64_t{r.set} << 32) | r.binding);
    if (e > 0) seed = StreamSeed(seed, e);
    uint8_t* base = p.initial.data() + e * bytes;
    FillBuffer(fill, seed, r.views[0].layout, base, bytes);
    for (const View& v : r.views) PointerSlots(v.layout, e * bytes, bytes, &p.pointers);
  }
  WriteAddresses(p.pointers, &p.initial);
  for (uint32_t e = 0; e < p.count; ++e) {
    OverwriteWords(b.words, p.initial.data() + e * bytes, bytes);
  }
  return true;
}

// How the resource's outputs are compared.
bool PlanCompare(const ModuleInterface& iface, const Resource& r, const BindingSpec& b,
                 const RunSpec& spec, const std::string& label, ResourcePlan* out,
                 std::string* error) {
  ResourcePlan& p = *out;
  if (b.compare) {
    if (!r.writable) {
      *error = label + " is read-only: compare= does not apply";
      return false;
    }
    p.compare = *b.compare;
    bool multiset = p.compare.kind == Compare::Kind::kMultiset ||
                    p.compare.kind == Compare::Kind::kMultisetCount;
    if (multiset && IsBufferKind(r.kind) && r.layout().array_stride == 0) {
      *error = label + ": multiset compare needs a block that ends in an array";
      return false;
    }
    if (p.compare.kind == Compare::Kind::kMultisetCount) {
      bool counter_found = false;
      for (const Resource& c : iface.resources) {
        counter_found =
            counter_found || (c.set == p.compare.counter_set &&
                              c.binding == p.compare.counter_binding && IsBufferKind(c.kind));
      }
      if (!counter_found) {
        *error = label + ": counter binding " +
                 BindingKeyName({p.compare.counter_set, p.compare.counter_binding}) +
                 " is not a buffer of the module";
        return false;
      }
    }
  }
  if (!b.compare && spec.float_ulps && r.writable && FloatOutput(p)) {
    p.compare.kind = Compare::Kind::kUlp;
    p.compare.ulps = *spec.float_ulps;
  }
  return true;
}

// One binding (or color output) of the module: descriptors, size, contents,
// compare mode.
bool PlanResource(const ModuleInterface& iface, const Resource& r, const RunSpec& spec,
                  const std::map<BindingKey, BindingSpec>& color_specs, ResourcePlan* out,
                  std::string* error) {
  ResourcePlan& p = *out;
  p.res = r;
  p.key = {r.set, r.binding};
  static const BindingSpec kNone;
  const std::map<BindingKey, BindingSpec>& specs =
      r.color_location >= 0 ? color_specs : spec.bindings;
  auto it = specs.find(p.key);
  const BindingSpec& b = it == specs.end() ? kNone : it->second;
  std::string label = ResourceLabel(p) + " (" + ResourceKindName(r.kind) + ")";
  // Descriptors.
  if (b.count && !(r.descriptor_array && r.descriptor_count == 0)) {
    *error = label + ": count= is for runtime-sized descriptor arrays";
    return false;
  }
  p.count = r.descriptor_count != 0 ? r.descriptor_count
            : b.count               ? *b.count
                                    : kDefaultDescriptorCount;
  bool ok = true;
  if (r.kind == ResourceKind::kSampler) {
    if (b.elements || b.width || b.fill || b.format || !b.words.empty() || b.compare) {
      *error = label + ": a sampler takes no size, fill, format, words or compare";
      return false;
    }
    p.element_bytes = 0;
  } else if (IsImageKind(r.kind) || IsTexelBufferKind(r.kind)) {
    ok = PlanImageSize(r, b, label, &p, error) && PlanTexels(r, b, spec, label, &p, error);
  } else {
    ok = PlanBuffer(r, b, spec, label, &p, error);
  }
  return ok && PlanCompare(iface, r, b, spec, label, &p, error);
}

// Push constants: their contents, or none.
bool PlanPush(const ModuleInterface& iface, const RunSpec& spec, Plan* plan, std::string* error) {
  if (iface.push_constant_bytes > 0) {
    plan->push.resize((iface.push_constant_bytes + 3) & ~3u);
    Fill fill = spec.push_fill ? *spec.push_fill : Fill();
    BufferLayout layout;
    layout.head_fields = iface.push_fields;
    layout.head_bytes = iface.push_constant_bytes;
    FillBuffer(fill, StreamSeed(spec.seed, ~uint64_t{0}), layout, plan->push.data(),
               plan->push.size());
    PointerSlots(layout, 0, plan->push.size(), &plan->push_pointers);
    WriteAddresses(plan->push_pointers, &plan->push);
    OverwriteWords(spec.push_words, plan->push.data(), plan->push.size());
  } else if (spec.push_fill || !spec.push_words.empty()) {
    *error = "the spec fills push constants but the module has none";
    return false;
  }
  return true;
}

// Only the constants the spec sets, each one the module's.
bool PlanConstants(const ModuleInterface& iface, const RunSpec& spec, Plan* plan,
                   std::string* error) {
  // Only the constants the spec sets: the others keep the module's defaults
  // (a module may declare one SpecId twice with different defaults).
  for (const SpecConstant& sc : iface.spec_constants) {
    auto it = spec.constants.find(sc.constant_id);
    if (it != spec.constants.end())
      plan->constants.push_back({sc.constant_id, sc.bytes, it->second});
  }
  for (const auto& c : spec.constants) {
    bool found = false;
    for (const SpecConstant& sc : iface.spec_constants) found = found || sc.constant_id == c.first;
    if (!found) {
      *error = "the module has no specialization constant " + std::to_string(c.first);
      return false;
    }
  }
  return true;
}

}  // namespace

bool BuildPlan(const ModuleInterface& iface, const RunSpec& spec, Plan* plan, std::string* error) {
  *plan = Plan();
  for (int i = 0; i < 3; ++i) plan->dispatch[i] = spec.dispatch[i];
  plan->reps = spec.reps;
  plan->stage = iface.stage;
  if (!PlanStage(iface, spec, plan, error) || !CheckSpecNames(iface, spec, error)) return false;
  // Pointees: buffers waverun allocates for device-address fields.
  for (size_t i = 0; i < iface.pointees.size(); ++i) {
    PointeePlan pp;
    if (!PlanPointee(iface, i, spec, &pp, error)) return false;
    plan->pointees.push_back(std::move(pp));
  }
  std::vector<Resource> resources = iface.resources;
  std::map<BindingKey, BindingSpec> color_specs;
  if (iface.stage == Stage::kFragment) {
    ColorBuffers(iface, uint64_t{spec.draw_width} * spec.draw_height * 4, &resources, &color_specs);
  }
  for (const Resource& r : resources) {
    ResourcePlan p;
    if (!PlanResource(iface, r, spec, color_specs, &p, error)) return false;
    plan->resources.push_back(std::move(p));
  }
  return PlanPush(iface, spec, plan, error) && PlanConstants(iface, spec, plan, error);
}

Plan PlanForModule(const Plan& merged, const ModuleInterface& module, const RunSpec& spec) {
  Plan plan = merged;
  for (ResourcePlan& r : plan.resources) {
    r.declared = false;
    if (r.res.color_location >= 0) {
      for (const ColorOutput& o : module.color_outputs) {
        r.declared = r.declared || static_cast<int32_t>(o.location) == r.res.color_location;
      }
      continue;
    }
    for (const Resource& m : module.resources) {
      if (m.set == r.key.first && m.binding == r.key.second) {
        r.declared = true;
        r.res.name = m.name.empty() ? r.res.name : m.name;
      }
    }
  }
  plan.constants.clear();
  for (const SpecConstant& sc : module.spec_constants) {
    auto it = spec.constants.find(sc.constant_id);
    if (it != spec.constants.end())
      plan.constants.push_back({sc.constant_id, sc.bytes, it->second});
  }
  return plan;
}

}  // namespace waverun
