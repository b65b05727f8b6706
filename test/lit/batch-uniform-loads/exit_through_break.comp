// The one-exit form (docs/design/batch-uniform-loads.md, "One exit") for a
// loop whose test is a `break` at the top of its body: the test's branch
// now compares the slot counter with the batch's trip count, and the break
// block leaves the inner loop. No flag says why the inner loop left, so
// the inner merge has no phi.
// RUN: %waveopt %s --ssa-rewrite --batch-uniform-loads -o %t.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// The fill: whether the loop ends in this batch, and the trip count.
// CHECK: [[ENDED:%[0-9]+]] = OpLogicalAnd %bool
// CHECK: [[TRIPS:%[0-9]+]] = OpSelect %uint [[ENDED]]
// CHECK: [[K:%[0-9]+]] = OpPhi %uint %uint_0
// CHECK: OpGroupNonUniformShuffle
// CHECK: OpLoopMerge [[INNERMERGE:%[0-9]+]] {{%[0-9]+}} None
// CHECK: [[GO:%[0-9]+]] = OpULessThan %bool [[K]] [[TRIPS]]
// CHECK: OpBranchConditional [[GO]] {{%[0-9]+}} [[BREAK:%[0-9]+]]
// CHECK: [[BREAK]] = OpLabel
// CHECK: OpBranch [[INNERMERGE]]
// CHECK-NOT: OpPhi %bool
// CHECK: [[INNERMERGE]] = OpLabel
// CHECK: OpBranch [[OUTERLATCH:%[0-9]+]]
// CHECK: [[OUTERLATCH]] = OpLabel
// CHECK: OpBranchConditional [[ENDED]]
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Data { vec4 d[]; };
layout(set = 0, binding = 1) readonly buffer Counts { uvec2 c[]; };
layout(set = 0, binding = 2) buffer Out { vec4 o[]; };
void main() {
  uvec2 sc = c[gl_WorkGroupID.x];
  vec4 acc = vec4(0);
  uint i = 0u;
  for (;;) {
    if (i >= sc.y) break;
    acc += d[sc.x + i];
    ++i;
  }
  o[gl_GlobalInvocationID.x] = acc;
}
