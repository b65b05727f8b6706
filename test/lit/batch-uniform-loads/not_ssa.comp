// Without SSA form the induction variable lives in a Function variable: the
// pass says so (-O runs --ssa-rewrite first and then batches).
// RUN: %waveopt %s --batch-uniform-loads -o %t.spv --remarks-missed=batch 2> %t.remarks
// RUN: %FileCheck %s < %t.remarks
// RUN: %waveopt %s -O --target=none -o %t.O.spv --remarks=batch 2> %t.O.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.O.spv
// RUN: %FileCheck %s --check-prefix=O < %t.O.remarks
// RUN: %waveopt %s --target-env=vulkan1.0 -O --target=none -o %t.10.spv --remarks-missed=batch 2> %t.10.remarks
// RUN: %FileCheck %s --check-prefix=V10 < %t.10.remarks
// CHECK: missed AddressNotInduction in main: {{.*}}run --ssa-rewrite first; waveopt -O does
// O: applied BatchedLoads in main
// V10: missed TargetLacksSubgroupOps in main
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Data { uint n; uint data[]; };
layout(set = 0, binding = 1) buffer Out { uint result[]; };
void main() {
  uint acc = 0u;
  for (uint i = 0u; i < n; ++i) acc += data[i] * gl_LocalInvocationIndex;
  result[gl_GlobalInvocationID.x] = acc;
}
