// A tree in a called function with an early return: -O inlines it (after
// merge-return, which the inliner needs for such a function) and the tree
// is rewritten in the entry point. Without -O the call stays and the tree
// is refused (NotInEntryPoint; test/lit/workgroup-reduce/refusals.comp).
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// CHECK: applied ReducedTree in main
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
shared uint partial[128];

uint workgroup_sum(uint tid, uint v) {
  partial[tid] = v;
  barrier();
  for (uint s = 64u; s > 0u; s >>= 1u) {
    if (tid < s) partial[tid] += partial[tid + s];
    barrier();
  }
  const uint r = partial[0];
  if ((tid & 1u) != 0u) return r ^ tid;
  return r + tid;
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  result[gl_GlobalInvocationID.x] = workgroup_sum(tid, data[gl_GlobalInvocationID.x]);
}
