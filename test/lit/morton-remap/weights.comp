// The profitability model weighs each access by its loop nest: a texel
// fetch in a 3x3 loop counts 9 times (raw front-end loops over Function
// variables and -O's SSA loops alike), a loop whose trip count is not a
// constant counts 8 times, a call inside a loop passes its weight on.
//  STENCIL = the only image read sits in a 3x3 loop next to one linear
//       buffer read: 9 (+1 image write) against 1, remapped;
//  ROWS = a buffer read row-major in a 4-trip loop and one image write:
//       4 against 1, not remapped;
//  UNKNOWN = the same with a trip count from a push constant: 8 against 1;
//  CALLEE = the fetch is in a function called from a 3x3 loop;
//  SHARED = shared memory and a texel buffer are linear memory: in a 16x16
//       workgroup a 32-lane wave of the remap covers an 8x4 block of the
//       row-major 16-wide array, two dwords per bank (counted); in an 8x8
//       one (SHARED8) it covers the same 8x4 half as before (not counted).
// RUN: %waveopt %s -DSTENCIL --morton-remap -o %t.st.spv --remarks=morton 2> %t.st.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.st.spv
// RUN: %FileCheck %s --check-prefix=STENCIL < %t.st.remarks
// RUN: %waveopt %s -DSTENCIL -O --target=none -o %t.st.O.spv --remarks=morton 2> %t.st.O.remarks
// RUN: %FileCheck %s --check-prefix=STENCIL < %t.st.O.remarks
// RUN: %waveopt %s -DROWS -o %t.rows.orig.spv
// RUN: %waveopt %s -DROWS --morton-remap -o %t.rows.spv --remarks-missed=morton 2> %t.rows.remarks
// RUN: cmp %t.rows.orig.spv %t.rows.spv
// RUN: %FileCheck %s --check-prefix=ROWS < %t.rows.remarks
// RUN: %waveopt %s -DROWS -O --target=none -o %t.rows.O.spv --remarks-missed=morton 2> %t.rows.O.remarks
// RUN: %FileCheck %s --check-prefix=ROWS < %t.rows.O.remarks
// RUN: %waveopt %s -DUNKNOWN --morton-remap -o %t.unk.spv --remarks-missed=morton 2> %t.unk.remarks
// RUN: %FileCheck %s --check-prefix=UNKNOWN < %t.unk.remarks
// RUN: %waveopt %s -DCALLEE --morton-remap -o %t.callee.spv --remarks=morton 2> %t.callee.remarks
// RUN: %FileCheck %s --check-prefix=CALLEE < %t.callee.remarks
// RUN: %waveopt %s -DSHARED --morton-remap -o %t.shared.spv --remarks-missed=morton 2> %t.shared.remarks
// RUN: %FileCheck %s --check-prefix=SHARED < %t.shared.remarks
// RUN: %waveopt %s -DSHARED -DWG=8 --morton-remap -o %t.shared8.spv --remarks-missed=morton 2> %t.shared8.remarks
// RUN: %FileCheck %s --check-prefix=SHARED8 < %t.shared8.remarks
// STENCIL: applied Remapped in main: 16x16x1 workgroup (the WorkgroupSize built-in), Morton order in 8x8 tiles; 3 identity built-in load(s) relabelled; 2-D accesses weigh 10 (1 storage image access, 1 sampled texture access weighing 9), linear accesses 1 (1 storage buffer access): 2-D accesses outweigh linear ones
// ROWS: missed NotProfitable in main: 2-D accesses weigh 1 (1 storage image access), linear accesses 4 (1 storage buffer access weighing 4): linear accesses weigh at least as much
// UNKNOWN: missed NotProfitable in main: 2-D accesses weigh 1 (1 storage image access), linear accesses 8 (1 storage buffer access weighing 8)
// CALLEE: applied Remapped in main: 8x8x1 workgroup {{.*}} 2-D accesses weigh 10 (1 storage image access, 1 sampled texture access weighing 9), linear accesses 1 (1 storage buffer access)
// SHARED: missed NotProfitable in main: 2-D accesses weigh 1 (1 storage image access), linear accesses 3 (1 texel buffer access, 2 shared memory accesses)
// SHARED8: missed NotProfitable in main: 2-D accesses weigh 1 (1 storage image access), linear accesses 1 (1 texel buffer access)
#version 450
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(set = 0, binding = 2) readonly buffer Gain { float gain[]; };
layout(push_constant) uniform Params { uint taps; } params;
const uint W = 64u;
#if defined(STENCIL)
layout(local_size_x = 16, local_size_y = 16) in;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec4 s = vec4(0);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += texelFetch(src, p + ivec2(dx, dy), 0);
  s *= gain[gl_GlobalInvocationID.y * W + gl_GlobalInvocationID.x];
  imageStore(dst, p, s / 9.0);
}
#elif defined(ROWS) || defined(UNKNOWN)
layout(local_size_x = 8, local_size_y = 8) in;
void main() {
  uvec2 g = gl_GlobalInvocationID.xy;
  float s = 0.0;
#ifdef ROWS
  for (uint k = 0u; k < 4u; ++k)
#else
  for (uint k = 0u; k < params.taps; ++k)
#endif
    s += gain[(g.y * 4u + k) * W + g.x];
  imageStore(dst, ivec2(g), vec4(s));
}
#elif defined(CALLEE)
layout(local_size_x = 8, local_size_y = 8) in;
vec4 tap(ivec2 p) { return texelFetch(src, p, 0); }
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec4 s = vec4(0);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += tap(p + ivec2(dx, dy));
  imageStore(dst, p, s * gain[gl_GlobalInvocationID.y * W + gl_GlobalInvocationID.x]);
}
#else
#ifndef WG
#define WG 16
#endif
layout(local_size_x = WG, local_size_y = WG) in;
layout(set = 0, binding = 3, r32f) uniform readonly imageBuffer weights;
shared float tile[WG * WG];
void main() {
  uint l = gl_LocalInvocationIndex;
  tile[l] = imageLoad(weights, int(gl_GlobalInvocationID.y * W + gl_GlobalInvocationID.x)).r;
  barrier();
  imageStore(dst, ivec2(gl_GlobalInvocationID.xy), vec4(tile[l ^ 1u]));
}
#endif
