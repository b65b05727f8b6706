// Where the slots are folded (tile_minmax_tree's shape: test/diff/
// workgroup-reduce/fold_at_use.comp runs it at every width). Two trees
// whose results only invocation 0 uses: both subgroup reductions are stored
// under one election before one barrier, and invocation 0 folds both
// arrays' slots in one serial loop (no rank, no second reduction), as the
// hand-written kernel does. The same module from glslang after spirv-opt -O,
// and byte for byte the same under --assume-driver=radv.
// RUN: %waveopt %S/../../diff/workgroup-reduce/fold_at_use.comp -O -o %t.spv --remarks=workgroup-reduce 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %spirv-dis %t.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %waveopt %S/../../diff/workgroup-reduce/fold_at_use.comp -O --assume-driver=radv -o %t.radv.spv
// RUN: cmp %t.spv %t.radv.spv
// RUN: %glslang -V --target-env vulkan1.1 %S/../../diff/workgroup-reduce/fold_at_use.comp -o %t.raw.spv
// RUN: %spirv-opt -O %t.raw.spv -o %t.opt.spv
// RUN: %waveopt %t.opt.spv --workgroup-reduce -o %t.fromopt.spv --remarks=workgroup-reduce 2> %t.fromopt.remarks
// RUN: %spirv-dis %t.fromopt.spv | %FileCheck %s
// RUN: %FileCheck %s --check-prefix=REMARK < %t.fromopt.remarks
// CHECK-LABEL: %main = OpFunction
// CHECK: [[MIN:%[0-9]+]] = OpGroupNonUniformUMin %uint %uint_3 Reduce
// CHECK-NOT: OpControlBarrier
// CHECK: [[MAX:%[0-9]+]] = OpGroupNonUniformUMax %uint %uint_3 Reduce
// CHECK-NOT: OpControlBarrier
// CHECK: [[E:%[0-9]+]] = OpGroupNonUniformElect %bool %uint_3
// CHECK-NOT: OpGroupNonUniformElect
// CHECK: OpBranchConditional [[E]]
// CHECK-DAG: OpStore {{%[0-9]+}} [[MIN]]
// CHECK-DAG: OpStore {{%[0-9]+}} [[MAX]]
// CHECK: OpControlBarrier %uint_2 %uint_2 %uint_264
// CHECK-NOT: OpControlBarrier
// CHECK-NOT: OpGroupNonUniform
// CHECK: OpIEqual %bool {{%[0-9]+}} %uint_0
// CHECK: OpBranchConditional
// CHECK: OpLoad %uint %gl_NumSubgroups
// CHECK: OpLoopMerge
// CHECK-NOT: OpLoopMerge
// CHECK-DAG: OpLoad %uint {{%[0-9]+}}
// CHECK-DAG: OpExtInst %uint {{%[0-9]+}} UMin
// CHECK-DAG: OpExtInst %uint {{%[0-9]+}} UMax
// CHECK-NOT: OpGroupNonUniform
// CHECK: OpFunctionEnd
// REMARK: applied ReducedTree in main{{( (at|near) [^:]+)?}}: an unsigned min tree over smin {{.*}}; the slots are folded where the result is used (1 invocation(s) reach it)
// REMARK: applied ReducedTree in main{{( (at|near) [^:]+)?}}: an unsigned max tree over smax {{.*}}; the slots are folded where the result is used (1 invocation(s) reach it, in the loop that folds an earlier tree's slots)
// REMARK: applied MergedBarrier in main
//
// Not where another store to the array follows (REUSE: the first tree's
// fold stays after its barrier, which stays), nor where every invocation
// uses the result (ALL), nor with no-sink.
// RUN: %waveopt %S/../../diff/workgroup-reduce/fold_at_use.comp -O -DREUSE -o %t.reuse.spv --remarks=workgroup-reduce 2>&1 | %FileCheck %s --check-prefix=KEEP
// RUN: %waveopt %S/../../diff/workgroup-reduce/fold_at_use.comp -O -DALL -o %t.all.spv --remarks=workgroup-reduce 2>&1 | %FileCheck %s --check-prefix=KEEP
// RUN: %waveopt %S/../../diff/workgroup-reduce/fold_at_use.comp -O --pass-params=workgroup-reduce:no-sink -o %t.nosink.spv --remarks=workgroup-reduce 2>&1 | %FileCheck %s --check-prefix=NOSINK
// KEEP: over smin {{.*}} becomes one shared slot per subgroup and one barrier{{$}}
// KEEP-NOT: MergedBarrier
// NOSINK-NOT: folded where
// NOSINK-NOT: MergedBarrier
