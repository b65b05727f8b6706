// A loop counting down (signed), two arrays indexed by i, the loop inside a
// divergent if; workgroups of 37.
// RUN: %diff %s --waveopt-flags="--ssa-rewrite --batch-uniform-loads --remarks=batch" 2>&1 | %FileCheck %s
// CHECK: applied BatchedLoads in main: 2 uniform load(s) per iteration (2 shuffled part(s))
#version 450
layout(local_size_x = 37) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { int b[]; };
layout(set = 0, binding = 2) readonly buffer N { int n[]; };
layout(set = 0, binding = 3) buffer Out { float result[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  float acc = 0.0;
  if ((g % 3u) != 1u) {
    for (int i = n[gl_WorkGroupID.x] - 1; i >= 0; --i) {
      acc = acc * 0.5 + a[i] * float(b[i] & 7) + float(g);
    }
  }
  result[g] = acc;
}
