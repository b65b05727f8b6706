// Case B: uniform address, divergent value: subgroup Reduce feeds the one
// atomic; ExclusiveScan rebuilds each lane's returned value only where used.
// RUN: %waveopt %s --prereduce-atomics -o %t.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// CHECK-DAG: OpCapability GroupNonUniformArithmetic
// CHECK: [[SUM:%[0-9]+]] = OpGroupNonUniformIAdd %uint %uint_3 Reduce [[V:%[a-z_0-9]+]]
// CHECK: [[EXCL:%[0-9]+]] = OpGroupNonUniformIAdd %uint %uint_3 ExclusiveScan [[V]]
// CHECK: OpGroupNonUniformElect
// CHECK: OpAtomicIAdd %uint {{%[a-z_0-9]+}} %uint_1 %uint_0 [[SUM]]
// CHECK: [[OLD:%[0-9]+]] = OpGroupNonUniformBroadcastFirst %uint %uint_3
// CHECK: OpIAdd %uint [[OLD]] [[EXCL]]
// The second atomic's result is unused: a reduction, no scan, no broadcast.
// CHECK: OpGroupNonUniformUMax %uint %uint_3 Reduce
// CHECK-NOT: ExclusiveScan
// CHECK: OpAtomicUMax
// CHECK-NOT: OpGroupNonUniformBroadcastFirst
// CHECK: OpFunctionEnd
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint total; uint maxv; uint values[]; };
void main() {
  uint v = values[gl_GlobalInvocationID.x];
  values[gl_GlobalInvocationID.x] = atomicAdd(total, v);
  atomicMax(maxv, v);
}
