// Uniform and storage texel buffers (samplerBuffer / Buffer<T>, imageBuffer
// / RWBuffer<T>): a loop fetches a uniform texel buffer, an image atomic on
// a storage texel buffer at a uniform address is pre-reduced, a third one
// (rgba16f) is written. The negative control drops one atomic in every
// subgroup.
// RUN: %diff %s --waveopt-flags="-O --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: prereduce-atomics: applied
// RUN: %diff %s --against %S/Inputs/texel_buffers_lost_atomic.comp --expect=differ
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) uniform samplerBuffer taps;
layout(set = 0, binding = 1, r32ui) uniform uimageBuffer hits;
layout(set = 0, binding = 2, rgba16f) uniform writeonly imageBuffer result;
layout(push_constant) uniform Params { int n; };
void main() {
  int i = int(gl_GlobalInvocationID.x);
  vec4 acc = vec4(0.0);
  for (int j = 0; j < n; ++j) acc += texelFetch(taps, j) * float(i - j);
  if (acc.x > 0.0) imageAtomicAdd(hits, int(gl_WorkGroupID.x), 1u);
  imageStore(result, i, acc / 64.0);
}
