#include "tools/waverun/auto_spec.h"

#include <algorithm>
#include <cmath>

namespace waverun {
namespace {

// About this many invocations per dispatch: enough for several workgroups
// and partial subgroups at every width, cheap on lavapipe and the simulator.
constexpr uint64_t kTargetInvocations = 4096;
// Elements of runtime arrays (and texels of texel buffers) per invocation.
constexpr uint64_t kElementsPerInvocation = 4;
constexpr uint64_t kMinElements = 1024;
constexpr uint64_t kMaxBufferBytes = uint64_t{64} << 20;
// The target --auto draws a fragment shader into.
constexpr uint32_t kDrawWidth = 37, kDrawHeight = 23;
// Descriptors of runtime-sized descriptor arrays: integer fills stay below.
constexpr uint32_t kDescriptors = 16;

uint32_t CeilDiv(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>(std::max<uint64_t>(1, (a + b - 1) / b));
}

uint32_t Clamp(uint64_t v, uint32_t lo, uint32_t hi) {
  return static_cast<uint32_t>(std::min<uint64_t>(std::max<uint64_t>(v, lo), hi));
}

}  // namespace

AutoFills DefaultAutoFills() {
  AutoFills f;
  f.data.kind = Fill::Kind::kTyped;
  f.data.int_lo = 0;
  f.data.int_hi = 16;
  f.params = f.data;
  f.params.int_lo = 1;
  f.params.int_hi = 9;
  return f;
}

uint32_t GridDims(const ModuleInterface& iface) {
  const uint32_t* ls = iface.local_size;
  uint32_t dims = iface.facts.id_dims;
  if (ls[1] > 1) dims = std::max<uint32_t>(dims, 2);
  if (ls[2] > 1) dims = 3;
  for (const Resource& r : iface.resources) {
    if (r.kind == ResourceKind::kStorageImage && r.writable && r.dim != ImageDim::k1D) {
      dims = std::max<uint32_t>(dims, r.dim == ImageDim::k3D ? 3 : 2);
    }
  }
  return dims;
}

void LargeGrid(const ModuleInterface& iface, uint32_t g[3]) {
  const uint32_t* ls = iface.local_size;
  uint64_t wg = uint64_t{ls[0]} * ls[1] * ls[2];
  uint32_t dims = GridDims(iface);
  g[0] = g[1] = g[2] = 1;
  if (dims == 1) {
    g[0] = CeilDiv(kTargetInvocations, wg);
  } else if (dims == 2) {
    uint64_t side = 64;  // sqrt(kTargetInvocations)
    g[0] = CeilDiv(side, ls[0]);
    g[1] = CeilDiv(side, ls[1]);
  } else {
    uint64_t side = 16;  // cbrt(kTargetInvocations)
    g[0] = CeilDiv(side, ls[0]);
    g[1] = CeilDiv(side, ls[1]);
    g[2] = CeilDiv(side, ls[2]);
  }
  // At most twice the target: halve the longest side of the grid.
  while (uint64_t{g[0]} * g[1] * g[2] * wg > 2 * kTargetInvocations) {
    int d = 0;
    for (int k = 1; k < 3; ++k) {
      if (g[k] > g[d]) d = k;
    }
    if (g[d] <= 1) break;
    g[d] = (g[d] + 1) / 2;
  }
}

void AutoSpec(const ModuleInterface& iface, const AutoFills& fills, RunSpec* spec,
              std::vector<std::string>* notes) {
  const uint32_t* ls = iface.local_size;
  uint32_t dims = GridDims(iface);
  uint64_t inv[3];
  if (iface.stage == Stage::kFragment) {
    // A small target with partial quads along the right and bottom edges.
    if (!spec->draw_given) {
      spec->draw_width = kDrawWidth;
      spec->draw_height = kDrawHeight;
      spec->draw_given = true;
    }
    dims = 2;
    inv[0] = spec->draw_width;
    inv[1] = spec->draw_height;
    inv[2] = 1;
  } else {
    if (!spec->dispatch_given) {
      LargeGrid(iface, spec->dispatch);
      spec->dispatch_given = true;
    }
    const uint32_t* sd = spec->dispatch;
    for (int d = 0; d < 3; ++d) inv[d] = uint64_t{sd[d]} * ls[d];
  }
  uint64_t total = inv[0] * inv[1] * inv[2];
  uint64_t elements = std::max(kMinElements, total * kElementsPerInvocation);

  const Fill& data = fills.data;
  const Fill& params = fills.params;

  for (const Resource& r : iface.resources) {
    BindingSpec& b = spec->bindings[{r.set, r.binding}];
    if (b.origin.empty()) b.origin = "--auto";
    if (r.descriptor_array && r.descriptor_count == 0 && !b.count) b.count = kDescriptors;
    if (r.kind == ResourceKind::kSampler) continue;
    if (!b.fill) b.fill = r.kind == ResourceKind::kUniformBuffer ? params : data;
    if (IsBufferKind(r.kind)) {
      bool runtime = false;
      uint64_t stride = 4;
      for (const View& v : r.views) {
        if (v.layout.runtime_array) {
          runtime = true;
          stride = std::max<uint64_t>(stride, v.layout.array_stride);
        }
      }
      if (runtime && !b.elements) {
        b.elements = std::max<uint64_t>(1, std::min(elements, kMaxBufferBytes / stride));
      }
    } else if (IsTexelBufferKind(r.kind)) {
      if (!b.elements) b.elements = std::min<uint64_t>(elements, uint64_t{1} << 20);
    } else if (!b.elements && b.width == 0) {
      switch (r.dim) {
        case ImageDim::k1D:
          if (r.arrayed) {
            b.width = Clamp(inv[0], 16, 4096);
            b.height = 4;  // layers
          } else {
            b.elements = Clamp(inv[0], 16, 4096);
          }
          break;
        case ImageDim::k2D:
          b.width = dims >= 2 ? Clamp(inv[0], 16, 1024) : 64;
          b.height = dims >= 2 ? Clamp(inv[1], 16, 1024) : 64;
          if (r.arrayed) b.depth = 4;
          break;
        case ImageDim::k3D:
          b.width = dims >= 3 ? Clamp(inv[0], 4, 64) : 16;
          b.height = dims >= 3 ? Clamp(inv[1], 4, 64) : 16;
          b.depth = dims >= 3 ? Clamp(inv[2], 4, 64) : 16;
          break;
        case ImageDim::kCube:
          b.width = b.height = 16;
          b.depth = r.arrayed ? 12 : 6;
          break;
        case ImageDim::kBuffer:
          break;
      }
    }
    auto order = iface.facts.atomic_order.find({r.set, r.binding});
    if (r.writable && order != iface.facts.atomic_order.end() && !b.compare) {
      std::string where = "binding " + BindingKeyName({r.set, r.binding}) +
                          (r.name.empty() ? std::string() : " ('" + r.name + "')");
      bool can_multiset = !IsBufferKind(r.kind) || r.layout().array_stride != 0;
      if (can_multiset) {
        Compare c;
        c.kind = Compare::Kind::kMultiset;
        b.compare = c;
        notes->push_back(where + " is compared as a multiset of its " +
                         (IsBufferKind(r.kind) ? "array elements" : "texels") + ": " +
                         order->second);
      } else {
        notes->push_back(where + " is compared exactly although " + order->second +
                         " (it does not end in an array)");
      }
    }
  }
  for (const Pointee& p : iface.pointees) {
    PointerSpec& ps = spec->pointers[p.label];
    if (ps.origin.empty()) ps.origin = "--auto";
    if (!ps.elements) {
      uint64_t stride = std::max<uint64_t>(
          p.layout.array_stride ? p.layout.array_stride : p.layout.head_bytes, 4);
      ps.elements =
          std::max<uint64_t>(1, std::min(std::max(kMinElements, total), kMaxBufferBytes / stride));
    }
    if (!ps.fill) ps.fill = data;
  }
  if (iface.push_constant_bytes > 0 && !spec->push_fill) spec->push_fill = params;
}

}  // namespace waverun
