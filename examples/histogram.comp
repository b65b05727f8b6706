#version 450
// A 16-bin luminance histogram: every lane of a workgroup adds one to a bin
// in shared memory, then the bins are flushed to a global histogram.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Pixels { vec4 pixels[]; };
layout(set = 0, binding = 1) buffer Histogram { uint bins[16]; };
layout(set = 0, binding = 2) buffer Counter { uint bright_pixels; };

shared uint local_bins[16];

void main() {
  uint i = gl_LocalInvocationIndex;
  if (i < 16) local_bins[i] = 0;
  barrier();
  vec4 c = pixels[gl_GlobalInvocationID.x];
  float lum = dot(c.rgb, vec3(0.2126, 0.7152, 0.0722));
  uint bin = clamp(uint(lum * 16.0), 0u, 15u);
  atomicAdd(local_bins[bin], 1u);
  if (lum > 0.9) atomicAdd(bright_pixels, 1u);
  barrier();
  if (i < 16) atomicAdd(bins[i], local_bins[i]);
}
