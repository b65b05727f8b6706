// 64-bit atomics: a uniform value needs no 64-bit subgroup arithmetic (the
// count is widened, the old value travels as two 32-bit halves); a divergent
// value is reduced as 32-bit pieces unless extended-types promises
// shaderSubgroupExtendedTypes (then one 64-bit group operation).
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %waveopt %s --prereduce-atomics=extended-types -o %t.ext.spv --remarks=prereduce 2> %t.ext.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.ext.spv
// RUN: %spirv-dis %t.ext.spv | %FileCheck %s --check-prefix=EXTSPV
// RUN: %FileCheck %s --check-prefix=EXT < %t.ext.remarks
// REMARK: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// REMARK-NEXT: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicIAdd of a divergent value; the returned value is unused; the 64-bit value is reduced as 32-bit pieces
// REMARK-NOT: missed
// EXT: applied UniformAddressUniformValue
// EXT-NEXT: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicIAdd of a divergent value; the returned value is unused{{$}}
// CHECK: [[COUNT:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 Reduce
// CHECK: [[WIDE:%[0-9]+]] = OpUConvert %ulong [[COUNT]]
// CHECK: OpAtomicIAdd %ulong {{%[a-z_0-9]+}} %uint_1 %uint_0 {{%[0-9]+}}
// CHECK: [[HALVES:%[0-9]+]] = OpBitcast %v2uint
// CHECK: OpGroupNonUniformBroadcastFirst %v2uint %uint_3 [[HALVES]]
// The divergent value: no 64-bit group operation.
// CHECK-NOT: OpGroupNonUniformIAdd %ulong
// CHECK: OpGroupNonUniformIAdd %v3uint %uint_3 Reduce
// CHECK-NOT: OpGroupNonUniformIAdd %ulong
// CHECK: OpFunctionEnd
// EXTSPV: OpGroupNonUniformIAdd %ulong %uint_3 Reduce
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint64_t counter; uint64_t total; uint64_t slots[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  slots[g] = atomicAdd(counter, 3ul);
  atomicAdd(total, uint64_t(g) * 0x100000001ul);
}
