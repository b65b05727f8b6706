// Fragment shaders: helper lanes join subgroup operations but their atomics
// do nothing, so an elected helper would lose the whole subgroup's update.
// RUN: %waveopt -S frag %s -o %t.orig.spv
// RUN: %waveopt -S frag %s --prereduce-atomics -o %t.spv --remarks-missed=prereduce 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %FileCheck %s < %t.remarks
// CHECK: missed FragmentStage in main: the function runs in a fragment shader
#version 450
layout(set = 0, binding = 0) buffer Data { uint counter; };
layout(location = 0) out vec4 color;
void main() {
  atomicAdd(counter, 1u);
  color = vec4(1.0);
}
