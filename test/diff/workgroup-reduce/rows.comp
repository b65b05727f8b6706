// Reduction trees over the rows of shared arrays of arrays and over vector
// elements, compared with the original at subgroup sizes 4, 8, 16
// (lavapipe) and 32, 64 (the simulator). Every row is reduced in the same
// loop under the same barriers; each invocation writes every row's result
// (plus its index) into its own output words.
//   SHAPE  2: t[2][WG] (2 rows); 3: t[2][3][WG] (6 rows); 4: a vec4 t[WG]
//          (one row of vector elements, read by component and whole)
//   OP     ADD MAX (integer), FADD FMAX (float, with --float-reassoc;
//          inputs are small integers, so every order of the sum is exact)
//   WG     workgroup size (a power of two, or 48: partial subgroups)
//   PARTIAL  the tree covers the first half of the workgroup only
//   FIRST  only invocation 0 reads the results (ggml's mul_mat_vec)
//   STORE  the values are stored right before the barrier (else summed
//          into the array first)
//   SPEC   the workgroup size is specialization constant 0 (= WG)
//   FRAC   float fractions, written as floats (for an ulp compare)
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DOP=MAX -DWG=48" --waverun="-DOP=MAX -DWG=48" 2>&1 | %FileCheck %s --check-prefix=ROWS2
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DSHAPE=3 -DSTORE -DWG=128" --waverun="-DSHAPE=3 -DSTORE -DWG=128" 2>&1 | %FileCheck %s --check-prefix=ROWS6
// RUN: %diff %s --waveopt-flags="-O --target=none --float-reassoc --remarks=workgroup-reduce -DSHAPE=3 -DOP=FADD -DPARTIAL -DFIRST" --waverun="-DSHAPE=3 -DOP=FADD -DPARTIAL -DFIRST" 2>&1 | %FileCheck %s --check-prefix=ROWS6
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DSHAPE=4" --waverun="-DSHAPE=4" 2>&1 | %FileCheck %s --check-prefix=VEC
// RUN: %diff %s --waveopt-flags="-O --target=none --float-reassoc --remarks=workgroup-reduce -DSHAPE=4 -DSTORE -DOP=FMAX -DPARTIAL -DWG=128" --waverun="-DSHAPE=4 -DSTORE -DOP=FMAX -DPARTIAL -DWG=128" 2>&1 | %FileCheck %s --check-prefix=VEC
// Fractions (FRAC: float outputs, no index added): sums in another
// order round differently, compared within 16 units in the last place.
// RUN: %diff %s --waveopt-flags="-O --target=none --float-reassoc --remarks=workgroup-reduce -DSHAPE=3 -DSTORE -DOP=FADD -DFRAC" --waverun="-DSHAPE=3 -DSTORE -DOP=FADD -DFRAC --ulp=16" 2>&1 | %FileCheck %s --check-prefix=ROWS6
// A specialization-constant size: the original stays behind the test.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DSHAPE=3 -DSPEC" --waverun="-DSHAPE=3 -DSPEC -s 'const 0 = 128'" 2>&1 | %FileCheck %s --check-prefix=SPEC
// After glslang and spirv-opt -O (the row loops unrolled).
// RUN: %diff %s --spirv-opt-O --glslang-defines="-DSHAPE=3 -DOP=MAX" --waveopt-flags="--workgroup-reduce --remarks=workgroup-reduce" 2>&1 | %FileCheck %s --check-prefix=ROWS6
// The single-subgroup form under a promise (run only where it holds; the
// run-time test is the 48-invocation case above).
// RUN: %diff %s --waveopt-flags="-O --target=none --subgroup-size=64 --remarks=workgroup-reduce -DWG=64" --waverun="-DWG=64" --widths= --sim-widths=64 2>&1 | %FileCheck %s --check-prefix=SINGLE
// ROWS2: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} tree over t ({{.*}}, 2 rows) becomes {{.*}}one shared slot per subgroup
// ROWS2: PASS: equal at sizes 4,8,16,32,64
// ROWS6: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} tree over t ({{.*}}, 6 rows) becomes {{.*}}one shared slot per subgroup
// ROWS6: PASS: equal at sizes 4,8,16,32,64
// SPEC: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}}, 6 rows) becomes {{.*}}; other workgroup sizes than powers of two up to 1024 keep the original
// SPEC: PASS: equal at sizes 4,8,16,32,64
// VEC: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} tree over t
// VEC: PASS: equal at sizes 4,8,16,32,64
// SINGLE: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}}, 2 rows) becomes one subgroup reduction, no shared memory
// SINGLE: PASS: equal at sizes
#version 450
#ifndef WG
#define WG 256
#endif
#ifndef SHAPE
#define SHAPE 2
#endif
#ifndef OP
#define OP ADD
#endif
#define ADD 1
#define MAX 4
#define FADD 8
#define FMAX 10
#define IS_FLOAT (OP == FADD || OP == FMAX)

#ifdef SPEC
// As ggml: the size is a specialization constant (powers of two take the
// rewrite, other sizes the original kept behind the test).
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint BLOCK = WG;
#else
layout(local_size_x = WG) in;
#define BLOCK WG
#endif
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
#ifdef FRAC
layout(set = 0, binding = 1) writeonly buffer Out { float result[]; };
#else
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
#endif

#if IS_FLOAT
#define T float
#define T4 vec4
#define BITS(x) floatBitsToUint(x)
#else
#define T uint
#define T4 uvec4
#define BITS(x) (x)
#endif

// The next power of two of WG (48: 64, with the guard tid + s < WG).
#if WG == 48
#define NP2 64
#else
#define NP2 WG
#endif
#ifdef SPEC
#define TOP BLOCK
#elif defined(PARTIAL)
#define TOP (NP2 / 2)
#else
#define TOP NP2
#endif

#if SHAPE == 2
#define ROWS 2
shared T t[2][BLOCK];
#define AT(k, i) t[k][i]
#elif SHAPE == 3
#define ROWS 6
shared T t[2][3][BLOCK];
#define AT(k, i) t[(k) / 3u][(k) % 3u][i]
#else
#define ROWS 4
shared T4 t[BLOCK];
#endif

#if OP == ADD || OP == FADD
#define combine(a, b) ((a) + (b))
#else
#define combine(a, b) max(a, b)
#endif

// Row k's value of invocation tid (a macro: waveopt -O inlines only the
// functions called in loops, and a call between the stores and the
// barrier keeps them from being forwarded).
#if defined(FRAC)
#define value(d, k) (float(((d) >> ((k) * 3u)) % 100000u) / 99991.0)
#elif IS_FLOAT
#define value(d, k) (float(((d) >> ((k) * 3u)) % 1000u) - 300.0)
#else
#define value(d, k) (((d) >> (k)) - 1000000u)
#endif

// (gl_LocalInvocationID, not tid: the raw form carries tid through the
// row loop in a phi, a value of the tree used after it.)
#ifdef FRAC
#define OUT(k, v) result[g * ROWS + (k)] = (v);
#else
#define OUT(k, v) result[g * ROWS + (k)] = BITS(v) + gl_LocalInvocationID.x;
#endif

void main() {
  uint tid = gl_LocalInvocationID.x;
  uint g = gl_WorkGroupID.x * BLOCK + tid;
  uint d = data[g];
#if SHAPE == 4
  T4 v = T4(value(d, 0u), value(d, 1u), value(d, 2u), value(d, 3u));
#ifdef STORE
  t[tid] = v;
#else
  t[tid] = T4(0);
  for (uint i = 0u; i < 2u; ++i) t[tid] += v;
#endif
#elif defined(STORE)
  // One store per row right before the barrier: forwarded.
  AT(0u, tid) = value(d, 0u);
  AT(1u, tid) = value(d, 1u);
#if ROWS > 2
  AT(2u, tid) = value(d, 2u);
  AT(3u, tid) = value(d, 3u);
  AT(4u, tid) = value(d, 4u);
  AT(5u, tid) = value(d, 5u);
#endif
#else
  for (uint k = 0u; k < ROWS; ++k) AT(k, tid) = value(d, k);
#endif
  barrier();
  for (uint s = TOP / 2u; s > 0u; s >>= 1u) {
    if (tid < s && tid + s < BLOCK) {
#if SHAPE == 4
      t[tid] = combine(t[tid], t[tid + s]);
#else
      for (uint k = 0u; k < ROWS; ++k) AT(k, tid) = combine(AT(k, tid), AT(k, tid + s));
#endif
    }
    barrier();
  }
#ifdef FIRST
  if (gl_LocalInvocationID.x == 0u) {
#endif
#if SHAPE == 4
  OUT(0u, t[0].x) OUT(1u, t[0][1]) OUT(2u, t[0].z)
  T4 w = t[0];
  OUT(3u, w.w)
#else
  OUT(0u, AT(0u, 0u)) OUT(1u, AT(1u, 0u))
#if ROWS > 2
  OUT(2u, AT(2u, 0u)) OUT(3u, AT(3u, 0u)) OUT(4u, AT(4u, 0u)) OUT(5u, AT(5u, 0u))
#endif
#endif
#ifdef FIRST
  }
#endif
}
