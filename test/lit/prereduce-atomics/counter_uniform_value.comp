// Case A: uniform address, uniform value, result used (stream compaction).
// The count comes from a ballot; one elected lane adds value x count; each
// lane's slot is the broadcast old value + value x (lanes before it).
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: counter_uniform_value.comp:[[@LINE+26]]: remark: prereduce-atomics: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// REMARK-NOT: remark
// CHECK-DAG: OpCapability GroupNonUniformBallot{{$}}
// CHECK-NOT: OpCapability GroupNonUniformArithmetic
// CHECK: OpLabel
// CHECK: [[BALLOT:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 %true
// CHECK: [[COUNT:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 Reduce [[BALLOT]]
// CHECK: [[BEFORE:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 ExclusiveScan [[BALLOT]]
// CHECK: [[ELECT:%[0-9]+]] = OpGroupNonUniformElect %bool %uint_3
// CHECK: OpSelectionMerge [[MERGE:%[0-9]+]] None
// CHECK: OpBranchConditional [[ELECT]] [[SINGLE:%[0-9]+]] [[MERGE]]
// CHECK: [[SINGLE]] = OpLabel
// CHECK: [[ONE:%[0-9]+]] = OpAtomicIAdd %uint {{%[a-z_0-9]+}} %uint_1 %uint_0
// CHECK: [[MERGE]] = OpLabel
// CHECK: [[PHI:%[0-9]+]] = OpPhi %uint [[ONE]] [[SINGLE]]
// CHECK: [[OLD:%[0-9]+]] = OpGroupNonUniformBroadcastFirst %uint %uint_3 [[PHI]]
// CHECK: OpIAdd %uint [[OLD]]
// CHECK-NOT: OpAtomicIAdd
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out { uint kept[]; };
layout(set = 0, binding = 2) buffer Count { uint count; };
void main() {
  uint v = values[gl_GlobalInvocationID.x];
  if ((v & 3u) == 0u) {
    uint slot = atomicAdd(count, 1u);
    kept[slot] = v;
  }
}
