// Start and count read by workgroup id from storage images; the lights are
// plain vec4s; 8x8 tiles.
// RUN: %diff %s --waveopt-flags="--ssa-rewrite --batch-uniform-loads --remarks=batch" 2>&1 | %FileCheck %s
// CHECK: applied BatchedLoads in main
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) readonly uniform uimage2D starts;
layout(set = 0, binding = 1, r32ui) readonly uniform uimage2D counts;
layout(set = 0, binding = 2) readonly buffer Lights { vec4 lights[]; };
layout(set = 0, binding = 3) buffer Out { vec4 result[]; };
void main() {
  ivec2 tile = ivec2(gl_WorkGroupID.xy);
  uint start = imageLoad(starts, tile).r;
  uint count = imageLoad(counts, tile).r;
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < count; ++i) acc += lights[start + i] * float(gl_LocalInvocationIndex + 1u);
  result[gl_GlobalInvocationID.y * 32u + gl_GlobalInvocationID.x] = acc;
}
