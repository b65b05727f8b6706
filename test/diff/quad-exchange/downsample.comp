// The benchmark's `downsample` kernel (test/bench/kernels/downsample/
// naive.comp, rgba32f here): mip 1 per invocation, mip 2 through a
// shared-memory 2x2 round trip. -O runs morton-remap, then quad-exchange
// turns the round trip into quad swaps behind the run-time check; the
// output must not change at any subgroup size. Without the remap the
// kernel is not quad-ordered and the pass refuses (NOREMAP).
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=quad-exchange" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="--quad-exchange --remarks-missed=quad-exchange" 2>&1 | %FileCheck %s --check-prefix=NOREMAP
// CHECK: applied Exchanged in main: 4 read(s) of 'tile' (own value, horizontal swap, vertical swap, diagonal swap) served by 3 quad operation(s)
// CHECK: PASS: equal at sizes 4,8,16,32,64
// The full-subgroups promise holds for 8x8 at lavapipe 4 and 8 and the
// simulator's 32 and 64 (not at lavapipe 16: rows of 8 in 16-lane
// subgroups); no store, barrier or array is left.
// RUN: %diff %s --waveopt-flags="--morton-remap --quad-exchange=full-subgroups --eliminate-dead-code-aggressive" --widths=4,8 2>&1 | %FileCheck %s --check-prefix=PROMISE
// PROMISE: PASS: equal at sizes 4,8,32,64
// -O --assume-driver=radv takes the promise itself for 8x8 (64 invocations:
// full waves at RADV's 32 and 64); the same sizes hold it here.
// RUN: %diff %s --waveopt-flags="-O --assume-driver=radv --remarks=quad-exchange" --widths=4,8 2>&1 | %FileCheck %s --check-prefix=RADV
// RADV: every subgroup full (--target=amd, 64 invocations, a multiple of 64)
// RADV: PASS: equal at sizes 4,8,32,64
// NOREMAP: missed NotQuadOrdered in main
// NOREMAP: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba32f) readonly uniform image2D src;
layout(set = 0, binding = 1, rgba32f) writeonly uniform image2D mip1;
layout(set = 0, binding = 2, rgba32f) writeonly uniform image2D mip2;
shared vec4 tile[8][8];

void main() {
  uvec2 l = gl_LocalInvocationID.xy;
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 s = 2 * p;
  vec4 m1 = (((imageLoad(src, s) + imageLoad(src, s + ivec2(1, 0))) +
              imageLoad(src, s + ivec2(0, 1))) + imageLoad(src, s + ivec2(1, 1))) * 0.25;
  imageStore(mip1, p, m1);
  tile[l.y][l.x] = m1;
  barrier();
  if (((l.x | l.y) & 1u) == 0u) {
    vec4 m2 = (((tile[l.y][l.x] + tile[l.y][l.x + 1u]) + tile[l.y + 1u][l.x]) +
               tile[l.y + 1u][l.x + 1u]) * 0.25;
    imageStore(mip2, p / 2, m2);
  }
}
