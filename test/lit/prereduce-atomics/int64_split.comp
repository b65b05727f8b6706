// 64-bit atomics of divergent values without shaderSubgroupExtendedTypes:
// only 32-bit group operations.
// Add/Sub: three pieces (bits 0-15, 16-31, the high word) in one v3uint
// IAdd, joined with 64-bit shifts and adds (the carries out of the low
// word); the same for the exclusive scan of the returned values.
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK-COUNT-5: applied UniformAddressDivergentValue in main: {{.*}}; the 64-bit value is reduced as 32-bit pieces
// REMARK-NOT: missed
// CHECK-NOT: OpCapability GroupNonUniform{{.*}}ExtendedTypes
// CHECK-LABEL: %main = OpFunction
// -- atomicAdd(total, v), result used
// CHECK: [[HALVES:%[0-9]+]] = OpBitcast %v2uint [[V:%[0-9]+]]
// CHECK: [[LO:%[0-9]+]] = OpCompositeExtract %uint [[HALVES]] 0
// CHECK: [[HI:%[0-9]+]] = OpCompositeExtract %uint [[HALVES]] 1
// CHECK: [[P0:%[0-9]+]] = OpBitwiseAnd %uint [[LO]] %uint_65535
// CHECK: [[P1:%[0-9]+]] = OpShiftRightLogical %uint [[LO]] %uint_16
// CHECK: [[PIECES:%[0-9]+]] = OpCompositeConstruct %v3uint [[P0]] [[P1]] [[HI]]
// CHECK: [[SUMS:%[0-9]+]] = OpGroupNonUniformIAdd %v3uint %uint_3 Reduce [[PIECES]]
// CHECK: [[S0:%[0-9]+]] = OpCompositeExtract %uint [[SUMS]] 0
// CHECK: [[W0:%[0-9]+]] = OpUConvert %ulong [[S0]]
// CHECK: [[S1:%[0-9]+]] = OpCompositeExtract %uint [[SUMS]] 1
// CHECK: [[W1:%[0-9]+]] = OpUConvert %ulong [[S1]]
// CHECK: [[S2:%[0-9]+]] = OpCompositeExtract %uint [[SUMS]] 2
// CHECK: [[W2:%[0-9]+]] = OpUConvert %ulong [[S2]]
// CHECK: [[SH1:%[0-9]+]] = OpShiftLeftLogical %ulong [[W1]] %uint_16
// CHECK: [[T1:%[0-9]+]] = OpIAdd %ulong [[W0]] [[SH1]]
// CHECK: [[SH2:%[0-9]+]] = OpShiftLeftLogical %ulong [[W2]] %uint_32
// CHECK: [[TOTAL:%[0-9]+]] = OpIAdd %ulong [[T1]] [[SH2]]
// CHECK: OpGroupNonUniformIAdd %v3uint %uint_3 ExclusiveScan [[PIECES]]
// -- atomicAdd(debt, -v): the same sum, an ISub of it
// CHECK: OpGroupNonUniformIAdd %v3uint %uint_3 Reduce
// -- atomicAnd/Or/Xor: each 32-bit half at once
// CHECK: [[AH:%[0-9]+]] = OpBitcast %v2uint
// CHECK: [[AR:%[0-9]+]] = OpGroupNonUniformBitwiseAnd %v2uint %uint_3 Reduce [[AH]]
// CHECK: [[AT:%[0-9]+]] = OpBitcast %ulong [[AR]]
// CHECK: OpGroupNonUniformBitwiseAnd %v2uint %uint_3 ExclusiveScan [[AH]]
// CHECK: OpGroupNonUniformBitwiseOr %v2uint %uint_3 Reduce
// CHECK-NOT: ExclusiveScan
// CHECK: OpGroupNonUniformBitwiseXor %v2uint %uint_3 Reduce
// CHECK: OpGroupNonUniformBitwiseXor %v2uint %uint_3 ExclusiveScan
// -- the five atomics share one elected lane, in program order
// CHECK: OpGroupNonUniformElect
// CHECK-NOT: OpGroupNonUniformElect
// CHECK: OpAtomicIAdd %ulong {{%[a-z_0-9]+}} %uint_1 %uint_0 [[TOTAL]]
// CHECK: OpAtomicIAdd %ulong
// CHECK: OpAtomicAnd %ulong {{%[a-z_0-9]+}} %uint_1 %uint_0 [[AT]]
// CHECK: OpAtomicOr %ulong
// CHECK: OpAtomicXor %ulong
// CHECK: OpGroupNonUniformBroadcastFirst %v2uint
// CHECK-NOT: OpGroupNonUniform{{[A-Za-z]+}} %ulong
// CHECK-NOT: OpGroupNonUniform{{[A-Za-z]+}} %long
// CHECK: OpFunctionEnd
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data {
  uint64_t total; uint64_t debt; uint64_t mask; uint64_t any; uint64_t parity;
  uint64_t values[];
};
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint64_t v = values[g];
  uint64_t before = atomicAdd(total, v);
  atomicAdd(debt, -v);
  uint64_t m = atomicAnd(mask, v);
  atomicOr(any, v);
  uint64_t p = atomicXor(parity, v);
  values[g] = before + m + p;
}
