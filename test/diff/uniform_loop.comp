// Positive control: a loop over a uniform table (every lane reads the same
// element per iteration) against a hand-batched one where each active lane
// loads one element of the next batch and every iteration takes it from its
// owner with subgroupShuffle. Workgroups of 20, a trip count (37) that is no
// multiple of any size: partial subgroups and partial batches.
//
// RUN: %diff %s --against %S/Inputs/uniform_loop_batched.comp
// RUN: %diff %s --waveopt-flags=""
#version 450
layout(local_size_x = 20) in;
layout(set = 0, binding = 0) readonly buffer Table { uint table[]; };
layout(set = 0, binding = 1) readonly buffer Xs { uint x[]; };
layout(set = 0, binding = 2) buffer Ys { uint y[]; };
layout(push_constant) uniform Params { uint n; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  uint acc = 0u;
  for (uint k = 0u; k < n; ++k) acc = acc * 31u + (table[k] ^ x[i]);
  y[i] = acc;
}
