// Output SPIRV-Cross cannot write: one line that names the built-in by
// name (its message gives only the number) and says the input itself
// cannot be written as HLSL, so SPIR-V output is the way around it; exit 1
// and no output file.
// RUN: rm -f %t.hlsl
// RUN: %not %waveopt %s -O --emit=hlsl -o %t.hlsl 2> %t.err
// RUN: %FileCheck %s < %t.err
// RUN: test ! -e %t.hlsl
// The same kernel as GLSL is fine.
// RUN: %waveopt %s -O --emit=glsl -o %t.glsl
// RUN: %FileCheck %s --check-prefix=GLSL < %t.glsl
// CHECK: waveopt: error: {{.*}}emit_limits.comp: SPIRV-Cross: Unsupported builtin in HLSL: 40 (built-in SubgroupId (gl_SubgroupID), which HLSL has no spelling for) (the input itself cannot be written as HLSL by SPIRV-Cross; write SPIR-V instead: -o file.spv)
// GLSL: gl_SubgroupID
#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint dst[]; };
void main() {
  dst[gl_GlobalInvocationID.x] = gl_SubgroupID;
}
