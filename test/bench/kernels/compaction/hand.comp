// Stream compaction, hand-tuned (seed 000: "if all lanes add C or 0"): a
// ballot of the kept lanes, one atomic of the bit count by one lane, each
// kept lane's slot = the broadcast base + its prefix count of kept lanes.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint vals[]; };
layout(set = 0, binding = 1) buffer Counter { uint count; };
layout(set = 0, binding = 2) writeonly buffer Out { uint kept[]; };

void main() {
  uint i = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 64u) + gl_GlobalInvocationID.x;
  uint v = vals[i];
  bool keep = (v & 3u) == 0u;
  uvec4 votes = subgroupBallot(keep);
  uint n = subgroupBallotBitCount(votes);
  uint base = 0u;
  if (n != 0u && subgroupElect()) base = atomicAdd(count, n);
  base = subgroupBroadcastFirst(base);
  if (keep) kept[base + subgroupBallotExclusiveBitCount(votes)] = v;
}
