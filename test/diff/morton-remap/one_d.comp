// A 256x1 workgroup that derives 2-D coordinates from its index (16x16
// pixels per workgroup, as FidelityFX SPD does): the index is permuted in
// 64-blocks, and the output is the same.
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton" 2>&1 | %FileCheck %s
// CHECK: applied Remapped in main: 256x1x1 workgroup
// CHECK: PASS: equal at sizes 4,8,16
#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D src;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D dst;
void main() {
  uint i = gl_LocalInvocationIndex;
  ivec2 p = ivec2(gl_WorkGroupID.x * 16u + (i % 16u), gl_WorkGroupID.y * 16u + i / 16u);
  float v = imageLoad(src, p).r + imageLoad(src, p ^ ivec2(1, 0)).r;
  imageStore(dst, p, vec4(v + float(gl_GlobalInvocationID.x)));
}
