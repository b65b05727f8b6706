// Float atomics under float-reassoc, with values whose sums are exact (so
// reassociation cannot change them) and a sum of -0.0s that must stay -0.0;
// returned values kept; workgroups of 50.
// RUN: %diff %s --waveopt-flags="--prereduce-atomics=float-reassoc --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK-COUNT-2: applied UniformAddress
#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 50) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out { float sum; float negzero; float seen[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  float v = float(values[g] % 16u) * 0.25;
  float before = atomicAdd(sum, v);
  float z = atomicAdd(negzero, -0.0);
  seen[g] = before + (floatBitsToUint(z) == 0x80000000u ? 1000.0 : 0.0);
}
