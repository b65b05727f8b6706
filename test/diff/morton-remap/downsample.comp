// A 2x2 downsample to a half-size image (one output texel per invocation,
// four input texels each), 8x8 and 16x16 workgroups: fires by default.
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton" 2>&1 | %FileCheck %s --check-prefix=WG8
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton -DWG=16" --waverun="-DWG=16 --dispatch=2,2,1" 2>&1 | %FileCheck %s --check-prefix=WG16
// WG8: applied Remapped in main: 8x8x1 workgroup {{.*}}; 2-D accesses weigh 5 (5 storage image accesses)
// WG8: PASS: equal at sizes 4,8,16
// WG16: applied Remapped in main: 16x16x1 workgroup
// WG16: PASS: equal at sizes 4,8,16
#version 450
#ifndef WG
#define WG 8
#endif
layout(local_size_x = WG, local_size_y = WG) in;
layout(set = 0, binding = 0, rgba32f) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2D dst;
void main() {
  ivec2 o = ivec2(gl_GlobalInvocationID.xy);
  ivec2 i = o * 2;
  vec4 a = imageLoad(src, i);
  vec4 b = imageLoad(src, i + ivec2(1, 0));
  vec4 c = imageLoad(src, i + ivec2(0, 1));
  vec4 d = imageLoad(src, i + ivec2(1, 1));
  imageStore(dst, o, (a + b + c + d) * 0.25 + float(gl_LocalInvocationIndex));
}
