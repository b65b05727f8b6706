// Every refusal of workgroup-reduce, one case each: the module is left as
// it was (no subgroup operation added) and the missed remark names why.
// RUN: %waveopt %s -O -DCASE=1 --remarks-missed=workgroup-reduce -o %t1.spv 2>&1 | %FileCheck %s --check-prefix=FLOAT
// RUN: %waveopt %s -O -DCASE=2 --remarks-missed=workgroup-reduce -o %t2.spv 2>&1 | %FileCheck %s --check-prefix=MIXED
// RUN: %waveopt %s -O -DCASE=3 --remarks-missed=workgroup-reduce -o %t3.spv 2>&1 | %FileCheck %s --check-prefix=PARTIAL
// RUN: %waveopt %s -O -DCASE=4 --remarks-missed=workgroup-reduce -o %t4.spv 2>&1 | %FileCheck %s --check-prefix=INCOMPLETE
// RUN: %waveopt %s -O -DCASE=5 --remarks-missed=workgroup-reduce -o %t5.spv 2>&1 | %FileCheck %s --check-prefix=ARGMAX
// RUN: %waveopt %s -O -DCASE=6 --remarks-missed=workgroup-reduce -o %t6.spv 2>&1 | %FileCheck %s --check-prefix=RANGE
// RUN: %waveopt %s -O -DCASE=7 --remarks-missed=workgroup-reduce -o %t7.spv 2>&1 | %FileCheck %s --check-prefix=RACE
// RUN: %waveopt %s -O -DCASE=8 --remarks-missed=workgroup-reduce -o %t8.spv 2>&1 | %FileCheck %s --check-prefix=OTHER
// A tree in a called function: refused without -O, which inlines it.
// RUN: %waveopt %s --workgroup-reduce -DCASE=9 --remarks-missed=workgroup-reduce -o %t9.spv 2>&1 | %FileCheck %s --check-prefix=CALL
// RUN: %waveopt %s -O -DCASE=9 --remarks=workgroup-reduce -o %t9o.spv 2>&1 | %FileCheck %s --check-prefix=CALL-O
// RUN: %waveopt %s -O -DCASE=10 --remarks-missed=workgroup-reduce -o %t10.spv 2>&1 | %FileCheck %s --check-prefix=STORE
// RUN: %waveopt %s -O -DCASE=11 --remarks=workgroup-reduce --remarks-missed=workgroup-reduce -o %t11.spv 2>&1 | %FileCheck %s --check-prefix=COST
// RUN: %waveopt %s -O -DCASE=12 --remarks-missed=workgroup-reduce -o %t12.spv 2>&1 | %FileCheck %s --check-prefix=TYPE
// RUN: %waveopt %s -O -DCASE=13 --remarks-missed=workgroup-reduce --target-env=vulkan1.0 -o %t13.spv 2>&1 | %FileCheck %s --check-prefix=TARGET
// The generic form in HLSL output: SubgroupId and NumSubgroups have no HLSL
// spelling; the single-subgroup form (a 32-invocation tree under
// --assume-driver=radv) has one.
// RUN: %waveopt %s -O -DCASE=14 --emit=hlsl --remarks=workgroup-reduce --remarks-missed=workgroup-reduce -o %t14.hlsl 2>&1 | %FileCheck %s --check-prefix=HLSL
// RUN: %waveopt %s -O -DCASE=14 --emit=hlsl --assume-driver=radv --remarks=workgroup-reduce -o %t14r.hlsl 2>&1 | %FileCheck %s --check-prefix=HLSL-SINGLE
// RUN: %FileCheck %s --check-prefix=HLSL-WAVE < %t14r.hlsl
// HLSL: applied ReducedTree in main: {{.*}} (in the version for amd, SpecId 1000); here also missed NotExpressibleInHlsl: the output is HLSL, and every form but the single-subgroup one {{.*}} [array tmp]
// HLSL-SINGLE: applied ReducedTree in main
// HLSL-WAVE: WaveActiveSum
// A float tree without --float-reassoc is refused before it is traced
// (compile time); the trace's own refusal (its guard on a push constant)
// comes with the opt-in.
// RUN: %waveopt %s -O -DCASE=15 --remarks-missed=workgroup-reduce -o %t15.spv 2>&1 | %FileCheck %s --check-prefix=FLOAT-FIRST
// RUN: %waveopt %s -O -DCASE=15 --float-reassoc --remarks-missed=workgroup-reduce -o %t15r.spv 2>&1 | %FileCheck %s --check-prefix=FLOAT-THEN
// FLOAT-FIRST: missed FloatReassociation in main: a float add tree: a subgroup reduction groups the values differently {{.*}} [array tmp]
// FLOAT-FIRST-NOT: UnknownBranch
// FLOAT-THEN: missed UnknownBranch in main: a branch around accesses to the array (or barriers) depends on values other than the invocation's identity and constants [array tmp]
// RUN: for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 15 15r; do %spirv-dis %t$i.spv | %FileCheck %s --check-prefix=UNCHANGED; done
// FLOAT: missed FloatReassociation in main: a float add tree: a subgroup reduction groups the values differently {{.*}} [array tmp]
// MIXED: missed MixedOperations in main: the tree combines elements with more than one operation [array tmp]
// PARTIAL: missed ReadsPartialValue in main: a load reads an element holding a partial result of the tree (or an element the tree leaves out) [array tmp]
// INCOMPLETE: missed IncompleteTree in main: the tree's result leaves elements out {{.*}} [array tmp]
// ARGMAX: missed PairFloatKey in main: the step's float comparisons are not the ordered ones {{.*}} [array tmpmax]
// RANGE: missed UnknownBranch in main: a branch around accesses to the array (or barriers) depends on values other than the invocation's identity and constants [array tmp]
// RACE: missed RaceInTree in main: an invocation reads an element another writes between two barriers [array tmp]
// OTHER: missed OtherWorkInTree in main: the code between the tree's barriers does more than the tree {{.*}} [array tmp]
// CALL: missed NotInEntryPoint in reduce(u1;u1;: the tree is not in a compute entry point's function (calls are not followed): inline the function [array tmp]
// CALL-O: applied ReducedTree in main: an integer add tree over tmp (6 steps, 7 barriers, 1 reader(s))
// STORE: missed StoreAfterTree in main: the array is written again before the next barrier, where the generic form reads its slots [array tmp]
// COST: applied ReducedTree in main: {{.*}} (in the version for amd, SpecId 1000); here also missed NotProfitable: the tree has 3 barrier(s); the generic form keeps 3 [array tmp]
// TYPE: missed UnsupportedType in main: the array's elements are not scalars or vectors (structures, matrices): one array per member [array tmp]
// TARGET: missed TargetLacksSubgroupOps
// UNCHANGED-NOT: OpGroupNonUniform
#version 450
#ifndef CASE
#define CASE 1
#endif
#if CASE == 11
#define WG 4
#elif CASE == 10
#define WG 256
#elif CASE == 14
#define WG 32
#else
#define WG 64
#endif
layout(local_size_x = WG) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
layout(push_constant) uniform P { uint n; } pc;
#if CASE == 1 || CASE == 15
shared float tmp[WG];
#elif CASE == 12
struct Pair { uint a; uint b; };
shared Pair tmp[WG];
#else
shared uint tmp[WG];
#endif
shared float tmpmax[WG];

#if CASE == 9
uint reduce(uint tid, uint v) {
  tmp[tid] = v;
  barrier();
  for (uint s = WG / 2; s > 0; s >>= 1) {
    if (tid < s) tmp[tid] += tmp[tid + s];
    barrier();
  }
  return tmp[0];
}
#endif

void main() {
  uint tid = gl_LocalInvocationID.x;
  uint v = data[gl_GlobalInvocationID.x];
#if CASE == 1 || CASE == 15
  tmp[tid] = float(v);
#elif CASE == 5
  tmp[tid] = tid;
  tmpmax[tid] = float(v);
#elif CASE == 9
  result[gl_GlobalInvocationID.x] = reduce(tid, v);
  return;
#elif CASE == 11
  tmp[tid] = 0;
  for (uint i = 0; i < 4u; ++i) tmp[tid] += v >> i;
#elif CASE == 12
  tmp[tid].a = v;
#else
  tmp[tid] = v;
#endif
  barrier();
#if CASE == 4
  for (uint s = 24; s > 0; s >>= 1) {   // 48 elements: 24, 12, 6, 3, 1
#elif CASE == 10 || CASE == 11
  for (uint s = WG / 2; s > 0; s >>= 1) {
#elif CASE == 14
  for (uint s = 16; s > 0; s >>= 1) {
#else
  for (uint s = 32; s > 0; s >>= 1) {
#endif
#if CASE == 1
    if (tid < s) tmp[tid] = tmp[tid] + tmp[tid + s];
#elif CASE == 2
    if (tid < s) {
      if (s > 4) {
        tmp[tid] += tmp[tid + s];
      } else {
        tmp[tid] = max(tmp[tid], tmp[tid + s]);
      }
    }
#elif CASE == 5
    if (tid < s && !(tmpmax[tid + s] <= tmpmax[tid])) {
      tmpmax[tid] = tmpmax[tid + s];
      tmp[tid] = tmp[tid + s];
    }
#elif CASE == 6 || CASE == 15
    if (tid < s && tid + s < pc.n) tmp[tid] += tmp[tid + s];
#elif CASE == 7
    if (tid < s) tmp[tid] += tmp[tid + s];
    if (s == 8) continue;  // the barrier of one step is missing
#elif CASE == 8
    if (tid < s) tmp[tid] += tmp[tid + s];
    if (tid == s) result[gl_WorkGroupID.x * 64 + s] = s;
#elif CASE == 12
    if (tid < s) tmp[tid].a += tmp[tid + s].a;
#else
    if (tid < s) tmp[tid] += tmp[tid + s];
#endif
    barrier();
  }
#if CASE == 1 || CASE == 15
  result[gl_GlobalInvocationID.x] = floatBitsToUint(tmp[0]);
#elif CASE == 3
  result[gl_GlobalInvocationID.x] = tmp[0] + tmp[1];
#elif CASE == 5
  result[gl_GlobalInvocationID.x] = tmp[0];
#elif CASE == 10
  uint r = tmp[0];
  if (tid == 5u) tmp[7] = r;
  result[gl_GlobalInvocationID.x] = r;
#elif CASE == 12
  result[gl_GlobalInvocationID.x] = tmp[0].a;
#else
  result[gl_GlobalInvocationID.x] = tmp[0];
#endif
}
