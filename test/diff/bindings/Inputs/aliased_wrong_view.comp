// aliased.comp reading the wrong component through the float view.
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) readonly buffer DataF { float f[]; };
layout(set = 0, binding = 0) readonly buffer DataV { vec4 v[]; };
layout(set = 0, binding = 1) buffer Counter { uint count; };
layout(set = 0, binding = 2) buffer OutV { vec4 o[]; };
layout(set = 0, binding = 2) buffer OutF { float of[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 x = v[i];
  if (x.x > 0.5) atomicAdd(count, 1u);
  o[i] = x * 2.0;
  of[i * 4u + 1u] += f[i * 4u + 3u];
}
