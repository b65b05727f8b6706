// From SPIR-V 1.5 on, OpGroupNonUniformBroadcast takes a dynamic lane id: no
// shuffle capability is needed. 64-bit members travel as 32-bit halves.
// RUN: %waveopt %s --target-env=vulkan1.2 --ssa-rewrite --batch-uniform-loads -o %t.spv
// RUN: %spirv-val --target-env vulkan1.2 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// CHECK-NOT: OpCapability GroupNonUniformShuffle
// CHECK: [[HALVES:%[0-9]+]] = OpBitcast %v2uint
// CHECK: OpGroupNonUniformBroadcast %v2uint %uint_3
// CHECK: OpGroupNonUniformBroadcast %float %uint_3
// CHECK-NOT: OpGroupNonUniformShuffle
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
struct Item { uint64_t key; float weight; };
layout(set = 0, binding = 0) readonly buffer Items { uint count; Item items[]; };
layout(set = 0, binding = 1) buffer Out { float result[]; };
void main() {
  float acc = 0.0;
  for (uint i = 0u; i < count; ++i) {
    if ((items[i].key & 1ul) == 1ul) acc += items[i].weight;
  }
  result[gl_GlobalInvocationID.x] = acc;
}
