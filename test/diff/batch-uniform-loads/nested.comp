// A nest of three uniform loops (cascades x taps x weights), each loading
// from a readonly buffer at an address its own counter indexes: one run of
// the pass batches every level (innermost first, one level per internal
// round), and the result is unchanged. Workgroups of 40.
// RUN: %diff %s --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --assume-driver=cpu --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// CHECK-DAG: nested.comp:26: remark: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s)
// CHECK-DAG: nested.comp:29: remark: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s)
// CHECK-DAG: nested.comp:32: remark: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s)
// CHECK-NOT: NestedLoopBatched
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) readonly buffer Cascades { vec4 cascade[]; };
layout(set = 0, binding = 1) readonly buffer Taps { vec2 taps[]; };
layout(set = 0, binding = 2) readonly buffer Weights { float w[]; };
layout(set = 0, binding = 3) readonly buffer Counts { uint counts[]; };
layout(set = 0, binding = 4) buffer Out { vec4 o[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint wg = gl_WorkGroupID.x;
  uint nc = counts[wg * 3u];
  uint nt = counts[wg * 3u + 1u];
  uint nw = counts[wg * 3u + 2u];
  vec2 p = vec2(float(g % 7u), float(g / 7u));
  vec4 acc = vec4(0.0);
  for (uint c = 0u; c < nc; ++c) {
    vec4 cs = cascade[c];
    float s = 0.0;
    for (uint t = 0u; t < nt; ++t) {
      vec2 tap = taps[c * 8u + t];
      float d = dot(p - tap * cs.xy, cs.zw);
      for (uint k = 0u; k < nw; ++k) s += w[k] * d;
    }
    acc += cs * s;
  }
  o[g] = acc;
}
