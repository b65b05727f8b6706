// Loops whose test is a `break` at the top of the body, two ways: with
// nothing before the test (the one-exit form: the break compares the slot
// counter with the batch's trip count) and with an atomic before it (the
// two-exit form: running the blocks before the test again when a batch ends
// would count twice). The atomic's total is part of the output, so a second
// run of it is caught; the third loop is the first under a divergent `if`.
// 18 workgroups of 40 lanes (partial subgroups at 16, 32, 64) run 0, 1, 3,
// 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65 and 100 iterations; the
// data buffer ends exactly at the last element read.
// RUN: %diff %s --same-oob --waveopt-flags="--ssa-rewrite --batch-uniform-loads --remarks=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --spirv-opt-O --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// CHECK-COUNT-3: applied BatchedLoads in main
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) readonly buffer Data { vec4 d[]; };
layout(set = 0, binding = 1) readonly buffer Counts { uvec2 c[]; };
layout(set = 0, binding = 2) buffer Out { vec4 o[]; };
shared uint visits;
void main() {
  uvec2 sc = c[gl_WorkGroupID.x];
  uint g = gl_GlobalInvocationID.x;
  uint lane = gl_LocalInvocationIndex;
  if (lane == 0u) visits = 0u;
  barrier();
  vec4 a0 = vec4(0), a1 = vec4(0), a2 = vec4(0);
  uint i = 0u;
  for (;;) {
    if (i >= sc.y) break;
    a0 += d[sc.x + i] * float(lane + 1u);
    ++i;
  }
  i = 0u;
  for (;;) {
    atomicAdd(visits, 1u);
    if (i >= sc.y) break;
    a1 += d[sc.x + i];
    ++i;
  }
  if (lane % 3u != 1u) {
    for (uint k = 0u;; ++k) {
      if (k >= sc.y) break;
      a2 = a2 * 0.5 + d[sc.x + k];
    }
  }
  barrier();
  o[g * 3u + 0u] = a0;
  o[g * 3u + 1u] = a1 + vec4(float(visits));
  o[g * 3u + 2u] = a2;
}
