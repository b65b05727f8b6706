// Consecutive atomics of one block share one elected branch, as hand-written
// code does (tile min/max: one subgroupElect for atomicMin and atomicMax):
// both reductions first, one OpGroupNonUniformElect, both atomics under it in
// program order. The loads of the tile index and of the value between them
// (invocation-private variables) move above the reductions.
// RUN: %waveopt %s --prereduce-atomics -o %t.spv --remarks=prereduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// The same from SSA form (what -O's cleanup gives the pass).
// RUN: %waveopt %s --ssa-rewrite --prereduce-atomics -o %t.ssa.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.ssa.spv
// RUN: %spirv-dis %t.ssa.spv | %FileCheck %s
// REMARK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMin of a divergent value; the returned value is unused{{$}}
// REMARK-NEXT: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; the returned value is unused; shares the elected branch of the atomic before it
// CHECK-LABEL: %main = OpFunction
// CHECK: [[MIN:%[0-9]+]] = OpGroupNonUniformUMin %uint %uint_3 Reduce
// CHECK: [[MAX:%[0-9]+]] = OpGroupNonUniformUMax %uint %uint_3 Reduce
// CHECK: [[ELECT:%[0-9]+]] = OpGroupNonUniformElect %bool %uint_3
// CHECK: OpBranchConditional [[ELECT]] [[SINGLE:%[0-9]+]] [[MERGE:%[0-9]+]]
// CHECK: [[SINGLE]] = OpLabel
// CHECK: OpAtomicUMin %uint {{%[0-9]+}} %uint_1 %uint_0 [[MIN]]
// CHECK: OpAtomicUMax %uint {{%[0-9]+}} %uint_1 %uint_0 [[MAX]]
// CHECK: OpBranch [[MERGE]]
// CHECK-NOT: OpGroupNonUniformElect
// CHECK: OpFunctionEnd
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, r32f) readonly uniform image2D depth;
layout(set = 0, binding = 1) buffer TileMin { uint tile_min[]; };
layout(set = 0, binding = 2) buffer TileMax { uint tile_max[]; };
void main() {
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint z = floatBitsToUint(imageLoad(depth, ivec2(gl_GlobalInvocationID.xy)).r);
  atomicMin(tile_min[tile], z);
  atomicMax(tile_max[tile], z);
}
