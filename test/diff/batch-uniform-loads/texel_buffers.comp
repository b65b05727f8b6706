// Texel buffers (seed 000's Buffer<T>): OpImageFetch on a uniform texel
// buffer and OpImageRead on a storage texel buffer, one loop each, and a
// loop whose data-dependent break makes the fill read ahead (bounds-checked
// with OpImageQuerySize). 18 workgroups of 40, 0..100 iterations, the texel
// buffers sized to the last texel read. GLSL, and after spirv-opt -O.
// Runs once waverun binds texel buffers (test/diff/lit.cfg.py probes).
// REQUIRES: waverun-texel-buffers
// RUN: %diff %s --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --spirv-opt-O --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// CHECK-COUNT-3: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK-NOT: missed
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) uniform samplerBuffer lights;
layout(set = 0, binding = 1, rgba32f) readonly uniform imageBuffer extra;
layout(set = 0, binding = 2) readonly buffer Counts { uvec4 c[]; };
layout(set = 0, binding = 3) buffer Out { vec4 o[]; };
void main() {
  uvec4 sc = c[gl_WorkGroupID.x];
  uint g = gl_GlobalInvocationID.x;
  float l = float(gl_LocalInvocationIndex);
  vec4 a0 = vec4(0), a1 = vec4(0), a2 = vec4(0);
  for (uint i = 0u; i < sc.y; ++i) a0 += texelFetch(lights, int(sc.x + i)) * l;
  for (uint i = 0u; i < sc.y; ++i) a1 += imageLoad(extra, int(sc.x + i));
  for (int i = int(sc.z); i >= -100; --i) {
    vec4 v = texelFetch(lights, i);
    if (v.w > 0.8) break;
    a2 += v;
  }
  o[g * 3u] = a0; o[g * 3u + 1u] = a1; o[g * 3u + 2u] = a2;
}
