// The store forwarded into the rewrite (S0) with code between it and the
// barrier: a value used after the tree and a store to a private variable.
// Both stay (they move above S0); before, the rewrite deleted them (an
// undefined id, and a private variable read before any write).
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// CHECK: applied ReducedTree in main
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
shared uint tmp[128];
uint scaled;  // Private

void main() {
  uint tid = gl_LocalInvocationID.x;
  uint v = data[gl_GlobalInvocationID.x];
  tmp[tid] = v;
  uint w = v * 5u + tid;
  scaled = v * 3u;
  barrier();
  for (uint s = 64u; s > 0u; s >>= 1u) {
    if (tid < s) tmp[tid] += tmp[tid + s];
    barrier();
  }
  result[gl_GlobalInvocationID.x] = tmp[0] + scaled + w;
}
