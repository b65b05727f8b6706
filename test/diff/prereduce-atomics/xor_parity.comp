// Xor parity counters, uniform and divergent values, returned values kept;
// and an atomic inside a loop whose trip count differs per lane.
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicXor of a uniform value
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicXor of a divergent value
// CHECK: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value
#version 450
layout(local_size_x = 37) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out { uint parity; uint mixed; uint loops; uint seen[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint v = values[g];
  uint a = atomicXor(parity, 0x5a5au);
  uint b = atomicXor(mixed, v);
  uint c = 0u;
  for (uint i = 0u; i < v % 5u; ++i) c += atomicAdd(loops, 1u);
  seen[g] = a ^ (b << 1) ^ (c << 2);
}
