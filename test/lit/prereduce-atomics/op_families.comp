// Every operation family, uniform and divergent values, signed and unsigned.
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK-COUNT-8: applied UniformAddress
// Divergent: the matching subgroup arithmetic.
// CHECK-DAG: OpGroupNonUniformSMin %int %uint_3 Reduce
// CHECK-DAG: OpGroupNonUniformSMin %int %uint_3 ExclusiveScan
// CHECK-DAG: OpGroupNonUniformBitwiseOr %uint %uint_3 Reduce
// CHECK-DAG: OpGroupNonUniformBitwiseAnd %uint %uint_3 Reduce
// CHECK-DAG: OpGroupNonUniformBitwiseXor %uint %uint_3 Reduce
// CHECK-DAG: OpGroupNonUniformSMax %int %uint_3 Reduce
// Uniform xor: the value when the lane count is odd.
// CHECK-DAG: OpAtomicXor %uint {{%[a-z_0-9]+}} %uint_1 %uint_0 [[PARITY:%[0-9]+]]
// CHECK-DAG: [[PARITY]] = OpSelect %uint {{%[0-9]+}} %uint_5 %uint_0
// Uniform min: the value once; the first lane sees old, the others min(old, v).
// CHECK-DAG: OpAtomicUMin %uint {{%[a-z_0-9]+}} %uint_1 %uint_0 %uint_7
// CHECK-DAG: OpSelect %uint {{%[0-9]+}} {{%[0-9]+}} {{%[0-9]+}}
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data {
  uint values[64];
  int smin; int smax; uint ormask; uint andmask; uint parity; uint umin; uint xmask;
  int results[];
};
void main() {
  uint l = gl_LocalInvocationIndex;
  int s = int(values[l]) - 100;
  results[l * 7u + 0u] = atomicMin(smin, s);
  results[l * 7u + 1u] = atomicMax(smax, s);
  atomicOr(ormask, 1u << (l & 31u));
  atomicAnd(andmask, ~(1u << (l & 7u)));
  results[l * 7u + 2u] = int(atomicXor(parity, 5u));
  results[l * 7u + 3u] = int(atomicMin(umin, 7u));
  results[l * 7u + 4u] = int(atomicXor(xmask, values[l]));
  results[l * 7u + 5u] = int(atomicOr(ormask, 0x10u));
}
