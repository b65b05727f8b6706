// Two trees over one array; between them each invocation accumulates into
// its own element in a loop whose bound depends on a push constant and the
// invocation (the first tree's trace cannot follow it: UnknownBranch). The
// second tree is a candidate of its own and is rewritten; the first stays.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce --remarks-missed=workgroup-reduce" 2>&1 | %FileCheck %s
// CHECK: missed UnknownBranch in main
// CHECK: applied ReducedTree in main: an integer add tree over acc (6 steps, 7 barriers, 1 reader(s))
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
layout(push_constant) uniform P { uint count; } pc;
shared uint acc[64];

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint base = gl_WorkGroupID.x * 256u;
  acc[tid] = data[base + tid];
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (tid < s) acc[tid] += acc[tid + s];
    barrier();
  }
  const uint first = acc[0];
  barrier();
  acc[tid] = 0u;
  for (uint i = tid; i < pc.count; i += 64u) acc[tid] += data[base + i] ^ first;
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (tid < s) acc[tid] += acc[tid + s];
    barrier();
  }
  result[gl_GlobalInvocationID.x] = acc[0] * 3u + first;
}
