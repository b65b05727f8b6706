// The basic case: an 8x8 workgroup (one tile) reading and writing images at
// gl_GlobalInvocationID. The load of the built-in becomes
// WorkgroupId * 8 + (x, y) with x = (l & 1) | ((l >> 2) & 6) and
// y = ((l >> 1) & 3) | ((l >> 3) & 4); WorkgroupId and LocalInvocationIndex
// are declared and added to the interface. No capability is added. -O runs
// the pass first and still validates.
// RUN: %waveopt %s --morton-remap -o %t.spv --remarks=morton 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %waveopt %s -O -o %t.O.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.O.spv
// RUN: %spirv-dis %t.O.spv | %FileCheck %s --check-prefix=OPT
// REMARK: remap_8x8.comp:{{[0-9]+}}: remark: morton-remap: applied Remapped in main: 8x8x1 workgroup (the WorkgroupSize built-in), Morton order in 8x8 tiles; 1 identity built-in load(s) relabelled; 2-D accesses weigh 10 (10 storage image accesses), linear accesses 0 (none): 2-D accesses outweigh linear ones
// CHECK-NOT: OpCapability GroupNonUniform
// CHECK: OpEntryPoint GLCompute %main "main" %gl_GlobalInvocationID %gl_LocalInvocationIndex %gl_WorkGroupID
// CHECK-DAG: OpDecorate %gl_LocalInvocationIndex BuiltIn LocalInvocationIndex
// CHECK-DAG: OpDecorate %gl_WorkGroupID BuiltIn WorkgroupId
// CHECK-LABEL: %main = OpFunction
// CHECK: [[WG:%[0-9]+]] = OpLoad %v3uint %gl_WorkGroupID
// CHECK-NEXT: [[WGX:%[0-9]+]] = OpCompositeExtract %uint [[WG]] 0
// CHECK-NEXT: [[BX:%[0-9]+]] = OpIMul %uint [[WGX]] %uint_8
// CHECK-NEXT: [[L:%[0-9]+]] = OpLoad %uint %gl_LocalInvocationIndex
// CHECK-NEXT: [[B0:%[0-9]+]] = OpBitwiseAnd %uint [[L]] %uint_1
// CHECK-NEXT: [[S2:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_2
// CHECK-NEXT: [[B12:%[0-9]+]] = OpBitwiseAnd %uint [[S2]] %uint_6
// CHECK-NEXT: [[X:%[0-9]+]] = OpBitwiseOr %uint [[B0]] [[B12]]
// CHECK-NEXT: [[GX:%[0-9]+]] = OpIAdd %uint [[BX]] [[X]]
// CHECK-NEXT: [[WGY:%[0-9]+]] = OpCompositeExtract %uint [[WG]] 1
// CHECK-NEXT: [[BY:%[0-9]+]] = OpIMul %uint [[WGY]] %uint_8
// CHECK-NEXT: [[S1:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_1
// CHECK-NEXT: [[B01:%[0-9]+]] = OpBitwiseAnd %uint [[S1]] %uint_3
// CHECK-NEXT: [[S3:%[0-9]+]] = OpShiftRightLogical %uint [[L]] %uint_3
// CHECK-NEXT: [[B2:%[0-9]+]] = OpBitwiseAnd %uint [[S3]] %uint_4
// CHECK-NEXT: [[Y:%[0-9]+]] = OpBitwiseOr %uint [[B01]] [[B2]]
// CHECK-NEXT: [[GY:%[0-9]+]] = OpIAdd %uint [[BY]] [[Y]]
// CHECK-NEXT: [[WGZ:%[0-9]+]] = OpCompositeExtract %uint [[WG]] 2
// CHECK-NEXT: [[GID:%[0-9]+]] = OpCompositeConstruct %v3uint [[GX]] [[GY]] [[WGZ]]
// CHECK: OpVectorShuffle %v2uint [[GID]] [[GID]] 0 1
// CHECK-NOT: OpLoad %v3uint %gl_GlobalInvocationID
// CHECK: OpFunctionEnd
// OPT: OpLoad %uint %gl_LocalInvocationIndex
// OPT-NOT: OpLoad %v3uint %gl_GlobalInvocationID
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec4 sum = vec4(0.0);
  sum += imageLoad(src, p + ivec2(-1, -1)) + imageLoad(src, p + ivec2(0, -1)) + imageLoad(src, p + ivec2(1, -1));
  sum += imageLoad(src, p + ivec2(-1, 0)) + imageLoad(src, p) + imageLoad(src, p + ivec2(1, 0));
  sum += imageLoad(src, p + ivec2(-1, 1)) + imageLoad(src, p + ivec2(0, 1)) + imageLoad(src, p + ivec2(1, 1));
  imageStore(dst, p, sum / 9.0);
}
