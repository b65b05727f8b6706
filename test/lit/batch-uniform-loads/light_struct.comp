// The tiled-lighting loop: a {pos, color, params} light per iteration, one
// batch refill at the top of the iteration, three shuffled members.
// RUN: %waveopt %s --ssa-rewrite --batch-uniform-loads -o %t.spv --remarks=batch 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: light_struct.comp:[[@LINE+36]]:{{.*}} applied BatchedLoads in main: 1 uniform load(s) per iteration (3 shuffled part(s)) now load one element per lane per batch
// CHECK-DAG: OpCapability GroupNonUniformBallot
// CHECK-DAG: OpCapability GroupNonUniformShuffle
// Preheader: the batch size and each lane's rank.
// CHECK: [[BALLOT:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 %true
// CHECK: [[BATCH:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 Reduce [[BALLOT]]
// CHECK: [[RANK:%[0-9]+]] = OpGroupNonUniformBallotBitCount %uint %uint_3 ExclusiveScan [[BALLOT]]
// Header: the slot in the batch and the cached members.
// CHECK: [[K:%[0-9]+]] = OpPhi %uint %uint_0
// CHECK: OpLoopMerge
// Body top: refill when the slot wraps to 0.
// CHECK: [[REFILL:%[0-9]+]] = OpIEqual %bool [[K]] %uint_0
// CHECK: OpSelectionMerge [[TAKE:%[0-9]+]] None
// CHECK: OpBranchConditional [[REFILL]]
// CHECK: [[ITER:%[0-9]+]] = OpIAdd %uint {{%[0-9a-z_]+}} {{%[0-9]+}}
// CHECK: OpULessThan %bool [[ITER]]
// CHECK: OpUGreaterThanEqual %bool [[ITER]]
// CHECK: OpLoad %Light
// CHECK-COUNT-3: OpCompositeExtract %v4float
// CHECK: [[TAKE]] = OpLabel
// CHECK: [[MINE:%[0-9]+]] = OpIEqual %bool [[RANK]] [[K]]
// CHECK: [[OWNERS:%[0-9]+]] = OpGroupNonUniformBallot %v4uint %uint_3 [[MINE]]
// CHECK: [[OWNER:%[0-9]+]] = OpGroupNonUniformBallotFindLSB %uint %uint_3 [[OWNERS]]
// CHECK-COUNT-3: OpGroupNonUniformShuffle %v4float %uint_3 {{%[0-9]+}} [[OWNER]]
// CHECK: OpIEqual %bool {{%[0-9]+}} [[BATCH]]
// CHECK: OpCompositeConstruct %Light
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
