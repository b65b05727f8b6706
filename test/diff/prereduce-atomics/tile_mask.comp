// A per-tile bitmask: atomicOr(mask[tile], 1u << (lane & 31)), lanes that
// pass a test only; the returned masks are written out. Workgroups of 20.
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicOr of a divergent value; each lane's returned value is rebuilt
#version 450
layout(local_size_x = 20) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Mask { uint mask[8]; uint seen[]; };
void main() {
  uint lane = gl_LocalInvocationIndex;
  uint g = gl_GlobalInvocationID.x;
  if (values[g] % 3u != 0u) {
    seen[g] = atomicOr(mask[gl_WorkGroupID.x], 1u << (lane & 31u));
  }
}
