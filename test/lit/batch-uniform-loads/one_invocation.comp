// A loop that only one invocation of each subgroup runs (under a test that
// its index equals a constant, as ggml's `if (tid == 0)` after a reduction
// tree) is not batched: a batch would hold that one lane's elements. The
// same loop under `tid < 32` is.
// RUN: %waveopt %s -O --target=none -o %t.spv --remarks=batch --remarks-missed=batch 2>&1 | %FileCheck %s
// RUN: %waveopt %s -O --target=none -DINDEX -o %t.index.spv --remarks=batch --remarks-missed=batch 2>&1 | %FileCheck %s
// RUN: %waveopt %s -O --target=none -DMANY -o %t.many.spv --remarks=batch --remarks-missed=batch 2>&1 | %FileCheck %s --check-prefix=MANY
// RUN: %waveopt %s -O --target=none --pass-params=batch-uniform-loads:always -o %t.always.spv --remarks=batch 2>&1 | %FileCheck %s --check-prefix=MANY
// CHECK: one_invocation.comp:28: remark: batch-uniform-loads: missed NotProfitable in main: the loop runs in one invocation of its subgroup (it is under a test that the invocation's index equals a constant): a batch would hold one lane's elements
// CHECK-NOT: applied
// MANY: applied BatchedLoads in main
#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint n; } p;
layout(set = 0, binding = 0) readonly buffer Data { float v[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float o[]; };

void main() {
  const uint tid = gl_LocalInvocationID.x;
#if defined(MANY)
  if (tid < 32u) {
#elif defined(INDEX)
  if (gl_LocalInvocationIndex == 0u) {
#else
  if (tid == 0u) {
#endif
    float acc = 0.0;
    for (uint i = 0u; i < p.n; ++i) acc += v[i] * v[i + 1u];
    o[gl_WorkGroupID.x * 64u + tid] = acc;
  }
}
