// The image kernel of issue 17 whose only image read sits in a 3x3 loop
// next to one linear buffer read: the fetch weighs 9, the buffer read 1, so
// the pass fires by default (16x16 workgroups, a sampled texture read with
// texelFetch, a storage image written, a storage buffer of per-pixel gains
// read at y * W + x). Inputs/stencil_gain_inconsistent.comp relabels the
// image coordinates but not the buffer index: caught.
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton" 2>&1 | %FileCheck %s
// CHECK: applied Remapped in main: 16x16x1 workgroup {{.*}} 2-D accesses weigh 10 (1 storage image access, 1 sampled texture access weighing 9), linear accesses 1 (1 storage buffer access)
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2D dst;
layout(set = 0, binding = 2) readonly buffer Gain { float gain[]; };
const uint W = 32u;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec4 s = vec4(0.0);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += texelFetch(src, clamp(p + ivec2(dx, dy), ivec2(0), ivec2(31)), 0);
  s *= gain[gl_GlobalInvocationID.y * W + gl_GlobalInvocationID.x];
  imageStore(dst, p, s / 9.0 + vec4(gl_LocalInvocationID.xy, 0.0, 0.0));
}
