// Exchanges, compare-exchanges, atomic loads and stores, and float atomics
// are left alone (output == input), each with its remark.
// RUN: %waveopt %s -o %t.orig.spv
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks-missed=prereduce 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %FileCheck %s < %t.remarks
// CHECK: missed UnsupportedAtomicOp in main: OpAtomicExchange does not combine across lanes
// CHECK: missed UnsupportedAtomicOp in main: OpAtomicCompareExchange does not combine
// CHECK: missed UnsupportedAtomicOp in main: OpAtomicLoad does not combine
// CHECK: missed UnsupportedAtomicOp in main: OpAtomicStore does not combine
// CHECK: missed FloatAtomic in main: OpAtomicFAddEXT: float atomics are left alone
#version 450
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_atomic_float : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint a; uint b; uint c; uint d; float f; uint out_[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  out_[g] = atomicExchange(a, g);
  out_[g] += atomicCompSwap(b, 0u, g);
  out_[g] += atomicLoad(c, gl_ScopeDevice, 0, 0);
  atomicStore(d, g, gl_ScopeDevice, 0, 0);
  atomicAdd(f, 1.0);
}
