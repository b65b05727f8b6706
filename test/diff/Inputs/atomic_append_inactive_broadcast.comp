// Negative control: pre-reduced append inside the divergent branch that lets
// lane 0 issue the atomic and broadcasts its result, but lane 0 is not
// active when its key is not 0 (correct: subgroupElect/BroadcastFirst).
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) readonly buffer Keys { uint key[]; };
layout(set = 0, binding = 1) buffer Counter { uint count; };
layout(set = 0, binding = 2) buffer Items { uint items[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (key[i] == 0u) {
    uvec4 takers = subgroupBallot(true);
    uint base = 0u;
    if (gl_SubgroupInvocationID == 0u) base = atomicAdd(count, subgroupBallotBitCount(takers));
    base = subgroupBroadcast(base, 0u);
    items[base + subgroupBallotExclusiveBitCount(takers)] = i;
  }
}
