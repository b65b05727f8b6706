// 64-bit signed min/max and add of divergent values in a fragment shader:
// the 32-bit-piece forms under the helper guard, with returned values.
// RUN: %diff %s --waveopt-flags="-S frag --prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: note: minmax64.frag is a fragment shader: the wave simulator runs compute shaders only, so its sizes 32,64 are skipped
// CHECK-COUNT-3: applied UniformAddressDivergentValue in main: {{.*}}; the 64-bit value is reduced as 32-bit pieces; helper invocations are kept out
// CHECK: [sg=4] equal
// CHECK: [sg=8] equal
// CHECK: [sg=16] equal
// CHECK: PASS: equal at sizes 4,8,16
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(set = 0, binding = 0) readonly buffer In { uint noise[]; };
layout(set = 0, binding = 1) buffer Out {
  int64_t lowest; int64_t highest; uint64_t total; uint64_t pad; uint64_t seen[];
};
layout(location = 0) out vec4 color;
void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uint id = p.y * 37u + p.x;
  uint n = noise[id];
  // High halves from {-2, -1, 0, 1}: lanes tie in the high half.
  int64_t v = (int64_t(int(n & 3u) - 2) << 32) | int64_t(n >> 8);
  seen[3u * id] = uint64_t(atomicMin(lowest, v));
  seen[3u * id + 1u] = uint64_t(atomicMax(highest, v));
  seen[3u * id + 2u] = atomicAdd(total, 0xffffffffff00ul + uint64_t(n & 0xffu));
  color = vec4(dFdy(float(n)));
}
