// Negative: a per-lane trip count (the loop bound depends on the lane) must
// not be batched; and a loop that writes the buffer it reads must not be.
// Both still compare equal (nothing changed).
// RUN: %diff %s --waveopt-flags="--ssa-rewrite --batch-uniform-loads --remarks-missed=batch" 2>&1 | %FileCheck %s
// CHECK: missed LoopTripCountDivergent in main
// CHECK: missed LoopWritesMemory in main
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer B { uint b[]; };
layout(set = 0, binding = 2) buffer Out { uint result[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint acc = 0u;
  for (uint i = 0u; i < (g & 7u); ++i) acc += a[i];
  for (uint i = 0u; i < 16u; ++i) {
    acc += b[i];
    if (g == 0u) b[i + 1u] += 1u;
  }
  result[g] = acc;
}
