// An image texel pointer at a uniform coordinate (the workgroup's tile).
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; the returned value is unused
// CHECK: [[PTR:%[0-9]+]] = OpImageTexelPointer
// CHECK: [[MAX:%[0-9]+]] = OpGroupNonUniformUMax %uint %uint_3 Reduce
// CHECK: OpGroupNonUniformElect
// CHECK: OpAtomicUMax %uint [[PTR]] %uint_1 %uint_0 [[MAX]]
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32f) readonly uniform image2D depth;
layout(set = 0, binding = 1, r32ui) uniform uimage2D tile_max;
void main() {
  float d = imageLoad(depth, ivec2(gl_GlobalInvocationID.xy)).r;
  imageAtomicMax(tile_max, ivec2(gl_WorkGroupID.xy), floatBitsToUint(d));
}
