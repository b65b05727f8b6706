// Trees over the rows of arrays of arrays and over vector elements: the
// rewrite (every row's subgroup reduction, one election writing every
// row's slot, one barrier, one loop folding every row), and the refusals
// of what the pass cannot prove, one case each (the module is left as it
// was).
// RUN: %waveopt %s -O --target=none -DCASE=1 --pass-params=workgroup-reduce:form=generic --remarks=workgroup-reduce -o %t1.spv 2>&1 | %FileCheck %s --check-prefix=ROWS
// RUN: %spirv-dis %t1.spv | %FileCheck %s --check-prefix=ROWS-IR
// Each row's value stored right before the barrier (CASE 3): forwarded,
// one barrier remains (the slots').
// RUN: %waveopt %s -O --target=none -DCASE=3 --pass-params=workgroup-reduce:form=generic -o %t0.spv
// RUN: %spirv-dis %t0.spv | %FileCheck %s --check-prefix=FORWARD
// RUN: %waveopt %s -O --target=none -DCASE=2 --float-reassoc --pass-params=workgroup-reduce:form=generic --remarks=workgroup-reduce -o %t2.spv 2>&1 | %FileCheck %s --check-prefix=VEC
// RUN: %spirv-dis %t2.spv | %FileCheck %s --check-prefix=VEC-IR
// RUN: %waveopt %s -O --target=none -DCASE=2 --remarks-missed=workgroup-reduce -o %t3.spv 2>&1 | %FileCheck %s --check-prefix=VEC-FLOAT
// Rows counted by a specialization constant: rewritten for its default,
// the original kept behind `NROWS == 2`; a length computed from one
// (OpSpecConstantOp) is refused.
// RUN: %waveopt %s -O --target=none -DCASE=4 --remarks=workgroup-reduce -o %t10.spv 2>&1 | %FileCheck %s --check-prefix=SPEC
// RUN: %spirv-dis %t10.spv | %FileCheck %s --check-prefix=SPEC-IR
// RUN: %waveopt %s -O -DCASE=10 --remarks-missed=workgroup-reduce -o %t4.spv 2>&1 | %FileCheck %s --check-prefix=SPECOP
// RUN: %waveopt %s -O -DCASE=5 --remarks-missed=workgroup-reduce -o %t5.spv 2>&1 | %FileCheck %s --check-prefix=MANY
// RUN: %waveopt %s -O -DCASE=6 --remarks-missed=workgroup-reduce -o %t6.spv 2>&1 | %FileCheck %s --check-prefix=DIFFER
// A reader of row tid & 1: the row's result chosen by its index.
// RUN: %waveopt %s -O --target=none -DCASE=7 --remarks=workgroup-reduce -o %t11.spv 2>&1 | %FileCheck %s --check-prefix=SPANS
// RUN: %spirv-dis %t11.spv | %FileCheck %s --check-prefix=SPANS-IR
// RUN: %waveopt %s -O -DCASE=8 --remarks-missed=workgroup-reduce -o %t8.spv 2>&1 | %FileCheck %s --check-prefix=COMPONENT
// RUN: %waveopt %s -O -DCASE=9 --remarks-missed=workgroup-reduce -o %t9.spv 2>&1 | %FileCheck %s --check-prefix=MIXED
// RUN: for i in 3 4 5 6 8 9; do %spirv-dis %t$i.spv | %FileCheck %s --check-prefix=UNCHANGED; done
// ROWS: applied ReducedTree in main: an integer add tree over t (6 steps, 7 barriers, 3 reader(s), 3 rows) becomes one shared slot per subgroup and one barrier
// ROWS-IR: OpControlBarrier
// ROWS-IR: OpGroupNonUniformIAdd %uint %uint_3 Reduce
// ROWS-IR: OpGroupNonUniformIAdd %uint %uint_3 Reduce
// ROWS-IR: OpGroupNonUniformIAdd %uint %uint_3 Reduce
// ROWS-IR: OpControlBarrier
// ROWS-IR: OpGroupNonUniformElect
// ROWS-IR-COUNT-3: OpStore
// ROWS-IR: OpControlBarrier
// ROWS-IR: OpLoopMerge
// ROWS-IR-NOT: OpControlBarrier
// ROWS-IR: OpReturn
// FORWARD: OpGroupNonUniformIAdd %uint %uint_3 Reduce
// FORWARD: OpGroupNonUniformIAdd %uint %uint_3 Reduce
// FORWARD: OpGroupNonUniformElect
// FORWARD: OpControlBarrier
// FORWARD-NOT: OpControlBarrier
// VEC: applied ReducedTree in main: a float add tree over t (6 steps, 7 barriers, 2 reader(s)) becomes one shared slot per subgroup and one barrier
// VEC-IR: OpGroupNonUniformFAdd %v4float %uint_3 Reduce
// VEC-FLOAT: missed FloatReassociation in main: a float add tree
// SPEC: applied ReducedTree in main: an integer add tree over t (6 steps, 7 barriers, 2 reader(s), 2 rows) becomes {{.*}}; other row counts than constant 1 = 2 keep the original
// SPEC-IR: %[[IS:[0-9]+]] = OpIEqual %bool %NROWS %uint_2
// SPEC-IR: OpLogicalAnd %bool {{%[a-z0-9_]+}} %[[IS]]
// SPECOP: missed UnknownRowCount in main: an outer length of the array is neither a constant nor one specialization constant of a nonzero default: give it one [array t]
// MANY: missed TooManyRows in main: the array has more than 64 rows (the outer levels' lengths multiplied): reduce fewer rows per tree [array t]
// DIFFER: missed RowsDiffer in main: row 1 is reduced by another tree than row 0 (other steps, operation, result element or end): one tree for every row [array t]
// SPANS: applied ReducedTree in main: an integer add tree over t (6 steps, 7 barriers, 1 reader(s), 2 rows)
// SPANS-IR: %[[ROW:[0-9]+]] = OpIEqual %bool %{{[0-9]+}} %uint_0
// SPANS-IR: OpSelect %uint %[[ROW]]
// COMPONENT: missed PartialElementWrite in main: one component of a vector element is written (vector elements are reduced whole): write whole elements [array t]
// MIXED: missed ReadsPartialValue in main: row 0: a load reads an element holding a partial result of the tree (or an element the tree leaves out) [array t]
// UNCHANGED-NOT: OpGroupNonUniform
#version 450
#ifndef CASE
#define CASE 1
#endif
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
layout(constant_id = 1) const uint NROWS = 2;

#if CASE == 1
shared uint t[3][64];
#define AT(k, i) t[k][i]
#define ROWS 3
#elif CASE == 2
shared vec4 t[64];
#elif CASE == 4
shared uint t[NROWS][64];
#define AT(k, i) t[k][i]
#define ROWS NROWS
#elif CASE == 10
shared uint t[NROWS + 1u][64];
#define AT(k, i) t[k][i]
#define ROWS NROWS
#elif CASE == 5
shared uint t[5][13][64];
#define AT(k, i) t[(k) / 13u][(k) % 13u][i]
#define ROWS 65
#elif CASE == 8
shared uvec2 t[64];
#else
shared uint t[2][64];
#define AT(k, i) t[k][i]
#define ROWS 2
#endif

void main() {
  uint tid = gl_LocalInvocationID.x;
  uint d = data[gl_GlobalInvocationID.x];
#if CASE == 2
  t[tid] = vec4(float(d & 7u), 1.0, 2.0, float(d >> 29));
#elif CASE == 8
  t[tid] = uvec2(d, d >> 3u);
#elif CASE == 3
  t[0][tid] = d;
  t[1][tid] = d >> 1u;
#else
  for (uint k = 0u; k < ROWS; ++k) AT(k, tid) = d >> k;
#endif
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (tid < s) {
#if CASE == 2
      t[tid] += t[tid + s];
#elif CASE == 6
      t[0][tid] += t[0][tid + s];   // row 1 takes the maximum
      t[1][tid] = max(t[1][tid], t[1][tid + s]);
#elif CASE == 8
      t[tid].x += t[tid + s].x;
      t[tid].y += t[tid + s].y;
#elif CASE == 9
      t[0][tid] += t[0][tid + s];   // row 1 adds row 0's element (read
                                    // by row 0's tree meanwhile)
      t[1][tid] += t[0][tid + s];
#else
      for (uint k = 0u; k < ROWS; ++k) AT(k, tid) += AT(k, tid + s);
#endif
    }
    barrier();
  }
  uint g = gl_GlobalInvocationID.x;
#if CASE == 1
  result[g] = t[0][0] + t[1][0] * 3u + t[2][0] * 5u;
#elif CASE == 2
  result[g] = floatBitsToUint(t[0].x) ^ floatBitsToUint(t[0][3]);
#elif CASE == 5
  result[g] = t[0][0][0] ^ t[4][12][0];
#elif CASE == 7
  result[g] = t[gl_LocalInvocationID.x & 1u][0];
#elif CASE == 8
  result[g] = t[0].x ^ t[0].y;
#else
  result[g] = t[0][0] ^ t[1][0];
#endif
}
