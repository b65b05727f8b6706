// 3x3 binomial filter (seed 002), hand-tuned: Morton-like invocation order,
// so each lane quad covers a 2x2 pixel block and each group of 16 lanes a
// 4x4 block (its 3x3 taps overlap in 6x6 texels instead of 18x3).
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D src;
layout(set = 0, binding = 1, rgba8) writeonly uniform image2D dst;

uvec2 morton8x8(uint a) {
  return uvec2((a & 1u) | ((a >> 1u) & 2u) | ((a >> 2u) & 4u),
               ((a >> 1u) & 1u) | ((a >> 2u) & 2u) | ((a >> 3u) & 4u));
}

vec4 tap(ivec2 p, int dx, int dy, ivec2 last) {
  return imageLoad(src, clamp(p + ivec2(dx, dy), ivec2(0), last));
}

void main() {
  ivec2 p = ivec2(gl_WorkGroupID.xy * 8u + morton8x8(gl_LocalInvocationIndex));
  ivec2 last = imageSize(src) - 1;
  vec4 acc = tap(p, -1, -1, last) + 2.0 * tap(p, 0, -1, last) + tap(p, 1, -1, last);
  acc += 2.0 * tap(p, -1, 0, last) + 4.0 * tap(p, 0, 0, last) + 2.0 * tap(p, 1, 0, last);
  acc += tap(p, -1, 1, last) + 2.0 * tap(p, 0, 1, last) + tap(p, 1, 1, last);
  imageStore(dst, p, acc * (1.0 / 16.0));
}
