// A fragment shader that reads gl_HelperInvocation itself: the pass loads
// the same variable (no second HelperInvocation built-in).
// RUN: %waveopt -S frag %s --prereduce-atomics -o %t.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// CHECK: OpEntryPoint Fragment %main "main" %color %gl_HelperInvocation %value{{$}}
// CHECK: OpDecorate %gl_HelperInvocation BuiltIn HelperInvocation
// CHECK-NOT: BuiltIn HelperInvocation
// CHECK-LABEL: %main = OpFunction
// CHECK: OpLoad %bool %gl_HelperInvocation
// CHECK: [[H:%[0-9]+]] = OpLoad %bool %gl_HelperInvocation
// CHECK-NEXT: OpSelectionMerge
// CHECK-NEXT: OpBranchConditional [[H]]
#version 450
layout(set = 0, binding = 0) buffer Data { uint live; uint sum; };
layout(location = 0) flat in uint value;
layout(location = 0) out vec4 color;
void main() {
  color = vec4(gl_HelperInvocation ? 1.0 : 0.0);
  atomicAdd(sum, value);
}
