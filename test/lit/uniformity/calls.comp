// Calls: GLSL passes arguments through Function variables, so this also
// checks the pointer-parameter flow. A function called with a divergent
// argument computes a divergent value; one called only with uniform
// arguments under uniform control keeps its blocks uniform; one called under
// divergent control is entered divergently.
// RUN: %waveopt --print-uniformity %s | %FileCheck %s

// CHECK-LABEL: function %{{[0-9]+}} "main"
// CHECK-LABEL: function %{{[0-9]+}} "pick(u1;"
// CHECK: block %{{[0-9]+}} divergent deps
// CHECK-LABEL: function %{{[0-9]+}} "twice(u1;"
// CHECK-NOT: divergent
// CHECK-LABEL: function %{{[0-9]+}} "side(" entry divergent
#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { uint data[]; };
layout(push_constant) uniform P { uint n; };

uint pick(uint x) {
  if (x < 4u) return 1u;
  return 2u;
}
uint twice(uint x) {
  if (x < 4u) return x;
  return x * 2u;
}
void side() { data[0] = 7u; }

void main() {
  uint a = pick(gl_LocalInvocationIndex);
  uint b = twice(n);
  if (gl_LocalInvocationIndex == 3u) side();
  data[gl_LocalInvocationIndex] = a + b;
}
