// Running the pass on its own output changes nothing: every remaining load
// of LocalInvocationIndex feeds the Morton bit pattern ((l >> 2) & 6,
// (l >> 3) & 4), which the pass recognises (as it does a hand-written
// ARmpRed8x8). -O (which runs the pass first, then cleans up) is idempotent
// too.
// RUN: %waveopt %s --morton-remap -o %t.once.spv
// RUN: %waveopt %t.once.spv --morton-remap -o %t.twice.spv --remarks-missed=morton 2> %t.remarks
// RUN: cmp %t.once.spv %t.twice.spv
// RUN: %FileCheck %s < %t.remarks
// RUN: %waveopt %s -O -o %t.O1.spv
// RUN: %waveopt %t.O1.spv -O -o %t.O2.spv --remarks-missed=morton 2> %t.O.remarks
// RUN: cmp %t.O1.spv %t.O2.spv
// RUN: %FileCheck %s < %t.O.remarks
// RUN: %waveopt %s -DHAND -o %t.hand.orig.spv
// RUN: %waveopt %s -DHAND --morton-remap -o %t.hand.spv --remarks-missed=morton 2> %t.hand.remarks
// RUN: cmp %t.hand.orig.spv %t.hand.spv
// RUN: %FileCheck %s < %t.hand.remarks
// CHECK: missed AlreadyRemapped in main: LocalInvocationIndex already feeds the Morton bit pattern
// CHECK-NOT: remark
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
#ifdef HAND
  uint l = gl_LocalInvocationIndex;
  uvec2 q = uvec2((l & 1u) | ((l >> 2) & 6u), ((l >> 1) & 3u) | ((l >> 3) & 4u));
  q += 8u * uvec2((l >> 6) & 1u, l >> 7);
  ivec2 p = ivec2(gl_WorkGroupID.xy * 16u + q);
#else
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
#endif
  vec4 c = imageLoad(src, p) + imageLoad(src, p + ivec2(1, 0));
  imageStore(dst, p, c * 0.5 + float(gl_LocalInvocationIndex) / 255.0);
}
