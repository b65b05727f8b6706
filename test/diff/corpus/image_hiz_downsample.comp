// Models: a single-pass hierarchical-Z (depth pyramid) builder as used for
// occlusion culling and SSR (the structure of AMD SPD, without its subgroup
// tricks): each 8x8 workgroup reduces a 16x16 block of the depth buffer to
// mips 1, 2 and 3, keeping the intermediate levels in shared memory with
// barriers in between. Reversed-Z, so the conservative (farthest) depth is
// the minimum.
// Exercises: morton-remap on an 8x8 kernel with shared memory indexed by the
// local id and barriers (legal: no subgroup operations; after the remap the
// 4x4 and 2x2 threads that build mips 2 and 3 are lanes 0-15 and 0-3), with
// a depth size (61x45) that is not a multiple of 16: clamped reads and
// bounds-checked writes at every level. batch-uniform-loads and
// prereduce-atomics have nothing to do (no loop over uniform data, no
// atomics).
// -DFLAT256: SPD's own shape, a 256x1 workgroup that derives its 16x16
// position from gl_LocalInvocationIndex (each workgroup reduces 32x32 depth
// texels). The pass would relabel the 16x16 split into 8x8 Morton tiles,
// but the 16-wide shared tile would then see more bank conflicts per
// 32-lane wave (an 8x4 block of a 16-wide row-major array) in its 10
// shared accesses, which outweigh the 4 image reads (weight 7): not
// profitable. `always` relabels it, and the output stays the same.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.* -DFLAT256" --waverun="-DFLAT256 --dispatch=2,2,1" 2>&1 | %FileCheck %s --check-prefix=FLAT
// RUN: %diff %s --waveopt-flags="--morton-remap=always --remarks=.* -DFLAT256" --waverun="-DFLAT256 --dispatch=2,2,1" 2>&1 | %FileCheck %s --check-prefix=FLAT-ALWAYS
// CHECK: morton-remap: applied Remapped in main: 8x8x1 workgroup
// CHECK-NOT: batch-uniform-loads
// CHECK: PASS: equal at sizes 4,8,16,32,64
// FLAT: morton-remap: missed NotProfitable in main: 2-D accesses weigh 7 (4 storage image accesses weighing 7), linear accesses 10 (10 shared memory accesses)
// FLAT-NOT: batch-uniform-loads
// FLAT: PASS: equal at sizes 4,8,16,32,64
// FLAT-ALWAYS: morton-remap: applied Remapped in main: 256x1x1 workgroup (the WorkgroupSize built-in), the index is split into 16x16 row by row (Morton order in 8x8 tiles)
// FLAT-ALWAYS: PASS: equal at sizes 4,8,16,32,64
// -DSPD_REMAP: the shader relabels its lanes itself (SPD's ARmpRed8x8 from
// gl_LocalInvocationIndex): the lanes already sit on 2x2 blocks
// (AlreadyQuadOrdered).
// -DSPD_QUAD: as SPD does next, mip 2 comes from quad swaps (lanes 4k..4k+3
// are a 2x2 block after the hand remap) instead of shared memory: a kernel
// that depends on which lanes form a quad (AlreadyQuadOrdered is reported
// first; UsesSubgroupOps would refuse it too; it must stay untouched).
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.* -DSPD_REMAP" --waverun="-DSPD_REMAP" 2>&1 | %FileCheck %s --check-prefix=SPD
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.* -DSPD_REMAP -DSPD_QUAD" --waverun="-DSPD_REMAP -DSPD_QUAD" 2>&1 | %FileCheck %s --check-prefix=QUAD
// SPD: morton-remap: missed AlreadyQuadOrdered in main
// SPD: PASS: equal at sizes 4,8,16,32,64
// QUAD: morton-remap: missed AlreadyQuadOrdered in main
// QUAD: PASS: equal at sizes 4,8,16,32,64
#version 450
#ifdef SPD_QUAD
#extension GL_KHR_shader_subgroup_quad : require
#endif
#ifdef FLAT256
#define TILE 16
layout(local_size_x = 256) in;
#else
#define TILE 8
layout(local_size_x = 8, local_size_y = 8) in;
#endif

layout(set = 0, binding = 0, r32f) uniform readonly image2D depth;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D hizMip1;
layout(set = 0, binding = 2, r32f) uniform writeonly image2D hizMip2;
layout(set = 0, binding = 3, r32f) uniform writeonly image2D hizMip3;

shared float tile[TILE][TILE];

float farthest(float a, float b, float c, float d) {
  return min(min(a, b), min(c, d));
}

float loadDepthClamped(ivec2 p, ivec2 size) {
  return imageLoad(depth, clamp(p, ivec2(0), size - 1)).r;
}

ivec2 mipSize(ivec2 base, int level) {
  return max(base >> level, ivec2(1));
}

void main() {
  ivec2 depthSize = imageSize(depth);
#if defined(FLAT256)
  uvec2 lid = uvec2(gl_LocalInvocationIndex % 16u, gl_LocalInvocationIndex / 16u);
#elif defined(SPD_REMAP)
  uint a = gl_LocalInvocationIndex;
  uvec2 lid = uvec2((a & 1u) | ((a >> 2) & 6u), ((a >> 1) & 3u) | ((a >> 3) & 4u));
#else
  uvec2 lid = gl_LocalInvocationID.xy;
#endif
  ivec2 group = ivec2(gl_WorkGroupID.xy);

  // Mip 1: every thread reduces a 2x2 quad of the depth buffer.
  ivec2 c1 = group * TILE + ivec2(lid);
  ivec2 s = c1 * 2;
  float d = farthest(loadDepthClamped(s, depthSize),
                     loadDepthClamped(s + ivec2(1, 0), depthSize),
                     loadDepthClamped(s + ivec2(0, 1), depthSize),
                     loadDepthClamped(s + ivec2(1, 1), depthSize));
  if (all(lessThan(c1, mipSize(depthSize, 1)))) {
    imageStore(hizMip1, c1, vec4(d));
  }
#ifdef SPD_QUAD
  // Mip 2 within each quad, the quad's first lane stores it; mip 3 from the
  // shared 4x4 tile of mip-2 values.
  d = farthest(d, subgroupQuadSwapHorizontal(d), subgroupQuadSwapVertical(d), subgroupQuadSwapDiagonal(d));
  if (((lid.x | lid.y) & 1u) == 0u) {
    ivec2 c2 = group * (TILE / 2) + ivec2(lid >> 1u);
    if (all(lessThan(c2, mipSize(depthSize, 2)))) {
      imageStore(hizMip2, c2, vec4(d));
    }
    tile[lid.y >> 1u][lid.x >> 1u] = d;
  }
  barrier();
#else
  tile[lid.y][lid.x] = d;
  barrier();

  // Mip 2: a quarter of the threads reduces the shared tile.
  bool mip2Thread = all(lessThan(lid, uvec2(TILE / 2)));
  if (mip2Thread) {
    uvec2 t = lid * 2u;
    d = farthest(tile[t.y][t.x], tile[t.y][t.x + 1u], tile[t.y + 1u][t.x], tile[t.y + 1u][t.x + 1u]);
    ivec2 c2 = group * (TILE / 2) + ivec2(lid);
    if (all(lessThan(c2, mipSize(depthSize, 2)))) {
      imageStore(hizMip2, c2, vec4(d));
    }
  }
  barrier();
  if (mip2Thread) {
    tile[lid.y][lid.x] = d;
  }
  barrier();
#endif

  // Mip 3: a sixteenth of the threads.
  if (all(lessThan(lid, uvec2(TILE / 4)))) {
    uvec2 t = lid * 2u;
    d = farthest(tile[t.y][t.x], tile[t.y][t.x + 1u], tile[t.y + 1u][t.x], tile[t.y + 1u][t.x + 1u]);
    ivec2 c3 = group * (TILE / 4) + ivec2(lid);
    if (all(lessThan(c3, mipSize(depthSize, 3)))) {
      imageStore(hizMip3, c3, vec4(d));
    }
  }
}
