// workgroup-reduce on pair trees whose step has an extra uniform bound,
// `t < s && t + s < n`: elements from n on take no part (element 0 always
// does). (Run at every width: test/diff/workgroup-reduce/argmax_bound.comp.)
//
// CASE 1: n a push constant, loaded in the step: loaded again before the
// subgroup reductions, the contribution `t < n || t == 0`.
// RUN: %waveopt %s -O -DCASE=1 --target=none --remarks=workgroup-reduce -o %t1.spv 2>&1 | %FileCheck %s --check-prefix=FIRE
// RUN: %spirv-val --target-env vulkan1.1 %t1.spv
// RUN: %spirv-dis %t1.spv | %FileCheck %s --check-prefix=REWRITE
// FIRE: applied ReducedPairTree in main: an arg-max pair tree over v and ix (6 steps, 7 barriers; ties go to the lowest index; elements from a uniform bound on take no part) becomes one shared slot per subgroup and one barrier
// REWRITE: OpLoad %uint {{%[0-9]+}}
// REWRITE: %[[BELOW:[0-9]+]] = OpULessThan %bool %{{[0-9]+}} %{{[0-9]+}}
// REWRITE: %[[FIRST:[0-9]+]] = OpIEqual %bool %{{[0-9]+}} %uint_0
// REWRITE: OpLogicalOr %bool %[[BELOW]] %[[FIRST]]
// REWRITE: OpGroupNonUniformSMax %int %uint_3 Reduce
// REWRITE-COUNT-1: OpControlBarrier
// REWRITE-NOT: OpControlBarrier
//
// CASE 2: n made before B0 from the workgroup id (workgroup-uniform), an
// int s and nested ifs.
// RUN: %waveopt %s -O -DCASE=2 --target=none --remarks=workgroup-reduce -o %t2.spv 2>&1 | %FileCheck %s --check-prefix=FIRE2
// RUN: %spirv-val --target-env vulkan1.1 %t2.spv
// FIRE2: applied ReducedPairTree in main: an arg-max pair tree over v and ix (6 steps, 7 barriers; ties go to the lowest index; elements from a uniform bound on take no part) becomes one shared slot per subgroup and one barrier
//
// CASE 7, 8: the steps as `while (s > 0) {...; s /= 2;}` and as
// `do {...; s >>= 1;} while (s > 0)` (the first step, s = 32, runs either
// way): the same tree.
// RUN: %waveopt %s -O -DCASE=7 --target=none --remarks=workgroup-reduce -o %t7.spv 2>&1 | %FileCheck %s --check-prefix=FIRE
// RUN: %waveopt %s -O -DCASE=8 --target=none --remarks=workgroup-reduce -o %t8.spv 2>&1 | %FileCheck %s --check-prefix=FIRE
// RUN: %spirv-val --target-env vulkan1.1 %t8.spv
//
// Refused, the module unchanged: n from a storage buffer (other invocations
// may write it: not provably the same in every step), n that differs
// between invocations, the bound on t alone (t < n: not t + s), and two
// bounds.
// RUN: %waveopt %s -O -DCASE=3 --remarks-missed=workgroup-reduce -o %t3.spv 2>&1 | %FileCheck %s --check-prefix=COND
// RUN: %waveopt %s -O -DCASE=4 --remarks-missed=workgroup-reduce -o %t4.spv 2>&1 | %FileCheck %s --check-prefix=COND
// RUN: %waveopt %s -O -DCASE=5 --remarks-missed=workgroup-reduce -o %t5.spv 2>&1 | %FileCheck %s --check-prefix=COND
// RUN: %waveopt %s -O -DCASE=6 --remarks-missed=workgroup-reduce -o %t6.spv 2>&1 | %FileCheck %s --check-prefix=COND
// RUN: for i in 3 4 5 6; do %spirv-dis %t$i.spv | %FileCheck %s --check-prefix=UNCHANGED; done
// // COND: missed PairCondition in main: the step's condition is not `t < s && (v[t + s] > v[t] || (v[t + s] == v[t] && i[t + s] < i[t]))` (or with <, or >, for min or the highest index; an extra bound only as `t + s < n`, n a push constant or workgroup-uniform): write it so [array v]
// UNCHANGED-NOT: OpGroupNonUniform
#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint limit; uint other; } pc;
layout(set = 0, binding = 0) buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
shared int v[64];
shared uint ix[64];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint g = gl_GlobalInvocationID.x;
  uint n = gl_WorkGroupID.x * 5u + 3u;   // CASE 2
  uint m = t * 3u;                       // CASE 4
  v[t] = int(data[g]);
  ix[t] = t;
  barrier();
#if CASE == 2
  for (int s = 32; s > 0; s >>= 1) {
    if (t < s && t + s < n) {
      if (v[t + s] > v[t] || (v[t + s] == v[t] && ix[t + s] < ix[t])) {
        v[t] = v[t + s];
        ix[t] = ix[t + s];
      }
    }
    barrier();
  }
#else
#if CASE == 7
  uint s = 32u;
  while (s > 0u) {
#elif CASE == 8
  uint s = 32u;
  do {
#else
  for (uint s = 32; s > 0; s >>= 1) {
#endif
#if CASE == 1 || CASE == 7 || CASE == 8
    if (t < s && t + s < pc.limit &&
#elif CASE == 3
    if (t < s && t + s < data[0] &&
#elif CASE == 4
    if (t < s && t + s < m &&
#elif CASE == 5
    if (t < s && t < pc.limit &&
#else
    if (t < s && t + s < pc.limit && t + s < pc.other &&
#endif
        (v[t + s] > v[t] || (v[t + s] == v[t] && ix[t + s] < ix[t]))) {
      v[t] = v[t + s];
      ix[t] = ix[t + s];
    }
    barrier();
#if CASE == 7
    s /= 2u;
  }
#elif CASE == 8
    s >>= 1;
  } while (s > 0u);
#else
  }
#endif
#endif
  result[g] = uint(v[0]) + ix[0];
}
