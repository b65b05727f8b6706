// A tree whose result one invocation reads after uniform branches that
// add to it in the array (ggml's mul_mat_vec: `if ((p.fusion_flags &
// BIAS0) != 0) tmpsh[j][n][0] += bias;` before `data_d[...] =
// tmpsh[j][n][0]`). Which load reads the tree's result depends on the push
// constant, so the loads stay and invocation 0 stores the result back.
// The rows are counted by specialization constants whose defaults are 1,
// as ggml's. 16 invocations: one subgroup at 16 (lavapipe), 32 and 64 (the
// simulator), where the rewrite runs; at 4 and 8 the original runs.
// Compared with the original for every value of the two flags.
//   PLAIN   shared uint t[16] instead of t[NCOLS][NROWS][16]
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce" --waverun="-s 'push words=0'" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none" --waverun="-s 'push words=1'" 2>&1 | %FileCheck %s --check-prefix=EQUAL
// RUN: %diff %s --waveopt-flags="-O --target=none" --waverun="-s 'push words=2'" 2>&1 | %FileCheck %s --check-prefix=EQUAL
// RUN: %diff %s --waveopt-flags="-O --target=none" --waverun="-s 'push words=3' -s 'const 1 = 2'" 2>&1 | %FileCheck %s --check-prefix=EQUAL
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DPLAIN" --waverun="-DPLAIN -s 'push words=3'" 2>&1 | %FileCheck %s --check-prefix=PLAIN
// CHECK: applied ReducedTree in main: an integer add tree over t (4 steps, 5 barriers, 3 reader(s)) becomes {{.*}}; its result stored back for invocation 0, whose later loads uniform branches decide; other row counts than constant 2 = 1, constant 1 = 1 keep the original
// CHECK: PASS: equal at sizes 4,8,16,32,64
// EQUAL: PASS: equal at sizes 4,8,16,32,64
// PLAIN: applied ReducedTree in main: an integer add tree over t (4 steps, 5 barriers, 3 reader(s)) becomes {{.*}}; its result stored back for invocation 0, whose later loads uniform branches decide
// PLAIN: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 16) in;
layout(push_constant) uniform Push { uint flags; } p;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) readonly buffer Bias { uint bias[]; };
layout(set = 0, binding = 2) writeonly buffer Out { uint result[]; };
#ifdef PLAIN
shared uint t[16];
#define T(c, r, i) t[i]
#define NCOLS 1u
#define NROWS 1u
#else
layout(constant_id = 1) const uint NROWS = 1;
layout(constant_id = 2) const uint NCOLS = 1;
shared uint t[NCOLS][NROWS][16];
#define T(c, r, i) t[c][r][i]
#endif

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint g = gl_GlobalInvocationID.x;
  const uint w = gl_WorkGroupID.x;
  for (uint c = 0u; c < NCOLS; ++c) {
    for (uint r = 0u; r < NROWS; ++r) T(c, r, tid) = (data[g % 2048u] >> r) & 1023u;
  }
  barrier();
  for (uint s = 8u; s > 0u; s >>= 1u) {
    if (tid < s) {
      for (uint c = 0u; c < NCOLS; ++c) {
        for (uint r = 0u; r < NROWS; ++r) T(c, r, tid) = T(c, r, tid) + T(c, r, tid + s);
      }
    }
    barrier();
  }
  if (tid == 0u) {
    for (uint c = 0u; c < NCOLS; ++c) {
      for (uint r = 0u; r < NROWS; ++r) {
        if ((p.flags & 1u) != 0u) T(c, r, 0) += bias[(g + r) % 64u];
        if ((p.flags & 2u) != 0u) T(c, r, 0) += 3u * bias[(g + c + 7u) % 64u];
        result[(w * NCOLS + c) * NROWS + r] = T(c, r, 0);
      }
    }
  }
}
