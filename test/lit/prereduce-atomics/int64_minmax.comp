// 64-bit min/max of divergent values without shaderSubgroupExtendedTypes.
// The winner: reduce the high halves (signed for SMin/SMax), then the low
// halves (unsigned) of only the lanes whose high half won. Min works on the
// complements (~x reverses both orders), as a max. Returned values: three
// exclusive max-scans (high half; bits 8-31; bits 0-7), each later one keyed
// by how often the running maximum of the levels before it has grown
// (inclusive ballot bit count), lanes off that maximum giving 0.
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicSMin of a divergent value; each lane's returned value is rebuilt; the 64-bit value is reduced as 32-bit pieces
// REMARK-NEXT: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; the returned value is unused; the 64-bit value is reduced as 32-bit pieces
// REMARK-NEXT: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMin of a divergent value; each lane's returned value is rebuilt; the 64-bit value is reduced as 32-bit pieces
// REMARK-NEXT: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicSMax of a divergent value; the returned value is unused; the 64-bit value is reduced as 32-bit pieces
// CHECK-LABEL: %main = OpFunction
// -- atomicMin(lowest, v) on int64_t, result used
// CHECK: [[H:%[0-9]+]] = OpBitcast %v2uint [[V:%[0-9]+]]
// CHECK: [[LO:%[0-9]+]] = OpCompositeExtract %uint [[H]] 0
// CHECK: [[HI:%[0-9]+]] = OpCompositeExtract %uint [[H]] 1
// CHECK: [[NLO:%[0-9]+]] = OpNot %uint [[LO]]
// CHECK: [[NHI:%[0-9]+]] = OpNot %uint [[HI]]
// CHECK: [[TOPHI:%[0-9]+]] = OpGroupNonUniformSMax %uint %uint_3 Reduce [[NHI]]
// CHECK: [[ONTOP:%[0-9]+]] = OpIEqual %bool [[NHI]] [[TOPHI]]
// CHECK: [[SEL:%[0-9]+]] = OpSelect %uint [[ONTOP]] [[NLO]] %uint_0
// CHECK: [[TOPLO:%[0-9]+]] = OpGroupNonUniformUMax %uint %uint_3 Reduce [[SEL]]
// CHECK: [[J:%[0-9]+]] = OpCompositeConstruct %v2uint [[TOPLO]] [[TOPHI]]
// CHECK: [[NJ:%[0-9]+]] = OpNot %v2uint [[J]]
// CHECK: [[TOTAL:%[0-9]+]] = OpBitcast %long [[NJ]]
// Level 1: the high halves.
// CHECK: [[E1:%[0-9]+]] = OpGroupNonUniformSMax %uint %uint_3 ExclusiveScan [[NHI]]
// CHECK: [[TIES1:%[0-9]+]] = OpSGreaterThanEqual %bool [[NHI]] [[E1]]
// CHECK: [[GROWS1:%[0-9]+]] = OpSGreaterThan %bool [[NHI]] [[E1]]
// CHECK: [[B1:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 [[GROWS1]]
// CHECK: [[SEG1:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 InclusiveScan [[B1]]
// Level 2: bits 8-31 under the level-1 segment.
// CHECK: [[TAG1:%[0-9]+]] = OpShiftLeftLogical %uint [[SEG1]] %uint_24
// CHECK: [[MID:%[0-9]+]] = OpShiftRightLogical %uint [[NLO]] %uint_8
// CHECK: [[K2:%[0-9]+]] = OpBitwiseOr %uint [[TAG1]] [[MID]]
// CHECK: [[KEY2:%[0-9]+]] = OpSelect %uint [[TIES1]] [[K2]] %uint_0
// CHECK: [[E2:%[0-9]+]] = OpGroupNonUniformUMax %uint %uint_3 ExclusiveScan [[KEY2]]
// CHECK: [[GE2:%[0-9]+]] = OpUGreaterThanEqual %bool [[KEY2]] [[E2]]
// CHECK: [[TIES2:%[0-9]+]] = OpLogicalAnd %bool [[TIES1]] [[GE2]]
// CHECK: [[GROWS2:%[0-9]+]] = OpUGreaterThan %bool [[KEY2]] [[E2]]
// CHECK: [[B2:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 [[GROWS2]]
// CHECK: [[SEG2:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 InclusiveScan [[B2]]
// Level 3: bits 0-7 under the level-2 segment.
// CHECK: [[TAG2:%[0-9]+]] = OpShiftLeftLogical %uint [[SEG2]] %uint_24
// CHECK: [[LOW:%[0-9]+]] = OpBitwiseAnd %uint [[NLO]] %uint_255
// CHECK: [[K3:%[0-9]+]] = OpBitwiseOr %uint [[TAG2]] [[LOW]]
// CHECK: [[KEY3:%[0-9]+]] = OpSelect %uint [[TIES2]] [[K3]] %uint_0
// CHECK: [[E3:%[0-9]+]] = OpGroupNonUniformUMax %uint %uint_3 ExclusiveScan [[KEY3]]
// CHECK: [[PMID:%[0-9]+]] = OpShiftLeftLogical %uint [[E2]] %uint_8
// CHECK: [[PLOW:%[0-9]+]] = OpBitwiseAnd %uint [[E3]] %uint_255
// CHECK: [[PLO:%[0-9]+]] = OpBitwiseOr %uint [[PMID]] [[PLOW]]
// CHECK: [[P:%[0-9]+]] = OpCompositeConstruct %v2uint [[PLO]] [[E1]]
// CHECK: [[NP:%[0-9]+]] = OpNot %v2uint [[P]]
// CHECK: [[PREFIX:%[0-9]+]] = OpBitcast %long [[NP]]
// -- atomicMax(highest, v) on uint64_t, result unused: two reductions.
// CHECK: OpGroupNonUniformUMax %uint %uint_3 Reduce
// CHECK: OpGroupNonUniformUMax %uint %uint_3 Reduce
// CHECK-NOT: ExclusiveScan
// -- atomicMin on uint64_t (unsigned high halves), result used
// CHECK: OpGroupNonUniformUMax %uint %uint_3 Reduce
// CHECK: OpGroupNonUniformUMax %uint %uint_3 ExclusiveScan
// CHECK: OpUGreaterThanEqual
// -- atomicMax on int64_t, result unused
// CHECK: OpGroupNonUniformSMax %uint %uint_3 Reduce
// -- one elected lane issues the four atomics in program order
// CHECK: OpGroupNonUniformElect
// CHECK-NOT: OpGroupNonUniformElect
// CHECK: OpAtomicSMin %long {{%[a-z_0-9]+}} %uint_1 %uint_0 [[TOTAL]]
// CHECK: OpAtomicUMax %ulong
// CHECK: OpAtomicUMin %ulong
// CHECK: OpAtomicSMax %long
// -- the returned values of the first and third
// CHECK: [[OLD:%[0-9]+]] = OpBitcast %long
// CHECK: [[KEEP:%[0-9]+]] = OpSLessThan %bool [[OLD]] [[PREFIX]]
// CHECK: OpSelect %long [[KEEP]] [[OLD]] [[PREFIX]]
// CHECK: OpULessThan %bool
// CHECK-NOT: OpGroupNonUniform{{[A-Za-z]+}} %{{u?}}long
// CHECK: OpFunctionEnd
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data {
  int64_t lowest; uint64_t highest; uint64_t ulowest; int64_t shighest;
  int64_t values[];
};
void main() {
  uint g = gl_GlobalInvocationID.x;
  int64_t v = values[g];
  int64_t a = atomicMin(lowest, v);
  atomicMax(highest, uint64_t(v));
  uint64_t b = atomicMin(ulowest, uint64_t(v));
  atomicMax(shighest, v);
  values[g] = a + int64_t(b);
}
