// An 8x8 downsample: each invocation loads one texel, the 2x2 blocks are
// exchanged through shared memory, one invocation per block writes it.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba16f) writeonly uniform image2D dst;
shared vec4 tile[8][8];
void main() {
  const uvec2 l = gl_LocalInvocationID.xy;
  tile[l.y][l.x] = texelFetch(src, ivec2(gl_GlobalInvocationID.xy), 0);
  barrier();
  if ((l.x & 1u) == 0u && (l.y & 1u) == 0u) {
    const vec4 sum = tile[l.y][l.x] + tile[l.y][l.x + 1u] + tile[l.y + 1u][l.x] +
                     tile[l.y + 1u][l.x + 1u];
    imageStore(dst, ivec2(gl_GlobalInvocationID.xy / 2u), sum * 0.25);
  }
}
