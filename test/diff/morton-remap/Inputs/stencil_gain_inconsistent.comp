// Negative control for stencil_gain.comp: the image coordinates and the
// local id are relabelled (Morton order in 8x8 tiles) but the gain buffer
// is still indexed by the original invocation. waverun must report a
// difference.
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2D dst;
layout(set = 0, binding = 2) readonly buffer Gain { float gain[]; };
const uint W = 32u;
void main() {
  uint l = gl_LocalInvocationIndex;
  uvec2 q = uvec2((l & 1u) | ((l >> 2) & 6u), ((l >> 1) & 3u) | ((l >> 3) & 4u));
  q += 8u * uvec2((l >> 6) & 1u, l >> 7);
  ivec2 p = ivec2(gl_WorkGroupID.xy * 16u + q);
  vec4 s = vec4(0.0);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += texelFetch(src, clamp(p + ivec2(dx, dy), ivec2(0), ivec2(31)), 0);
  s *= gain[gl_GlobalInvocationID.y * W + gl_GlobalInvocationID.x];
  imageStore(dst, p, s / 9.0 + vec4(q, 0.0, 0.0));
}
