// The tiled-lighting loop: a {pos, color, params} light per iteration. An
// outer loop over batches loads this lane's light of the batch and computes
// the batch's trip count once; the original loop, now inner, takes its light
// from lane first + k at the top of each iteration (three members shuffled)
// and has one exit: its own test, now of k against the trip count.
// RUN: %waveopt %s --ssa-rewrite --batch-uniform-loads -o %t.spv --remarks=batch 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: light_struct.comp:{{[0-9]+}}: remark: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (3 shuffled part(s)) now load one element per lane per batch; each iteration takes its element from the owning lane (12 words per lane) [loop at line 104]
// CHECK-DAG: OpCapability GroupNonUniformBallot
// CHECK-DAG: OpCapability GroupNonUniformShuffle
// Preheader: the lanes in the loop, each one's rank, the first one, and the
// batch: the run of consecutive lanes from the first (lane - first == rank).
// CHECK: [[BALLOT:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 %true
// CHECK: [[RANK:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 ExclusiveScan [[BALLOT]]
// CHECK: [[LANE:%[0-9]+]] = OpLoad %uint %gl_SubgroupInvocationID
// CHECK: [[FIRST:%[0-9]+]] = OpGroupNonUniformBroadcastFirst %uint %uint_3 [[LANE]]
// CHECK: [[OFFSET:%[0-9]+]] = OpISub %uint [[LANE]] [[FIRST]]
// CHECK: [[INSIDE:%[0-9]+]] = OpIEqual %bool [[OFFSET]] [[RANK]]
// CHECK: [[RUNMASK:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 [[INSIDE]]
// CHECK: [[BATCH:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 Reduce [[RUNMASK]]
// The outer loop over batches: where the batch starts; this lane's
// iteration and the exit test there; the slots that run: up to the first
// lane whose iteration leaves (a uniform count each lane compares its rank
// with).
// CHECK: [[OUTER:%[0-9]+]] = OpLabel
// CHECK: [[START:%[0-9]+]] = OpPhi %uint %uint_0
// CHECK: OpLoopMerge [[MERGE:%[0-9]+]] [[OUTERLATCH:%[0-9]+]] None
// CHECK: [[ITER:%[0-9]+]] = OpIAdd %uint [[START]] [[RANK]]
// CHECK: [[KEEP:%[0-9]+]] = OpULessThan %bool [[ITER]]
// CHECK: [[STOP:%[0-9]+]] = OpLogicalNot %bool [[KEEP]]
// CHECK: [[STOPS:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 [[STOP]]
// CHECK: [[NSTOPS:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 Reduce [[STOPS]]
// CHECK: [[ANY:%[0-9]+]] = OpINotEqual %bool [[NSTOPS]] %uint_0
// The lowest lane that stops, from FindILsb of the ballot's words (HLSL has
// no BallotFindLSB): word 0's bit when it has one, else the next word's + 32...
// CHECK: [[LSBS:%[0-9]+]] = OpExtInst %v4uint {{%[0-9]+}} FindILsb [[STOPS]]
// CHECK: [[X:%[0-9]+]] = OpCompositeExtract %uint [[LSBS]] 0
// CHECK: [[XSET:%[0-9]+]] = OpINotEqual %bool [[X]] %uint_4294967295
// CHECK: [[FIRSTSTOP:%[0-9]+]] = OpSelect %uint [[XSET]] [[X]] {{%[0-9]+}}
// CHECK: [[OFF:%[0-9]+]] = OpISub %uint [[FIRSTSTOP]] [[FIRST]]
// The loop ends in this batch when the slot that leaves is one of it; the
// inner loop then runs the slots before it, else the whole batch.
// CHECK: [[IN:%[0-9]+]] = OpULessThan %bool [[OFF]] [[BATCH]]
// CHECK: [[ENDED:%[0-9]+]] = OpLogicalAnd %bool [[ANY]] [[IN]]
// CHECK: [[TRIPS:%[0-9]+]] = OpSelect %uint [[ENDED]] [[OFF]] [[BATCH]]
// The lanes that load: those whose slot runs (up to and with the one that
// leaves), and whose own iteration goes on.
// CHECK: [[TOSTOP:%[0-9]+]] = OpIAdd %uint [[OFF]] %uint_1
// CHECK: [[LESS:%[0-9]+]] = OpULessThan %bool [[TOSTOP]] [[BATCH]]
// CHECK: [[FEWER:%[0-9]+]] = OpLogicalAnd %bool [[ANY]] [[LESS]]
// CHECK: [[SLOTS:%[0-9]+]] = OpSelect %uint [[FEWER]] [[TOSTOP]] [[BATCH]]
// CHECK: [[MINE:%[0-9]+]] = OpULessThan %bool [[RANK]] [[SLOTS]]
// CHECK: [[GUARD:%[0-9]+]] = OpLogicalAnd %bool [[MINE]] [[KEEP]]
// CHECK: OpBranchConditional [[GUARD]]
// CHECK: OpLoad %Light
// CHECK-COUNT-3: OpCompositeExtract %v4float
// CHECK: [[FILLED:%[0-9]+]] = OpLabel
// CHECK-COUNT-3: OpPhi %v4float
// The original loop, inner: k counts the batch's slots; slot k's light
// comes from lane first + k.
// CHECK: [[K:%[0-9]+]] = OpPhi %uint %uint_0 [[FILLED]] [[KNEXT:%[0-9]+]] [[LATCH:%[0-9]+]]
// The loop's top runs once more when a batch ends (k == batch, its values
// unused): the slot is clamped into the batch, so its shuffles read an
// active lane.
// CHECK: [[LAST:%[0-9]+]] = OpISub %uint [[BATCH]] %uint_1
// CHECK: [[SLOT:%[0-9]+]] = OpExtInst %uint {{%[0-9]+}} UMin [[K]] [[LAST]]
// CHECK: [[OWNER:%[0-9]+]] = OpIAdd %uint [[FIRST]] [[SLOT]]
// CHECK: [[POS:%[0-9]+]] = OpGroupNonUniformShuffle %v4float %uint_3 {{%[0-9]+}} [[OWNER]]
// CHECK: [[COLOR:%[0-9]+]] = OpGroupNonUniformShuffle %v4float %uint_3 {{%[0-9]+}} [[OWNER]]
// CHECK: [[PARAMS:%[0-9]+]] = OpGroupNonUniformShuffle %v4float %uint_3 {{%[0-9]+}} [[OWNER]]
// The loop read the light member by member: each member comes straight
// from its shuffle, no struct is rebuilt (HLSL could not assign one).
// CHECK-NOT: OpCompositeConstruct %Light
// CHECK: [[KNEXT]] = OpIAdd %uint [[K]] %uint_1
// CHECK: OpLoopMerge [[INNERMERGE:%[0-9]+]] [[LATCH]] None
// The loop's exit test (the block after the header) is now k against the
// trip count: the inner loop's one exit.
// CHECK: [[GO:%[0-9]+]] = OpULessThan %bool [[K]] [[TRIPS]]
// CHECK: OpBranchConditional [[GO]] {{%[0-9]+}} [[INNERMERGE]]
// CHECK: OpStore {{%[0-9]+}} [[POS]]
// CHECK: OpStore {{%[0-9]+}} [[COLOR]]
// CHECK: OpStore {{%[0-9]+}} [[PARAMS]]
// The back edge goes back unconditionally; the inner merge has no phis (the
// values leave through the header's); the outer latch leaves for good when
// the loop ended in this batch.
// CHECK: [[LATCH]] = OpLabel
// CHECK-NOT: OpBranchConditional
// CHECK: [[INNERMERGE]] = OpLabel
// CHECK-NEXT: OpBranch [[OUTERLATCH]]
// CHECK: [[OUTERLATCH]] = OpLabel
// CHECK-NEXT: OpBranchConditional [[ENDED]] [[MERGE]] [[OUTER]]
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
struct Light { vec4 pos; vec4 color; vec4 params; };
layout(set = 0, binding = 0) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 1) readonly buffer Tiles { uvec2 tiles[]; };
layout(set = 0, binding = 2) buffer Out { vec4 result[]; };
void main() {
  uvec2 sc = tiles[gl_WorkGroupID.x];
  vec3 p = vec3(gl_LocalInvocationID.xy, 0.0);
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < sc.y; ++i) {
    Light L = lights[sc.x + i];
    float d = distance(p, L.pos.xyz);
    if (d > L.params.x) continue;
    acc += L.color * (1.0 - d / L.params.x);
  }
  result[gl_GlobalInvocationID.x] = acc;
}
