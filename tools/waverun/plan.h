// A plan: an interface resolved against a RunSpec into concrete resources
// with their initial bytes, the buffers device-address fields point at, push
// constants, specialization constants and the dispatch size. For `diff` one
// plan is built from both modules' merged interface, so both run on the same
// bytes; each module then binds the resources it declares.
#ifndef WAVEOPT_TOOLS_WAVERUN_PLAN_H_
#define WAVEOPT_TOOLS_WAVERUN_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/waverun/reflect.h"
#include "tools/waverun/spec.h"

namespace waverun {

// A 64-bit device address inside a resource's or pointee's bytes.
struct PointerSlot {
  uint64_t offset = 0;  // bytes from the start of the initial data
  int pointee = 0;      // index into Plan::pointees
};

// The address a pointee has in the plan's bytes (and on the simulator); a
// Vulkan device rewrites it to the buffer's real address and back.
uint64_t CanonicalAddress(int pointee);
constexpr uint64_t kPointeeAddressSpan = uint64_t{1} << 32;
// Bytes after every pointee buffer on a Vulkan device that the shader may
// reach through an address a little past the end: zero on upload, never
// compared. An access farther past is outside every allocation.
constexpr uint64_t kPointeeGuardBytes = 64 * 1024;

struct ResourcePlan {
  Resource res;
  BindingKey key;
  bool declared = true;   // the module being run declares it (diff: see Plan)
  uint32_t count = 1;     // descriptors: 1, or a descriptor array's length
  uint64_t elements = 0;  // buffers: trailing array length
  // Images: width x height x depth (depth: 3-D depth, array layers, 6 faces
  // per cube; 1 otherwise). Texel buffers: width texels.
  uint32_t width = 0, height = 0, depth = 0;
  ImageFormat format = ImageFormat::kUnknown;  // images and texel buffers
  Compare compare;                             // used when res.writable
  uint64_t element_bytes = 0;                  // bytes of one descriptor's data
  std::vector<uint8_t> initial;       // count * element_bytes: buffers' blocks, images' texels
  std::vector<PointerSlot> pointers;  // device addresses in |initial|
};

struct PointeePlan {
  std::string label;  // "0.1+8": the field at byte 8 of binding 0.1's block
  BufferLayout layout;
  uint64_t elements = 0;
  uint64_t address = 0;  // canonical
  Compare compare;
  std::vector<uint8_t> initial;
  std::vector<PointerSlot> pointers;
};

struct SpecValue {
  uint32_t constant_id;
  uint32_t bytes;
  uint64_t bits;
};

struct Plan {
  std::vector<ResourcePlan> resources;  // sorted by (set, binding)
  std::vector<PointeePlan> pointees;    // after the resources in Outputs
  std::vector<uint8_t> push;            // push constant bytes (may be empty)
  std::vector<PointerSlot> push_pointers;
  std::vector<SpecValue> constants;  // the spec constants the spec sets (others: defaults)
  uint32_t dispatch[3] = {1, 1, 1};  // compute
  // Fragment shaders: triangles covering a draw_width x draw_height target
  // (the vertex shader feeds |fragment_inputs|); the color outputs go to
  // storage buffers, one per location, which are resources of the plan
  // (Resource::color_location; fragment_outputs.h).
  Stage stage = Stage::kCompute;
  uint32_t draw_width = 0, draw_height = 0;
  std::vector<ColorOutput> color_outputs;
  std::vector<FragmentInput> fragment_inputs;
  uint32_t reps = 10;
  // Lines for the report: bindings compared as multisets and why.
  std::vector<std::string> notes;
};

// Builds |plan| for |iface| from |spec|. Errors (one line): a fragment
// shader without a draw line or with a dispatch line, a compute shader with
// a draw line, a runtime array,
// image or texel buffer without a size, a spec entry naming no binding or
// pointer of the interface, a compare mode that does not fit the binding, a
// counter binding that does not exist, a format that does not fit.
bool BuildPlan(const ModuleInterface& iface, const RunSpec& spec, Plan* plan, std::string* error);

// The plan of one module of a diff: |merged| (built from both interfaces)
// with |module|'s specialization constants, and each resource marked
// declared or not.
Plan PlanForModule(const Plan& merged, const ModuleInterface& module, const RunSpec& spec);

// "binding 0.1 ('Out')".
std::string ResourceLabel(const ResourcePlan& r);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_PLAN_H_
