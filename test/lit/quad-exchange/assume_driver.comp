// -O --target=amd: RADV forms compute waves of 32 or 64 consecutive
// invocations, so with a workgroup of a multiple of 64 invocations every
// subgroup is full at either wave size and the pass rewrites as under the
// full-subgroups promise: no run-time check, and the shared array, its
// store, the barrier and the reads are gone (RADV). An 8x4 workgroup (32
// invocations: one half-full wave64) keeps the checked form (RADV32), and
// so does -O for no particular driver (GENERIC).
// RUN: %waveopt %s -O --assume-driver=radv -o %t.radv.spv --remarks=quad-exchange 2> %t.radv.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.radv.spv
// RUN: %spirv-dis %t.radv.spv | %FileCheck %s --check-prefix=RADV
// RUN: %FileCheck %s --check-prefix=RADV-REMARK < %t.radv.remarks
// RUN: %waveopt %s -DROWS=4 -O --assume-driver=radv -o %t.radv32.spv --remarks=quad-exchange 2> %t.radv32.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.radv32.spv
// RUN: %spirv-dis %t.radv32.spv | %FileCheck %s --check-prefix=CHECKED
// RUN: %FileCheck %s --check-prefix=RADV32-REMARK < %t.radv32.remarks
// RUN: %waveopt %s -O --target=none -o %t.generic.spv
// RUN: %spirv-dis %t.generic.spv | %FileCheck %s --check-prefix=CHECKED
// RADV-NOT: OpCapability GroupNonUniformBallot
// RADV-NOT: OpControlBarrier
// RADV-NOT: OpVariable %_ptr_Workgroup
// RADV: OpGroupNonUniformQuadSwap %v2float %uint_3 {{%[0-9]+}} %uint_0
// RADV-NOT: OpControlBarrier
// RADV-REMARK: applied Exchanged in main: 2 read(s) of 'pair' (horizontal swap, own value) served by 1 quad operation(s); every subgroup full (--target=amd, 64 invocations, a multiple of 64): the store, the barrier and the reads are removed
// RADV32-REMARK: applied Exchanged in main: 2 read(s) of 'pair' {{.*}} the store, the barrier and the reads are skipped when every subgroup is full
// CHECKED: OpCapability GroupNonUniformBallot
// CHECKED: OpVariable %_ptr_Workgroup
// CHECKED: OpControlBarrier
// CHECKED: OpGroupNonUniformQuadSwap %v2float %uint_3 {{%[0-9]+}} %uint_0
#version 450
#ifndef ROWS
#define ROWS 8
#endif
layout(local_size_x = 8, local_size_y = ROWS) in;
layout(set = 0, binding = 0, rg32f) readonly uniform image2D src;
layout(set = 0, binding = 1, rg32f) writeonly uniform image2D dst;
shared vec2 pair[ROWS][8];

// A horizontal 2-tap gradient: each even column writes the difference of
// its value and its right neighbour's.
void main() {
  uvec2 l = gl_LocalInvocationID.xy;
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec2 v = imageLoad(src, p).xy * 2.0;
  pair[l.y][l.x] = v;
  barrier();
  if ((l.x & 1u) == 0u) {
    imageStore(dst, p / ivec2(2, 1), vec4(pair[l.y][l.x + 1u] - pair[l.y][l.x], 0.0, 0.0));
  }
}
