#include "tools/waverun/plan.h"

#include <algorithm>
#include <cstring>

namespace waverun {
namespace {

ImageFormat DefaultSampledFormat(ComponentType t) {
  switch (t) {
    case ComponentType::kInt: return ImageFormat::kRgba32i;
    case ComponentType::kUint: return ImageFormat::kRgba32ui;
    case ComponentType::kFloat: return ImageFormat::kRgba32f;
  }
  return ImageFormat::kRgba32f;
}

void OverwriteWords(const std::vector<uint32_t>& words, std::vector<uint8_t>* bytes) {
  size_t n = std::min(words.size(), bytes->size() / 4);
  if (n != 0) std::memcpy(bytes->data(), words.data(), n * 4);
}

}  // namespace

std::string ResourceLabel(const ResourcePlan& r) {
  std::string s = "binding " + BindingKeyName(r.key);
  if (!r.res.name.empty()) s += " ('" + r.res.name + "')";
  return s;
}

bool BuildPlan(const ModuleInterface& iface, const RunSpec& spec, Plan* plan,
               std::string* error) {
  *plan = Plan();
  for (int i = 0; i < 3; ++i) plan->dispatch[i] = spec.dispatch[i];
  plan->reps = spec.reps;
  for (const auto& entry : spec.bindings) {
    bool found = false;
    for (const Resource& r : iface.resources) {
      found = found || (BindingKey(r.set, r.binding) == entry.first);
    }
    if (!found) {
      *error = entry.second.origin + ": the module has no binding " +
               BindingKeyName(entry.first);
      return false;
    }
  }
  for (const Resource& r : iface.resources) {
    ResourcePlan p;
    p.res = r;
    p.key = {r.set, r.binding};
    static const BindingSpec kNone;
    auto it = spec.bindings.find(p.key);
    const BindingSpec& b = it == spec.bindings.end() ? kNone : it->second;
    std::string label = ResourceLabel(p) + " (" + ResourceKindName(r.kind) + ")";
    Fill fill = b.fill ? *b.fill : Fill();
    bool is_image = r.kind == ResourceKind::kStorageImage || r.kind == ResourceKind::kSampledImage;
    if (is_image) {
      if (b.width == 0) {
        *error = label + " is not covered: give it a size, e.g. 'binding " +
                 BindingKeyName(p.key) + " size=16x16'";
        return false;
      }
      if (b.elements) {
        *error = label + ": an image size is WxH";
        return false;
      }
      p.width = b.width;
      p.height = b.height;
      if (r.kind == ResourceKind::kStorageImage) {
        if (b.format && *b.format != r.format) {
          *error = label + ": format= disagrees with the module's " +
                   GetFormatInfo(r.format).name;
          return false;
        }
        p.format = r.format;
      } else {
        p.format = b.format ? *b.format : DefaultSampledFormat(r.sampled_type);
        if (GetFormatInfo(p.format).type != r.sampled_type &&
            !(r.sampled_type == ComponentType::kFloat && GetFormatInfo(p.format).normalized)) {
          *error = label + ": format " + GetFormatInfo(p.format).name +
                   " does not match the sampled type";
          return false;
        }
      }
      const FormatInfo& info = GetFormatInfo(p.format);
      p.initial.resize(static_cast<size_t>(p.width) * p.height * info.components *
                       info.component_bytes);
      FillTexels(fill, StreamSeed(spec.seed, (uint64_t{r.set} << 32) | r.binding), p.format,
                 &p.initial);
    } else {
      if (b.width != 0 || b.format) {
        *error = label + ": size=WxH and format= are for images";
        return false;
      }
      uint64_t bytes;
      if (r.runtime_array) {
        if (!b.elements) {
          *error = label + " is not covered: its runtime array needs a length, e.g. 'binding " +
                   BindingKeyName(p.key) + " size=256'";
          return false;
        }
        p.elements = *b.elements;
        bytes = r.head_bytes + p.elements * r.array_stride;
        if (bytes == 0) bytes = 4;  // a zero-length buffer cannot be bound
      } else {
        if (b.elements) {
          *error = label + ": size= is only for blocks that end in a runtime array";
          return false;
        }
        p.elements = r.array_length;
        bytes = r.head_bytes + uint64_t{r.array_length} * r.array_stride;
      }
      bytes = (bytes + 3) & ~uint64_t{3};
      if (bytes > (uint64_t{1} << 31)) {
        *error = label + ": " + std::to_string(bytes) + " bytes is too large";
        return false;
      }
      p.initial.resize(bytes);
      FillWords(fill, StreamSeed(spec.seed, (uint64_t{r.set} << 32) | r.binding), &p.initial);
    }
    OverwriteWords(b.words, &p.initial);
    if (b.compare) {
      if (!r.writable) {
        *error = label + " is read-only: compare= does not apply";
        return false;
      }
      p.compare = *b.compare;
      bool multiset = p.compare.kind == Compare::Kind::kMultiset ||
                      p.compare.kind == Compare::Kind::kMultisetCount;
      if (multiset && !is_image && r.array_stride == 0) {
        *error = label + ": multiset compare needs a block that ends in an array";
        return false;
      }
      if (p.compare.kind == Compare::Kind::kMultisetCount) {
        bool counter_found = false;
        for (const Resource& c : iface.resources) {
          counter_found = counter_found || (c.set == p.compare.counter_set &&
                                            c.binding == p.compare.counter_binding &&
                                            (c.kind == ResourceKind::kStorageBuffer ||
                                             c.kind == ResourceKind::kUniformBuffer));
        }
        if (!counter_found) {
          *error = label + ": counter binding " +
                   BindingKeyName({p.compare.counter_set, p.compare.counter_binding}) +
                   " is not a buffer of the module";
          return false;
        }
      }
    }
    plan->resources.push_back(std::move(p));
  }
  if (iface.push_constant_bytes > 0) {
    plan->push.resize((iface.push_constant_bytes + 3) & ~3u);
    FillWords(spec.push_fill ? *spec.push_fill : Fill(), StreamSeed(spec.seed, ~uint64_t{0}),
              &plan->push);
    OverwriteWords(spec.push_words, &plan->push);
  } else if (spec.push_fill || !spec.push_words.empty()) {
    *error = "the spec fills push constants but the module has none";
    return false;
  }
  for (const SpecConstant& sc : iface.spec_constants) {
    auto it = spec.constants.find(sc.constant_id);
    plan->constants.push_back(
        {sc.constant_id, sc.bytes, it == spec.constants.end() ? sc.default_bits : it->second});
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

bool SameInterface(const Plan& a, const Plan& b, std::string* error) {
  if (a.resources.size() != b.resources.size()) {
    *error = "the modules bind different numbers of resources (" +
             std::to_string(a.resources.size()) + " and " +
             std::to_string(b.resources.size()) + ")";
    return false;
  }
  for (size_t i = 0; i < a.resources.size(); ++i) {
    const ResourcePlan& x = a.resources[i];
    const ResourcePlan& y = b.resources[i];
    std::string where = "binding " + BindingKeyName(x.key);
    if (x.key != y.key) {
      *error = "the modules bind different resources (" + where + " and binding " +
               BindingKeyName(y.key) + ")";
      return false;
    }
    if (x.res.kind != y.res.kind || x.res.writable != y.res.writable) {
      *error = where + " differs in kind or writability between the modules";
      return false;
    }
    if (x.initial != y.initial || x.format != y.format ||
        x.res.array_stride != y.res.array_stride) {
      *error = where + " differs in size, layout or format between the modules";
      return false;
    }
  }
  if (a.push != b.push) {
    *error = "the modules' push constant blocks differ in size or contents";
    return false;
  }
  return true;
}

}  // namespace waverun
