// The pass on its own output changes nothing: the refill loads are indexed
// by the lane's rank, which is not subgroup-uniform.
// RUN: %waveopt %s --ssa-rewrite --batch-uniform-loads -o %t.once.spv
// RUN: %waveopt %t.once.spv --batch-uniform-loads -o %t.twice.spv --remarks=batch --remarks-missed=batch 2> %t.remarks
// RUN: cmp %t.once.spv %t.twice.spv
// RUN: %FileCheck %s --allow-empty < %t.remarks
// CHECK-NOT: applied
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Data { uint n; vec4 data[]; };
layout(set = 0, binding = 1) buffer Out { vec4 result[]; };
void main() {
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < n; ++i) acc += data[i];
  result[gl_GlobalInvocationID.x] = acc;
}
