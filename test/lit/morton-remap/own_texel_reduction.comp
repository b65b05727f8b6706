// The default mode leaves alone a kernel whose only 2-D access reads the
// invocation's own texel (one per invocation) and whose value feeds only
// commutative reductions (tile min/max: two atomics): relabelling changes
// which invocation reads which texel, not which texels the workgroup reads,
// and costs instructions (docs/design/morton-remap.md, "Own texels into
// reductions"). `always` still remaps it. A neighbour's texel, a write, or
// a read value that steers a branch keep the old decision (Remapped).
// RUN: %waveopt %s -o %t.orig.spv
// RUN: %waveopt %s --morton-remap -o %t.spv --remarks-missed=morton 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %FileCheck %s --check-prefix=MINMAX < %t.remarks
// RUN: %waveopt %s --ssa-rewrite --morton-remap -o %t.ssa.spv --remarks-missed=morton 2> %t.ssa.remarks
// RUN: %FileCheck %s --check-prefix=MINMAX < %t.ssa.remarks
// RUN: %waveopt %s -DREDUCE --morton-remap -o %t.red.spv --remarks-missed=morton --remarks=morton 2> %t.red.remarks
// RUN: %FileCheck %s --check-prefix=MINMAX < %t.red.remarks
// RUN: %waveopt %s --morton-remap=always -o %t.always.spv --remarks=morton 2> %t.always.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.always.spv
// RUN: %FileCheck %s --check-prefix=ALWAYS < %t.always.remarks
// RUN: %waveopt %s -DNEIGHBOUR --morton-remap -o %t.nb.spv --remarks=morton 2> %t.nb.remarks
// RUN: %FileCheck %s --check-prefix=REMAPPED < %t.nb.remarks
// RUN: %waveopt %s -DWRITE --morton-remap -o %t.wr.spv --remarks=morton 2> %t.wr.remarks
// RUN: %FileCheck %s --check-prefix=REMAPPED < %t.wr.remarks
// RUN: %waveopt %s -DBRANCH --morton-remap -o %t.br.spv --remarks=morton 2> %t.br.remarks
// RUN: %FileCheck %s --check-prefix=REMAPPED < %t.br.remarks
// MINMAX: missed NotProfitable in main: 2-D accesses weigh 1 (1 storage image access), linear accesses 0 (none): every 2-D access (1) reads the invocation's own texel, one per invocation, and its value feeds only commutative reductions (atomics, subgroup reductions): relabelling changes which invocation reads which texel, not which texels the workgroup reads, and only adds instructions (--morton-remap=always overrides)
// MINMAX-NOT: applied
// ALWAYS: applied Remapped in main: 16x16x1 workgroup
// REMAPPED: applied Remapped in main: 16x16x1 workgroup
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, r32f) uniform image2D depth;
layout(set = 0, binding = 1) buffer Tiles { uint tile_min[64]; uint tile_max[]; };
void main() {
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  uint z = floatBitsToUint(imageLoad(depth, p).r);
#if defined(NEIGHBOUR)
  z = max(z, floatBitsToUint(imageLoad(depth, p + ivec2(1, 0)).r));
#elif defined(WRITE)
  imageStore(depth, p, vec4(uintBitsToFloat(z) * 0.5));
#elif defined(BRANCH)
  if (z > 0x3f000000u)
#endif
#if defined(REDUCE)
  atomicAdd(tile_min[tile], (z >> 20) * 3u + 1u);
#else
  atomicMin(tile_min[tile], z);
#endif
  atomicMax(tile_max[tile], z);
}
