// HLSL has no gl_NumWorkGroups: the HLSL reads it from a constant buffer on
// the first free binding of set 0 (here 2, after the two buffers), as
// SPIRV-Cross's own CLI does, and one note says where. The HLSL compiles
// again; GLSL output keeps the built-in.
// RUN: %waveopt %s -o %t.hlsl 2> %t.err
// RUN: %FileCheck %s --check-prefix=NOTE < %t.err
// RUN: %FileCheck %s --check-prefix=HLSL < %t.hlsl
// RUN: %glslang -V -D -S comp -e main --target-env vulkan1.1 %t.hlsl -o %t.hlsl.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.hlsl.spv
// RUN: %spirv-dis %t.hlsl.spv | %FileCheck %s --check-prefix=BOUND
// RUN: %waveopt %s --emit=glsl -o %t.glsl 2> %t.glsl.err
// RUN: %FileCheck %s --check-prefix=GLSL < %t.glsl
// RUN: %FileCheck %s --check-prefix=QUIET --allow-empty < %t.glsl.err
// NOTE: waveopt: note: {{.*}}num_workgroups_hlsl.comp: the HLSL reads gl_NumWorkGroups from cbuffer SPIRV_Cross_NumWorkgroups (register(b2): descriptor set 0, binding 2): bind a uniform buffer holding the dispatch's group counts (uint3) there
// HLSL: cbuffer SPIRV_Cross_NumWorkgroups : register(b2)
// BOUND-DAG: OpDecorate %{{.*}} Binding 2
// GLSL: gl_NumWorkGroups
// QUIET-NOT: note
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer In { float src[]; };
layout(set = 0, binding = 1) buffer Out { float dst[]; };
void main() {
  uint total = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint i = gl_GlobalInvocationID.x;
  dst[i] = src[total - 1u - i];
}
