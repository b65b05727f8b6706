// Stream compaction with a global counter whose returned value indexes the
// output; 25 % of elements kept; workgroups of 100 (partial subgroups). The
// kept elements' order depends on atomic order: compare the first N as a
// multiset, N read from the counter.
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: applied UniformAddressUniformValue
#version 450
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Count { uint count; };
layout(set = 0, binding = 2) buffer Out { uint kept[]; };
void main() {
  uint v = values[gl_GlobalInvocationID.x];
  if ((v & 3u) == 0u) kept[atomicAdd(count, 1u)] = v;
}
