// Running the pass on its own output changes nothing: the lane layout
// analysis evaluates the rewritten coordinates for every invocation and
// finds lanes 4k..4k+3 on 2x2 blocks (AlreadyQuadOrdered), as it does for a
// hand-written Morton order (HAND). -O (which runs the pass first, then
// cleans up) is idempotent too, and so is `always` on a buffer-only kernel,
// whose row-major index the rewrite turns into a, a+1, a+W, a+W+1 quads
// (BUFFER).
// RUN: %waveopt %s --morton-remap -o %t.once.spv
// RUN: %waveopt %t.once.spv --morton-remap -o %t.twice.spv --remarks-missed=morton 2> %t.remarks
// RUN: cmp %t.once.spv %t.twice.spv
// RUN: %FileCheck %s < %t.remarks
// RUN: %waveopt %s -O --target=none -o %t.O1.spv
// RUN: %waveopt %t.O1.spv -O --target=none -o %t.O2.spv --remarks-missed=morton 2> %t.O.remarks
// RUN: cmp %t.O1.spv %t.O2.spv
// RUN: %FileCheck %s < %t.O.remarks
// RUN: %waveopt %s -DHAND -o %t.hand.orig.spv
// RUN: %waveopt %s -DHAND --morton-remap -o %t.hand.spv --remarks-missed=morton 2> %t.hand.remarks
// RUN: cmp %t.hand.orig.spv %t.hand.spv
// RUN: %FileCheck %s < %t.hand.remarks
// RUN: %waveopt %s -DBUFFER --morton-remap=always -o %t.buf1.spv
// RUN: %waveopt %t.buf1.spv --morton-remap=always -o %t.buf2.spv --remarks-missed=morton 2> %t.buf.remarks
// RUN: cmp %t.buf1.spv %t.buf2.spv
// RUN: %FileCheck %s --check-prefix=BUF < %t.buf.remarks
// CHECK: missed AlreadyQuadOrdered in main: OpImageRead (storage image) already puts lanes 4k..4k+3 on one 2x2 block: the kernel is quad-ordered already, and a second permutation would undo it
// CHECK-NOT: remark
// BUF: missed AlreadyQuadOrdered in main: OpLoad (storage buffer) already puts lanes 4k..4k+3 on one 2x2 block of its row-major index (a, a+1, a+W, a+W+1)
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
layout(set = 0, binding = 2) buffer Data { float data[]; };
void main() {
#if defined(BUFFER)
  uvec2 g = gl_GlobalInvocationID.xy;
  data[g.y * 64u + g.x] *= 2.0;
#else
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
#endif
}
