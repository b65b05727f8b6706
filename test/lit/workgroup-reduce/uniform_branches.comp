// Branches on values the same for the whole workgroup (a push constant):
// workgroup-reduce traces each outcome as a configuration of its own.
//
// The tree's result read by invocation 0 after branches that add to it in
// the array: the loads stay and the result is stored back for invocation 0.
// RUN: %waveopt %s -O --target=none --remarks=workgroup-reduce -o %t.spv 2>&1 | %FileCheck %s
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s --check-prefix=IR
// CHECK: uniform_branches.comp:42: remark: workgroup-reduce: applied ReducedTree in main: an integer add tree over t (4 steps, 5 barriers, 2 reader(s)) becomes one subgroup reduction when the workgroup is one subgroup (NumSubgroups == 1), else the original tree; its result stored back for invocation 0, whose later loads uniform branches decide
// IR: OpGroupNonUniformIAdd %uint %uint_3 Reduce
// IR: OpIEqual %bool {{%[0-9]+}} %uint_0
// IR: OpStore
//
// Where a workgroup of one subgroup runs no barrier (amd, and so the
// portable module of -O), storing the result back saves too little: the
// nvidia version has it.
// RUN: %waveopt %s -O --target=amd --remarks-missed=workgroup-reduce -o %t.amd.spv 2>&1 | %FileCheck %s --check-prefix=AMD
// RUN: %waveopt %s -O --remarks=workgroup-reduce --remarks-missed=workgroup-reduce -o %t.O.spv 2>&1 | %FileCheck %s --check-prefix=PLAIN
// AMD: uniform_branches.comp:61: remark: workgroup-reduce: missed NotProfitable in main: the result would be stored back (a uniform branch decides which load reads it), which runs only where the workgroup is one subgroup, and there this target's driver drops the barriers itself (fact one-wave-barriers-free) [array t]
// PLAIN: missed NotProfitable
// PLAIN: applied ReducedTree {{.*}}; its result stored back for invocation 0
//
// Four such branches are more outcomes than the pass follows.
// RUN: %waveopt %s -O --target=none -DMANY --remarks-missed=workgroup-reduce -o %t.many.spv 2>&1 | %FileCheck %s --check-prefix=MANY
// MANY: uniform_branches.comp:59: remark: workgroup-reduce: missed UnknownBranch in main: branches around accesses to the array depend on more values the same for the whole workgroup (push constants, uniform buffers, the workgroup's id) than the pass follows both ways [array t]
//
// Every invocation reads after such a branch: stored back by one
// invocation, the result would race with the others' loads.
// RUN: %waveopt %s -O --target=none -DALL --remarks-missed=workgroup-reduce -o %t.all.spv 2>&1 | %FileCheck %s --check-prefix=ALL
// ALL: uniform_branches.comp:52: remark: workgroup-reduce: missed ReadsPartialValue in main: a load reads the tree's result in some executions and a value stored after it in others (uniform branches decide), and more than one invocation uses the array after the tree [array t]
#version 450
layout(local_size_x = 16) in;
layout(push_constant) uniform Push { uint flags; } p;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
shared uint t[16];

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint g = gl_GlobalInvocationID.x;
  t[tid] = data[g];
  barrier();
  for (uint s = 8u; s > 0u; s >>= 1u) {
    if (tid < s) t[tid] = t[tid] + t[tid + s];
    barrier();
  }
#if defined(ALL)
  if ((p.flags & 1u) != 0u) {
    if (tid == 0u) t[0] += data[g + 16u];
  }
  barrier();
  result[g] = t[0];
#else
  if (tid == 0u) {
    if ((p.flags & 1u) != 0u) t[0] += data[g + 16u];
#ifdef MANY
    if ((p.flags & 2u) != 0u) t[0] += data[g + 17u];
    if ((p.flags & 4u) != 0u) t[0] += data[g + 18u];
    if ((p.flags & 8u) != 0u) t[0] += data[g + 19u];
#endif
    result[g] = t[0];
  }
#endif
}
