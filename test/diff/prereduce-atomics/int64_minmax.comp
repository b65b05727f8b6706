// 64-bit atomicMin/atomicMax (signed and unsigned) and atomicAnd/Or/Xor of
// divergent values without shaderSubgroupExtendedTypes, every returned
// value stored. Values come from a small table so that lanes tie in the
// high half (negative ones too: 0x80000000, 0xffffffff), tie again in bits
// 8-31 of the low half and differ only in bits 0-7, or differ only in the
// low half's sign bit: every level of the 32-bit reduction and of the
// segmented exclusive scans decides something. Under a divergent branch,
// workgroups of 100.
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK-COUNT-7: applied UniformAddressDivergentValue in main: {{.*}}; each lane's returned value is rebuilt; the 64-bit value is reduced as 32-bit pieces
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
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
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint s = sel[g];
  uint64_t v = (uint64_t(HI[s & 7u]) << 32) | uint64_t(LO[(s >> 3) & 7u]);
  if (((s >> 6) & 3u) != 0u) {
    seen[7u * g] = uint64_t(atomicMin(smin, int64_t(v)));
    seen[7u * g + 1u] = uint64_t(atomicMax(smax, int64_t(v)));
    seen[7u * g + 2u] = atomicMin(umin, v);
    seen[7u * g + 3u] = atomicMax(umax, v);
    seen[7u * g + 4u] = atomicAnd(band, ~(v ^ (1ul << (g % 64u))));
    seen[7u * g + 5u] = atomicOr(bor, v & (0x8000000180000001ul << (g % 31u)));
    seen[7u * g + 6u] = atomicXor(bxor, v);
  }
}
