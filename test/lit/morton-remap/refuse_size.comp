// Workgroups the remap cannot relabel are left alone (output == input),
// with the size and where it came from: Z > 1, fewer than 4 invocations,
// an odd side, a size from specialization constants without a promise,
// and a promise that contradicts the module's literal size.
// RUN: %waveopt %s -DSX=8 -DSY=8 -DSZ=2 -o %t1.orig.spv
// RUN: %waveopt %s -DSX=8 -DSY=8 -DSZ=2 --morton-remap -o %t1.spv --remarks-missed=morton 2> %t1.remarks
// RUN: cmp %t1.orig.spv %t1.spv
// RUN: %FileCheck %s --check-prefix=S8x8x2 < %t1.remarks
// RUN: %waveopt %s -DSX=2 -DSY=1 -o %t2.orig.spv
// RUN: %waveopt %s -DSX=2 -DSY=1 --morton-remap -o %t2.spv --remarks-missed=morton 2> %t2.remarks
// RUN: cmp %t2.orig.spv %t2.spv
// RUN: %FileCheck %s --check-prefix=S2 < %t2.remarks
// RUN: %waveopt %s -DSX=7 -DSY=8 -o %t3.orig.spv
// RUN: %waveopt %s -DSX=7 -DSY=8 --morton-remap -o %t3.spv --remarks-missed=morton 2> %t3.remarks
// RUN: cmp %t3.orig.spv %t3.spv
// RUN: %FileCheck %s --check-prefix=ODD < %t3.remarks
// RUN: %waveopt %s -DSPEC -o %t4.orig.spv
// RUN: %waveopt %s -DSPEC --morton-remap -o %t4.spv --remarks-missed=morton 2> %t4.remarks
// RUN: cmp %t4.orig.spv %t4.spv
// RUN: %FileCheck %s --check-prefix=SPEC < %t4.remarks
// RUN: %waveopt %s -DSX=8 -DSY=8 -o %t5.orig.spv
// RUN: %waveopt %s -DSX=8 -DSY=8 --morton-remap=workgroup-size=16x16 -o %t5.spv --remarks-missed=morton 2> %t5.remarks
// RUN: cmp %t5.orig.spv %t5.spv
// RUN: %FileCheck %s --check-prefix=MISMATCH < %t5.remarks
// S8x8x2: missed UnsupportedWorkgroupSize in main: the workgroup is 8x8x2 (from the WorkgroupSize built-in); the remap needs X x Y x 1 with 4 to 1024 invocations
// S2: missed UnsupportedWorkgroupSize in main: the workgroup is 2x1x1
// ODD: missed OddWorkgroupSize in main: the 7x8x1 workgroup (the WorkgroupSize built-in) has an odd side: there are no 2x2 lane blocks
// SPEC: missed SpecConstantWorkgroupSize in main: the workgroup size comes from specialization constants (the WorkgroupSize built-in, defaults 16x16x1): the pipeline may specialise it to another size; promise one with --morton-remap=workgroup-size=XxY
// MISMATCH: missed UnsupportedWorkgroupSize in main: the module's workgroup is 8x8x1 (from the WorkgroupSize built-in), not the promised workgroup-size=16x16x1
#version 450
#ifndef SZ
#define SZ 1
#endif
#ifdef SPEC
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_x = 16, local_size_y = 16) in;
#else
layout(local_size_x = SX, local_size_y = SY, local_size_z = SZ) in;
#endif
layout(set = 0, binding = 0, r32f) uniform image2D img;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  imageStore(img, p, imageLoad(img, p) + float(gl_LocalInvocationIndex));
}
