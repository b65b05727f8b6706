// Fragment shaders: helper invocations (here: the quad neighbours that
// derivatives need) take part in subgroup operations, but their atomics do
// nothing. The rewrite runs under `if (!gl_HelperInvocation)`, so helpers
// neither count nor get elected; without the demote capability no lane
// becomes a helper on the way and the built-in is exact. The pass adds the
// built-in and lists it in the entry point's interface.
// RUN: %waveopt -S frag %s --prereduce-atomics -o %t.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// SPIR-V 1.6 (Vulkan 1.3) takes the same built-in.
// RUN: %waveopt -S frag %s --target-env=vulkan1.3 --prereduce-atomics -o %t.13.spv
// RUN: %spirv-val --target-env vulkan1.3 %t.13.spv
// Running it again changes nothing.
// RUN: %waveopt %t.spv --prereduce-atomics -o %t.again.spv --remarks-missed=prereduce 2> %t.again.remarks
// RUN: cmp %t.spv %t.again.spv
// RUN: %FileCheck %s --check-prefix=AGAIN < %t.again.remarks
// REMARK: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt; helper invocations are kept out
// REMARK-NEXT: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; the returned value is unused; helper invocations are kept out
// AGAIN-COUNT-2: missed AlreadyPreReduced
// CHECK: OpEntryPoint Fragment %main "main" {{.*}}[[HELPER:%[a-zA-Z_0-9]+]]{{$}}
// CHECK: OpDecorate [[HELPER]] BuiltIn HelperInvocation
// CHECK: [[HELPER]] = OpVariable %_ptr_Input_bool Input
// CHECK-LABEL: %main = OpFunction
// CHECK: [[BLOCK:%[0-9]+]] = OpLabel
// CHECK: [[H:%[0-9]+]] = OpLoad %bool [[HELPER]]
// CHECK: OpSelectionMerge [[TAIL:%[0-9]+]] None
// CHECK: OpBranchConditional [[H]] [[TAIL]] [[LIVE:%[0-9]+]]
// CHECK: [[LIVE]] = OpLabel
// CHECK: OpGroupNonUniformBallot %v4uint %uint_3 %true
// CHECK: OpGroupNonUniformElect
// CHECK: OpAtomicIAdd %uint
// CHECK: [[LIVEEND:%[0-9]+]] = OpLabel
// CHECK: [[REBUILT:%[0-9]+]] = OpIAdd %uint
// CHECK: OpBranch [[TAIL]]
// CHECK: [[TAIL]] = OpLabel
// CHECK: [[SLOT:%[0-9]+]] = OpPhi %uint {{%[a-z_0-9]+}} [[BLOCK]] [[REBUILT]] [[LIVEEND]]
// CHECK: OpLoad %bool [[HELPER]]
// CHECK: OpGroupNonUniformUMax %uint %uint_3 Reduce
// CHECK: OpAtomicUMax
// CHECK: OpFunctionEnd
#version 450
layout(set = 0, binding = 0) buffer Data { uint counter; uint maxx; uint slots[]; };
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
  float slope = dFdx(uv.x);
  uint slot = atomicAdd(counter, 1u);
  atomicMax(maxx, uint(gl_FragCoord.x));
  slots[slot % 64u] = uint(slope * 100.0);
  color = vec4(1.0);
}
