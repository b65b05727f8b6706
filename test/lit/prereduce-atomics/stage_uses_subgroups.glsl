// A vertex shader that already uses subgroup operations: the device must
// support them in the vertex stage, so no promise is needed. (Reading a
// subgroup built-in such as gl_SubgroupInvocationID is no such evidence:
// the built-ins are not bound to subgroupSupportedStages.)
// RUN: %waveopt -S vert %s --prereduce-atomics -o %t.spv --remarks=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %FileCheck %s < %t.remarks
// Without the vote, the built-in alone does not enable the stage.
// RUN: %waveopt -S vert -DBUILTIN_ONLY %s --prereduce-atomics -o %t.b.spv --remarks-missed=prereduce 2> %t.b.remarks
// RUN: %FileCheck %s --check-prefix=BUILTIN < %t.b.remarks
// BUILTIN: missed StageNotPromised in main: the function runs in the vertex stage
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
layout(set = 0, binding = 0) buffer Data { uint far_lane; };
layout(location = 0) in vec4 position;
void main() {
  atomicMax(far_lane, gl_SubgroupInvocationID);
#ifdef BUILTIN_ONLY
  gl_Position = position;
#else
  gl_Position = subgroupAll(position.w > 0.0) ? position : vec4(0.0);
#endif
}
