#version 450
#extension GL_GOOGLE_include_directive : require
// Per-tile maximum and a count into the shared histogram: the maximum is one
// atomic per subgroup after prereduce-atomics.
#include "bins.glsl"
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Depth { float depth[]; };
layout(set = 0, binding = 2) buffer Tiles { uint tile_max[]; };

void main() {
  float d = depth[gl_GlobalInvocationID.x];
  atomicMax(tile_max[gl_WorkGroupID.x], floatBitsToUint(d));
  atomicAdd(bins[kBins - 1u], 1u);
}
