// A deliberately wrong quad-exchange rewrite of ../downsample.comp (after
// the Morton remap): the read of the element below is served by a
// horizontal swap instead of a vertical one.
#version 450
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba32f) readonly uniform image2D src;
layout(set = 0, binding = 1, rgba32f) writeonly uniform image2D mip1;
layout(set = 0, binding = 2, rgba32f) writeonly uniform image2D mip2;

void main() {
  uint a = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
  uvec2 l = uvec2((a & 1u) | ((a >> 1u) & 2u) | ((a >> 2u) & 4u),
                  ((a >> 1u) & 1u) | ((a >> 2u) & 2u) | ((a >> 3u) & 4u));
  ivec2 p = ivec2(gl_WorkGroupID.xy * 8u + l);
  ivec2 s = 2 * p;
  vec4 m1 = (((imageLoad(src, s) + imageLoad(src, s + ivec2(1, 0))) +
              imageLoad(src, s + ivec2(0, 1))) + imageLoad(src, s + ivec2(1, 1))) * 0.25;
  imageStore(mip1, p, m1);
  vec4 right = subgroupQuadSwapHorizontal(m1);
  vec4 below = subgroupQuadSwapHorizontal(m1);
  vec4 diag = subgroupQuadSwapDiagonal(m1);
  if (((l.x | l.y) & 1u) == 0u) {
    imageStore(mip2, p / 2, (((m1 + right) + below) + diag) * 0.25);
  }
}
