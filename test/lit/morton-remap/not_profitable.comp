// The default mode weighs accesses to tiled memory (2-D images) at
// invocation-dependent 2-D coordinates against accesses to linear memory
// whose address differs within a lane quad (row-major y*W+x): a buffer-only
// kernel, and one with as many linear buffer accesses as image accesses,
// are left alone (output == input). `always` fires whenever legal. A buffer
// indexed only by y (one element per row, the same for a quad's lanes) is
// not counted. A kernel without any image access is refused before the
// per-invocation evaluation (compile time), without weights.
// RUN: %waveopt %s -o %t.orig.spv
// RUN: %waveopt %s --morton-remap -o %t.spv --remarks-missed=morton 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %FileCheck %s --check-prefix=BUF < %t.remarks
// RUN: %waveopt %s --morton-remap=always -o %t.always.spv --remarks=morton 2> %t.always.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.always.spv
// RUN: %FileCheck %s --check-prefix=ALWAYS < %t.always.remarks
// RUN: %waveopt %s -DMIXED -o %t.mixed.orig.spv
// RUN: %waveopt %s -DMIXED --morton-remap -o %t.mixed.spv --remarks-missed=morton 2> %t.mixed.remarks
// RUN: cmp %t.mixed.orig.spv %t.mixed.spv
// RUN: %FileCheck %s --check-prefix=MIXED < %t.mixed.remarks
// RUN: %waveopt %s -DROWS --morton-remap -o %t.rows.spv --remarks=morton 2> %t.rows.remarks
// RUN: %FileCheck %s --check-prefix=ROWS < %t.rows.remarks
// BUF: missed NotProfitable in main: the kernel has no 2-D image access (buffers and shared memory only): nothing gains from 2x2 lane quads (--morton-remap=always overrides)
// ALWAYS: applied Remapped in main: 8x8x1 workgroup (the WorkgroupSize built-in), Morton order in 8x8 tiles; 1 identity built-in load(s) relabelled; 2-D accesses weigh 0 (none), linear accesses 2 (2 storage buffer accesses) (always)
// MIXED: missed NotProfitable in main: 2-D accesses weigh 2 (2 storage image accesses), linear accesses 2 (2 storage buffer accesses): linear accesses weigh at least as much
// ROWS: applied Remapped in main: 8x8x1 workgroup {{.*}} 2-D accesses weigh 2 (2 storage image accesses), linear accesses 0 (none)
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) buffer Data { float data[]; };
layout(set = 0, binding = 1) buffer Rows { float rows[]; };
layout(set = 0, binding = 2, r32f) uniform image2D img;
const uint W = 64u;
void main() {
  uvec2 g = gl_GlobalInvocationID.xy;
#if defined(MIXED)
  float v = imageLoad(img, ivec2(g)).r + data[g.y * W + g.x];
  imageStore(img, ivec2(g), vec4(v));
  data[g.y * W + g.x] = v;
#elif defined(ROWS)
  float v = imageLoad(img, ivec2(g)).r + rows[g.y];
  imageStore(img, ivec2(g), vec4(v));
#else
  data[g.y * W + g.x] = data[g.y * W + g.x] * 2.0;
#endif
}
