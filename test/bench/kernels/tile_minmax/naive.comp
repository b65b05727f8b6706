// Tile min/max depth of 16x16 tiles (seed 001, example 1), naive: every
// invocation does an atomicMin and an atomicMax on its tile's result.
// Depths are >= 0, so their bit patterns order like the floats.
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, r32f) readonly uniform image2D depth;
layout(set = 0, binding = 1) buffer TileMin { uint tile_min[]; };
layout(set = 0, binding = 2) buffer TileMax { uint tile_max[]; };

void main() {
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint z = floatBitsToUint(imageLoad(depth, ivec2(gl_GlobalInvocationID.xy)).r);
  atomicMin(tile_min[tile], z);
  atomicMax(tile_max[tile], z);
}
