// separate_sampler.comp sampling the other image.
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) uniform texture2D weights;
layout(set = 0, binding = 1) uniform texture2D colors;
layout(set = 1, binding = 0) uniform sampler smp;
layout(set = 0, binding = 2) buffer Out { vec4 o[]; };
layout(set = 0, binding = 3) buffer Counter { uint above; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec2 uv = vec2(float(i % 8u), float(i / 8u)) / 8.0;
  float threshold = textureLod(sampler2D(weights, smp), vec2(0.3, 0.6), 0.0).y;
  vec4 c = textureLod(sampler2D(weights, smp), uv, 0.0);
  if (c.x > threshold) atomicAdd(above, 1u);
  o[i] = c * threshold;
}
