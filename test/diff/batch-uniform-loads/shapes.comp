// Every loop shape of issue 15 in one kernel, each loop writing its own
// output: a `for` (exit test at the top), a do-while (test at the bottom), a
// signed count-down, `!=` with the decrement at the top, a step of 3 with
// overshoot, a rotated loop (break at the top of the body), a data-dependent
// break with a signed downward counter (reads ahead are bounds-checked: the
// list's sentinel is element 0, so without the check they would fall below
// it), a load under a uniform `if` (also read ahead), a loop under a
// divergent `if` (lanes with gaps), `<=` against n - 1, a `>` count-down,
// and a loop left by a `return` on a counter test. 18 workgroups of 40 lanes
// (partial subgroups at 16, 32, 64) run 0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17,
// 31, 32, 33, 63, 64, 65 and 100 iterations; the data buffer ends exactly at
// the last element read. Compiled three ways: glslang GLSL, glslang HLSL
// (Inputs/shapes.hlsl, the same kernel) and GLSL after spirv-opt -O.
// --same-oob: no rewrite reads outside a buffer (the simulator's counter).
// RUN: %diff %s --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %S/Inputs/shapes.hlsl --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --spirv-opt-O --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// The reads --assume-driver=cpu chooses by subgroup size (a shuffle at 8
// lanes, else one-slot batches read from the first lane before SPIR-V 1.5,
// a broadcast from 1.5): the shuffle runs at 8, the other read elsewhere.
// RUN: %diff %s --same-oob --waveopt-flags="-O --assume-driver=cpu --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %S/Inputs/shapes.hlsl --same-oob --waveopt-flags="-O --assume-driver=cpu --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --spirv-opt-O --same-oob --waveopt-flags="-O --assume-driver=cpu --target-env=vulkan1.2 --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// CHECK-COUNT-12: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK-NOT: : missed
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) readonly buffer Data { vec4 d[]; };
layout(set = 0, binding = 1) readonly buffer Counts { uvec4 c[]; };
layout(set = 0, binding = 2) buffer Out { vec4 o[]; };
void main() {
  uvec4 sc = c[gl_WorkGroupID.x];
  uint start = sc.x, n = sc.y, stop = sc.z;
  uint g = gl_GlobalInvocationID.x;
  uint lane = gl_LocalInvocationIndex;
  vec4 a0 = vec4(0), a1 = vec4(0), a2 = vec4(0), a3 = vec4(0), a4 = vec4(0), a5 = vec4(0);
  vec4 a6 = vec4(0), a8 = vec4(0), a9 = vec4(0), a10 = vec4(0), a11 = vec4(0), a7 = vec4(0);
  for (uint i = 0u; i < n; ++i) a0 += d[start + i] * float(lane + 1u);
  o[g * 12u + 0u] = a0;
  if (n > 0u) { uint i = 0u; do { a1 += d[start + i]; ++i; } while (i < n); }
  o[g * 12u + 1u] = a1;
  for (int i = int(n) - 1; i >= 0; --i) a2 = a2 * 0.5 + d[start + uint(i)];
  o[g * 12u + 2u] = a2;
  { uint i = n; while (i != 0u) { --i; a3 += d[start + i] * float(i); } }
  o[g * 12u + 3u] = a3;
  for (uint i = 0u; i < n; i += 3u) a4 += d[start + i];
  o[g * 12u + 4u] = a4;
  for (uint i = 0u; ; ++i) { if (i >= n) break; a5 += d[start + i] - vec4(float(lane)); }
  o[g * 12u + 5u] = a5;
  for (int i = int(sc.w); i > -1000; --i) { vec4 v = d[i]; if (v.w > 0.8) break; a6 += v; }
  o[g * 12u + 6u] = a6;
  for (uint i = 0u; i < n; ++i) { if ((i & 1u) == 0u) a8 += d[start + i]; }
  o[g * 12u + 8u] = a8;
  if (lane % 3u != 1u) { for (uint i = 0u; i < n; ++i) a9 += d[start + i] + vec4(float(lane)); }
  o[g * 12u + 9u] = a9;
  for (int i = 0; i <= int(n) - 1; ++i) a10 += d[start + uint(i)];
  o[g * 12u + 10u] = a10;
  for (uint i = start + n; i > start; --i) a11 += d[i - 1u];
  o[g * 12u + 11u] = a11;
  for (uint i = 0u; i < n; ++i) {
    if (i == stop) { o[g * 12u + 7u] = a7; return; }
    a7 += d[start + i];
  }
  o[g * 12u + 7u] = a7 + vec4(1000.0);
}
