// 16-bin luminance histogram of a 1920x1080 image (seed 003), straight to
// global memory: one storage-buffer atomic per pixel.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D img;
layout(set = 0, binding = 1) buffer Hist { uint bins[16]; };

uint lum_bin(ivec2 p) {
  vec3 c = imageLoad(img, p).rgb;
  float lum = dot(c, vec3(0.2126, 0.7152, 0.0722));
  float grad = float(p.x + p.y) / 3000.0;
  return min(uint((0.8 * grad + 0.2 * lum) * 16.0), 15u);
}

void main() {
  atomicAdd(bins[lum_bin(ivec2(gl_GlobalInvocationID.xy))], 1u);
}
