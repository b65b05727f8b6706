// Negative control for blur.comp at 32x8: the tiles of a 32-wide workgroup
// numbered as if it were 16 wide (tile & 1, tile >> 1), so tiles 2 and 3
// land below the workgroup and half of its texels are never written.
// waverun must report a difference.
#version 450
layout(local_size_x = 32, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
  uint l = gl_LocalInvocationIndex;
  uvec2 local = uvec2((l & 1u) | ((l >> 2) & 6u), ((l >> 1) & 3u) | ((l >> 3) & 4u));
  local += 8u * uvec2((l >> 6) & 1u, l >> 7);
  ivec2 p = ivec2(gl_WorkGroupID.xy * uvec2(32u, 8u) + local);
  ivec2 size = imageSize(src);
  vec4 sum = vec4(0.0);
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      sum += imageLoad(src, clamp(p + ivec2(dx, dy), ivec2(0), size - 1));
    }
  }
  vec4 tag = vec4(local, gl_WorkGroupID.xy) / 255.0;
  imageStore(dst, p, sum / 9.0 + tag);
}
