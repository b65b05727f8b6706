// Tile min/max depth of 16x16 tiles (seed 001, example 1), naive: a
// shared-memory reduction tree for the tile's minimum, then one for its
// maximum; invocation 0 writes both. Depths are >= 0, so their bit patterns
// order like the floats.
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, r32f) readonly uniform image2D depth;
layout(set = 0, binding = 1) writeonly buffer TileMin { uint tile_min[]; };
layout(set = 0, binding = 2) writeonly buffer TileMax { uint tile_max[]; };
shared uint smin[256];
shared uint smax[256];

void main() {
  uint tid = gl_LocalInvocationIndex;
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint z = floatBitsToUint(imageLoad(depth, ivec2(gl_GlobalInvocationID.xy)).r);
  smin[tid] = z;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s) smin[tid] = min(smin[tid], smin[tid + s]);
    barrier();
  }
  uint lo = smin[0];
  smax[tid] = z;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s) smax[tid] = max(smax[tid], smax[tid + s]);
    barrier();
  }
  if (tid == 0u) {
    tile_min[tile] = lo;
    tile_max[tile] = smax[0];
  }
}
