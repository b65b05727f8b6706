// What a compute or fragment module needs from the outside: its descriptor bindings (with
// every variable declared on each), push constants, specialization
// constants, the buffers its device-address fields point at, and the facts
// --auto uses to pick a dispatch and compare modes. Read from the module's
// words (types, decorations, Offset/ArrayStride/MatrixStride layouts).
#ifndef WAVEOPT_TOOLS_WAVERUN_REFLECT_H_
#define WAVEOPT_TOOLS_WAVERUN_REFLECT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/waverun/data.h"

namespace waverun {

enum class ResourceKind {
  kStorageBuffer,
  kUniformBuffer,
  kStorageImage,
  kSampledImage,        // combined image sampler (sampler2D, Texture2D+SamplerState merged)
  kSeparateImage,       // texture2D / Texture2D: a sampled image without a sampler
  kSampler,             // sampler / SamplerState
  kUniformTexelBuffer,  // samplerBuffer / Buffer<T>
  kStorageTexelBuffer,  // imageBuffer / RWBuffer<T>
  // accelerationStructureEXT: `isa` only (ReflectModule's
  // acceleration_structures); run, diff and the simulator cannot bind one.
  kAccelerationStructure,
};

// "storage buffer", "uniform buffer", ...
const char* ResourceKindName(ResourceKind kind);
inline bool IsBufferKind(ResourceKind k) {
  return k == ResourceKind::kStorageBuffer || k == ResourceKind::kUniformBuffer;
}
inline bool IsImageKind(ResourceKind k) {
  return k == ResourceKind::kStorageImage || k == ResourceKind::kSampledImage ||
         k == ResourceKind::kSeparateImage;
}
inline bool IsTexelBufferKind(ResourceKind k) {
  return k == ResourceKind::kUniformTexelBuffer || k == ResourceKind::kStorageTexelBuffer;
}

enum class ImageDim { k1D, k2D, k3D, kCube, kBuffer };
const char* ImageDimName(ImageDim dim, bool arrayed);  // "2-D", "cube array", ...

// One scalar of an explicitly laid out block, repeated |count| times every
// |stride| bytes (vectors, arrays of scalars). For typed fills and for the
// device addresses waverun writes into pointer fields.
struct Field {
  enum class Kind { kFloat, kSint, kUint, kBool, kPointer };
  Kind kind = Kind::kUint;
  uint32_t offset = 0;  // from the start of the head, or of one array element
  uint32_t bytes = 4;   // 1, 2, 4 or 8
  uint32_t count = 1;
  uint32_t stride = 0;
  int pointee = -1;  // kPointer: index into ModuleInterface::pointees
};

// A buffer block: the bytes before its trailing array (or all of it), and
// the trailing array.
struct BufferLayout {
  uint64_t head_bytes = 0;
  uint32_t array_stride = 0;  // 0: the block does not end in a one-dimensional array
  uint32_t array_length = 0;  // 0 with runtime_array
  bool runtime_array = false;
  std::vector<Field> head_fields;     // offsets from byte 0
  std::vector<Field> element_fields;  // offsets from each element of the trailing array
  std::string type_name;              // "float[]", "Particle[]", ... for messages
};

// One variable declared on a binding (several variables may view one buffer
// as different types).
struct View {
  uint32_t variable = 0;
  std::string name;
  bool writable = false;
  bool used = false;  // statically referenced by the entry point's functions
  BufferLayout layout;
};

// A buffer reached through a PhysicalStorageBuffer pointer field: waverun
// allocates one per pointer field and writes its address into the field.
struct Pointee {
  std::string label;  // "0.1+8" (binding 0.1, byte 8), "push+16", "0.1+8>+0" (nested)
  BufferLayout layout;
  uint32_t depth = 1;  // 1: a field of a binding or push constants; 2: of a pointee
};

struct Resource {
  ResourceKind kind = ResourceKind::kStorageBuffer;
  uint32_t set = 0;
  uint32_t binding = 0;
  std::string name;         // the first variable's (or block's) name; may be empty
  bool writable = false;    // any view writable (storage buffer/image, storage texel buffer)
  bool used = false;        // any view statically used
  std::vector<View> views;  // at least one
  // Descriptor arrays: the number of descriptors (arrays of arrays: the
  // product); 0 for a runtime-sized array (its length comes from the spec).
  bool descriptor_array = false;
  uint32_t descriptor_count = 1;
  // Images and texel buffers.
  ImageDim dim = ImageDim::k2D;
  bool arrayed = false;
  ImageFormat format = ImageFormat::kUnknown;  // storage: the declared format (may be unknown)
  ComponentType sampled_type = ComponentType::kFloat;
  bool image_atomics = false;  // OpImageTexelPointer on it
  // Not the module's: the storage buffer waverun binds for a fragment
  // shader's color outputs at this location (fragment_outputs.h); -1 for
  // the module's own resources.
  int32_t color_location = -1;

  // The view used for sizes and multiset compares: the one whose trailing
  // array has the largest stride (the first such one).
  const BufferLayout& layout() const;
};

struct SpecConstant {
  uint32_t constant_id = 0;
  uint32_t bytes = 4;         // 4 or 8 (booleans are 4: VkBool32)
  uint64_t default_bits = 0;  // the module's default value
  bool integer = false;       // an integer (not a float or a boolean)
  // Several OpSpecConstants carry this SpecId with different defaults
  // (glslang gives `local_size_x_id = N` its own default 1 beside the
  // `constant_id = N` constant's): the largest of them. A module like that
  // is meant to be specialized; without it its workgroup disagrees with
  // the constant that sizes its loops.
  bool defaults_differ = false;
  uint64_t smallest_default = 0, largest_default = 0;
};

// Facts for --auto.
struct AutoFacts {
  // Components of GlobalInvocationId / WorkgroupId / LocalInvocationId the
  // module reads (1: x only, 2: x and y, 3: all).
  uint32_t id_dims = 1;
  // Bindings whose contents depend on the order atomics return their old
  // values: an atomic's result indexes them (append buffers) or is stored
  // into them. Value: why, for the report.
  std::map<std::pair<uint32_t, uint32_t>, std::string> atomic_order;
  // Integer-typed values read from memory that feed loop exits or indices:
  // not tracked; fills are small instead.
};

// The stage of the entry point waverun runs.
enum class Stage { kCompute, kFragment };

// A fragment shader's color output location (its variables' first name).
struct ColorOutput {
  uint32_t location = 0;
  ComponentType type = ComponentType::kFloat;
  std::string name;
};

// A fragment shader's input at a location, which waverun's vertex shader
// feeds: |count| 32-bit components of |type| from component |component|,
// |array| consecutive locations (1 for a scalar or vector), interpolated
// as declared.
struct FragmentInput {
  enum class Interpolation { kSmooth, kFlat, kNoPerspective };
  uint32_t location = 0, component = 0, count = 1, array = 1;
  ComponentType type = ComponentType::kFloat;
  Interpolation interpolation = Interpolation::kSmooth;
  std::string name;
};

struct ModuleInterface {
  std::string entry_point;  // the first GLCompute or Fragment entry point
  Stage stage = Stage::kCompute;
  std::vector<ColorOutput> color_outputs;      // fragment: by location (no duplicates)
  std::vector<FragmentInput> fragment_inputs;  // fragment: by location, then component
  std::vector<Resource> resources;             // sorted by (set, binding)
  uint32_t push_constant_bytes = 0;
  std::vector<Field> push_fields;            // the push constant block's layout
  std::vector<Pointee> pointees;             // every pointer field's target, in field order
  std::vector<SpecConstant> spec_constants;  // sorted by constant_id
  uint32_t local_size[3] = {1, 1, 1};        // with the spec's constants (or defaults)
  bool has_loops = false;                    // the module contains an OpLoopMerge
  bool uses_device_addresses = false;        // PhysicalStorageBuffer pointers anywhere
  std::vector<uint32_t> capabilities;        // OpCapability operands, in module order
  AutoFacts facts;
};

// Reflects |words| with the specialization constant values |constants|
// (SpecId -> bits; missing ones take the module's defaults), which size
// workgroups and arrays. Fails (one line in |error|) when the module has no
// GLCompute or Fragment entry point, declares a descriptor waverun cannot
// bind (input attachments, acceleration structures, multisampled images),
// two variables of different kinds on one binding, or (fragment) an input
// at a Location that is not a 32-bit scalar or vector (or an array of
// them), or a color output that is not a 32-bit scalar or vector.
// |acceleration_structures| (isa, which only compiles): reflects those as
// kAccelerationStructure instead of failing.
bool ReflectModule(const std::vector<uint32_t>& words,
                   const std::map<uint32_t, uint64_t>& constants, ModuleInterface* iface,
                   std::string* error, bool acceleration_structures = false);

// Whether |words| declares the RayQueryKHR capability or an acceleration
// structure type (isa: the device needs VK_KHR_ray_query). False on
// malformed words (ReflectModule says what is wrong).
bool UsesRayQueries(const std::vector<uint32_t>& words);

// Moves every descriptor variable of |words| from binding B to binding
// B*8+K, K being its kind's value in ResourceKind (0 storage buffer, 1
// uniform buffer, ... 7 storage texel buffer; an acceleration structure
// keeps its binding, and isa refuses to separate a module with one): variables of different kinds
// that shared one binding (HLSL registers b0, t0, u0 and s0 compiled without
// binding shifts) get one each, variables of one kind keep sharing theirs.
// The rule depends only on each variable, so two modules renumbered alike
// still agree (diff). Fails (one line in |error|) on malformed words or a
// binding above 2^28.
bool SeparateBindingKinds(std::vector<uint32_t>* words, std::string* error);

// The interface of two modules run on one set of inputs (diff): every
// binding either has, with the views of both (|a|'s first); the push
// constant block of the larger; |a|'s pointees then |b|'s new ones; |a|'s
// local size and facts, with |b|'s atomic-order bindings added. Fails when
// the two are of different stages, or a binding differs in kind, dimension
// or format between them.
bool MergeInterfaces(const ModuleInterface& a, const ModuleInterface& b, ModuleInterface* out,
                     std::string* error);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_REFLECT_H_
