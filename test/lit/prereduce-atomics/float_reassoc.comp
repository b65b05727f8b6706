// Float atomics are refused by default (reassociation changes rounding) and
// pre-reduced with float-reassoc: FAdd/FMin/FMax Reduce feeds one atomic;
// fadd keeps -0.0 (a ballot of the lanes that add something else).
// RUN: %waveopt %s --prereduce-atomics -o %t.orig.spv --remarks-missed=prereduce 2> %t.missed
// RUN: %FileCheck %s --check-prefix=MISSED < %t.missed
// RUN: %waveopt %s --prereduce-atomics=float-reassoc -o %t.spv --remarks=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=APPLIED < %t.remarks
// MISSED: missed FloatAtomic in main: OpAtomicFAddEXT: float atomics are left alone {{.*}}float-reassoc allows it
// APPLIED: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicFAddEXT of a divergent value; each lane's returned value is rebuilt
// CHECK: [[SUM:%[0-9]+]] = OpGroupNonUniformFAdd %float %uint_3 Reduce [[V:%[a-z_0-9]+]]
// CHECK: [[EXCL:%[0-9]+]] = OpGroupNonUniformFAdd %float %uint_3 ExclusiveScan [[V]]
// CHECK: [[BITS:%[0-9]+]] = OpBitcast %uint [[V]]
// CHECK: OpINotEqual %bool [[BITS]] %uint_2147483648
// CHECK: OpSelect %float {{%[0-9]+}} %float_n0 [[SUM]]
// CHECK: OpAtomicFAddEXT %float
// CHECK: OpFAdd %float
#version 450
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { float sum; float seen[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  seen[g] = atomicAdd(sum, float(g & 15u) * 0.25);
}
