// Hand pre-reduced: one atomic of the active-lane count per subgroup.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 20) in;
layout(set = 0, binding = 0) buffer Counter { uint count; };
layout(set = 0, binding = 1) buffer Items { uint items[]; };

void main() {
  uvec4 live = subgroupBallot(true);
  uint base = 0u;
  if (subgroupElect()) base = atomicAdd(count, subgroupBallotBitCount(live));
  base = subgroupBroadcastFirst(base);
  items[base + subgroupBallotExclusiveBitCount(live)] = gl_GlobalInvocationID.x;
}
