// Case C with a uniform value: the lanes that share a bin are found by one
// ballot per index bit and the lowest of them issues the atomic; every lane's
// returned value comes from that lane by a shuffle. Covered: add with results
// (32-bit and 64-bit), or/umin (idempotent) with results, xor parity, a
// signed index, a bin count that is not a power of two, atomics under a
// divergent branch, workgroups of 45 (partial subgroups).
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: applied SmallBinSet in main: {{.*}}at most 16 values; lanes sharing it found by 4 ballot(s)): OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// CHECK: applied SmallBinSet in main: {{.*}}at most 6 values; lanes sharing it found by 3 ballot(s)): OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// CHECK: applied SmallBinSet in main: {{.*}}at most 4 values; lanes sharing it found by 2 ballot(s)): OpAtomicOr of a uniform value; each lane's returned value is rebuilt
// CHECK: applied SmallBinSet in main: {{.*}}at most 8 values; lanes sharing it found by 3 ballot(s)): OpAtomicUMin of a uniform value; each lane's returned value is rebuilt
// CHECK: applied SmallBinSet in main: {{.*}}at most 8 values; lanes sharing it found by 3 ballot(s)): OpAtomicXor of a uniform value; each lane's returned value is rebuilt
// CHECK: applied SmallBinSet in main: {{.*}}at most 3 values; lanes sharing it found by 2 ballot(s)): OpAtomicIAdd of a uniform value; the returned value is unused
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 45) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out {
  uint bins[16];
  uint64_t wide[6];
  uint flags[4];
  uint lows[8];
  uint parity[8];
  int sbins[3];
  uint seen[];
};
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint v = values[g];
  uint a = atomicAdd(bins[min(v & 31u, 15u)], 3u);
  uint64_t b = atomicAdd(wide[(v >> 8) % 6u], 0x100000001ul);
  uint c = atomicOr(flags[(v >> 12) & 3u], 1u << (gl_WorkGroupID.x & 7u));
  uint d = 0u;
  uint e = 0u;
  if ((v & 0x40000u) != 0u) {
    d = atomicMin(lows[(v >> 16) & 7u], 100u - gl_WorkGroupID.x);
    e = atomicXor(parity[(v >> 20) & 7u], 0x1234u);
  }
  int s = clamp(int(v >> 24) - 128, -1, 1) + 1;
  atomicAdd(sbins[s], 1);
  seen[g] = a ^ uint(b) ^ uint(b >> 32) * 7u ^ (c << 3) ^ (d << 5) ^ (e << 7);
}
