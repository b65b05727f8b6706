// Positive control: a shared-memory histogram with one atomic per invocation
// against one pre-reduced per subgroup (peel one distinct bin per iteration,
// one atomic of the bin's lane count). Workgroups of 100.
//
// RUN: %diff %s --against %S/Inputs/histogram_prereduced.comp
// RUN: %diff %s --waveopt-flags=""
#version 450
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer Keys { uint key[]; };
layout(set = 0, binding = 1) buffer Hist { uint bins[16]; };
shared uint local_bins[16];

void main() {
  uint l = gl_LocalInvocationIndex;
  if (l < 16u) local_bins[l] = 0u;
  barrier();
  atomicAdd(local_bins[key[gl_GlobalInvocationID.x] % 16u], 1u);
  barrier();
  if (l < 16u) atomicAdd(bins[l], local_bins[l]);
}
