// Which trees workgroup-reduce gets to see (the kernels of
// test/diff/workgroup-reduce/, where each is run at every width).
//
// A tree in a called function with an early return: -O inlines it (after
// merge-return) and rewrites it; without -O the call stays (NotInEntryPoint).
// RUN: %waveopt %S/../../diff/workgroup-reduce/called.comp -O --target=none --remarks=workgroup-reduce -o %t.called.spv 2>&1 | %FileCheck %s --check-prefix=CALLED
// RUN: %spirv-val --target-env vulkan1.1 %t.called.spv
// RUN: %spirv-dis %t.called.spv | %FileCheck %s --check-prefix=CALLED-IR
// RUN: %waveopt %S/../../diff/workgroup-reduce/called.comp --workgroup-reduce --remarks-missed=workgroup-reduce -o %t.call.spv 2>&1 | %FileCheck %s --check-prefix=CALL
// RUN: %spirv-dis %t.call.spv | %FileCheck %s --check-prefix=UNCHANGED
// CALLED: called.comp:{{[0-9]+}}: remark: workgroup-reduce: applied ReducedTree in main: an integer add tree over partial (7 steps, 8 barriers, 1 reader(s)) becomes one shared slot per subgroup and one barrier
// CALLED-IR-NOT: OpFunctionCall
// CALLED-IR: OpGroupNonUniformIAdd %uint %uint_3 Reduce
// CALL: called.comp:{{[0-9]+}}: remark: workgroup-reduce: missed NotInEntryPoint in workgroup_sum(u1;u1;: the tree is not in a compute entry point's function (calls are not followed): inline the function [array partial]
// UNCHANGED-NOT: OpGroupNonUniform
//
// Two trees over one array, the first refused (a divergent loop between
// them writes the array): the second is a candidate of its own.
// RUN: %waveopt %S/../../diff/workgroup-reduce/later_tree.comp -O --target=none --pass-params=workgroup-reduce:form=generic --remarks=workgroup-reduce --remarks-missed=workgroup-reduce -o %t.later.spv 2>&1 | %FileCheck %s --check-prefix=LATER
// RUN: %spirv-dis %t.later.spv | %FileCheck %s --check-prefix=LATER-IR
// LATER: later_tree.comp:28: remark: workgroup-reduce: missed UnknownBranch in main: a branch around accesses to the array (or barriers) depends on values other than the invocation's identity and constants [array acc]
// LATER-NEXT: later_tree.comp:29: remark: workgroup-reduce: applied ReducedTree in main: an integer add tree over acc (6 steps, 7 barriers, 1 reader(s)) becomes one shared slot per subgroup and one barrier
// The first tree's loop stays (no subgroup operation before it), the
// second's is reduced.
// LATER-IR-NOT: OpGroupNonUniform
// LATER-IR: OpLoopMerge
// LATER-IR: OpGroupNonUniformIAdd %uint %uint_3 Reduce
