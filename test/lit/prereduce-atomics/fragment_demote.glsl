// Fragment shaders that demote: a lane can become a helper on the way, so
// the gl_HelperInvocation built-in is not exact at the atomic;
// OpIsHelperInvocationEXT asks at that point (the module has the demote
// capability already). The existing gl_HelperInvocation read is left alone.
// RUN: %waveopt -S frag %s --prereduce-atomics -o %t.spv --remarks=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: applied UniformAddressUniformValue in main: {{.*}}; helper invocations are kept out
// CHECK: OpCapability DemoteToHelperInvocation
// CHECK-LABEL: %main = OpFunction
// CHECK: OpDemoteToHelperInvocation
// CHECK: [[H:%[0-9]+]] = OpIsHelperInvocationEXT %bool
// CHECK: OpSelectionMerge [[TAIL:%[0-9]+]] None
// CHECK: OpBranchConditional [[H]] [[TAIL]] {{%[0-9]+}}
// CHECK: OpGroupNonUniformElect
// CHECK: OpAtomicIAdd %uint
// CHECK: [[TAIL]] = OpLabel
// CHECK-NEXT: OpPhi %uint
// CHECK: OpFunctionEnd
#version 450
#extension GL_EXT_demote_to_helper_invocation : require
layout(set = 0, binding = 0) buffer Data { uint counter; uint helpers; uint slots[]; };
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
  if (uv.x > 0.5) demote;
  uint slot = atomicAdd(counter, 1u);
  slots[slot % 64u] = uint(gl_HelperInvocation);
  color = vec4(1.0);
}
