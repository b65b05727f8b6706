// Tile min/max depth (seed 001, example 1), hand-tuned as the seed writes
// it: subgroupMin/Max, one shared slot per subgroup, one barrier, invocation
// 0 folds the slots and writes the tile's results.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, r32f) readonly uniform image2D depth;
layout(set = 0, binding = 1) writeonly buffer TileMin { uint tile_min[]; };
layout(set = 0, binding = 2) writeonly buffer TileMax { uint tile_max[]; };
shared uint gmin[256];  // one per subgroup (at most one per invocation)
shared uint gmax[256];

void main() {
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint z = floatBitsToUint(imageLoad(depth, ivec2(gl_GlobalInvocationID.xy)).r);
  uint zmin = subgroupMin(z);
  uint zmax = subgroupMax(z);
  if (subgroupElect()) {
    gmin[gl_SubgroupID] = zmin;
    gmax[gl_SubgroupID] = zmax;
  }
  barrier();
  if (gl_LocalInvocationIndex == 0u) {
    for (uint i = 1u; i < gl_NumSubgroups; ++i) {
      zmin = min(zmin, gmin[i]);
      zmax = max(zmax, gmax[i]);
    }
    tile_min[tile] = zmin;
    tile_max[tile] = zmax;
  }
}
