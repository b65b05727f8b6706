// A plan: one module's interface resolved against a RunSpec into concrete
// resources with their initial bytes, push constants, specialization
// constants and dispatch size.
#ifndef WAVEOPT_TOOLS_WAVERUN_PLAN_H_
#define WAVEOPT_TOOLS_WAVERUN_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/waverun/reflect.h"
#include "tools/waverun/spec.h"

namespace waverun {

struct ResourcePlan {
  Resource res;
  BindingKey key;
  uint64_t elements = 0;           // buffers: trailing array length
  uint32_t width = 0, height = 0;  // images
  ImageFormat format = ImageFormat::kUnknown;  // images (sampled: resolved)
  Compare compare;                 // used when res.writable
  std::vector<uint8_t> initial;    // buffers: the block; images: packed texels
};

struct SpecValue {
  uint32_t constant_id;
  uint32_t bytes;
  uint64_t bits;
};

struct Plan {
  std::vector<ResourcePlan> resources;  // sorted by (set, binding)
  std::vector<uint8_t> push;            // push constant bytes (may be empty)
  std::vector<SpecValue> constants;     // every spec constant of the module
  uint32_t dispatch[3] = {1, 1, 1};
  uint32_t reps = 10;
};

// Builds |plan| for |iface| from |spec|. Errors (one line): a runtime array
// or image without a size, a spec entry naming no binding of the module, a
// compare mode that does not fit the binding, a counter binding that does
// not exist.
bool BuildPlan(const ModuleInterface& iface, const RunSpec& spec, Plan* plan,
               std::string* error);

// True when |a| and |b| bind the same resources with the same shapes, so
// that one set of inputs serves both; otherwise |error| names the first
// difference.
bool SameInterface(const Plan& a, const Plan& b, std::string* error);

// "binding 0.1 ('Out')".
std::string ResourceLabel(const ResourcePlan& r);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_PLAN_H_
