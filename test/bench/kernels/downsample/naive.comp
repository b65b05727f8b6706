// Single-pass 2x2 downsample of two mip levels (seed 002), naive: 8x8
// workgroups in row-major invocation order; each invocation averages a 2x2
// source block into mip 1, and mip 2 is averaged from mip 1 through shared
// memory.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D src;
layout(set = 0, binding = 1, rgba8) writeonly uniform image2D mip1;
layout(set = 0, binding = 2, rgba8) writeonly uniform image2D mip2;
shared vec4 tile[8][8];

void main() {
  uvec2 l = gl_LocalInvocationID.xy;
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 s = 2 * p;
  vec4 m1 = (((imageLoad(src, s) + imageLoad(src, s + ivec2(1, 0))) +
              imageLoad(src, s + ivec2(0, 1))) + imageLoad(src, s + ivec2(1, 1))) * 0.25;
  imageStore(mip1, p, m1);
  tile[l.y][l.x] = m1;
  barrier();
  if (((l.x | l.y) & 1u) == 0u) {
    vec4 m2 = (((tile[l.y][l.x] + tile[l.y][l.x + 1u]) + tile[l.y + 1u][l.x]) +
               tile[l.y + 1u][l.x + 1u]) * 0.25;
    imageStore(mip2, p / 2, m2);
  }
}
