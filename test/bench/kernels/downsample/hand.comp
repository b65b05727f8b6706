// Single-pass 2x2 downsample of two mip levels (seed 002), hand-tuned: the
// invocation index is remapped Morton-style, so lanes 4k..4k+3 are the 2x2
// block (0,0) (1,0) (0,1) (1,1) of mip-1 pixels; mip 2 comes from the quad
// with quad swaps instead of a shared-memory round trip and a barrier. The
// sum is taken in the same order as the naive version (bit-identical).
#version 450
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D src;
layout(set = 0, binding = 1, rgba8) writeonly uniform image2D mip1;
layout(set = 0, binding = 2, rgba8) writeonly uniform image2D mip2;

// index bits 5..0 = y2 x2 y1 x1 y0 x0
uvec2 morton8x8(uint a) {
  return uvec2((a & 1u) | ((a >> 1u) & 2u) | ((a >> 2u) & 4u),
               ((a >> 1u) & 1u) | ((a >> 2u) & 2u) | ((a >> 3u) & 4u));
}

void main() {
  uvec2 l = morton8x8(gl_LocalInvocationIndex);
  ivec2 p = ivec2(gl_WorkGroupID.xy * 8u + l);
  ivec2 s = 2 * p;
  vec4 m1 = (((imageLoad(src, s) + imageLoad(src, s + ivec2(1, 0))) +
              imageLoad(src, s + ivec2(0, 1))) + imageLoad(src, s + ivec2(1, 1))) * 0.25;
  imageStore(mip1, p, m1);
  vec4 right = subgroupQuadSwapHorizontal(m1);
  vec4 below = subgroupQuadSwapVertical(m1);
  vec4 diag = subgroupQuadSwapDiagonal(m1);
  if (((l.x | l.y) & 1u) == 0u) {
    imageStore(mip2, p / 2, (((m1 + right) + below) + diag) * 0.25);
  }
}
