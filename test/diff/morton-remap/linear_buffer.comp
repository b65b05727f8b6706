// A row-major buffer kernel (a 3-tap horizontal filter over y*W+x):
// linear buffer indexing coalesces best in linear order (seed 004), so the
// pass does not fire by default; with =always it fires and the output
// stays equal. 8x8 and 16x16.
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton --remarks-missed=morton" 2>&1 | %FileCheck %s --check-prefix=DEFAULT
// RUN: %diff %s --waveopt-flags="--morton-remap=always --remarks=morton" 2>&1 | %FileCheck %s --check-prefix=ALWAYS
// RUN: %diff %s --waveopt-flags="--morton-remap=always --remarks=morton -DWG=16" --waverun="-DWG=16 --dispatch=2,2,1" 2>&1 | %FileCheck %s --check-prefix=ALWAYS16
// DEFAULT: missed NotProfitable in main: the kernel has no 2-D image access (buffers and shared memory only): nothing gains from 2x2 lane quads
// DEFAULT: PASS: equal at sizes 4,8,16
// ALWAYS: applied Remapped in main: 8x8x1 workgroup {{.*}} (always)
// ALWAYS: PASS: equal at sizes 4,8,16
// ALWAYS16: applied Remapped in main: 16x16x1 workgroup {{.*}} (always)
// ALWAYS16: PASS: equal at sizes 4,8,16
#version 450
#ifndef WG
#define WG 8
#endif
layout(local_size_x = WG, local_size_y = WG) in;
layout(set = 0, binding = 0) readonly buffer In { float data_in[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float data_out[]; };
const uint W = 32u;
void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  uint x0 = p.x == 0u ? 0u : p.x - 1u;
  uint x2 = min(p.x + 1u, W - 1u);
  float v = data_in[p.y * W + x0] + 2.0 * data_in[p.y * W + p.x] + data_in[p.y * W + x2];
  data_out[p.y * W + p.x] = v * 0.25 + float(gl_LocalInvocationIndex);
}
