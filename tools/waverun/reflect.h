// What a compute module needs from the outside: its descriptor bindings, push
// constants and specialization constants, found with SPIRV-Cross reflection.
#ifndef WAVEOPT_TOOLS_WAVERUN_REFLECT_H_
#define WAVEOPT_TOOLS_WAVERUN_REFLECT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/waverun/data.h"

namespace waverun {

enum class ResourceKind { kStorageBuffer, kUniformBuffer, kStorageImage, kSampledImage };

// "storage buffer", "uniform buffer", ...
const char* ResourceKindName(ResourceKind kind);

struct Resource {
  ResourceKind kind = ResourceKind::kStorageBuffer;
  uint32_t set = 0;
  uint32_t binding = 0;
  std::string name;       // the block or variable name; may be empty
  bool writable = false;  // storage buffer/image without NonWritable
  // Buffers: the bytes before the trailing array (or the whole block when it
  // does not end in an array), and the trailing array's stride and length
  // (length 0: a runtime array, sized by the spec).
  uint32_t head_bytes = 0;
  uint32_t array_stride = 0;
  uint32_t array_length = 0;
  bool runtime_array = false;
  // Storage images: the declared format (kUnknown when the module declares
  // none). Sampled images: kUnknown; |sampled_type| says what texel() gives.
  ImageFormat format = ImageFormat::kUnknown;
  ComponentType sampled_type = ComponentType::kFloat;
};

struct SpecConstant {
  uint32_t constant_id = 0;
  uint32_t bytes = 4;          // 4 or 8 (booleans are 4: VkBool32)
  uint64_t default_bits = 0;   // the module's default value
};

struct ModuleInterface {
  std::string entry_point;     // the (first) GLCompute entry point
  std::vector<Resource> resources;  // sorted by (set, binding)
  uint32_t push_constant_bytes = 0;
  std::vector<SpecConstant> spec_constants;  // sorted by constant_id
  uint32_t local_size[3] = {1, 1, 1};        // literal sizes (spec ids ignored)
  bool has_loops = false;      // the module contains an OpLoopMerge
};

// Reflects |words|. Fails (one line in |error|) when the module has no
// GLCompute entry point, or a descriptor kind waverun does not support
// (descriptor arrays, separate images/samplers, texel buffers, ...).
bool ReflectModule(const std::vector<uint32_t>& words, ModuleInterface* iface,
                   std::string* error);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_REFLECT_H_
