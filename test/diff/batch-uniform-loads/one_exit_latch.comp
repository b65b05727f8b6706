// The one-exit form whose test is at the back edge (docs/passes/
// batch-uniform-loads.md, "Exits"): do-while loops, whose last iteration
// runs the body and then leaves. A do-while behind an emptiness test, one
// counting down to zero, one stepping by 2 with `<=`, and one under a
// divergent `if` (lanes with gaps); 18 workgroups of 40 lanes (partial
// subgroups at 16, 32 and 64) run 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31,
// 32, 33, 63, 64, 65 and 100 iterations, so each batch size ends a loop one
// slot before, at, and one slot after its batch; the data buffer ends
// exactly at the last element read. Raw and after spirv-opt -O (which makes
// the do-whiles single-block loops: header and back edge in one block).
// Each do-while sits in an `if`: lavapipe (Mesa 22.3) miscomputes a loop
// that follows a do-while at the top level of the kernel in a partial
// subgroup (lanes 32..39 of 40 at subgroup size 16 run one iteration only;
// the simulator and the other lanes run all of them), which waverun's
// device/simulator check reports as a failure of the original.
// RUN: %diff %s --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --same-oob --waveopt-flags="-O --assume-driver=cpu --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --spirv-opt-O --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// CHECK-COUNT-4: applied BatchedLoads in main
// CHECK-NOT: : missed
// CHECK: PASS: equal at sizes 4,8,16,32,64
// Negative control: the trip count one too high where the loop ends runs
// one iteration more than the original.
// RUN: %diff %s --spirv-opt-O --same-oob --waveopt-flags="--batch-uniform-loads" --mutant=one-more-trip --expect=differ | %FileCheck --check-prefix=TRIPS %s
// TRIPS: [sg=4] DIFFERENT
// TRIPS: [sg=8] DIFFERENT
// TRIPS: [sg=16] DIFFERENT
// TRIPS: [sg=32] DIFFERENT
// TRIPS: [sg=64] DIFFERENT
// TRIPS: PASS: the difference was caught
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) readonly buffer Data { vec4 d[]; };
layout(set = 0, binding = 1) readonly buffer Counts { uvec2 c[]; };
layout(set = 0, binding = 2) buffer Out { vec4 o[]; };
void main() {
  uvec2 sc = c[gl_WorkGroupID.x];
  uint start = sc.x, n = sc.y;
  uint g = gl_GlobalInvocationID.x;
  uint lane = gl_LocalInvocationIndex;
  vec4 a0 = vec4(0), a1 = vec4(0), a2 = vec4(0), a3 = vec4(0);
  if (n > 0u) { uint i = 0u; do { a0 = a0 * 0.75 + d[start + i]; ++i; } while (i < n); }
  o[g * 4u + 0u] = a0;
  if (n != 0u) { uint k = n; do { --k; a1 += d[start + k] * float(k + lane); } while (k != 0u); }
  o[g * 4u + 1u] = a1;
  if (n >= 1u) { uint i = 0u; do { a2 += d[start + i]; i += 2u; } while (i + 1u <= n - 1u); }
  o[g * 4u + 2u] = a2;
  if (lane % 3u != 1u && n > 0u) {
    uint i = 0u; do { a3 = a3 * 0.5 + d[start + i] + vec4(float(lane)); ++i; } while (i < n);
  }
  o[g * 4u + 3u] = a3;
}
