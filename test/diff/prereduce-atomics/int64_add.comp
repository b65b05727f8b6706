// 64-bit atomicAdd of divergent values without shaderSubgroupExtendedTypes:
// the pass sums 32-bit pieces and joins them with the carries. Each counter
// gets values whose subgroup sums carry across bit 32, bit 48 and bit 63
// (and wrap past 2^64), random 64-bit values, and negated ones (a
// subtraction); every returned value is stored. Under a divergent branch,
// in workgroups of 37 (partial subgroups at every size).
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK-COUNT-5: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicIAdd of a divergent value; each lane's returned value is rebuilt; the 64-bit value is reduced as 32-bit pieces
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
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
    seen[5u * g] = atomicAdd(c32, 0xffffff00ul + small);
    seen[5u * g + 1u] = atomicAdd(c48, 0xffffffffff00ul + small);
    seen[5u * g + 2u] = atomicAdd(c63, 0x7fffffffffffff00ul + small);
    seen[5u * g + 3u] = atomicAdd(crand, rnd);
    seen[5u * g + 4u] = atomicAdd(cneg, -rnd);
  }
}
