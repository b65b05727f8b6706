// A 16x16 workgroup is four 8x8 tiles laid out row-major: tile = l >> 6,
// its origin (tile & 1, tile >> 1) * 8 is or-ed into the in-tile position.
// LocalInvocationIndex becomes y * 16 + x.
// RUN: %waveopt %s --morton-remap -o %t.spv --remarks=morton 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: applied Remapped in main: 16x16x1 workgroup (the WorkgroupSize built-in), Morton order in 8x8 tiles; 2 identity built-in load(s) relabelled; 2-D accesses weigh 2 (2 storage image accesses), linear accesses 0 (none): 2-D accesses outweigh linear ones
// CHECK: OpEntryPoint GLCompute %main "main" %gl_LocalInvocationID %gl_LocalInvocationIndex
// CHECK-LABEL: %main = OpFunction
// CHECK: [[L:%[0-9]+]] = OpLoad %uint %gl_LocalInvocationIndex
// CHECK-NEXT: [[B0:%[0-9]+]] = OpBitwiseAnd %uint [[L]] %uint_1
// CHECK-NEXT: [[S2:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_2
// CHECK-NEXT: [[B12:%[0-9]+]] = OpBitwiseAnd %uint [[S2]] %uint_6
// CHECK-NEXT: [[X0:%[0-9]+]] = OpBitwiseOr %uint [[B0]] [[B12]]
// CHECK-NEXT: [[T:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_6
// CHECK-NEXT: [[TX:%[0-9]+]] = OpBitwiseAnd %uint [[T]] %uint_1
// CHECK-NEXT: [[OX:%[0-9]+]] = OpShiftLeftLogical %uint [[TX]] %uint_3
// CHECK-NEXT: [[X:%[0-9]+]] = OpBitwiseOr %uint [[X0]] [[OX]]
// CHECK-NEXT: [[S1:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_1
// CHECK-NEXT: [[Y01:%[0-9]+]] = OpBitwiseAnd %uint [[S1]] %uint_3
// CHECK-NEXT: [[S3:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_3
// CHECK-NEXT: [[Y2:%[0-9]+]] = OpBitwiseAnd %uint [[S3]] %uint_4
// CHECK-NEXT: [[Y0:%[0-9]+]] = OpBitwiseOr %uint [[Y01]] [[Y2]]
// CHECK-NEXT: [[TY:%[0-9]+]] = OpShiftRightLogical %uint [[T]] %uint_1
// CHECK-NEXT: [[OY:%[0-9]+]] = OpShiftLeftLogical %uint [[TY]] %uint_3
// CHECK-NEXT: [[Y:%[0-9]+]] = OpBitwiseOr %uint [[Y0]] [[OY]]
// CHECK-NEXT: [[LID:%[0-9]+]] = OpCompositeConstruct %v3uint [[X]] [[Y]] %uint_0
// CHECK: OpVectorShuffle %v2uint [[LID]] [[LID]] 0 1
// CHECK: [[L2:%[0-9]+]] = OpLoad %uint %gl_LocalInvocationIndex
// CHECK: [[ROW:%[0-9]+]] = OpShiftLeftLogical %uint {{%[0-9]+}} %uint_4
// CHECK: [[IDX:%[0-9]+]] = OpIAdd %uint [[ROW]] {{%[0-9]+}}
// CHECK: OpConvertUToF %float [[IDX]]
// CHECK-NOT: OpLoad %v3uint %gl_LocalInvocationID
// CHECK: OpFunctionEnd
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D src;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D dst;
void main() {
  ivec2 p = ivec2(gl_LocalInvocationID.xy);
  float v = imageLoad(src, p).r + float(gl_LocalInvocationIndex);
  imageStore(dst, p, vec4(v));
}
