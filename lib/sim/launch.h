// The simulator's data: what a dispatch takes (Launch, Resource) and what it
// gives back (Counters, Race). Every part of lib/sim uses them; sim.h adds
// Program, the simulator's public face, which runs on the parts.
#ifndef WAVEOPT_LIB_SIM_LAUNCH_H_
#define WAVEOPT_LIB_SIM_LAUNCH_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lib/sim/texel.h"

namespace waveopt {
namespace sim {

// One descriptor binding of the dispatch (or one element of a descriptor
// array), or a buffer reached through a device address.
struct Resource {
  enum class Kind {
    kStorageBuffer,
    kUniformBuffer,
    kStorageImage,
    kSampledImage,        // combined image sampler
    kSeparateImage,       // sampled image without a sampler (OpTypeImage Sampled=1)
    kSampler,             // no data; every sampler is nearest, clamp to edge
    kUniformTexelBuffer,  // texels, |width| of them
    kStorageTexelBuffer,
    kDeviceBuffer,  // no binding: reached through |device_address|
  };
  Kind kind = Kind::kStorageBuffer;
  uint32_t set = 0;
  uint32_t binding = 0;
  uint32_t array_index = 0;  // element of a descriptor array (0 otherwise)
  // Buffers: the block's bytes. Images and texel buffers: texels, tightly
  // packed, x fastest, then y, then z (the layer of arrayed and cube images,
  // 6 faces per cube, or the depth of 3-D images). Updated in place by Run().
  std::vector<uint8_t> data;
  uint32_t width = 0, height = 1, depth = 1;   // images and texel buffers
  TexelFormat format = TexelFormat::kRgba32f;  // images and texel buffers
  // kDeviceBuffer: the address the shader sees for byte 0. Addresses
  // [device_address, device_address + 2^32) belong to this buffer; bytes past
  // its size are out of bounds.
  uint64_t device_address = 0;
};

// Per-instruction execution counts of one dispatch (Launch::count_instructions).
struct InstructionCount {
  uint32_t word = 0;       // the instruction's first word in the module
  uint64_t subgroups = 0;  // times a subgroup executed it
  uint64_t lanes = 0;      // the same, times the active lanes
};

// What to run besides the module.
struct Launch {
  uint32_t subgroup_size = 32;         // a power of two, 1..128
  uint32_t workgroups[3] = {1, 1, 1};  // the dispatch
  std::vector<uint8_t> push_constants;
  std::map<uint32_t, uint64_t> spec_constants;  // SpecId -> bits (bools: 0/1)
  // Stop with an error after this many instructions (summed over subgroups):
  // a shader that does not terminate.
  uint64_t instruction_limit = 400000000;
  // false (default): invocation i (LocalInvocationIndex) is lane i % N of
  // subgroup i / N, the last subgroup partial when the workgroup is not a
  // multiple of N; NumSubgroups rounds up.
  // true: lavapipe's layout, for checking the simulator against lavapipe: a
  // subgroup never spans two rows of the workgroup (each row of local_size_x
  // invocations is cut into subgroups of N, the last of each row partial),
  // SubgroupId is the subgroup's first LocalInvocationIndex / N and
  // NumSubgroups rounds down.
  bool lavapipe_layout = false;
  // 0 (default): Function, Private and Workgroup memory start at zero and the
  // poison value is 0xDEADBEEF. Otherwise they start with bytes drawn from
  // this seed and the poison value is drawn from it too: a module whose
  // outputs change with it reads memory or lanes it never wrote.
  uint64_t junk_seed = 0;
  // Fill Counters::instruction_counts.
  bool count_instructions = false;
  // Look for data races (Counters::races, Counters::race): conflicting
  // accesses by different invocations that no barrier or atomic orders
  // (docs/sim.md#races). Costs memory per word accessed and time per access.
  bool detect_races = false;
};

// A data race: two accesses to the same bytes, the earlier in the simulation
// first; at least one wrote, and nothing ordered them.
struct Race {
  // Where: the resource of index |resource| in Run's |resources| (for
  // images and texel buffers |offset| is into the packed texels), or, when
  // |resource| is -1, workgroup memory: the variable |variable| (its OpName,
  // may be empty) with |offset| bytes into it.
  int32_t resource = -1;
  std::string variable;
  uint64_t offset = 0;                                // the first byte of the 4-byte word
  uint32_t workgroup[2][3] = {{0, 0, 0}, {0, 0, 0}};  // WorkgroupId
  uint32_t local[2][3] = {{0, 0, 0}, {0, 0, 0}};      // LocalInvocationId
  uint32_t global[2][3] = {{0, 0, 0}, {0, 0, 0}};     // GlobalInvocationId
  bool wrote[2] = {false, false};
};

// The cost of one dispatch; every count is deterministic. "Memory" means
// storage buffers, uniform buffers, push constants, images and workgroup
// memory (not Function/Private/Input variables).
struct Counters {
  uint64_t workgroups = 0;
  uint64_t subgroups = 0;
  // Instructions a subgroup executed (one per instruction per subgroup, how
  // many lanes are active does not matter), summed over subgroups. OpLabel,
  // merge instructions and debug lines are not counted; OpPhi, branches,
  // OpVariable and everything else are.
  uint64_t instructions = 0;
  // Lane-instructions: each executed instruction times its active lanes.
  uint64_t lane_instructions = 0;
  uint64_t memory_instructions = 0;            // loads, stores, atomics, image ops (memory above)
  uint64_t global_memory_instructions = 0;     // ... on buffers, push constants, images
  uint64_t workgroup_memory_instructions = 0;  // ... on workgroup (shared) memory
  // Distinct 64-byte lines each global memory instruction touched, per
  // subgroup, summed (seed 004: a wave's accesses coalesce into aligned
  // 64-byte requests). Buffers are linear; images are tiled: a line holds a
  // block of texels (4x4 of 4-byte texels, 4x2 of 8-byte, 2x2 of 16-byte).
  uint64_t memory_lines = 0;
  uint64_t atomics = 0;              // atomic operations issued, one per active lane
  uint64_t atomic_instructions = 0;  // atomic instructions per subgroup
  // Per atomic instruction per subgroup, the largest number of lanes that
  // aimed at one address (those serialise): summed, and the maximum.
  uint64_t atomic_serialized = 0;
  uint64_t atomic_max_same_address = 0;
  // Workgroup memory, 32 banks of 4 bytes: per instruction per subgroup, the
  // largest number of different words the active lanes touched in one bank,
  // minus one (lanes reading the same word do not conflict), summed.
  uint64_t bank_conflicts = 0;
  uint64_t barriers = 0;  // workgroup barriers completed (per workgroup)
  // Lane accesses outside their memory: buffer and image loads give zero
  // (as with Vulkan's robustness2), other loads the poison value, stores are
  // dropped; includes accesses through a descriptor index past the array.
  uint64_t out_of_bounds = 0;
  // Accesses through a device address that lies in no buffer (counted in
  // out_of_bounds too).
  uint64_t wild_pointer_accesses = 0;
  // The farthest an access through a device address reached past the end of
  // its buffer, in bytes (0: none did). Not in Format().
  uint64_t device_overrun = 0;
  // With Launch::count_instructions: every instruction that ran, in module
  // order.
  std::vector<InstructionCount> instruction_counts;
  // With Launch::detect_races: racing accesses found (each access that
  // conflicts with an earlier one counts once per conflicting word and
  // earlier access), and the first.
  uint64_t races = 0;
  Race race;

  // One counter per line, "name value", in a fixed order.
  std::string Format() const;
};

}  // namespace sim
}  // namespace waveopt

#endif  // WAVEOPT_LIB_SIM_LAUNCH_H_
