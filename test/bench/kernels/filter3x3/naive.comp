// 3x3 binomial filter of an image on 8x8 workgroups (seed 002), naive:
// row-major invocation order.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D src;
layout(set = 0, binding = 1, rgba8) writeonly uniform image2D dst;

vec4 tap(ivec2 p, int dx, int dy, ivec2 last) {
  return imageLoad(src, clamp(p + ivec2(dx, dy), ivec2(0), last));
}

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 last = imageSize(src) - 1;
  vec4 acc = tap(p, -1, -1, last) + 2.0 * tap(p, 0, -1, last) + tap(p, 1, -1, last);
  acc += 2.0 * tap(p, -1, 0, last) + 4.0 * tap(p, 0, 0, last) + 2.0 * tap(p, 1, 0, last);
  acc += tap(p, -1, 1, last) + 2.0 * tap(p, 0, 1, last) + tap(p, 1, 1, last);
  imageStore(dst, p, acc * (1.0 / 16.0));
}
