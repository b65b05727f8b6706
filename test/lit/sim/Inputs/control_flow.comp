// Divergent control flow and reconvergence: a switch with fall-through, a
// function with a loop that continues and breaks per lane and counts the
// lanes still iterating, subgroup operations after reconvergence, a shared
// memory tree reduction across subgroups with barriers, and an early return.
// Workgroups of 50: partial subgroups at every size above 2.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 50) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
shared uint partial[64];
shared uint total;

uint lanes() { return subgroupBallotBitCount(subgroupBallot(true)); }

uint walk(uint x) {
  uint acc = 0u;
  for (uint k = 0u; k < x % 7u; ++k) {
    if (((x >> k) & 1u) == 1u) continue;
    acc += lanes() * (k + 1u);
    for (uint j = 0u; j < k; ++j) {
      if (j == (x & 3u)) break;
      acc += lanes();
    }
    if (acc > 40u) break;
  }
  return acc;
}

void main() {
  uint i = gl_GlobalInvocationID.x;
  uint l = gl_LocalInvocationIndex;
  uint x = v[i] % 1000u;
  uint r = 0u;
  switch (x % 5u) {
    case 0u: r = walk(x); break;
    case 1u: r = subgroupAdd(x); break;
    case 2u: r = 7u;  // falls through
    case 3u: r += lanes() + 100u * (x % 5u); break;
    default: r = lanes() << 8; break;
  }
  o[3u * i] = r;
  o[3u * i + 1u] = lanes();
  partial[l] = x;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (l < s && l + s < 50u) partial[l] += partial[l + s];
    barrier();
  }
  if (l == 0u) total = partial[0];
  barrier();
  if (x % 4u == 0u) return;
  o[3u * i + 2u] = total + (subgroupExclusiveAdd(1u) << 20);
}
