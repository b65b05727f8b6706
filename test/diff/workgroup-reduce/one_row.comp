// A tree over an array of arrays with one row: `shared uint t[1][64]`, or
// rows counted by specialization constants whose defaults are 1 (ggml's
// mul_mat_vec: NUM_ROWS = NUM_COLS = 1). The rewrite goes through the rows
// form (it indexes every level); it took the plain form's one index and
// made an invalid module. Compared with the original at 4, 8, 16
// (lavapipe) and 32, 64 (the simulator).
//   SPEC    t[NCOLS][NROWS][64], both constants 1 by default; the other
//           run sets NROWS to 2 (the original runs)
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DSPEC" --waverun="-DSPEC" 2>&1 | %FileCheck %s --check-prefix=SPEC
// RUN: %diff %s --waveopt-flags="-O --target=none -DSPEC" --waverun="-DSPEC -s 'const 1 = 2'" 2>&1 | %FileCheck %s --check-prefix=OTHER
// CHECK: applied ReducedTree in main: an integer add tree over t (6 steps, 7 barriers, 1 reader(s)) becomes
// CHECK: PASS: equal at sizes 4,8,16,32,64
// SPEC: applied ReducedTree in main: an integer add tree over t (6 steps, 7 barriers, 1 reader(s)) becomes {{.*}}; other row counts than constant 2 = 1, constant 1 = 1 keep the original
// SPEC: PASS: equal at sizes 4,8,16,32,64
// OTHER: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
#ifdef SPEC
layout(constant_id = 1) const uint NROWS = 1;
layout(constant_id = 2) const uint NCOLS = 1;
shared uint t[NCOLS][NROWS][64];
#else
shared uint t[1][64];
#endif

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint g = gl_GlobalInvocationID.x;
  const uint d = data[g % 2048u] & 1023u;
#ifdef SPEC
  for (uint c = 0u; c < NCOLS; ++c) {
    for (uint r = 0u; r < NROWS; ++r) t[c][r][tid] = d + r;
  }
#else
  t[0][tid] = d;
#endif
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (tid < s) {
#ifdef SPEC
      for (uint c = 0u; c < NCOLS; ++c) {
        for (uint r = 0u; r < NROWS; ++r) t[c][r][tid] = t[c][r][tid] + t[c][r][tid + s];
      }
#else
      t[0][tid] += t[0][tid + s];
#endif
    }
    barrier();
  }
#ifdef SPEC
  uint acc = 0u;
  for (uint c = 0u; c < NCOLS; ++c) {
    for (uint r = 0u; r < NROWS; ++r) acc = acc * 31u + t[c][r][0];
  }
  result[g] = acc;
#else
  result[g] = t[0][0] + tid;
#endif
}
