// The forms of workgroup-reduce on the loop form of tree.comp (the kernel
// of test/diff/workgroup-reduce/, where each is run at every width).
//
// GENERIC (256 invocations, --target=amd: the serial fold): each
// subgroup's reduction goes to its slot (SubgroupId) from the elected lane,
// one barrier, every invocation folds the slots 0 .. NumSubgroups - 1 in
// order (no correction of NumSubgroups: RADV counts its waves, and 256 is a
// multiple of every subgroup size) and no second reduction; the tree's loop
// and its barriers are gone, the reader takes the fold. fold=serial gives
// the same module without the profile.
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=256 -O --assume-driver=radv -o %t.generic.spv --remarks=workgroup-reduce 2> %t.generic.remarks
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=256 -O --target=none --pass-params=workgroup-reduce:fold=serial -o %t.serial.spv
// RUN: cmp %t.generic.spv %t.serial.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.generic.spv
// RUN: %spirv-dis %t.generic.spv | %FileCheck %s --check-prefix=GENERIC
// RUN: %FileCheck %s --check-prefix=GENERIC-REMARK < %t.generic.remarks
// GENERIC-LABEL: %main = OpFunction
// GENERIC-NOT: OpControlBarrier
// GENERIC: [[R:%[0-9]+]] = OpGroupNonUniformIAdd %uint %uint_3 Reduce
// GENERIC: [[E:%[0-9]+]] = OpGroupNonUniformElect %bool %uint_3
// GENERIC: OpBranchConditional [[E]]
// GENERIC: [[SG:%[0-9]+]] = OpLoad %uint %gl_SubgroupID
// GENERIC: [[SLOT:%[0-9]+]] = OpAccessChain %_ptr_Workgroup_uint %tmp [[SG]]
// GENERIC: OpStore [[SLOT]] [[R]]
// GENERIC: OpControlBarrier %uint_2 %uint_2 %uint_264
// GENERIC-NOT: OpGroupNonUniformBallot
// GENERIC: [[N:%[0-9]+]] = OpLoad %uint %gl_NumSubgroups
// GENERIC-NOT: OpIMul
// GENERIC: [[HEAD:%[0-9]+]] = OpLabel
// GENERIC-NEXT: [[FOLD:%[0-9]+]] = OpPhi %uint %uint_0 {{%[0-9]+}} [[NEXT:%[0-9]+]] [[BODY:%[0-9]+]]
// GENERIC-NEXT: [[I:%[0-9]+]] = OpPhi %uint %uint_0 {{%[0-9]+}} [[INEXT:%[0-9]+]] [[BODY]]
// GENERIC-NEXT: [[MORE:%[0-9]+]] = OpULessThan %bool [[I]] [[N]]
// GENERIC-NEXT: OpLoopMerge [[MERGE:%[0-9]+]] [[BODY]] None
// GENERIC-NEXT: OpBranchConditional [[MORE]] [[BODY]] [[MERGE]]
// GENERIC-NEXT: [[BODY]] = OpLabel
// GENERIC-NEXT: [[P:%[0-9]+]] = OpAccessChain %_ptr_Workgroup_uint %tmp [[I]]
// GENERIC-NEXT: [[Y:%[0-9]+]] = OpLoad %uint [[P]]
// GENERIC-NEXT: [[NEXT]] = OpIAdd %uint [[FOLD]] [[Y]]
// GENERIC-NEXT: [[INEXT]] = OpIAdd %uint [[I]] %uint_1
// GENERIC-NEXT: OpBranch [[HEAD]]
// GENERIC: [[MERGE]] = OpLabel
// GENERIC-NOT: OpGroupNonUniformIAdd
// GENERIC-NOT: OpControlBarrier
// GENERIC: OpIAdd %uint [[FOLD]]
// GENERIC: OpFunctionEnd
// GENERIC-REMARK: applied ReducedTree in main: an integer add tree over tmp (8 steps, 9 barriers, 1 reader(s)) becomes one shared slot per subgroup and one barrier
//
// RANK (fold=rank, --assume-driver=cpu's fold): each active lane folds
// every |active|-th slot from its rank on (both sums of 1 over the
// subgroup: ACO makes v_mbcnt and s_bcnt1 of them), then a second
// reduction of the folds.
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=256 -O --target=none --pass-params=workgroup-reduce:fold=rank -o %t.rank.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.rank.spv
// RUN: %spirv-dis %t.rank.spv | %FileCheck %s --check-prefix=RANK
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=256 -O --assume-driver=cpu -o %t.cpu.spv
// RUN: cmp %t.rank.spv %t.cpu.spv
//
// CHOICE (plain -O up to 256 invocations): SubgroupSize >= 32 takes the
// serial fold, smaller subgroups the rank fold; the drivers fold the test
// at compile time (see the pass doc's cost rule).
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=256 -O --target=none -o %t.plain.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.plain.spv
// RUN: %spirv-dis %t.plain.spv | %FileCheck %s --check-prefix=CHOICE
// CHOICE: OpControlBarrier %uint_2 %uint_2 %uint_264
// CHOICE: [[SIZE:%[0-9]+]] = OpLoad %uint %gl_SubgroupSize
// CHOICE: [[WIDE:%[0-9]+]] = OpUGreaterThanEqual %bool [[SIZE]] %uint_32
// CHOICE: OpSelectionMerge [[J:%[0-9]+]]
// CHOICE: OpBranchConditional [[WIDE]] [[SERIAL:%[0-9]+]] [[RANKED:%[0-9]+]]
// CHOICE: [[SERIAL]] = OpLabel
// CHOICE-NOT: OpGroupNonUniform
// CHOICE: OpLoopMerge
// CHOICE: [[RANKED]] = OpLabel
// CHOICE: OpGroupNonUniformIAdd %uint %uint_3 ExclusiveScan %uint_1
// CHOICE: OpLoopMerge
// CHOICE: OpGroupNonUniformIAdd %uint %uint_3 Reduce
// CHOICE: [[J]] = OpLabel
// CHOICE-NEXT: OpPhi %uint
// RANK: OpControlBarrier %uint_2 %uint_2 %uint_264
// RANK-NOT: OpGroupNonUniformBallot
// RANK: [[START:%[0-9]+]] = OpGroupNonUniformIAdd %uint %uint_3 ExclusiveScan %uint_1
// RANK: [[STEP:%[0-9]+]] = OpGroupNonUniformIAdd %uint %uint_3 Reduce %uint_1
// RANK: OpPhi %uint [[START]]
// RANK: OpLoopMerge
// RANK: OpIAdd %uint {{%[0-9]+}} [[STEP]]
// RANK: [[T:%[0-9]+]] = OpGroupNonUniformIAdd %uint %uint_3 Reduce
// RANK: OpIAdd %uint [[T]]
//
// NSLOTS (the slot count; 200 invocations, not a multiple of every
// subgroup size): one slot more when NumSubgroups * SubgroupSize < 200
// (lavapipe rounds NumSubgroups down); --assume-driver=radv (RADV counts
// its waves) reads NumSubgroups as it is.
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=200 -O --target=none -o %t.slots.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.slots.spv
// RUN: %spirv-dis %t.slots.spv | %FileCheck %s --check-prefix=NSLOTS
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=200 -O --assume-driver=radv -o %t.slots-radv.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.slots-radv.spv
// RUN: %spirv-dis %t.slots-radv.spv | %FileCheck %s --check-prefix=NSLOTS-RADV
// NSLOTS: [[S:%[0-9]+]] = OpLoad %uint %gl_SubgroupSize
// NSLOTS: [[N:%[0-9]+]] = OpLoad %uint %gl_NumSubgroups
// NSLOTS: [[C:%[0-9]+]] = OpIMul %uint [[N]] [[S]]
// NSLOTS: [[SHORT:%[0-9]+]] = OpULessThan %bool [[C]] %uint_200
// NSLOTS: [[ONE:%[0-9]+]] = OpSelect %uint [[SHORT]] %uint_1 %uint_0
// NSLOTS: [[COUNT:%[0-9]+]] = OpIAdd %uint [[N]] [[ONE]]
// NSLOTS: OpULessThan %bool {{%[0-9]+}} [[COUNT]]
// NSLOTS-RADV: [[N:%[0-9]+]] = OpLoad %uint %gl_NumSubgroups
// NSLOTS-RADV-NOT: OpIMul
// NSLOTS-RADV: OpULessThan %bool {{%[0-9]+}} [[N]]
//
// RUNTIME (64 invocations, the default for up to 64): NumSubgroups == 1
// and SubgroupSize >= 64 takes the reduction alone, else the generic form.
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=64 -O --target=none -o %t.runtime.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.runtime.spv
// RUN: %spirv-dis %t.runtime.spv | %FileCheck %s --check-prefix=RUNTIME
// RUNTIME-LABEL: %main = OpFunction
// RUNTIME: [[N:%[0-9]+]] = OpLoad %uint %gl_NumSubgroups
// RUNTIME: [[ONE:%[0-9]+]] = OpIEqual %bool [[N]] %uint_1
// RUNTIME: [[FITS:%[0-9]+]] = OpUGreaterThanEqual %bool {{%[0-9]+}} %uint_64
// RUNTIME: [[TEST:%[0-9]+]] = OpLogicalAnd %bool [[ONE]] [[FITS]]
// RUNTIME: OpSelectionMerge [[J:%[0-9]+]]
// RUNTIME: OpBranchConditional [[TEST]] [[ALONE:%[0-9]+]] [[SLOTS:%[0-9]+]]
// RUNTIME: [[ALONE]] = OpLabel
// RUNTIME-NEXT: [[R1:%[0-9]+]] = OpGroupNonUniformIAdd %uint %uint_3 Reduce
// RUNTIME-NEXT: OpBranch [[J]]
// RUNTIME: [[SLOTS]] = OpLabel
// RUNTIME: OpControlBarrier
// RUNTIME: [[J]] = OpLabel
// RUNTIME-NEXT: OpPhi %uint [[R1]] [[ALONE]]
//
// SINGLE (--subgroup-size=64 promises the 64 invocations are one
// subgroup; --assume-driver=radv for 32: RADV's waves hold 32 or 64): no
// shared memory, no barrier, one reduction.
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=64 -O --target=none --subgroup-size=64 -o %t.single.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.single.spv
// RUN: %spirv-dis %t.single.spv | %FileCheck %s --check-prefix=SINGLE
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=32 -O --assume-driver=radv -o %t.radv.spv
// RUN: %spirv-dis %t.radv.spv | %FileCheck %s --check-prefix=SINGLE
// SINGLE-NOT: OpVariable %_ptr_Workgroup
// SINGLE-NOT: OpControlBarrier
// SINGLE: OpGroupNonUniformIAdd %uint %uint_3 Reduce
// SINGLE-NOT: OpControlBarrier
//
// ACCUMULATE (the values summed in the array, no store right before the
// barrier): the barrier stays, each invocation loads its own element
// (LocalInvocationIndex), and a barrier separates those loads from the
// slots' stores.
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=256 -DACCUMULATE -O --target=none -o %t.acc.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.acc.spv
// RUN: %spirv-dis %t.acc.spv | %FileCheck %s --check-prefix=ACC
// ACC: OpControlBarrier
// ACC: [[I:%[0-9]+]] = OpLoad %uint %gl_LocalInvocationIndex
// ACC: [[P:%[0-9]+]] = OpAccessChain %_ptr_Workgroup_uint %tmp [[I]]
// ACC: [[X:%[0-9]+]] = OpLoad %uint [[P]]
// ACC: OpGroupNonUniformIAdd %uint %uint_3 Reduce [[X]]
// ACC: OpControlBarrier
// ACC: OpGroupNonUniformElect
// ACC: OpControlBarrier
// ACC-NOT: OpControlBarrier
//
// PARTIAL (a tree over the first 48 of 96 invocations): the others give
// the identity.
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=96 -DPARTIAL -DOP=MAX -O --target=none -o %t.partial.spv
// RUN: %spirv-dis %t.partial.spv | %FileCheck %s --check-prefix=PARTIAL
// PARTIAL: [[IN:%[0-9]+]] = OpULessThan %bool {{%[0-9]+}} %uint_64
// PARTIAL: [[V:%[0-9]+]] = OpSelect %uint [[IN]] {{%[0-9]+}} %uint_0
// PARTIAL: OpGroupNonUniformUMax %uint %uint_3 Reduce [[V]]
//
// SPEC (the size is a specialization constant): a power of two from 2 to
// 1024 takes the rewrite; the original loop stays for other sizes, and its
// result reaches the reader through a phi.
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DSPEC -O --target=none -o %t.spec.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.spec.spv
// RUN: %spirv-dis %t.spec.spv | %FileCheck %s --check-prefix=SPEC
// SPEC-DAG: OpDecorate [[S:%[0-9]+]] SpecId 0
// SPEC-DAG: OpDecorate %gl_WorkGroupSize BuiltIn WorkgroupSize
// SPEC-DAG: %gl_WorkGroupSize = OpSpecConstantComposite %v3uint [[S]] %uint_1 %uint_1
// SPEC: %main = OpFunction
// (The size is read through gl_WorkGroupSize: SPIRV-Cross names no
// component of it.)
// SPEC: [[X:%[0-9]+]] = OpCompositeExtract %uint %gl_WorkGroupSize 0
// SPEC: [[LOW:%[0-9]+]] = OpBitwiseAnd %uint [[X]]
// SPEC: [[POW2:%[0-9]+]] = OpIEqual %bool [[LOW]] %uint_0
// SPEC: OpULessThanEqual %bool [[X]] %uint_1024
// SPEC: OpSelectionMerge [[AFTER:%[0-9]+]]
// SPEC: OpGroupNonUniformIAdd %uint %uint_3 Reduce
// SPEC: OpLoopMerge
// SPEC: OpControlBarrier
// SPEC: [[AFTER]] = OpLabel
// SPEC-NEXT: OpPhi %uint
//
// Running the pass on its own output changes nothing; the same input gives
// the same bytes.
// RUN: %waveopt %t.generic.spv --workgroup-reduce -o %t.again.spv
// RUN: cmp %t.generic.spv %t.again.spv
// RUN: %waveopt %t.spec.spv --workgroup-reduce -o %t.spec.again.spv
// RUN: cmp %t.spec.spv %t.spec.again.spv
// RUN: %waveopt %S/../../diff/workgroup-reduce/tree.comp -DWG=256 -O --assume-driver=radv -o %t.generic2.spv
// RUN: cmp %t.generic.spv %t.generic2.spv
