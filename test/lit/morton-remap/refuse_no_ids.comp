// A compute shader that never reads LocalInvocationId, GlobalInvocationId
// or LocalInvocationIndex has nothing to relabel.
// RUN: %waveopt %s -o %t.orig.spv
// RUN: %waveopt %s --morton-remap -o %t.spv --remarks-missed=morton 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %FileCheck %s < %t.remarks
// CHECK: missed NoInvocationIds in main: the entry point does not read LocalInvocationId, GlobalInvocationId or LocalInvocationIndex: nothing to relabel
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32f) uniform image2D img;
void main() {
  ivec2 p = ivec2(gl_WorkGroupID.xy);
  imageStore(img, p, imageLoad(img, p) * 2.0);
}
