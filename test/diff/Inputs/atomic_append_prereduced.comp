// Hand pre-reduced atomic append: correct for any subgroup size and any set
// of active lanes.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) readonly buffer Keys { uint key[]; };
layout(set = 0, binding = 1) buffer Counter { uint count; };
layout(set = 0, binding = 2) buffer Items { uint items[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  bool take = key[i] == 0u;
  uvec4 takers = subgroupBallot(take);
  uint total = subgroupBallotBitCount(takers);
  uint base = 0u;
  if (subgroupElect() && total > 0u) base = atomicAdd(count, total);
  base = subgroupBroadcastFirst(base);
  if (take) items[base + subgroupBallotExclusiveBitCount(takers)] = i;
}
