// 1-D workgroups of 64·k invocations are treated as 8x8 tiles: the index
// inside each 64-block becomes y * 8 + x, so a shader that derives 2-D
// coordinates from its index (index % 8, index / 8, as FidelityFX SPD does)
// sees 2x2 lane quads. 256x1 keeps the block bits (l & ~63); 64x1 needs
// none. 32x1 is refused.
// RUN: %waveopt %s --morton-remap -o %t.spv --remarks=morton 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %waveopt %s -DWG=64 --morton-remap -o %t.64.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.64.spv
// RUN: %spirv-dis %t.64.spv | %FileCheck %s --check-prefix=WG64
// RUN: %waveopt %s -DWG=32 -o %t.32.orig.spv
// RUN: %waveopt %s -DWG=32 --morton-remap -o %t.32.spv --remarks-missed=morton 2> %t.32.remarks
// RUN: cmp %t.32.orig.spv %t.32.spv
// RUN: %FileCheck %s --check-prefix=WG32 < %t.32.remarks
// REMARK: applied Remapped in main: 256x1x1 workgroup (the WorkgroupSize built-in), 1 identity built-in load(s) relabelled; 1 image access(es) at invocation-derived coordinates, 0 buffer access(es)
// CHECK-LABEL: %main = OpFunction
// CHECK: [[L:%[0-9]+]] = OpLoad %uint %gl_LocalInvocationIndex
// CHECK-NEXT: [[B0:%[0-9]+]] = OpBitwiseAnd %uint [[L]] %uint_1
// CHECK-NEXT: [[S2:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_2
// CHECK-NEXT: [[B12:%[0-9]+]] = OpBitwiseAnd %uint [[S2]] %uint_6
// CHECK-NEXT: [[X:%[0-9]+]] = OpBitwiseOr %uint [[B0]] [[B12]]
// CHECK-NEXT: [[S1:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_1
// CHECK-NEXT: [[B01:%[0-9]+]] = OpBitwiseAnd %uint [[S1]] %uint_3
// CHECK-NEXT: [[S3:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_3
// CHECK-NEXT: [[B2:%[0-9]+]] = OpBitwiseAnd %uint [[S3]] %uint_4
// CHECK-NEXT: [[Y:%[0-9]+]] = OpBitwiseOr %uint [[B01]] [[B2]]
// CHECK-NEXT: [[ROW:%[0-9]+]] = OpShiftLeftLogical %uint [[Y]] %uint_3
// CHECK-NEXT: [[IN:%[0-9]+]] = OpBitwiseOr %uint [[ROW]] [[X]]
// CHECK-NEXT: [[BLK:%[0-9]+]] = OpBitwiseAnd %uint [[L]] %uint_4294967232
// CHECK-NEXT: [[NEW:%[0-9]+]] = OpBitwiseOr %uint [[BLK]] [[IN]]
// CHECK: OpStore %i [[NEW]]
// WG64: [[ROW:%[0-9]+]] = OpShiftLeftLogical %uint {{%[0-9]+}} %uint_3
// WG64-NEXT: [[IN:%[0-9]+]] = OpBitwiseOr %uint [[ROW]] {{%[0-9]+}}
// WG64: OpStore %i [[IN]]
// WG32: missed UnsupportedWorkgroupSize in main: the workgroup is 32x1x1 (from the WorkgroupSize built-in); the remap needs X and Y multiples of 8 and Z = 1, or 64·k x 1 x 1
#version 450
#ifndef WG
#define WG 256
#endif
layout(local_size_x = WG) in;
layout(set = 0, binding = 0, r32f) uniform writeonly image2D dst;
void main() {
  uint i = gl_LocalInvocationIndex;
  ivec2 p = ivec2(gl_WorkGroupID.x * 16u + (i % 16u), i / 16u);
  imageStore(dst, p, vec4(float(i)));
}
