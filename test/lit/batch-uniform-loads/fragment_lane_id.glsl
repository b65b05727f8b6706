// A fragment shader's light loop: the rewrite declares the subgroup lane id
// input, which a fragment shader must decorate Flat like every integer input
// (VUID-StandaloneSpirv-Flat-04744); without it the output is invalid and
// waveopt refuses the module (the 1.4 Slang composition shaders of the
// shipped-binaries corpus did, once the register rule let them batch).
// RUN: %waveopt -S frag %s -O -o %t.spv --remarks=batch 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: applied BatchedLoads in main
// CHECK: OpEntryPoint Fragment %main "main" {{.*}}%gl_SubgroupInvocationID
// CHECK-DAG: OpDecorate %gl_SubgroupInvocationID BuiltIn SubgroupLocalInvocationId
// CHECK-DAG: OpDecorate %gl_SubgroupInvocationID Flat
#version 450
struct Light { vec4 pos; vec4 color; };
layout(set = 0, binding = 0) buffer Lights { Light lights[]; };
layout(set = 0, binding = 1) uniform Params { uint count; };
layout(location = 0) in vec3 worldPos;
layout(location = 0) out vec4 color;
void main() {
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < count; ++i) {
    vec3 d = lights[i].pos.xyz - worldPos;
    acc += lights[i].color / (1.0 + dot(d, d));
  }
  color = acc;
}
