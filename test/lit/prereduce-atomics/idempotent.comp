// Running the pass on its own output changes nothing: every rewritten atomic
// sits under OpGroupNonUniformElect or, for a small bin set with a uniform
// value, under the lowest-lane-of-its-peers test, which the pass recognises
// (as it does a hand-written elect guard).
// RUN: %waveopt %s --prereduce-atomics -o %t.once.spv
// RUN: %waveopt %t.once.spv --prereduce-atomics -o %t.twice.spv --remarks-missed=prereduce 2> %t.remarks
// RUN: cmp %t.once.spv %t.twice.spv
// RUN: %FileCheck %s < %t.remarks
// RUN: %waveopt %s -O -o %t.O1.spv
// RUN: %waveopt %t.O1.spv -O -o %t.O2.spv
// RUN: cmp %t.O1.spv %t.O2.spv
// CHECK-COUNT-4: missed AlreadyPreReduced in main: a dominating OpGroupNonUniformElect (or lowest-lane-of-a-ballot test) already leaves one lane
// CHECK-NOT: remark
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint counter; uint hand; uint bins[16]; uint slots[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  slots[g] = atomicAdd(counter, 1u);
  atomicAdd(bins[g * 7u % 16u], g);
  slots[g + 64u] = atomicAdd(bins[g * 3u % 8u], 2u);
  if (subgroupElect()) atomicAdd(hand, subgroupBallotBitCount(subgroupBallot(true)));
}
