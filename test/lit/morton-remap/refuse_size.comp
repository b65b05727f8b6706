// Workgroups that are not X×Y×1 with X, Y multiples of 8 (or 64·k×1×1)
// are left alone (output == input), with the size and where it came from.
// RUN: %waveopt %s -DSX=8 -DSY=4 -o %t1.orig.spv
// RUN: %waveopt %s -DSX=8 -DSY=4 --morton-remap -o %t1.spv --remarks-missed=morton 2> %t1.remarks
// RUN: cmp %t1.orig.spv %t1.spv
// RUN: %FileCheck %s --check-prefix=S8x4 < %t1.remarks
// RUN: %waveopt %s -DSX=12 -DSY=12 -o %t2.orig.spv
// RUN: %waveopt %s -DSX=12 -DSY=12 --morton-remap -o %t2.spv --remarks-missed=morton 2> %t2.remarks
// RUN: cmp %t2.orig.spv %t2.spv
// RUN: %FileCheck %s --check-prefix=S12 < %t2.remarks
// RUN: %waveopt %s -DSX=8 -DSY=8 -DSZ=2 -o %t3.orig.spv
// RUN: %waveopt %s -DSX=8 -DSY=8 -DSZ=2 --morton-remap -o %t3.spv --remarks-missed=morton 2> %t3.remarks
// RUN: cmp %t3.orig.spv %t3.spv
// RUN: %FileCheck %s --check-prefix=S8x8x2 < %t3.remarks
// RUN: %waveopt %s -DSPEC -o %t4.orig.spv
// RUN: %waveopt %s -DSPEC --morton-remap -o %t4.spv --remarks-missed=morton 2> %t4.remarks
// RUN: cmp %t4.orig.spv %t4.spv
// RUN: %FileCheck %s --check-prefix=SPEC < %t4.remarks
// RUN: %waveopt %s -DSX=24 -DSY=8 --morton-remap -o %t5.spv --remarks=morton 2> %t5.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t5.spv
// RUN: %spirv-dis %t5.spv | %FileCheck %s --check-prefix=S24
// RUN: %FileCheck %s --check-prefix=S24R < %t5.remarks
// S8x4: missed UnsupportedWorkgroupSize in main: the workgroup is 8x4x1 (from the WorkgroupSize built-in); the remap needs X and Y multiples of 8 and Z = 1
// S12: missed UnsupportedWorkgroupSize in main: the workgroup is 12x12x1
// S8x8x2: missed UnsupportedWorkgroupSize in main: the workgroup is 8x8x2
// SPEC: missed UnsupportedWorkgroupSize in main: the workgroup is 4x4x1 (from the WorkgroupSize built-in, specialization constant defaults)
// S24R: applied Remapped in main: 24x8x1 workgroup
// A row of three tiles: tile % 3 and tile / 3.
// S24: OpUMod %uint {{%[0-9]+}} %uint_3
// S24: OpUDiv %uint {{%[0-9]+}} %uint_3
#version 450
#ifndef SZ
#define SZ 1
#endif
#ifdef SPEC
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_x = 4, local_size_y = 4) in;
#else
layout(local_size_x = SX, local_size_y = SY, local_size_z = SZ) in;
#endif
layout(set = 0, binding = 0, r32f) uniform image2D img;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  imageStore(img, p, imageLoad(img, p) + float(gl_LocalInvocationIndex));
}
