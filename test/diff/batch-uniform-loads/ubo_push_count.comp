// Lights in a std140 uniform buffer, the count from push constants;
// workgroups of 20 (partial subgroups at every size).
// RUN: %diff %s --waveopt-flags="--ssa-rewrite --batch-uniform-loads --remarks=batch" 2>&1 | %FileCheck %s
// CHECK: applied BatchedLoads in main: 2 uniform load(s) per iteration (2 shuffled part(s))
#version 450
layout(local_size_x = 20) in;
layout(set = 0, binding = 0, std140) uniform Lights { vec4 pos[64]; vec4 color[64]; };
layout(push_constant) uniform Push { uint count; };
layout(set = 0, binding = 1) buffer Out { vec4 result[]; };
void main() {
  float x = float(gl_GlobalInvocationID.x) / 64.0;
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < count; ++i) {
    acc += color[i] * max(0.0, 1.0 - abs(pos[i].x - x));
  }
  result[gl_GlobalInvocationID.x] = acc;
}
