// workgroup-reduce on (value, index) pairs: the arg-max tree fires, every
// spelling whose order the pass cannot prove is refused with its remark and
// the module left as it was. (Run at every width: test/diff/workgroup-reduce/
// argmax.comp.)
//
// CASE 1: v[t+s] > v[t], ties to the lowest index: per subgroup the signed
// max, the lanes holding it, the unsigned min of their indices; the elected
// lane writes both slots; one barrier; the slots folded in order with the
// step's comparison. The tree's loop and its 7 barriers go.
// RUN: %waveopt %s -O -DCASE=1 --target=none --remarks=workgroup-reduce -o %t1.spv 2>&1 | %FileCheck %s --check-prefix=FIRE
// RUN: %spirv-val --target-env vulkan1.1 %t1.spv
// RUN: %spirv-dis %t1.spv | %FileCheck %s --check-prefix=REWRITE
// FIRE: applied ReducedPairTree in main: an arg-max pair tree over v and ix (6 steps, 7 barriers; ties go to the lowest index) becomes one shared slot per subgroup and one barrier
// REWRITE: OpGroupNonUniformSMax %int %uint_3 Reduce
// REWRITE: OpIEqual %bool
// REWRITE: OpSelect %uint {{.*}} %uint_4294967295
// REWRITE: OpGroupNonUniformUMin %uint %uint_3 Reduce
// REWRITE: OpGroupNonUniformElect
// REWRITE-COUNT-1: OpControlBarrier
// REWRITE-NOT: OpControlBarrier
//
// CASE 2: argmin, ties to the highest index, uint keys, int indices.
// RUN: %waveopt %s -O -DCASE=2 --target=none --remarks=workgroup-reduce -o %t2.spv 2>&1 | %FileCheck %s --check-prefix=FIRE2
// RUN: %spirv-dis %t2.spv | %FileCheck %s --check-prefix=REWRITE2
// FIRE2: applied ReducedPairTree in main: an arg-min pair tree over v and ix (6 steps, 7 barriers; ties go to the highest index) becomes one shared slot per subgroup and one barrier
// REWRITE2: OpGroupNonUniformUMin %uint %uint_3 Reduce
// REWRITE2: OpGroupNonUniformSMax %int %uint_3 Reduce
//
// CASE 3: float keys, ties to the lowest index: S0 and B0 stay, each
// invocation tests the 7 elements t mod 2^j (j = 0..6) for NaN, float max, the rank
// (bit-reversed position) as a third slot, 3 barriers.
// RUN: %waveopt %s -O -DCASE=3 --target=none --remarks=workgroup-reduce -o %t3.spv 2>&1 | %FileCheck %s --check-prefix=FIRE3
// RUN: %spirv-val --target-env vulkan1.1 %t3.spv
// RUN: %spirv-dis %t3.spv | %FileCheck %s --check-prefix=REWRITE3
// FIRE3: applied ReducedPairTree in main: an arg-max pair tree over v and ix (6 steps, 7 barriers; float keys, ties go to the lowest index) becomes a NaN test of 7 elements per invocation, one shared slot per subgroup and 3 barriers (the slots hold the tree's priority too)
// REWRITE3: %pair_rank_slots = OpVariable %_ptr_Workgroup__arr_uint_uint_64 Workgroup
// REWRITE3: OpControlBarrier
// REWRITE3-COUNT-7: OpIsNan
// REWRITE3: OpBitReverse
// REWRITE3: OpGroupNonUniformFMax %float %uint_3 Reduce
// REWRITE3: OpControlBarrier
// REWRITE3: OpGroupNonUniformElect
// REWRITE3: OpControlBarrier
// REWRITE3-NOT: OpControlBarrier
//
// CASE 4: ggml's spelling, `>` only: equal values keep the element already
// there, which the tree's shape orders (the rank slot), one barrier.
// RUN: %waveopt %s -O -DCASE=4 --target=none --remarks=workgroup-reduce -o %t4.spv 2>&1 | %FileCheck %s --check-prefix=FIRE4
// RUN: %spirv-val --target-env vulkan1.1 %t4.spv
// FIRE4: applied ReducedPairTree in main: an arg-max pair tree over v and ix (6 steps, 7 barriers; ties keep the element already there) becomes one shared slot per subgroup and one barrier (the slots hold the tree's priority too)
//
// The refusals, one per case.
// RUN: %waveopt %s -O -DCASE=5 --remarks-missed=workgroup-reduce -o %t5.spv 2>&1 | %FileCheck %s --check-prefix=FLOAT
// RUN: %waveopt %s -O -DCASE=6 --remarks-missed=workgroup-reduce -o %t6.spv 2>&1 | %FileCheck %s --check-prefix=COND
// RUN: %waveopt %s -O -DCASE=7 --remarks-missed=workgroup-reduce -o %t7.spv 2>&1 | %FileCheck %s --check-prefix=EFFECT
// RUN: %waveopt %s -O -DCASE=8 --remarks-missed=workgroup-reduce -o %t8.spv 2>&1 | %FileCheck %s --check-prefix=SPEC
// RUN: %waveopt %s -O -DCASE=9 --remarks-missed=workgroup-reduce -o %t9.spv 2>&1 | %FileCheck %s --check-prefix=PARTIAL
// RUN: %waveopt %s -O -DCASE=10 --remarks-missed=workgroup-reduce -o %t10.spv 2>&1 | %FileCheck %s --check-prefix=UNROLLED
// RUN: %waveopt %s -O -DCASE=11 --remarks-missed=workgroup-reduce -o %t11.spv 2>&1 | %FileCheck %s --check-prefix=COMPUTED
// RUN: %waveopt %s -O -DCASE=12 --remarks-missed=workgroup-reduce -o %t12.spv 2>&1 | %FileCheck %s --check-prefix=GUARD
// RUN: %waveopt %s -O -DCASE=13 --target=none --remarks-missed=workgroup-reduce -o %t13.spv 2>&1 | %FileCheck %s --check-prefix=COST
// RUN: %waveopt %s -O -DCASE=1 --target=none --emit=hlsl --remarks-missed=workgroup-reduce -o %t14.hlsl 2>&1 | %FileCheck %s --check-prefix=HLSL
// RUN: for i in 5 6 7 8 9 10 11 12 13; do %spirv-dis %t$i.spv | %FileCheck %s --check-prefix=UNCHANGED; done
// FLOAT: missed PairFloatKey in main: the step's float comparisons are not the ordered ones of `t < s && (v[t + s] > v[t] || (v[t + s] == v[t] && i[t + s] < i[t]))` (or <, or without the index), so a NaN orders otherwise: write them so [array v]
// COND: missed PairCondition in main: the step's condition is not `t < s && (v[t + s] > v[t] || (v[t + s] == v[t] && i[t + s] < i[t]))` (or with <, or >, for min or the highest index; an extra bound only as `t + s < n`, n a push constant or workgroup-uniform): write it so [array v]
// EFFECT: missed OtherWorkInTree in main: the code between the tree's barriers writes other memory (move that work before or after the tree) [array v]
// CASE 8: a specialization-constant size whose constant_id is unused (-O
// removes it): analysed at the size's own default, glslang's 1, which the
// tree's 64 elements do not fit (a size the kernel's own constant gives:
// pair_spec.comp).
// SPEC: missed TooFewSlots in main: the tree covers more elements than there are invocations, or an array has fewer elements than invocations (the slots need one per subgroup): size both to the workgroup [array v]
// PARTIAL: missed ReadsPartialValue in main: the arrays are accessed outside the tree other than by reading element 0 after it (read only the result, v[0] and i[0]) [array v]
// UNROLLED: missed PairTreeShape in main: the steps are not one loop right after the barrier, `for (uint s = N / 2; s > 0; s >>= 1) { if (t < s && ...) {...} barrier(); }` (write them so) [array v]
// COMPUTED: missed PairTreeShape in main: a step must copy both elements t + s of two shared arrays of scalars into elements t (`v[t] = v[t + s]; i[t] = i[t + s];`) in one block, and only those [array v]
// GUARD: missed PairCondition in main: the step's condition is not
// COST: missed NotProfitable in main: the tree has fewer than 4 barriers; the float pair form keeps 3 [array v]
// HLSL: missed NotExpressibleInHlsl in main: the output is HLSL, and the pair tree's slots need SubgroupId and NumSubgroups, which HLSL does not have: emit SPIR-V or GLSL [array v]
// UNCHANGED-NOT: OpGroupNonUniform
#version 450
#ifndef CASE
#define CASE 1
#endif
#if CASE == 8
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
#else
#define WG 64
layout(local_size_x = WG) in;
#endif
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
#if CASE == 2
shared uint v[64];
shared int ix[64];
#elif CASE == 3 || CASE == 5 || CASE == 13
shared float v[64];
shared uint ix[64];
#else
shared int v[64];
shared uint ix[64];
#endif

void main() {
  uint t = gl_LocalInvocationID.x;
  uint g = gl_GlobalInvocationID.x;
#if CASE == 2
  v[t] = data[g];
  ix[t] = int(t);
#elif CASE == 3 || CASE == 5 || CASE == 13
  v[t] = uintBitsToFloat(data[g]);
  ix[t] = t;
#else
  v[t] = int(data[g]);
  ix[t] = t;
#endif
  barrier();
#if CASE == 10
#define STEP(S)                                                              \
  if (t < S && (v[t + S] > v[t] || (v[t + S] == v[t] && ix[t + S] < ix[t]))) { \
    v[t] = v[t + S];                                                         \
    ix[t] = ix[t + S];                                                       \
  }                                                                          \
  barrier();
  STEP(32u) STEP(16u) STEP(8u) STEP(4u) STEP(2u) STEP(1u)
#else
#if CASE == 13
  for (uint s = 2; s > 0; s >>= 1) {              // 4 elements, 3 barriers
#else
  for (uint s = 32; s > 0; s >>= 1) {
#endif
#if CASE == 2
    if (t < s && (v[t + s] < v[t] || (v[t + s] == v[t] && ix[t + s] > ix[t]))) {
#elif CASE == 4
    if (t < s && v[t + s] > v[t]) {                 // ggml's argmax
#elif CASE == 5
    if (t < s && !(v[t + s] <= v[t])) {             // a NaN at t + s wins
#elif CASE == 6
    if (t < s && (v[t + s] > v[t] || ix[t + s] < ix[t])) {
#elif CASE == 12
    if (t <= s && (v[t + s] > v[t] || (v[t + s] == v[t] && ix[t + s] < ix[t]))) {
#else
    if (t < s && (v[t + s] > v[t] || (v[t + s] == v[t] && ix[t + s] < ix[t]))) {
#endif
      v[t] = v[t + s];
#if CASE == 11
      ix[t] = t + s;
#else
      ix[t] = ix[t + s];
#endif
#if CASE == 7
      result[g] = s;
#endif
    }
    barrier();
  }
#endif
#if CASE == 9
  result[g] = ix[0] + ix[1];
#elif CASE == 3 || CASE == 5 || CASE == 13
  result[g] = floatBitsToUint(v[0]) + ix[0];
#else
  result[g] = uint(v[0]) + ix[0];
#endif
}
