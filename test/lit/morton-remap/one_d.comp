// One-dimensional workgroups are remapped only through the 2-D split the
// kernel makes itself: the lane layout analysis evaluates the image
// coordinate for every invocation and finds rows of W lanes (i % W, i / W;
// i & (W-1), i >> log2 W), columns, or blocks of rows (SPD's 256 = 4 tiles
// of 8x8). The index becomes the lane that the Morton order of that W x H
// grid puts there (8x8 tiles, else 4 or 2), so the kernel's own split sees
// 2x2 quads. An odd side or an index used linearly is refused.
// RUN: %waveopt %s --morton-remap -o %t.spv --remarks=morton 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %waveopt %s -DBITS --morton-remap -o %t.bits.spv
// RUN: %spirv-dis %t.bits.spv | %FileCheck %s
// RUN: %waveopt %s -DTILES --morton-remap -o %t.tiles.spv --remarks=morton 2> %t.tiles.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.tiles.spv
// RUN: %spirv-dis %t.tiles.spv | %FileCheck %s --check-prefix=TILES
// RUN: %FileCheck %s --check-prefix=TILES-REMARK < %t.tiles.remarks
// RUN: %waveopt %s -DCOLUMNS --morton-remap -o %t.cols.spv --remarks=morton 2> %t.cols.remarks
// RUN: %spirv-dis %t.cols.spv | %FileCheck %s --check-prefix=COLUMNS
// RUN: %FileCheck %s --check-prefix=COLUMNS-REMARK < %t.cols.remarks
// RUN: %waveopt %s -DW=12u -DWG=96 --morton-remap -o %t.12.spv --remarks=morton 2> %t.12.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.12.spv
// RUN: %spirv-dis %t.12.spv | %FileCheck %s --check-prefix=W12
// RUN: %FileCheck %s --check-prefix=W12-REMARK < %t.12.remarks
// RUN: %waveopt %s -DW=8u -DWG=32 --morton-remap -o %t.32.spv --remarks=morton 2> %t.32.remarks
// RUN: %FileCheck %s --check-prefix=WG32 < %t.32.remarks
// RUN: %waveopt %s -DW=3u -DWG=96 -o %t.odd.orig.spv
// RUN: %waveopt %s -DW=3u -DWG=96 --morton-remap -o %t.odd.spv --remarks-missed=morton 2> %t.odd.remarks
// RUN: cmp %t.odd.orig.spv %t.odd.spv
// RUN: %FileCheck %s --check-prefix=ODD < %t.odd.remarks
// RUN: %waveopt %s -DW=64u -DWG=64 -o %t.row.orig.spv
// RUN: %waveopt %s -DW=64u -DWG=64 --morton-remap -o %t.row.spv --remarks-missed=morton 2> %t.row.remarks
// RUN: cmp %t.row.orig.spv %t.row.spv
// RUN: %FileCheck %s --check-prefix=LINEAR < %t.row.remarks
// REMARK: applied Remapped in main: 256x1x1 workgroup (the WorkgroupSize built-in), the index is split into 16x16 row by row (Morton order in 8x8 tiles); 1 identity built-in load(s) relabelled; 2-D accesses weigh 1 (1 storage image access), linear accesses 0 (none): 2-D accesses outweigh linear ones
// i % 16, i / 16: x' and y' of a 16x16 grid in 8x8 tiles, then y' * 16 + x'.
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
// CHECK-NEXT: [[B01:%[0-9]+]] = OpBitwiseAnd %uint [[S1]] %uint_3
// CHECK-NEXT: [[S3:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_3
// CHECK-NEXT: [[B2:%[0-9]+]] = OpBitwiseAnd %uint [[S3]] %uint_4
// CHECK-NEXT: [[Y0:%[0-9]+]] = OpBitwiseOr %uint [[B01]] [[B2]]
// CHECK-NEXT: [[TY:%[0-9]+]] = OpShiftRightLogical %uint [[T]] %uint_1
// CHECK-NEXT: [[OY:%[0-9]+]] = OpShiftLeftLogical %uint [[TY]] %uint_3
// CHECK-NEXT: [[Y:%[0-9]+]] = OpBitwiseOr %uint [[Y0]] [[OY]]
// CHECK-NEXT: [[ROW:%[0-9]+]] = OpShiftLeftLogical %uint [[Y]] %uint_4
// CHECK-NEXT: [[NEW:%[0-9]+]] = OpBitwiseOr %uint [[ROW]] [[X]]
// CHECK: OpStore %i [[NEW]]
// SPD's 4 tiles of 8x8: the Morton order inside each 64-lane block.
// TILES-REMARK: the index is split into blocks of 64 lanes, 8x8 row by row (Morton order in 8x8 tiles)
// TILES: [[ROW:%[0-9]+]] = OpShiftLeftLogical %uint {{%[0-9]+}} %uint_3
// TILES-NEXT: [[IN:%[0-9]+]] = OpBitwiseOr %uint [[ROW]] {{%[0-9]+}}
// TILES-NEXT: [[BLK:%[0-9]+]] = OpBitwiseAnd %uint {{%[0-9]+}} %uint_4294967232
// TILES-NEXT: [[NEW:%[0-9]+]] = OpBitwiseOr %uint [[BLK]] [[IN]]
// TILES: OpStore %i [[NEW]]
// x = i / 16, y = i % 16: x' * 16 + y'.
// COLUMNS-REMARK: the index is split into 16x16 column by column
// COLUMNS: [[OX:%[0-9]+]] = OpShiftLeftLogical %uint {{%[0-9]+}} %uint_3
// COLUMNS-NEXT: [[X:%[0-9]+]] = OpBitwiseOr %uint {{%[0-9]+}} [[OX]]
// COLUMNS: [[OY:%[0-9]+]] = OpShiftLeftLogical %uint {{%[0-9]+}} %uint_3
// COLUMNS-NEXT: [[Y:%[0-9]+]] = OpBitwiseOr %uint {{%[0-9]+}} [[OY]]
// COLUMNS-NEXT: [[COL:%[0-9]+]] = OpShiftLeftLogical %uint [[X]] %uint_4
// COLUMNS-NEXT: [[NEW:%[0-9]+]] = OpBitwiseOr %uint [[COL]] [[Y]]
// COLUMNS: OpStore %i [[NEW]]
// 12-wide rows: 4x8 tiles, three per row (tile = l >> 5).
// W12-REMARK: 96x1x1 workgroup (the WorkgroupSize built-in), the index is split into 12x8 row by row (Morton order in 4x8 tiles)
// W12: [[T:%[0-9]+]] = OpShiftRightLogical %uint {{%[0-9]+}} %uint_5
// W12-NEXT: OpUMod %uint [[T]] %uint_3
// W12: OpUDiv %uint [[T]] %uint_3
// W12: [[ROW:%[0-9]+]] = OpIMul %uint {{%[0-9]+}} %uint_12
// W12-NEXT: [[NEW:%[0-9]+]] = OpIAdd %uint [[ROW]] {{%[0-9]+}}
// W12: OpStore %i [[NEW]]
// WG32: applied Remapped in main: 32x1x1 workgroup (the WorkgroupSize built-in), the index is split into 8x4 row by row (Morton order in 8x4 tiles)
// ODD: missed OddWorkgroupSize in main: the 96x1x1 workgroup (the WorkgroupSize built-in) splits its index into 3x32 grids of lanes: an odd side leaves no 2x2 lane blocks
// LINEAR: missed LinearIndex in main: the 64x1x1 workgroup (the WorkgroupSize built-in): no 2-D image access splits its invocation index into rows or columns of lanes
#version 450
#ifndef WG
#define WG 256
#endif
layout(local_size_x = WG) in;
layout(set = 0, binding = 0, r32f) uniform writeonly image2D dst;
void main() {
  uint i = gl_LocalInvocationIndex;
#if defined(BITS)
  uvec2 q = uvec2(i & 15u, i >> 4u);
#elif defined(TILES)
  uvec2 q = uvec2((i & 7u) + 8u * ((i >> 6u) & 1u), ((i & 63u) >> 3u) + 8u * (i >> 7u));
#elif defined(COLUMNS)
  uvec2 q = uvec2(i / 16u, i % 16u);
#elif defined(W)
  uvec2 q = uvec2(i % W, i / W);
#else
  uvec2 q = uvec2(i % 16u, i / 16u);
#endif
  imageStore(dst, ivec2(gl_WorkGroupID.xy * 16u + q), vec4(float(i)));
}
