// Tile min/max depth (seed 001, example 1), hand-tuned: subgroupMin/Max
// over the subgroup, one atomic of each per subgroup.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, r32f) readonly uniform image2D depth;
layout(set = 0, binding = 1) buffer TileMin { uint tile_min[]; };
layout(set = 0, binding = 2) buffer TileMax { uint tile_max[]; };

void main() {
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint z = floatBitsToUint(imageLoad(depth, ivec2(gl_GlobalInvocationID.xy)).r);
  uint zmin = subgroupMin(z);
  uint zmax = subgroupMax(z);
  if (subgroupElect()) {
    atomicMin(tile_min[tile], zmin);
    atomicMax(tile_max[tile], zmax);
  }
}
