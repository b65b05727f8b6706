// One-dimensional workgroups that derive 2-D coordinates from their index:
// 256 lanes as 16x16 (i % 16, i / 16), 256 lanes as four 8x8 tiles (the
// layout FidelityFX SPD starts from), 96 lanes as 12x8 (non-power-of-two
// rows: 4x8 tiles, tile % 3). The index is replaced by the lane the Morton
// order of that grid puts there; the written value depends on
// gl_GlobalInvocationID.x, so a texel written by another invocation shows
// (Inputs/one_d_inconsistent.comp is the negative control).
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton" 2>&1 | %FileCheck %s --check-prefix=ROWS
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton -DTILES" --waverun="-DTILES" 2>&1 | %FileCheck %s --check-prefix=TILES
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton -DWG=96 -DW=12u" --waverun="-DWG=96 -DW=12u --dispatch=2,3,1" 2>&1 | %FileCheck %s --check-prefix=W12
// ROWS: applied Remapped in main: 256x1x1 workgroup (the WorkgroupSize built-in), the index is split into 16x16 row by row
// ROWS: PASS: equal at sizes 4,8,16,32,64
// TILES: the index is split into blocks of 64 lanes, 8x8 row by row
// TILES: PASS: equal at sizes 4,8,16,32,64
// W12: applied Remapped in main: 96x1x1 workgroup (the WorkgroupSize built-in), the index is split into 12x8 row by row (Morton order in 4x8 tiles)
// W12: PASS: equal at sizes 4,8,16,32,64
#version 450
#ifndef WG
#define WG 256
#endif
#ifndef W
#define W 16u
#endif
layout(local_size_x = WG) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D src;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D dst;
void main() {
  uint i = gl_LocalInvocationIndex;
#ifdef TILES
  uvec2 q = uvec2((i & 7u) + 8u * ((i >> 6u) & 1u), ((i & 63u) >> 3u) + 8u * (i >> 7u));
#else
  uvec2 q = uvec2(i % W, i / W);
#endif
  ivec2 p = ivec2(gl_WorkGroupID.xy * uvec2(W, WG / W) + q);
  float v = imageLoad(src, p).r + imageLoad(src, p ^ ivec2(1, 0)).r;
  imageStore(dst, p, vec4(v + float(gl_GlobalInvocationID.x)));
}
