// A shared-memory tile with a one-texel border: the invocations load the
// (WG+2)^2 tile cooperatively by linear index (border included), barrier,
// then each applies a 3x3 filter to its neighbourhood in the tile and
// writes one texel. Workgroup-relative indexing (tile origin from
// gl_WorkGroupID, tile slots from gl_LocalInvocationID/Index) must stay
// right after the relabelling. 8x8 and 16x16. By default the pass does not
// fire (the 3x3 filter reads shared memory, linear memory, 9 times per
// invocation: 2-D accesses weigh 9, linear ones 17); `always` relabels it,
// and the output must stay the same.
// RUN: %diff %s --waveopt-flags="--morton-remap=always --remarks=morton" 2>&1 | %FileCheck %s --check-prefix=WG8
// RUN: %diff %s --waveopt-flags="--morton-remap=always --remarks=morton -DWG=16" --waverun="-DWG=16 --dispatch=2,2,1" 2>&1 | %FileCheck %s --check-prefix=WG16
// WG8: applied Remapped in main: 8x8x1 workgroup
// WG8: PASS: equal at sizes 4,8,16
// WG16: applied Remapped in main: 16x16x1 workgroup
// WG16: PASS: equal at sizes 4,8,16
#version 450
#ifndef WG
#define WG 8
#endif
#define TILE (WG + 2)
layout(local_size_x = WG, local_size_y = WG) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D src;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D dst;
shared float tile[TILE][TILE];
void main() {
  ivec2 size = imageSize(src);
  ivec2 origin = ivec2(gl_WorkGroupID.xy) * WG - 1;
  for (uint i = gl_LocalInvocationIndex; i < uint(TILE * TILE); i += uint(WG * WG)) {
    ivec2 t = ivec2(i % uint(TILE), i / uint(TILE));
    tile[t.y][t.x] = imageLoad(src, clamp(origin + t, ivec2(0), size - 1)).r;
  }
  barrier();
  ivec2 l = ivec2(gl_LocalInvocationID.xy);
  float acc = 0.0;
  for (int dy = 0; dy < 3; ++dy) {
    for (int dx = 0; dx < 3; ++dx) {
      acc += tile[l.y + dy][l.x + dx] * float(1 + dx + 3 * dy);
    }
  }
  imageStore(dst, ivec2(gl_GlobalInvocationID.xy), vec4(acc / 45.0));
}
