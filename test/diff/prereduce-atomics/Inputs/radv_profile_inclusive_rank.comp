// Negative control of radv_profile.comp: the 64-bit counter pre-reduced by
// hand with an inclusive instead of an exclusive rank (every lane's returned
// value one step too far).
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out { uint count; uint pad; uint64_t total; uint64_t seen[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  if ((values[g] & 3u) != 1u) {
    uint slot = atomicAdd(count, 1u);
    uint n = subgroupAdd(1u);
    uint rank = subgroupInclusiveAdd(1u);
    uint64_t old = 0ul;
    if (subgroupElect()) old = atomicAdd(total, 0x100000005ul * uint64_t(n));
    uvec2 halves = subgroupBroadcastFirst(unpack32(old));
    seen[g] = pack64(halves) + 0x100000005ul * uint64_t(rank) + uint64_t(slot);
  }
}
