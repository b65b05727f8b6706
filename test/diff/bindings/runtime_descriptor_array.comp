// A runtime-sized array of sampled images with one separate sampler
// (bindless tables): its length comes from the spec's count= (default 8).
// Lavapipe 22.3 has no runtimeDescriptorArray: it runs on the simulator
// only, and lavapipe refuses it with one clear line. The count of bright
// texels is pre-reduced.
// RUN: %diff %s --waveopt-flags="-O --remarks=prereduce" --widths= 2>&1 | %FileCheck %s
// CHECK: applied
// RUN: %diff %s --against %S/Inputs/runtime_descriptor_array_wrong.comp --widths= --expect=differ
// RUN: %not %waverun run %s 2>&1 | %FileCheck --check-prefix=LAVAPIPE %s
// LAVAPIPE: waverun: error: {{.*}}runtime_descriptor_array.comp: binding 0.0 ('table'): a runtime-sized descriptor array needs runtimeDescriptorArray, which device '{{.*}}' does not have; run it on the simulator (--sim)
#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) uniform texture2D table[];
layout(set = 0, binding = 1) uniform sampler smp;
layout(set = 0, binding = 2) buffer Out { vec4 o[]; };
layout(set = 0, binding = 3) buffer Counter { uint bright; };
layout(push_constant) uniform Params { uint pick; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec2 uv = vec2(float(i % 8u), float(i / 8u)) / 8.0;
  vec4 t = textureLod(sampler2D(table[pick], smp), uv, 0.0);
  if (t.x > 0.5) atomicAdd(bright, 1u);
  o[i] = t + textureLod(sampler2D(table[nonuniformEXT(i % 5u)], smp), uv.yx, 0.0);
}
