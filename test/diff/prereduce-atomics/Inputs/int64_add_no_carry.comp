// A wrong partner of ../int64_add.comp: c32's atomicAdd pre-reduced by
// hand with 32-bit subgroup sums of each half, so the carry out of the low
// word is dropped (sum and exclusive scan alike). The other counters keep
// their per-lane atomics. ../negative_int64.test expects it to be caught.
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 37) in;
layout(set = 0, binding = 0) readonly buffer In { uint words[]; };
layout(set = 0, binding = 1) buffer Out {
  uint64_t c32; uint64_t c48; uint64_t c63; uint64_t crand; uint64_t cneg;
  uint64_t seen[];
};
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint r0 = words[2u * g];
  uint r1 = words[2u * g + 1u];
  if ((r1 & 3u) != 0u) {
    uint64_t small = uint64_t(r0 & 0xffu);
    uint64_t rnd = (uint64_t(r1) << 32) | uint64_t(r0);
    uvec2 halves = unpackUint2x32(0xffffff00ul + small);
    uvec2 sum = subgroupAdd(halves);
    uvec2 before = subgroupExclusiveAdd(halves);
    uint64_t old = 0ul;
    if (subgroupElect()) old = atomicAdd(c32, packUint2x32(sum));
    old = packUint2x32(subgroupBroadcastFirst(unpackUint2x32(old)));
    seen[5u * g] = old + packUint2x32(before);
    seen[5u * g + 1u] = atomicAdd(c48, 0xffffffffff00ul + small);
    seen[5u * g + 2u] = atomicAdd(c63, 0x7fffffffffffff00ul + small);
    seen[5u * g + 3u] = atomicAdd(crand, rnd);
    seen[5u * g + 4u] = atomicAdd(cneg, -rnd);
  }
}
