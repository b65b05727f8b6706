// 2-D workgroups with even sides: Morton order inside 8x8 tiles (4 or 2 on
// a side the size does not divide by 8), tiles in row order. 32x8 is a row
// of four 8x8 tiles; 8x4 one 8x4 tile; 12x12 nine 4x4 tiles (tile % 3,
// tile / 3); 6x6 nine 2x2 tiles. A size from specialization constants is
// remapped at the size the user promises (workgroup-size=).
// RUN: %waveopt %s -DSX=32 -DSY=8 --morton-remap -o %t.32x8.spv --remarks=morton 2> %t.32x8.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.32x8.spv
// RUN: %spirv-dis %t.32x8.spv | %FileCheck %s --check-prefix=S32x8
// RUN: %FileCheck %s --check-prefix=S32x8-REMARK < %t.32x8.remarks
// RUN: %waveopt %s -DSX=8 -DSY=4 --morton-remap -o %t.8x4.spv --remarks=morton 2> %t.8x4.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.8x4.spv
// RUN: %spirv-dis %t.8x4.spv | %FileCheck %s --check-prefix=S8x4
// RUN: %FileCheck %s --check-prefix=S8x4-REMARK < %t.8x4.remarks
// RUN: %waveopt %s -DSX=12 -DSY=12 --morton-remap -o %t.12.spv --remarks=morton 2> %t.12.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.12.spv
// RUN: %spirv-dis %t.12.spv | %FileCheck %s --check-prefix=S12
// RUN: %FileCheck %s --check-prefix=S12-REMARK < %t.12.remarks
// RUN: %waveopt %s -DSX=6 -DSY=6 --morton-remap -o %t.6.spv --remarks=morton 2> %t.6.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.6.spv
// RUN: %FileCheck %s --check-prefix=S6-REMARK < %t.6.remarks
// RUN: %waveopt %s -DSX=16 -DSY=8 --morton-remap -o %t.16x8.spv --remarks=morton 2> %t.16x8.remarks
// RUN: %FileCheck %s --check-prefix=S16x8-REMARK < %t.16x8.remarks
// RUN: %waveopt %s -DSX=32 -DSY=32 --morton-remap -o %t.32.spv --remarks=morton 2> %t.32.remarks
// RUN: %FileCheck %s --check-prefix=S32-REMARK < %t.32.remarks
// RUN: %waveopt %s -DSPEC --morton-remap=workgroup-size=16x16 -o %t.spec.spv --remarks=morton 2> %t.spec.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spec.spv
// RUN: %FileCheck %s --check-prefix=SPEC < %t.spec.remarks
// S32x8-REMARK: applied Remapped in main: 32x8x1 workgroup (the WorkgroupSize built-in), Morton order in 8x8 tiles; 2 identity built-in load(s) relabelled
// Four tiles in a row: tile_x = tile & 3, tile_y = tile >> 2.
// S32x8: [[T:%[0-9]+]] = OpShiftRightLogical %uint {{%[0-9]+}} %uint_6
// S32x8-NEXT: [[TX:%[0-9]+]] = OpBitwiseAnd %uint [[T]] %uint_3
// S32x8-NEXT: OpShiftLeftLogical %uint [[TX]] %uint_3
// S32x8: [[TY:%[0-9]+]] = OpShiftRightLogical %uint [[T]] %uint_2
// S32x8-NEXT: OpShiftLeftLogical %uint [[TY]] %uint_3
// S8x4-REMARK: applied Remapped in main: 8x4x1 workgroup (the WorkgroupSize built-in), Morton order in 8x4 tiles
// One 8x4 tile: x = (l & 1) | ((l >> 2) & 6), y = (l >> 1) & 3; no tile terms.
// S8x4: [[L:%[0-9]+]] = OpLoad %uint %gl_LocalInvocationIndex
// S8x4-NEXT: [[B0:%[0-9]+]] = OpBitwiseAnd %uint [[L]] %uint_1
// S8x4-NEXT: [[S2:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_2
// S8x4-NEXT: [[B12:%[0-9]+]] = OpBitwiseAnd %uint [[S2]] %uint_6
// S8x4-NEXT: [[X:%[0-9]+]] = OpBitwiseOr %uint [[B0]] [[B12]]
// S8x4-NEXT: OpIAdd %uint {{%[0-9]+}} [[X]]
// S8x4: [[S1:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_1
// S8x4-NEXT: [[Y:%[0-9]+]] = OpBitwiseAnd %uint [[S1]] %uint_3
// S8x4-NEXT: OpIAdd %uint {{%[0-9]+}} [[Y]]
// S12-REMARK: applied Remapped in main: 12x12x1 workgroup (the WorkgroupSize built-in), Morton order in 4x4 tiles
// S12: [[T:%[0-9]+]] = OpShiftRightLogical %uint {{%[0-9]+}} %uint_4
// S12-NEXT: OpUMod %uint [[T]] %uint_3
// S12: OpUDiv %uint [[T]] %uint_3
// S6-REMARK: applied Remapped in main: 6x6x1 workgroup (the WorkgroupSize built-in), Morton order in 2x2 tiles
// S16x8-REMARK: applied Remapped in main: 16x8x1 workgroup (the WorkgroupSize built-in), Morton order in 8x8 tiles
// S32-REMARK: applied Remapped in main: 32x32x1 workgroup (the WorkgroupSize built-in), Morton order in 8x8 tiles
// SPEC: applied Remapped in main: 16x16x1 workgroup (promised by workgroup-size= for specialization constants), Morton order in 8x8 tiles
#version 450
#ifdef SPEC
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_x = 4, local_size_y = 4) in;
#else
layout(local_size_x = SX, local_size_y = SY) in;
#endif
layout(set = 0, binding = 0, r32f) uniform image2D img;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  imageStore(img, p, imageLoad(img, p) + float(gl_LocalInvocationIndex));
}
