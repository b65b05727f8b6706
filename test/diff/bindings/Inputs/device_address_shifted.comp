// device_address.comp writing one element further.
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
  items.v[i + 1u] = uint(x * float(scale));
  o[i] = x;
}
