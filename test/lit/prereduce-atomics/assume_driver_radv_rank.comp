// --assume-driver=radv still pre-reduces a 64-bit uniform-value counter
// (RADV's own handling costs twice the instructions), and takes each lane's
// rank with an exclusive add of 1, which ACO lowers to v_mbcnt, instead of a
// ballot's exclusive bit count (9 instructions). generic keeps the ballot
// form, which needs no GroupNonUniformArithmetic.
// RUN: %waveopt %s --prereduce-atomics --assume-driver=radv -o %t.radv.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.radv.spv
// RUN: %spirv-dis %t.radv.spv | %FileCheck %s --check-prefix=RADV
// RUN: %waveopt %s --prereduce-atomics -o %t.gen.spv
// RUN: %spirv-dis %t.gen.spv | %FileCheck %s --check-prefix=GENERIC
// RADV: OpCapability GroupNonUniformArithmetic
// RADV: [[BALLOT:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 %true
// RADV: OpGroupNonUniformBallotBitCount %uint %uint_3 Reduce [[BALLOT]]
// RADV: OpGroupNonUniformIAdd %uint %uint_3 ExclusiveScan %uint_1
// RADV-NOT: ExclusiveScan
// RADV: OpAtomicIAdd %ulong
// GENERIC-NOT: OpCapability GroupNonUniformArithmetic
// GENERIC: OpGroupNonUniformBallotBitCount %uint %uint_3 ExclusiveScan
// GENERIC-NOT: OpGroupNonUniformIAdd
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint64_t counter; uint64_t slots[]; };
void main() {
  slots[gl_GlobalInvocationID.x] = atomicAdd(counter, 3ul);
}
