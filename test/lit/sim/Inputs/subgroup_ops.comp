// Every kind of subgroup operation in one kernel, with workgroups of 70 so
// that the last subgroup is partial at sizes 4 (2 lanes), 8, 16, 32 and 64 (6
// lanes), and a branch that splits every subgroup. Nothing reads an inactive
// or absent lane, so every output is defined and lavapipe and the simulator
// must agree on all of them.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 70) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  uint x = v[i] % 100u;
  uint lane = gl_SubgroupInvocationID;
  uint count = subgroupBallotBitCount(subgroupBallot(true));
  uint b = 20u * i;
  o[b + 0u] = gl_SubgroupSize;
  o[b + 1u] = lane;
  o[b + 2u] = count;
  o[b + 3u] = subgroupAdd(x);
  o[b + 4u] = subgroupExclusiveAdd(x);
  o[b + 5u] = subgroupInclusiveMax(x);
  o[b + 6u] = subgroupMin(x) | (uint(subgroupElect()) << 16);
  o[b + 7u] = subgroupBroadcastFirst(x) + 1000u * subgroupBroadcast(x, 1u);
  uint down = subgroupShuffleDown(x, 1u);
  o[b + 8u] = lane + 1u < count ? down : 7777u;
  uint up = subgroupShuffleUp(x, 2u);
  o[b + 9u] = lane >= 2u ? up : 8888u;
  o[b + 10u] = subgroupShuffleXor(x, 1u) + 1000u * subgroupQuadSwapHorizontal(x);
  o[b + 11u] = subgroupShuffle(x, count - 1u - lane);
  if (x % 3u == 0u) {
    uvec4 bal = subgroupBallot(x > 50u);
    o[b + 12u] = subgroupBallotBitCount(subgroupBallot(true)) |
                 (subgroupBallotInclusiveBitCount(bal) << 8) |
                 (subgroupBallotExclusiveBitCount(bal) << 16);
    o[b + 13u] = subgroupBallotFindLSB(bal) | (subgroupBallotFindMSB(bal) << 8) |
                 (uint(subgroupBallotBitExtract(bal, lane)) << 16) |
                 (uint(subgroupInverseBallot(bal)) << 17);
  } else {
    o[b + 12u] = subgroupAdd(1u) + 1000u;
    o[b + 13u] = subgroupInclusiveAdd(x) + (subgroupExclusiveMul(x % 3u + 1u) << 16);
  }
  o[b + 14u] = subgroupXor(x) ^ (subgroupOr(x) << 8) ^ (subgroupAnd(x | 0x80u) << 16);
  o[b + 15u] = uint(subgroupAll(x < 90u)) + 2u * uint(subgroupAny(x > 95u)) +
               4u * uint(subgroupAllEqual(x / 200u));
  o[b + 16u] = floatBitsToUint(subgroupInclusiveAdd(float(x)) + subgroupMax(float(x) - 50.0));
  o[b + 17u] = uint(subgroupMax(int(x) - 50) + 100) | (uint(subgroupExclusiveMin(int(x) - 50) + 100) << 16);
  o[b + 18u] = subgroupInclusiveOr(1u << (x % 32u)) ^ subgroupExclusiveXor(x);
  uint quad = subgroupQuadBroadcast(x, 1u) + 1000u * subgroupQuadSwapDiagonal(x);
  o[b + 19u] = (lane | 3u) < count ? quad : 6666u;
}
