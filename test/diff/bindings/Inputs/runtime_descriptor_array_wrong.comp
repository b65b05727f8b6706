// runtime_descriptor_array.comp reading the next descriptor.
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
  o[i] = t + textureLod(sampler2D(table[nonuniformEXT((i + 1u) % 5u)], smp), uv.yx, 0.0);
}
