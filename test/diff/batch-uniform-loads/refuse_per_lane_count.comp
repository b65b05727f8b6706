// Negative: a per-lane trip count (the loop bound depends on the lane) must
// not be batched; and a loop that writes the buffer it reads must not be.
// Invocation 0 writes b[i + 1] while the others read it, with no barrier:
// the original races, and the harness says so at every size (RACE) rather
// than trusting an equal result.
// RUN: %diff %s --expect=race --waveopt-flags="--ssa-rewrite --batch-uniform-loads --remarks-missed=batch" 2>&1 | %FileCheck %s
// CHECK: missed LoopTripCountDivergent in main
// CHECK: missed LoopWritesMemory in main
// CHECK: RACE: binding 0.1 ('B') byte 4: written by invocation (0,0,0) of workgroup (0,0,0) and read by invocation (1,0,0) of workgroup (0,0,0)
// CHECK: PASS: the original races at sizes 4,8,16,32,64
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
