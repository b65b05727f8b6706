// A 3x3 box blur from one storage image to another; 8x8 and 16x16
// workgroups, 24x8 (three tiles in a row), 32x8 (four), and 8x8 given by
// specialization constants (remapped at the size workgroup-size= promises).
// Every image access is at coordinates derived from gl_GlobalInvocationID,
// so the pass fires by default; the relabelled program writes the same
// image. The stored value also depends on the local and workgroup ids, so a
// texel written by the wrong invocation shows (Inputs/blur_inconsistent.comp
// is the negative control).
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton" 2>&1 | %FileCheck %s --check-prefix=WG8
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton -DWG=16" --waverun="-DWG=16 --dispatch=3,2,1" 2>&1 | %FileCheck %s --check-prefix=WG16
// RUN: %diff %s --waveopt-flags="--morton-remap=workgroup-size=8x8 --remarks=morton -DSPEC" --waverun="-DSPEC" 2>&1 | %FileCheck %s --check-prefix=SPEC
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton -DWGX=24" --waverun="-DWGX=24 --dispatch=2,4,1" 2>&1 | %FileCheck %s --check-prefix=WG24
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton -DWGX=32" --waverun="-DWGX=32 --dispatch=1,4,1" 2>&1 | %FileCheck %s --check-prefix=WG32
// WG8: applied Remapped in main: 8x8x1 workgroup
// WG8: PASS: equal at sizes 4,8,16
// WG16: applied Remapped in main: 16x16x1 workgroup
// WG16: PASS: equal at sizes 4,8,16
// SPEC: applied Remapped in main: 8x8x1 workgroup (promised by workgroup-size= for specialization constants)
// SPEC: PASS: equal at sizes 4,8,16
// WG24: applied Remapped in main: 24x8x1 workgroup
// WG24: PASS: equal at sizes 4,8,16
// WG32: applied Remapped in main: 32x8x1 workgroup
// WG32: PASS: equal at sizes 4,8,16
#version 450
#ifndef WG
#define WG 8
#endif
#ifndef WGX
#define WGX WG
#endif
#ifdef SPEC
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_x = 8, local_size_y = 8) in;
#else
layout(local_size_x = WGX, local_size_y = WG) in;
#endif
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(src);
  vec4 sum = vec4(0.0);
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      sum += imageLoad(src, clamp(p + ivec2(dx, dy), ivec2(0), size - 1));
    }
  }
  vec4 tag = vec4(gl_LocalInvocationID.xy, gl_WorkGroupID.xy) / 255.0;
  imageStore(dst, p, sum / 9.0 + tag);
}
