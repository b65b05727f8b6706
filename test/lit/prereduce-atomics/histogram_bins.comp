// Case C: a divergent address into a small set of bins. The index is bounded
// by clamp (16 values), by an and-mask (8), by umod (4) and by the array type
// (a 16-entry shared array); a peel loop takes one distinct index per
// iteration and exits uniformly (OpGroupNonUniformAll).
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %waveopt %s --prereduce-atomics=max-bins=8 -o %t.8.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.8.remarks
// RUN: %FileCheck %s --check-prefix=MAX8 < %t.8.remarks
// REMARK: applied SmallBinSet in main: one atomic per distinct address per subgroup (the index takes at most 16 values): OpAtomicIAdd of a uniform value; the returned value is unused
// REMARK: applied SmallBinSet in main: {{.*}}at most 24 values): OpAtomicIAdd of a divergent value; the returned value is unused
// REMARK: applied SmallBinSet in main: {{.*}}at most 4 values): OpAtomicOr of a uniform value; each lane's returned value is rebuilt
// REMARK: missed DistinctAddresses in main: the index is the invocation's own index
// REMARK: missed DivergentAddress in main: the address differs between lanes and its index is not provably in a set of at most 32 values
// MAX8-COUNT-2: missed DivergentAddress in main: {{.*}}at most 8 values
// MAX8-NEXT: applied SmallBinSet in main: {{.*}}at most 4 values
// MAX8-COUNT-2: missed DivergentAddress in main: {{.*}}at most 8 values
// CHECK-DAG: OpCapability GroupNonUniformVote
// CHECK: OpLoopMerge [[EXIT:%[0-9]+]] [[CONT:%[0-9]+]] None
// CHECK: [[FIRST:%[0-9]+]] = OpGroupNonUniformBroadcastFirst %uint %uint_3 [[BIN:%[a-z_0-9]+]]
// CHECK: [[MINE:%[0-9]+]] = OpIEqual %bool [[BIN]] [[FIRST]]
// CHECK: OpGroupNonUniformElect
// CHECK: OpAtomicIAdd %uint
// CHECK: [[ALL:%[0-9]+]] = OpGroupNonUniformAll %bool %uint_3
// CHECK: [[CONT]] = OpLabel
// CHECK-NEXT: OpBranchConditional [[ALL]] [[EXIT]]
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Pixels { float lum[]; };
layout(set = 0, binding = 1) buffer Hist { uint bins[]; };
layout(set = 0, binding = 2) buffer Out { uint flags[]; };
shared uint local_bins[16];
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint l = gl_LocalInvocationIndex;
  float x = lum[g];
  uint bin = clamp(uint(x * 16.0), 0u, 15u);
  atomicAdd(bins[bin], 1u);
  atomicAdd(bins[16u + (uint(x * 1000.0) & 7u)], g);
  flags[g] = atomicOr(bins[uint(x * 100.0) % 4u], 2u);
  atomicAdd(local_bins[l % 16u], 1u);
  atomicAdd(bins[uint(x * 1000.0)], 1u);
}
