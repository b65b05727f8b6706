// Hand pre-reduced histogram: each iteration takes the first active lane's
// bin, the lanes with that bin add their count with one atomic and leave.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer Keys { uint key[]; };
layout(set = 0, binding = 1) buffer Hist { uint bins[16]; };
shared uint local_bins[16];

void main() {
  uint l = gl_LocalInvocationIndex;
  if (l < 16u) local_bins[l] = 0u;
  barrier();
  uint bin = key[gl_GlobalInvocationID.x] % 16u;
  for (;;) {
    uint first = subgroupBroadcastFirst(bin);
    if (bin == first) {
      uint lanes = subgroupBallotBitCount(subgroupBallot(true));
      if (subgroupElect()) atomicAdd(local_bins[first], lanes);
      break;
    }
  }
  barrier();
  if (l < 16u) atomicAdd(bins[l], local_bins[l]);
}
