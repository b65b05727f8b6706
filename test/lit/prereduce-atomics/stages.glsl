// Stages: Vulkan guarantees subgroup operations only in compute shaders; a
// device lists the others in subgroupSupportedStages. The pass takes
// compute, task/mesh and fragment by default, other stages when
// stages=... names them or when the entry point already uses subgroup
// operations (the device must then support them there).
// A vertex shader is refused by default (output byte-identical) ...
// RUN: %waveopt -S vert %s -o %t.orig.spv
// RUN: %waveopt -S vert %s --prereduce-atomics -o %t.spv --remarks-missed=prereduce 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %FileCheck %s --check-prefix=REFUSED < %t.remarks
// REFUSED: missed StageNotPromised in main: the function runs in the vertex stage (entry point 'main'), where Vulkan does not guarantee subgroup operations (the device lists its stages in subgroupSupportedStages) and the entry point uses none; pass --prereduce-atomics=stages=vertex+... if the target device supports them
// ... and rewritten when the user says the device supports it.
// RUN: %waveopt -S vert %s --prereduce-atomics=stages=compute+vertex -o %t.vert.spv --remarks=prereduce 2> %t.vert.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.vert.spv
// RUN: %FileCheck %s --check-prefix=PROMISED < %t.vert.remarks
// RUN: %spirv-dis %t.vert.spv | %FileCheck %s --check-prefix=VERT
// PROMISED: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused{{$}}
// VERT-NOT: HelperInvocation
// VERT: OpGroupNonUniformElect
// VERT: OpAtomicIAdd %uint {{%[a-z_0-9]+}} %uint_1 %uint_0
// stages=all also covers it.
// RUN: %waveopt -S vert %s --prereduce-atomics=stages=all -o %t.all.spv --remarks=prereduce 2> %t.all.remarks
// RUN: %FileCheck %s --check-prefix=PROMISED < %t.all.remarks
// A list without fragment refuses fragment shaders too.
// RUN: %waveopt -S frag %S/fragment.glsl --prereduce-atomics=stages=compute -o %t.frag.spv --remarks-missed=prereduce 2> %t.frag.remarks
// RUN: %FileCheck %s --check-prefix=NOFRAG < %t.frag.remarks
// NOFRAG: missed StageNotPromised in main: the function runs in the fragment stage
// Bad lists are one error line.
// RUN: %not %waveopt -S vert %s --prereduce-atomics=stages=vertex+pixel -o %t.bad.spv 2>&1 | %FileCheck %s --check-prefix=BAD
// RUN: %not %waveopt -S vert %s --prereduce-atomics=stages= -o %t.bad.spv 2>&1 | %FileCheck %s --check-prefix=BAD
// RUN: %not %waveopt -S vert %s --prereduce-atomics=stages=vertex+ -o %t.bad.spv 2>&1 | %FileCheck %s --check-prefix=BAD
// RUN: test ! -e %t.bad.spv
// BAD: stages must be a '+'-separated list of compute, mesh, fragment, vertex, tessellation, geometry, raytracing or all
#version 450
layout(set = 0, binding = 0) buffer Data { uint vertices; };
layout(location = 0) in vec4 position;
void main() {
  atomicAdd(vertices, 1u);
  gl_Position = position;
}
