// Negative control for one_d.comp: the 64-block Morton permutation (right
// for 8-wide rows) is applied to the index of a 16-wide split, and only to
// the coordinates: gl_GlobalInvocationID.x keeps the old lane, so texels
// get another invocation's value. waverun must report a difference.
#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D src;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D dst;
void main() {
  uint l = gl_LocalInvocationIndex;
  uint x8 = (l & 1u) | ((l >> 2) & 6u), y8 = ((l >> 1) & 3u) | ((l >> 3) & 4u);
  uint i = (l & ~63u) | (y8 << 3) | x8;
  uvec2 q = uvec2(i % 16u, i / 16u);
  ivec2 p = ivec2(gl_WorkGroupID.xy * uvec2(16u, 16u) + q);
  float v = imageLoad(src, p).r + imageLoad(src, p ^ ivec2(1, 0)).r;
  imageStore(dst, p, vec4(v + float(gl_GlobalInvocationID.x)));
}
