// --quad-exchange=full-subgroups: the user promises full subgroups of a
// multiple of 4 lanes, so there is no run-time check and no original path:
// the store, the barrier, the reads and the shared array are gone, and the
// identity is SubgroupId * SubgroupSize + SubgroupLocalInvocationId. A
// parameter it does not know is an error.
// RUN: %waveopt %S/downsample.comp --morton-remap --quad-exchange=full-subgroups -o %t.spv --remarks=quad-exchange 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %spirv-dis %t.spv | %FileCheck %s --check-prefix=GONE
// RUN: %not %waveopt %S/downsample.comp --quad-exchange=fast -o %t.bad.spv 2>&1 | %FileCheck %s --check-prefix=BAD
// RUN: test ! -e %t.bad.spv
// GONE-NOT: tile
// GONE-NOT: OpControlBarrier
// GONE-NOT: OpVariable %_ptr_Workgroup
// REMARK: applied Exchanged in main: 4 read(s) of 'tile'
// BAD: waveopt: error: {{.*}}--quad-exchange: unknown parameter 'fast' (expected full-subgroups)
// CHECK-NOT: OpCapability GroupNonUniformBallot
// CHECK-NOT: NumSubgroups
// CHECK-LABEL: %main = OpFunction
// CHECK: [[SS:%[0-9]+]] = OpLoad %uint %gl_SubgroupSize
// CHECK: [[SID:%[0-9]+]] = OpLoad %uint %gl_SubgroupID
// CHECK: [[LANE:%[0-9]+]] = OpLoad %uint %gl_SubgroupInvocationID
// CHECK: [[BASE:%[0-9]+]] = OpIMul %uint [[SID]] [[SS]]
// CHECK: [[IDX:%[0-9]+]] = OpIAdd %uint [[BASE]] [[LANE]]
// CHECK-NOT: OpControlBarrier
// CHECK: OpGroupNonUniformQuadSwap %v4float %uint_3 {{%[0-9]+}} %uint_0
// CHECK: OpGroupNonUniformQuadSwap %v4float %uint_3 {{%[0-9]+}} %uint_1
// CHECK: OpGroupNonUniformQuadSwap %v4float %uint_3 {{%[0-9]+}} %uint_2
// CHECK-NOT: OpControlBarrier
// CHECK: OpFunctionEnd
