// The benchmark's downsample kernel: after morton-remap (here run by -O, and
// by hand as --morton-remap --quad-exchange) the four reads of the 2x2 block
// are the lane's own value and its quad's horizontal, vertical and diagonal
// neighbours. The entry block gets the run-time check (full subgroups of a
// multiple of 4 lanes, checked with the built-ins and a ballot) and the
// relabelled index; the store and the barrier move into a branch the quad
// path skips, and each read becomes a phi of the quad value and the load.
// Running the pass on its own output changes nothing (IDEMPOTENT); reading
// two columns over is outside the quad (ACROSS); without the remap the
// kernel is not quad-ordered (NOREMAP).
// RUN: %waveopt %s -O --target=none -o %t.spv --remarks=quad-exchange 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %waveopt %s --morton-remap --quad-exchange -o %t.2.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.2.spv
// RUN: %spirv-dis %t.2.spv | %FileCheck %s
// RUN: %waveopt %t.2.spv --quad-exchange -o %t.3.spv --remarks-missed=quad-exchange 2> %t.3.remarks
// RUN: cmp %t.2.spv %t.3.spv
// RUN: %FileCheck %s --check-prefix=IDEMPOTENT < %t.3.remarks
// RUN: %waveopt %s -DACROSS --morton-remap --quad-exchange -o %t.4.spv --remarks-missed=quad-exchange 2> %t.4.remarks
// RUN: %FileCheck %s --check-prefix=ACROSS < %t.4.remarks
// RUN: %waveopt %s -o %t.5.orig.spv
// RUN: %waveopt %s --quad-exchange -o %t.5.spv --remarks-missed=quad-exchange 2> %t.5.remarks
// RUN: cmp %t.5.orig.spv %t.5.spv
// RUN: %FileCheck %s --check-prefix=NOREMAP < %t.5.remarks
// REMARK: downsample.comp:{{[0-9]+}}: remark: quad-exchange: applied Exchanged in main: 4 read(s) of 'tile' (own value, horizontal swap, vertical swap, diagonal swap) served by 3 quad operation(s)
// IDEMPOTENT: missed UsesSubgroupOps in main: the module declares the capability GroupNonUniform
// ACROSS: missed ReadAcrossQuads in main: invocation 0 reads the element 'tile' that invocation 8 writes, outside its quad 0..3
// NOREMAP: missed NotQuadOrdered in main: invocation 0 reads the element 'tile' that invocation 8 writes
// CHECK-DAG: OpCapability GroupNonUniform
// CHECK-DAG: OpCapability GroupNonUniformBallot
// CHECK-DAG: OpCapability GroupNonUniformQuad
// CHECK-DAG: OpDecorate %gl_SubgroupSize BuiltIn SubgroupSize
// CHECK-DAG: OpDecorate %gl_NumSubgroups BuiltIn NumSubgroups
// CHECK-DAG: OpDecorate %gl_SubgroupID BuiltIn SubgroupId
// CHECK-DAG: OpDecorate %gl_SubgroupInvocationID BuiltIn SubgroupLocalInvocationId
// CHECK-LABEL: %main = OpFunction
// CHECK: [[SS:%[0-9]+]] = OpLoad %uint %gl_SubgroupSize
// CHECK: [[SID:%[0-9]+]] = OpLoad %uint %gl_SubgroupID
// CHECK: [[LANE:%[0-9]+]] = OpLoad %uint %gl_SubgroupInvocationID
// CHECK: [[BASE:%[0-9]+]] = OpIMul %uint [[SID]] [[SS]]
// CHECK: [[REL:%[0-9]+]] = OpIAdd %uint [[BASE]] [[LANE]]
// CHECK: [[NS:%[0-9]+]] = OpLoad %uint %gl_NumSubgroups
// CHECK: [[LI:%[0-9]+]] = OpLoad %uint %gl_LocalInvocationIndex
// CHECK: [[TOT:%[0-9]+]] = OpIMul %uint [[NS]] [[SS]]
// CHECK: [[FULL:%[0-9]+]] = OpIEqual %bool [[TOT]] %uint_64
// CHECK: [[LOW:%[0-9]+]] = OpBitwiseAnd %uint [[SS]] %uint_3
// CHECK: [[AL:%[0-9]+]] = OpIEqual %bool [[LOW]] %uint_0
// CHECK: [[BAL:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 %true
// CHECK: [[CNT:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 Reduce [[BAL]]
// CHECK: [[FILLED:%[0-9]+]] = OpIEqual %bool [[CNT]] [[SS]]
// CHECK: [[BOTH:%[0-9]+]] = OpLogicalAnd %bool [[FULL]] [[AL]]
// CHECK: [[FAST:%[0-9]+]] = OpLogicalAnd %bool [[BOTH]] [[FILLED]]
// CHECK: [[IDX:%[0-9]+]] = OpSelect %uint [[FAST]] [[REL]] [[LI]]
// CHECK-NOT: OpLoad %uint %gl_LocalInvocationIndex
// CHECK: OpSelectionMerge [[REST:%[0-9]+]] None
// CHECK-NEXT: OpBranchConditional [[FAST]] [[REST]] [[SLOW:%[0-9]+]]
// CHECK: [[SLOW]] = OpLabel
// CHECK: OpStore {{%[0-9]+}} [[M1:%[0-9]+]]
// CHECK: OpControlBarrier %uint_2 %uint_2 %uint_264
// CHECK: OpBranch [[REST]]
// CHECK: [[REST]] = OpLabel
// CHECK-NEXT: [[H:%[0-9]+]] = OpGroupNonUniformQuadSwap %v4float %uint_3 [[M1]] %uint_0
// CHECK-NEXT: [[V:%[0-9]+]] = OpGroupNonUniformQuadSwap %v4float %uint_3 [[M1]] %uint_1
// CHECK-NEXT: [[D:%[0-9]+]] = OpGroupNonUniformQuadSwap %v4float %uint_3 [[M1]] %uint_2
// CHECK: OpBranchConditional [[FAST]] [[J0:%[0-9]+]] [[L0:%[0-9]+]]
// CHECK: [[L0]] = OpLabel
// CHECK: [[R0:%[0-9]+]] = OpLoad %v4float
// CHECK: [[J0]] = OpLabel
// CHECK-NEXT: OpPhi %v4float [[M1]] {{%[0-9]+}} [[R0]] [[L0]]
// CHECK: OpBranchConditional [[FAST]] [[J1:%[0-9]+]] [[L1:%[0-9]+]]
// CHECK: [[J1]] = OpLabel
// CHECK-NEXT: OpPhi %v4float [[H]]
// CHECK: OpBranchConditional [[FAST]] [[J2:%[0-9]+]] [[L2:%[0-9]+]]
// CHECK: [[J2]] = OpLabel
// CHECK-NEXT: OpPhi %v4float [[V]]
// CHECK: OpBranchConditional [[FAST]] [[J3:%[0-9]+]] [[L3:%[0-9]+]]
// CHECK: [[J3]] = OpLabel
// CHECK-NEXT: OpPhi %v4float [[D]]
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D src;
layout(set = 0, binding = 1, rgba8) writeonly uniform image2D mip1;
layout(set = 0, binding = 2, rgba8) writeonly uniform image2D mip2;
shared vec4 tile[8][8];

void main() {
  uvec2 l = gl_LocalInvocationID.xy;
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 s = 2 * p;
  vec4 m1 = (((imageLoad(src, s) + imageLoad(src, s + ivec2(1, 0))) +
              imageLoad(src, s + ivec2(0, 1))) + imageLoad(src, s + ivec2(1, 1))) * 0.25;
  imageStore(mip1, p, m1);
  tile[l.y][l.x] = m1;
  barrier();
  if (((l.x | l.y) & 1u) == 0u) {
#ifdef ACROSS
    vec4 m2 = (tile[l.y][l.x] + tile[l.y][(l.x + 2u) & 7u]) * 0.5;
#else
    vec4 m2 = (((tile[l.y][l.x] + tile[l.y][l.x + 1u]) + tile[l.y + 1u][l.x]) +
               tile[l.y + 1u][l.x + 1u]) * 0.25;
#endif
    imageStore(mip2, p / 2, m2);
  }
}
