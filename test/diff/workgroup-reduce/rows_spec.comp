// Trees over rows counted by specialization constants
// (`shared uint t[NCOLS][NROWS][N]`, the rows' loops bounded by them):
// rewritten for the constants' defaults, the original kept behind
// `NROWS == 3 && NCOLS == 2` for every other value. Compared with the
// original at 4, 8, 16 (lavapipe) and 32, 64 (the simulator), with the
// defaults (the rewrite runs) and with other row counts (the original
// runs, and must still be right).
//   OP=MAX  the maximum (default: the sum)
//   SPANS   each invocation reads one row's result, the row chosen by its
//           index (t[tid % NCOLS][tid / 2 % NROWS][0])
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none -DOP=MAX" --waverun="-DOP=MAX -s 'const 1 = 4'" 2>&1 | %FileCheck %s --check-prefix=OTHER
// SPANS after spirv-opt -O (waveopt -O's own SSA form keeps a value of the
// tree's loop that is used after it: ValueEscapesTree).
// RUN: %diff %s --spirv-opt-O --glslang-defines="-DSPANS" --waveopt-flags="--workgroup-reduce --remarks=workgroup-reduce" --waverun="-DSPANS" 2>&1 | %FileCheck %s --check-prefix=SPANS
// CHECK: applied ReducedTree in main: an integer add tree over t (6 steps, 7 barriers, 1 reader(s), 6 rows) becomes {{.*}}; other row counts than constant 2 = 2, constant 1 = 3 keep the original
// CHECK: PASS: equal at sizes 4,8,16,32,64
// OTHER: PASS: equal at sizes 4,8,16,32,64
// SPANS: applied ReducedTree in main {{.*}} (6 steps, 7 barriers, 1 reader(s), 6 rows)
// SPANS: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 64) in;
layout(constant_id = 1) const uint NROWS = 3;
layout(constant_id = 2) const uint NCOLS = 2;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
shared uint t[NCOLS][NROWS][64];
#ifdef OP
#define COMBINE(a, b) max(a, b)
#else
#define COMBINE(a, b) ((a) + (b))
#endif

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint g = gl_GlobalInvocationID.x;
  const uint d = data[g % 2048u];
  for (uint c = 0u; c < NCOLS; ++c) {
    for (uint r = 0u; r < NROWS; ++r) t[c][r][tid] = (d >> (c * 5u + r)) & 1023u;
  }
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (tid < s) {
      for (uint c = 0u; c < NCOLS; ++c) {
        for (uint r = 0u; r < NROWS; ++r) {
          t[c][r][tid] = COMBINE(t[c][r][tid], t[c][r][tid + s]);
        }
      }
    }
    barrier();
  }
#ifdef SPANS
  result[g] = t[tid % NCOLS][tid / 2u % NROWS][0];
#else
  uint acc = 0u;
  for (uint c = 0u; c < NCOLS; ++c) {
    for (uint r = 0u; r < NROWS; ++r) acc = acc * 31u + t[c][r][0];
  }
  result[g] = acc;
#endif
}
