// HLSL in (glslang's HLSL front end, compiled for SPIR-V 1.3), GLSL out.
// RUN: %waveopt %s -e CSMain --emit=glsl -o %t.comp
// RUN: %FileCheck %s < %t.comp
// RUN: %glslang -V --target-env vulkan1.1 %t.comp -o %t.spv
// RUN: %waveopt %s -e CSMain -o %t.direct.spv --target-env=vulkan1.2
// RUN: %spirv-val --target-env vulkan1.2 %t.direct.spv
// CHECK: layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
// CHECK: subgroupAdd(
RWStructuredBuffer<uint> data : register(u0);
[numthreads(64, 1, 1)]
void CSMain(uint3 tid : SV_DispatchThreadID) {
  data[tid.x] = WaveActiveSum(data[tid.x]);
}
