// Buffer device addresses (PhysicalStorageBuffer): the light list is
// reached through a pointer stored in a uniform buffer; one loop reads it
// by the counter, one through a pointer advanced by the counter (64-bit
// address arithmetic). GLSL, and after spirv-opt -O. Runs once waverun
// fills device addresses with real buffers (test/diff/lit.cfg.py probes);
// a read ahead of time through a pointer cannot be bounds-checked and is
// refused (test/lit/batch-uniform-loads/memory_kinds.comp).
// REQUIRES: waverun-device-addresses
// RUN: %diff %s --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --same-oob --waveopt-flags="-O --assume-driver=cpu --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --spirv-opt-O --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// CHECK-COUNT-2: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK-NOT: missed
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 40) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Lights { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Light { vec4 v; };
layout(set = 0, binding = 0) uniform Root { Lights lights; };
layout(set = 0, binding = 1) readonly buffer Counts { uvec4 c[]; };
layout(set = 0, binding = 2) buffer Out { vec4 o[]; };
void main() {
  uvec4 sc = c[gl_WorkGroupID.x];
  uint g = gl_GlobalInvocationID.x;
  vec4 a0 = vec4(0), a1 = vec4(0);
  for (uint i = 0u; i < sc.y; ++i) a0 += lights.v[sc.x + i] * float(gl_LocalInvocationIndex);
  uint64_t base = uint64_t(lights) + uint64_t(sc.x) * 16ul;
  for (uint i = 0u; i < sc.y; ++i) a1 += Light(base + uint64_t(i) * 16ul).v;
  o[g * 2u] = a0; o[g * 2u + 1u] = a1;
}
