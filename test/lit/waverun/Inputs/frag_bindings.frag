// Descriptors of every common kind in the fragment stage: a sampled image, a
// storage image, a uniform buffer, a storage buffer in set 1; a
// specialization constant; an int color output at location 1 only.
#version 450
layout(constant_id = 0) const uint kScale = 1u;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1, r32ui) uniform uimage2D marks;
layout(set = 0, binding = 2) uniform Params { uint bias; };
layout(set = 1, binding = 0) buffer Out { float sums[]; };
layout(location = 1) out ivec4 o;
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec4 t = texelFetch(tex, p, 0);
  imageStore(marks, p, uvec4(uint(p.x + p.y * 10) * kScale + bias));
  sums[p.y * 6 + p.x] = t.x;
  o = ivec4(p, 0, 1);
}
