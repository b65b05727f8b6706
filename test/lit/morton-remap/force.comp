// --morton-remap=force remaps even a shader that reduces over subgroups;
// the remark says so (its results change: see test/diff/morton-remap/
// negative_control.test).
// RUN: %waveopt %s --morton-remap=force -o %t.spv --remarks=morton 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: applied Remapped in main: 8x8x1 workgroup {{.*}} (forced, although OpGroupNonUniformFAdd: the result depends on which invocations share a subgroup (or a quad): results that depend on subgroup membership change)
// CHECK-NOT: OpLoad %v3uint %gl_GlobalInvocationID
// CHECK: OpGroupNonUniformFAdd
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32f) uniform image2D img;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  imageStore(img, p, vec4(subgroupAdd(imageLoad(img, p).r)));
}
