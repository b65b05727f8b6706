// Reads inactive and absent lanes, which the specification leaves undefined:
// the simulator returns 0xdeadbeef. Workgroups of 40: at size 32 the second
// subgroup has 8 lanes; at 64 the only one has 40.
#version 450
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_clustered : require
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) buffer Out { uint o[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  uint lane = gl_SubgroupInvocationID;
  o[4u * i] = subgroupShuffle(i, lane + 8u);        // past the last lane: absent
  if (lane % 2u == 0u) {
    o[4u * i + 1u] = subgroupShuffle(i, lane + 1u);  // an odd lane: inactive
  }
  o[4u * i + 2u] = subgroupClusteredAdd(1u, 4u) + 100u * gl_NumSubgroups;
  o[4u * i + 3u] = gl_SubgroupID;
}
