// GLSL → SPIR-V → GLSL and → HLSL for the subgroup operations waveopt emits;
// the emitted sources compile again with glslang and validate.
// RUN: %waveopt %s --emit=glsl -o %t.comp
// RUN: %FileCheck %s --check-prefix=GLSL < %t.comp
// RUN: %glslang -V --target-env vulkan1.1 %t.comp -o %t.glsl.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.glsl.spv
// RUN: %waveopt %s -o %t.hlsl
// RUN: %FileCheck %s --check-prefix=HLSL < %t.hlsl
// RUN: %glslang -V -D -S comp -e main --target-env vulkan1.1 %t.hlsl -o %t.hlsl.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.hlsl.spv
// GLSL-DAG: #extension GL_KHR_shader_subgroup_ballot : require
// GLSL-DAG: #extension GL_KHR_shader_subgroup_shuffle : require
// GLSL-DAG: #extension GL_KHR_shader_subgroup_arithmetic : require
// GLSL-DAG: subgroupBallot(
// GLSL-DAG: subgroupBallotBitCount(
// GLSL-DAG: subgroupShuffle(
// GLSL-DAG: subgroupAdd(
// GLSL-DAG: subgroupExclusiveAdd(
// GLSL-DAG: subgroupElect()
// GLSL-DAG: subgroupBroadcastFirst(
// HLSL-DAG: WaveActiveBallot(
// HLSL-DAG: WaveReadLaneAt(
// HLSL-DAG: WaveActiveSum(
// HLSL-DAG: WavePrefixSum(
// HLSL-DAG: WaveIsFirstLane()
// HLSL-DAG: WaveReadLaneFirst(
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
layout(set = 0, binding = 1) buffer Counter { uint counter; uint maxv; };

void main() {
  uint v = data[gl_GlobalInvocationID.x];
  uvec4 ballot = subgroupBallot(v > 10u);
  uint count = subgroupBallotBitCount(ballot);
  uint sum = subgroupAdd(v);
  uint prefix = subgroupExclusiveAdd(v);
  uint neighbour = subgroupShuffle(v, gl_SubgroupInvocationID ^ 1u);
  uint first = subgroupBroadcastFirst(v);
  uint old = 0u;
  if (subgroupElect()) old = atomicAdd(counter, count);
  old = subgroupBroadcastFirst(old);
  atomicMax(maxv, subgroupMax(v));
  data[gl_GlobalInvocationID.x] = old + prefix + sum + neighbour + first;
}
