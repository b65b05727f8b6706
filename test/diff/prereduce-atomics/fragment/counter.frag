// Fragment shader append: derivatives keep helper invocations in the quads
// along the target's odd edges; the pass must count and elect only
// non-helper lanes (gl_HelperInvocation guard).
// RUN: %diff %s --waveopt-flags="-S frag --prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: note: counter.frag is a fragment shader: the wave simulator runs compute shaders only, so its sizes 32,64 are skipped
// CHECK: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt; helper invocations are kept out
// CHECK: [sg=4] equal
// CHECK: [sg=8] equal
// CHECK: [sg=16] equal
// CHECK: PASS: equal at sizes 4,8,16
#version 450
layout(set = 0, binding = 0) buffer Counter { uint count; };
layout(set = 0, binding = 1) buffer Slots { uint slots[]; };
layout(location = 0) out vec4 color;
void main() {
  vec2 p = gl_FragCoord.xy;
  float slope = dFdx(p.x * p.y);
  uint slot = atomicAdd(count, 1u);
  slots[slot] = uint(p.y) * 64u + uint(p.x) + (slope > 0.0 ? 0x10000u : 0u);
  color = vec4(slope);
}
