// --assume-driver=radv leaves a 32-bit uniform-address atomic to RADV,
// which elects one lane per atomic (DriverPreReduces). Two or more such
// atomics with unused results that share one elected branch are rewritten
// all the same: one election for the group, where RADV makes one per atomic
// (tile_minmax, navi21 wave64: 48 instructions against 51 left to RADV; the
// benchmark's AMD tables). Alone, or with a used result, they stay RADV's.
//
// Case 1, tile min/max, both results unused: one Elect, both atomics under it.
// RUN: %waveopt %s -DCASE=1 -O --assume-driver=radv -o %t1.spv --remarks=prereduce --remarks-missed=prereduce 2> %t1.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t1.spv
// RUN: %spirv-dis %t1.spv | %FileCheck %s --check-prefix=PAIR
// RUN: %FileCheck %s --check-prefix=PAIR-REMARK < %t1.remarks
// PAIR-REMARK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMin
// PAIR-REMARK-NEXT: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax {{.*}}; shares the elected branch of the atomic before it
// PAIR-REMARK-NOT: DriverPreReduces
// PAIR: OpGroupNonUniformUMin %uint %uint_3 Reduce
// PAIR: OpGroupNonUniformUMax %uint %uint_3 Reduce
// PAIR: OpGroupNonUniformElect
// PAIR: OpAtomicUMin
// PAIR: OpAtomicUMax
// PAIR-NOT: OpGroupNonUniformElect
//
// Case 2, one atomic: left to RADV.
// RUN: %waveopt %s -DCASE=2 -O --assume-driver=radv -o %t2.spv --remarks-missed=prereduce 2>&1 | %FileCheck %s --check-prefix=ALONE
// RUN: %spirv-dis %t2.spv | %FileCheck %s --check-prefix=UNCHANGED
// ALONE: missed DriverPreReduces in main: --target=amd: RADV pre-reduces
//
// Case 3, the second atomic's result is used: it is RADV's (v_mbcnt for the
// returned values), and the first, alone then, is RADV's too.
// RUN: %waveopt %s -DCASE=3 -O --assume-driver=radv -o %t3.spv --remarks-missed=prereduce 2>&1 | %FileCheck %s --check-prefix=USED
// RUN: %spirv-dis %t3.spv | %FileCheck %s --check-prefix=UNCHANGED
// USED: missed DriverPreReduces in main
// USED-NEXT: missed DriverPreReduces in main
// UNCHANGED-NOT: OpGroupNonUniform
//
// Without the profile, both atomics of case 3 are rewritten.
// RUN: %waveopt %s -DCASE=3 -O --target=none -o %t4.spv --remarks=prereduce 2>&1 | %FileCheck %s --check-prefix=GENERIC
// GENERIC-COUNT-2: applied
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, r32f) readonly uniform image2D depth;
layout(set = 0, binding = 1) buffer TileMin { uint tile_min[]; };
layout(set = 0, binding = 2) buffer TileMax { uint tile_max[]; };
layout(set = 0, binding = 3) buffer Out { uint slots[]; };
void main() {
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint z = floatBitsToUint(imageLoad(depth, ivec2(gl_GlobalInvocationID.xy)).r);
  atomicMin(tile_min[tile], z);
#if CASE == 1
  atomicMax(tile_max[tile], z);
#elif CASE == 3
  uint before = atomicMax(tile_max[tile], z);
  slots[gl_LocalInvocationIndex] = before;
#endif
}
