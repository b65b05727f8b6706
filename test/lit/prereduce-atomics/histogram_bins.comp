// Case C: a divergent address into a small set of bins. The index is bounded
// by clamp (16 values), by an and-mask (8), by umod (4) and by the array type
// (a 16-entry shared array). A uniform value: the lanes sharing an index are
// found by one ballot per index bit, the lowest of them adds the count, the
// others get its old value by shuffle. A divergent value: a peel loop takes
// one distinct index per iteration and exits uniformly
// (OpGroupNonUniformAll).
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %waveopt %s --prereduce-atomics=max-bins=8 -o %t.8.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.8.remarks
// RUN: %FileCheck %s --check-prefix=MAX8 < %t.8.remarks
// REMARK: applied SmallBinSet in main: one atomic per distinct address per subgroup (the index takes at most 16 values; lanes sharing it found by 4 ballot(s)): OpAtomicIAdd of a uniform value; the returned value is unused
// REMARK: applied SmallBinSet in main: {{.*}}at most 24 values; a loop takes one index at a time): OpAtomicIAdd of a divergent value; the returned value is unused
// REMARK: applied SmallBinSet in main: {{.*}}at most 4 values; lanes sharing it found by 2 ballot(s)): OpAtomicOr of a uniform value; each lane's returned value is rebuilt
// REMARK: missed DistinctAddresses in main: the index is the invocation's own index
// REMARK: missed DivergentAddress in main: the address differs between lanes and its index is not provably in a set of at most 32 values
// MAX8-COUNT-2: missed DivergentAddress in main: {{.*}}at most 8 values
// MAX8-NEXT: applied SmallBinSet in main: {{.*}}at most 4 values
// MAX8-COUNT-2: missed DivergentAddress in main: {{.*}}at most 8 values
// CHECK-DAG: OpCapability GroupNonUniformVote
// CHECK-DAG: OpCapability GroupNonUniformShuffle
// The uniform-value histogram: 4 bit ballots narrow the active lanes to the
// peers, whose lowest lane adds their count.
// CHECK: [[PTR:%[0-9]+]] = OpAccessChain %_ptr_StorageBuffer_uint {{%[_0-9]+}} %int_0 [[BIN:%[0-9]+]]
// CHECK: [[ACT:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 %true
// CHECK: [[B0:%[0-9]+]] = OpBitwiseAnd %uint [[BIN]] %uint_1
// CHECK: [[S0:%[0-9]+]] = OpINotEqual %bool [[B0]] %uint_0
// CHECK: [[V0:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 [[S0]]
// CHECK: [[F0:%[0-9]+]] = OpSelect %uint [[S0]] %uint_0 %uint_4294967295
// CHECK: [[FV0:%[0-9]+]] = OpCompositeConstruct %v4uint [[F0]] [[F0]] [[F0]] [[F0]]
// CHECK: [[A0:%[0-9]+]] = OpBitwiseXor %v4uint [[V0]] [[FV0]]
// CHECK: OpBitwiseAnd %v4uint [[ACT]] [[A0]]
// CHECK: OpBitwiseAnd %uint [[BIN]] %uint_8
// CHECK: [[PEERS:%[0-9]+]] = OpBitwiseAnd %v4uint
// CHECK: [[COUNT:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 Reduce [[PEERS]]
// CHECK: [[RANK:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 ExclusiveScan [[PEERS]]
// CHECK: [[LEAD:%[0-9]+]] = OpIEqual %bool [[RANK]] %uint_0
// CHECK: [[TOTAL:%[0-9]+]] = OpIMul %uint %uint_1 [[COUNT]]
// CHECK: OpSelectionMerge [[JOIN:%[0-9]+]] None
// CHECK: OpBranchConditional [[LEAD]] [[ONE:%[0-9]+]] [[JOIN]]
// CHECK: [[ONE]] = OpLabel
// CHECK: OpAtomicIAdd %uint [[PTR]] %uint_1 %uint_0 [[TOTAL]]
// The divergent-value one: the peel loop.
// CHECK: OpLoopMerge [[EXIT:%[0-9]+]] [[CONT:%[0-9]+]] None
// CHECK: [[FIRST:%[0-9]+]] = OpGroupNonUniformBroadcastFirst %uint %uint_3 [[LBIN:%[a-z_0-9]+]]
// CHECK: [[MINE:%[0-9]+]] = OpIEqual %bool [[LBIN]] [[FIRST]]
// CHECK: OpGroupNonUniformElect
// CHECK: OpAtomicIAdd %uint
// CHECK: [[ALL:%[0-9]+]] = OpGroupNonUniformAll %bool %uint_3
// CHECK: [[CONT]] = OpLabel
// CHECK-NEXT: OpBranchConditional [[ALL]] [[EXIT]]
// The atomicOr whose result is used: the leader's old value by shuffle from
// the lowest peer.
// CHECK: OpGroupNonUniformBallotBitCount %uint %uint_3 Reduce [[OPEERS:%[0-9]+]]
// CHECK: [[LSBS:%[0-9]+]] = OpExtInst %v4uint {{%[0-9]+}} FindILsb [[OPEERS]]
// CHECK: [[X:%[0-9]+]] = OpCompositeExtract %uint [[LSBS]] 0
// CHECK: [[XSET:%[0-9]+]] = OpINotEqual %bool [[X]] %uint_4294967295
// CHECK: [[LOW:%[0-9]+]] = OpSelect %uint [[XSET]] [[X]] {{%[0-9]+}}
// CHECK: OpAtomicOr %uint
// CHECK: [[PHI:%[0-9]+]] = OpPhi %uint
// CHECK: OpGroupNonUniformShuffle %uint %uint_3 [[PHI]] [[LOW]]
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
