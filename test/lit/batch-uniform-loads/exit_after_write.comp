// The one-exit form runs the blocks before the loop's test once more when a
// batch ends (with the same values); an atomic there would count twice, so
// this loop keeps the two-exit form: its own test stays, the back edge also
// leaves when the batch is used up, and a flag (a bool phi in the inner
// merge) tells the outer loop which. test/diff/batch-uniform-loads/
// top_write.comp runs it.
// RUN: %waveopt %s --ssa-rewrite --batch-uniform-loads -o %t.spv --remarks=batch 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// REMARK: applied BatchedLoads in main
// CHECK: OpGroupNonUniformShuffle
// CHECK: OpLoopMerge [[INNERMERGE:%[0-9]+]] [[LATCH:%[0-9]+]] None
// CHECK: OpAtomicIAdd %uint %visits
// CHECK: [[LATCH]] = OpLabel
// CHECK: [[MORE:%[0-9]+]] = OpULessThan %bool
// CHECK: OpBranchConditional [[MORE]] {{%[0-9]+}} [[INNERMERGE]]
// CHECK: [[INNERMERGE]] = OpLabel
// CHECK: OpPhi %bool %true {{%[0-9]+}} %false [[LATCH]]
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Data { vec4 d[]; };
layout(set = 0, binding = 1) readonly buffer Counts { uvec2 c[]; };
layout(set = 0, binding = 2) buffer Out { vec4 o[]; };
shared uint visits;
void main() {
  uvec2 sc = c[gl_WorkGroupID.x];
  vec4 acc = vec4(0);
  uint i = 0u;
  for (;;) {
    atomicAdd(visits, 1u);
    if (i >= sc.y) break;
    acc += d[sc.x + i];
    ++i;
  }
  o[gl_GlobalInvocationID.x] = acc;
}
