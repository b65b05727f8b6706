// Wrong partners of ../int64_minmax.comp: the signed atomicMin pre-reduced
// by hand, with one mistake chosen by UNFILTERED or NAIVE_SCAN:
//   UNFILTERED: the low half of the subgroup's minimum is the minimum of
//     every lane's low half, not only of the lanes whose high half won;
//   NAIVE_SCAN: each lane's returned value takes the exclusive minimum of
//     each half separately (no segments).
// Everything else is right: the other returned values come from a
// brute-force loop over the lower active lanes, the other atomics stay per
// lane. ../negative_int64.test expects both to be caught.
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer In { uint sel[]; };
layout(set = 0, binding = 1) buffer Out {
  int64_t smin; int64_t smax; uint64_t umin; uint64_t umax;
  uint64_t band; uint64_t bor; uint64_t bxor;
  uint64_t seen[];
};
const uint HI[8] = uint[8](0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu,
                           0xfffffffeu, 5u, 0x80000001u);
const uint LO[8] = uint[8](0u, 0xffu, 0x100u, 0xffffff00u, 0xffffffffu,
                           0x80000000u, 0x7fffffffu, 0x1ffu);
// The signed minimum of v over the active lanes below this one.
int64_t PrefixMin(int64_t v) {
  uvec4 lanes = subgroupBallot(true);
  uvec2 mine = unpackUint2x32(uint64_t(v));
  int64_t acc = 0x7fffffffffffffffl;
  for (uint j = 0u; j < gl_SubgroupSize; ++j) {
    uvec2 other = subgroupShuffle(mine, j);
    if (j < gl_SubgroupInvocationID && subgroupBallotBitExtract(lanes, j)) {
      acc = min(acc, int64_t(packUint2x32(other)));
    }
  }
  return acc;
}
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint s = sel[g];
  uint64_t v = (uint64_t(HI[s & 7u]) << 32) | uint64_t(LO[(s >> 3) & 7u]);
  if (((s >> 6) & 3u) != 0u) {
    uvec2 h = unpackUint2x32(v);
    int top_hi = subgroupMin(int(h.y));
#if defined(UNFILTERED)
    uint top_lo = subgroupMin(h.x);
#else
    uint top_lo = subgroupMin(int(h.y) == top_hi ? h.x : 0xffffffffu);
#endif
    int64_t total = int64_t(packUint2x32(uvec2(top_lo, uint(top_hi))));
#if defined(NAIVE_SCAN)
    int64_t before = int64_t(packUint2x32(uvec2(
        subgroupExclusiveMin(h.x), uint(subgroupExclusiveMin(int(h.y))))));
#else
    int64_t before = PrefixMin(int64_t(v));
#endif
    int64_t old = 0l;
    if (subgroupElect()) old = atomicMin(smin, total);
    old = int64_t(packUint2x32(subgroupBroadcastFirst(unpackUint2x32(uint64_t(old)))));
    seen[7u * g] = uint64_t(min(old, before));
    seen[7u * g + 1u] = uint64_t(atomicMax(smax, int64_t(v)));
    seen[7u * g + 2u] = atomicMin(umin, v);
    seen[7u * g + 3u] = atomicMax(umax, v);
    seen[7u * g + 4u] = atomicAnd(band, ~(v ^ (1ul << (g % 64u))));
    seen[7u * g + 5u] = atomicOr(bor, v & (0x8000000180000001ul << (g % 31u)));
    seen[7u * g + 6u] = atomicXor(bxor, v);
  }
}
