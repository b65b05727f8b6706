// Tile max/min depth: atomicMax/atomicMin(tile[workgroup], bits) with
// divergent values from a storage image; 8x8 tiles; returned values kept.
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK-COUNT-2: applied UniformAddressDivergentValue
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32f) readonly uniform image2D depth;
layout(set = 0, binding = 1) buffer Tiles { uint tile_max[16]; uint tile_min[16]; uint seen[]; };
void main() {
  uint tile = gl_WorkGroupID.y * 4u + gl_WorkGroupID.x;
  float d = imageLoad(depth, ivec2(gl_GlobalInvocationID.xy)).r;
  uint bits = floatBitsToUint(d);
  uint before = atomicMax(tile_max[tile], bits);
  atomicMin(tile_min[tile], bits);
  seen[gl_GlobalInvocationID.y * 32u + gl_GlobalInvocationID.x] = uint(before <= bits);
}
