// A 2x2 min/max reduction over a 1-D workgroup whose index the kernel
// itself lays out in quads (i & ~3 .. i | 3 are one 2x2 block): the first
// lane of each quad reads its three neighbours (three swaps), and every
// lane reads the quad's first element (a broadcast, BCAST). WG=12 at sizes
// 8 and 16 leaves subgroups partial: the run-time check takes the
// shared-memory path there, the quad path at size 4.
// RUN: %diff %s --waveopt-flags="--quad-exchange --remarks=quad-exchange" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="--quad-exchange --remarks=quad-exchange -DBCAST" --waverun="-DBCAST" 2>&1 | %FileCheck %s --check-prefix=BCAST
// RUN: %diff %s --waveopt-flags="--quad-exchange --remarks=quad-exchange -DWG=12" --waverun="-DWG=12 --dispatch=11,1,1" 2>&1 | %FileCheck %s --check-prefix=PARTIAL
// CHECK: applied Exchanged in main: 3 read(s) of 's' (horizontal swap, vertical swap, diagonal swap) served by 3 quad operation(s)
// CHECK: PASS: equal at sizes 4,8,16,32,64
// BCAST: applied Exchanged in main: 1 read(s) of 's' (broadcast of quad lane 0) served by 1 quad operation(s)
// BCAST: PASS: equal at sizes 4,8,16,32,64
// PARTIAL: applied Exchanged in main
// PARTIAL: PASS: equal at sizes 4,8,16,32,64
#version 450
#ifndef WG
#define WG 64
#endif
layout(local_size_x = WG) in;
layout(set = 0, binding = 0) readonly buffer In { uvec2 data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uvec2 result[]; };
shared uvec2 s[WG];

void main() {
  uint i = gl_LocalInvocationIndex;
  uint g = gl_WorkGroupID.x * WG + i;
  uvec2 v = data[g];
  v = uvec2(v.x % 1000u, v.x % 1000u);
  s[i] = v;
  barrier();
#ifdef BCAST
  uvec2 first = s[i & ~3u];
  result[g] = first + uvec2(i);
#else
  if ((i & 3u) == 0u) {
    uvec2 a = s[i + 1u];
    uvec2 b = s[i + 2u];
    uvec2 c = s[i + 3u];
    uvec2 lo = min(min(v, a), min(b, c));
    uvec2 hi = max(max(v, a), max(b, c));
    result[g / 4u] = uvec2(lo.x, hi.y);
  }
#endif
}
