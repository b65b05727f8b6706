// Hand-batched uniform loads, right for any set of active lanes: the k-th
// active lane (in lane order) loads element base + k, and iteration j takes
// the element from the j-th active lane.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 20) in;
layout(set = 0, binding = 0) readonly buffer Table { uint table[]; };
layout(set = 0, binding = 1) readonly buffer Xs { uint x[]; };
layout(set = 0, binding = 2) buffer Ys { uint y[]; };
layout(push_constant) uniform Params { uint n; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  uint acc = 0u;
  uvec4 live = subgroupBallot(true);
  uint rank = subgroupBallotExclusiveBitCount(live);
  uint lanes = subgroupBallotBitCount(live);
  for (uint base = 0u; base < n; base += lanes) {
    uint idx = base + rank;
    uint mine = idx < n ? table[idx] : 0u;
    uint batch = min(lanes, n - base);
    uvec4 rest = live;
    for (uint j = 0u; j < batch; ++j) {
      uint owner = subgroupBallotFindLSB(rest);
      rest[owner / 32u] &= ~(1u << (owner % 32u));
      acc = acc * 31u + (subgroupShuffle(mine, owner) ^ x[i]);
    }
  }
  y[i] = acc;
}
