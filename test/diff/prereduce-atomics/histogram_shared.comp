// A 16-bin luminance histogram in shared memory (under a divergent if),
// flushed to a global histogram; workgroups of 100. The bin atomic is the
// small-bin case, the flush is left alone (distinct addresses), the bright
// counter is case A under a divergent branch.
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce --remarks-missed=prereduce" 2>&1 | %FileCheck %s
// CHECK: applied SmallBinSet
// CHECK: applied UniformAddressUniformValue
// CHECK: missed DistinctAddresses
#version 450
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer Pixels { vec4 pixels[]; };
layout(set = 0, binding = 1) buffer Hist { uint bins[16]; uint bright; };
shared uint local_bins[16];
void main() {
  uint l = gl_LocalInvocationIndex;
  if (l < 16u) local_bins[l] = 0u;
  barrier();
  vec4 c = pixels[gl_GlobalInvocationID.x];
  float lum = dot(c.rgb, vec3(0.2126, 0.7152, 0.0722));
  if (c.a > 0.25) {
    uint bin = clamp(uint(lum * 16.0), 0u, 15u);
    atomicAdd(local_bins[bin], 1u);
    if (lum > 0.6) atomicAdd(bright, 1u);
  }
  barrier();
  if (l < 16u) atomicAdd(bins[l], local_bins[l]);
}
