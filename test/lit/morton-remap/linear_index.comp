// One-dimensional kernels that use their invocation index linearly are never
// remapped (LinearIndex), whatever memory they touch: texel buffers (images
// of Dim Buffer are linear memory, not tiled images), storage buffers
// (particles), and a 2-D image written along one row. The relabelling would
// break their consecutive, coalesced accesses (seed 004) and buy nothing.
// Output == input, standalone and under -O.
// RUN: %waveopt %s -DTEXEL -o %t.texel.orig.spv
// RUN: %waveopt %s -DTEXEL --morton-remap -o %t.texel.spv --remarks-missed=morton 2> %t.texel.remarks
// RUN: cmp %t.texel.orig.spv %t.texel.spv
// RUN: %FileCheck %s --check-prefix=TEXEL < %t.texel.remarks
// RUN: %waveopt %s -DTEXEL -O --target=none -o %t.texel.O.spv --remarks-missed=morton 2> %t.texel.O.remarks
// RUN: %FileCheck %s --check-prefix=TEXEL < %t.texel.O.remarks
// RUN: %waveopt %s -DPARTICLES -o %t.part.orig.spv
// RUN: %waveopt %s -DPARTICLES --morton-remap -o %t.part.spv --remarks-missed=morton 2> %t.part.remarks
// RUN: cmp %t.part.orig.spv %t.part.spv
// RUN: %FileCheck %s --check-prefix=PARTICLES < %t.part.remarks
// RUN: %waveopt %s -DROW -o %t.row.orig.spv
// RUN: %waveopt %s -DROW --morton-remap=always -o %t.row.spv --remarks-missed=morton 2> %t.row.remarks
// RUN: cmp %t.row.orig.spv %t.row.spv
// RUN: %FileCheck %s --check-prefix=ROWIMG < %t.row.remarks
// TEXEL: missed LinearIndex in main: the 256x1x1 workgroup (the WorkgroupSize built-in): no 2-D image access splits its invocation index into rows or columns of lanes (x = i % W, y = i / W, their bit-field forms, or blocks of them; evaluated for every invocation), so there are no pixel rows to put on 2x2 lane blocks
// PARTICLES: missed LinearIndex in main: the 64x1x1 workgroup
// ROWIMG: missed LinearIndex in main: the 256x1x1 workgroup
#version 450
#if defined(TEXEL)
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, r32f) uniform readonly imageBuffer src;
layout(set = 0, binding = 1, r32f) uniform writeonly imageBuffer dst;
void main() {
  int i = int(gl_GlobalInvocationID.x);
  imageStore(dst, i, imageLoad(src, i) * 2.0 + imageLoad(src, i + 1));
}
#elif defined(PARTICLES)
layout(local_size_x = 64) in;
struct Particle { vec4 pos; vec4 vel; };
layout(set = 0, binding = 0) buffer Particles { Particle p[]; };
layout(push_constant) uniform Step { float dt; uint count; } step;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= step.count) return;
  p[i].pos += p[i].vel * step.dt;
  p[i].vel.y -= 9.81 * step.dt;
}
#else
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, r32f) uniform image2D img;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.x, gl_WorkGroupID.y);
  imageStore(img, p, imageLoad(img, p) * 0.5);
}
#endif
