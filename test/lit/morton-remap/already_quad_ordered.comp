// Kernels whose invocation -> pixel mapping already puts lanes 4k..4k+3 on
// a 2x2 block are left alone (AlreadyQuadOrdered): a second permutation
// would undo the hand optimization. Decided by evaluating the coordinates
// for every invocation, not by names or bit patterns:
//  SPD = 256 lanes, FidelityFX-style ARmpRed8x8 written with bitfieldInsert/
//       bitfieldExtract (standard quad order), 4 tiles of 8x8, loads at
//       2x the coordinates (steps 2,2);
//  CAS = 64 lanes, ARmp8x8 (lane ^ 1 is the vertical neighbour), the pixel
//       kept in a local whose components are stored again (raw front-end
//       output: the analysis follows the last dominating store);
//  INTERLEAVE = plain Morton order x0 y0 x1 y1 x2 y2 in a 16x16 workgroup;
//  SUBGROUP = a layout built from gl_SubgroupID and gl_SubgroupInvocationID
//       (quad-ordered at every subgroup size from 4 to 64).
// RUN: %waveopt %s -DSPD -o %t.spd.orig.spv
// RUN: %waveopt %s -DSPD --morton-remap -o %t.spd.spv --remarks-missed=morton 2> %t.spd.remarks
// RUN: cmp %t.spd.orig.spv %t.spd.spv
// RUN: %FileCheck %s --check-prefix=SPD < %t.spd.remarks
// RUN: %waveopt %s -DSPD -O --target=none -o %t.spd.O.spv --remarks-missed=morton 2> %t.spd.O.remarks
// RUN: %FileCheck %s --check-prefix=SPD < %t.spd.O.remarks
// RUN: %waveopt %s -DCAS -o %t.cas.orig.spv
// RUN: %waveopt %s -DCAS --morton-remap -o %t.cas.spv --remarks-missed=morton 2> %t.cas.remarks
// RUN: cmp %t.cas.orig.spv %t.cas.spv
// RUN: %FileCheck %s --check-prefix=CAS < %t.cas.remarks
// RUN: %waveopt %s -DCAS -O --target=none -o %t.cas.O.spv --remarks-missed=morton 2> %t.cas.O.remarks
// RUN: %FileCheck %s --check-prefix=CAS < %t.cas.O.remarks
// RUN: %waveopt %s -DINTERLEAVE -o %t.il.orig.spv
// RUN: %waveopt %s -DINTERLEAVE --morton-remap -o %t.il.spv --remarks-missed=morton 2> %t.il.remarks
// RUN: cmp %t.il.orig.spv %t.il.spv
// RUN: %FileCheck %s --check-prefix=INTERLEAVE < %t.il.remarks
// RUN: %waveopt %s -DSUBGROUP --target-env=vulkan1.1 -o %t.sg.orig.spv
// RUN: %waveopt %s -DSUBGROUP --target-env=vulkan1.1 --morton-remap -o %t.sg.spv --remarks-missed=morton 2> %t.sg.remarks
// RUN: cmp %t.sg.orig.spv %t.sg.spv
// RUN: %FileCheck %s --check-prefix=SUBGROUP < %t.sg.remarks
// SPD: missed AlreadyQuadOrdered in main: OpImageRead (storage image) already puts lanes 4k..4k+3 on one 2x2 block (steps 2,2): the kernel is quad-ordered already, and a second permutation would undo it
// CAS: missed AlreadyQuadOrdered in main: OpImageRead (storage image) already puts lanes 4k..4k+3 on one 2x2 block: the kernel is quad-ordered already
// INTERLEAVE: missed AlreadyQuadOrdered in main: OpImageRead (storage image) already puts lanes 4k..4k+3 on one 2x2 block
// SUBGROUP: missed AlreadyQuadOrdered in main: OpImageWrite (storage image) already puts lanes 4k..4k+3 on one 2x2 block at every subgroup size from 4 to 64
#version 450
#ifdef SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#endif
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
#if defined(SPD)
layout(local_size_x = 256) in;
// Lane -> 8x8: x = l0 | l3 l4, y = l1 l2 | l5 (bit fields).
uvec2 quadOrder(uint a) {
  return uvec2(bitfieldInsert(bitfieldExtract(a, 2, 3), a, 0, 1),
               bitfieldInsert(bitfieldExtract(a, 3, 3), bitfieldExtract(a, 1, 2), 0, 2));
}
void main() {
  uint i = gl_LocalInvocationIndex;
  uvec2 s = quadOrder(i % 64u);
  uint x = s.x + 8u * ((i >> 6) % 2u);
  uint y = s.y + 8u * (i >> 7);
  ivec2 t = ivec2(gl_WorkGroupID.xy * 32u + uvec2(x, y) * 2u);
  vec4 v = imageLoad(src, t) + imageLoad(src, t + ivec2(1, 1));
  imageStore(dst, ivec2(gl_WorkGroupID.xy * 16u + uvec2(x, y)), v * 0.5);
}
#elif defined(CAS)
layout(local_size_x = 64) in;
// Lane -> 8x8 with vertical pairs: x = l1 l2 l3, y = l0 | l4 l5.
uvec2 pairs(uint a) {
  return uvec2(bitfieldExtract(a, 1, 3), bitfieldInsert(bitfieldExtract(a, 3, 3), a, 0, 1));
}
void main() {
  uvec2 g = pairs(gl_LocalInvocationID.x) + gl_WorkGroupID.xy * 16u;
  imageStore(dst, ivec2(g), imageLoad(src, ivec2(g)));
  g.x += 8u;
  imageStore(dst, ivec2(g), imageLoad(src, ivec2(g)));
  g.y += 8u;
  imageStore(dst, ivec2(g), imageLoad(src, ivec2(g)));
}
#elif defined(INTERLEAVE)
layout(local_size_x = 16, local_size_y = 16) in;
uint spread(uint v) { return (v & 1u) | ((v & 2u) << 1) | ((v & 4u) << 2); }
void main() {
  uint l = gl_LocalInvocationIndex;
  uint x = (l & 1u) | ((l >> 1) & 2u) | ((l >> 2) & 4u) | ((l >> 3) & 8u);
  uint y = ((l >> 1) & 1u) | ((l >> 2) & 2u) | ((l >> 3) & 4u) | ((l >> 4) & 8u);
  ivec2 p = ivec2(gl_WorkGroupID.xy * 16u + uvec2(x, y));
  imageStore(dst, p, imageLoad(src, p) + float(spread(l & 7u)));
}
#else
layout(local_size_x = 64) in;
void main() {
  uint i = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
  uvec2 q = uvec2((i & 1u) | ((i >> 2) & 6u), ((i >> 1) & 3u) | ((i >> 3) & 4u));
  imageStore(dst, ivec2(gl_WorkGroupID.xy * 8u + q), vec4(1.0));
}
#endif
