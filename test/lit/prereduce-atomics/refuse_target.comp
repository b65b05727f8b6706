// No subgroup operations on Vulkan 1.0 (SPIR-V 1.0): nothing changes.
// RUN: %waveopt %s --target-env=vulkan1.0 -o %t.orig.spv
// RUN: %waveopt %s --target-env=vulkan1.0 --prereduce-atomics -o %t.spv --remarks-missed=prereduce 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %spirv-val --target-env vulkan1.0 %t.spv
// RUN: %FileCheck %s < %t.remarks
// A SPIR-V 1.3 module can be run on Vulkan 1.1 only; asking for a later env
// is fine, but vulkan1.0 cannot hold it at all.
// RUN: %waveopt %s -o %t.13.spv
// RUN: %not %waveopt %t.13.spv --target-env=vulkan1.0 --prereduce-atomics -o %t.bad.spv 2>&1 | %FileCheck %s --check-prefix=ENV
// CHECK: missed TargetLacksSubgroupOps in main: the target vulkan1.0 has no subgroup operations; they need Vulkan 1.1 or SPIR-V 1.3
// ENV: input is not valid for vulkan1.0
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint counter; };
void main() { atomicAdd(counter, 1u); }
