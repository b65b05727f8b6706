// 16-bin luminance histogram of a 1920x1080 image (seed 003), naive:
// one shared-memory atomic per pixel, the workgroup's bins flushed to the
// global histogram. Workgroups of 64x1 pixels, as in the seed.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D img;
layout(set = 0, binding = 1) buffer Hist { uint bins[16]; };
shared uint local_bins[16];

// The image's luminance on top of a smooth gradient, so that neighbouring
// pixels fall into nearby bins as in a real frame (a 64-pixel row segment
// covers a few bins, not all 16).
uint lum_bin(ivec2 p) {
  vec3 c = imageLoad(img, p).rgb;
  float lum = dot(c, vec3(0.2126, 0.7152, 0.0722));
  float grad = float(p.x + p.y) / 3000.0;
  return min(uint((0.8 * grad + 0.2 * lum) * 16.0), 15u);
}

void main() {
  uint l = gl_LocalInvocationIndex;
  if (l < 16u) local_bins[l] = 0u;
  barrier();
  atomicAdd(local_bins[lum_bin(ivec2(gl_GlobalInvocationID.xy))], 1u);
  barrier();
  if (l < 16u) atomicAdd(bins[l], local_bins[l]);
}
