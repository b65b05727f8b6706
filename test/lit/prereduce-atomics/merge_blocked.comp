// What keeps consecutive atomics in separate elected branches: a memory
// barrier between them, a second atomic whose value is the first one's
// returned value (it only exists after the first branch), and a store to a
// buffer between them (it could reach the second atomic's address). Nothing
// between the second and third: they share one branch, and the first one's
// returned value, used after both, is rebuilt below it.
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %waveopt %s --ssa-rewrite --prereduce-atomics -o %t.ssa.spv --remarks=prereduce 2> %t.ssa.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.ssa.spv
// RUN: %spirv-dis %t.ssa.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.ssa.remarks
// REMARK: OpAtomicUMax of a divergent value; the returned value is unused{{$}}
// REMARK-NEXT: OpAtomicUMax of a divergent value; the returned value is unused{{$}}
// REMARK-NEXT: OpAtomicIAdd of a divergent value; each lane's returned value is rebuilt; shares the elected branch of the atomic before it
// REMARK-NEXT: OpAtomicIAdd of a divergent value; the returned value is unused{{$}}
// REMARK-NEXT: OpAtomicOr of a divergent value; the returned value is unused{{$}}
// CHECK-LABEL: %main = OpFunction
// CHECK: OpGroupNonUniformElect
// CHECK: OpAtomicUMax
// CHECK: OpMemoryBarrier
// CHECK: OpGroupNonUniformElect
// CHECK-NOT: OpGroupNonUniformElect
// CHECK: OpAtomicUMax
// CHECK-NOT: OpGroupNonUniformElect
// CHECK: OpAtomicIAdd
// CHECK: OpGroupNonUniformElect
// CHECK: OpAtomicIAdd
// CHECK: OpStore
// CHECK: OpGroupNonUniformElect
// CHECK: OpAtomicOr
// CHECK-NOT: OpGroupNonUniformElect
// CHECK: OpFunctionEnd
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data {
  uint m0; uint m1; uint c0; uint c1; uint o; uint values[];
};
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint v = values[g];
  atomicMax(m0, v);
  memoryBarrierBuffer();
  atomicMax(m1, v);
  uint r = atomicAdd(c0, v);
  atomicAdd(c1, r);
  values[g] = r;
  atomicOr(o, v);
}
