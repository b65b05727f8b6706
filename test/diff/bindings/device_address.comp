// Buffer device addresses: pointer fields in push constants and in a
// storage buffer get addresses of buffers waverun allocates (one per
// field, sized by 'pointer LABEL size=N'), never random bits. The atomic
// through a pointer is pre-reduced. The negative control writes one
// element further.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: prereduce-atomics: applied
// RUN: %diff %s --against %S/Inputs/device_address_shifted.comp --expect=differ
#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 40) in;
layout(buffer_reference, std430) buffer Items { uint count; uint v[]; };
layout(buffer_reference, std430) readonly buffer Weights { float w[]; };
layout(push_constant) uniform Params { Items items; };
layout(set = 0, binding = 0) readonly buffer Tables { uint scale; Weights weights; };
layout(set = 0, binding = 1) buffer Out { float o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  float x = weights.w[i];
  if (x > 0.5) atomicAdd(items.count, 1u);
  items.v[i] = uint(x * float(scale));
  o[i] = x;
}
