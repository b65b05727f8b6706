// A 64-bit counter (uniform value) with returned values, and signed min/max
// with negative values; workgroups of 100.
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicSMin
// CHECK: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicSMax of a uniform value
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer In { int values[]; };
layout(set = 0, binding = 1) buffer Out { uint64_t counter; int smin; int smax; int pad; uint64_t seen[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint64_t before = atomicAdd(counter, 0x100000003ul);
  int lo = atomicMin(smin, values[g]);
  int hi = atomicMax(smax, -7);
  seen[g] = before + uint64_t(uint(lo)) * 3ul + uint64_t(uint(hi));
}
