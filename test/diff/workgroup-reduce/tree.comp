// Reduction trees over a shared array, every operation and form, compared
// with the original at subgroup sizes 4, 8, 16 (lavapipe) and 32, 64 (the
// simulator). Every invocation reads the result (all are readers) and
// writes it with its own index into its own output element.
//   OP    ADD MUL MIN MAX AND OR XOR (integer), FADD FMIN FMAX (float, with
//         float-reassoc; inputs are small integers, so every order of the
//         sum is exact)
//   TYPE  uint (default) or int (signed min/max)
//   WG    workgroup size; the tree covers NP2 (the next power of two) with
//         the guard tid + s < WG when WG is not a power of two
//   UNROLLED  the steps written out instead of the loop
//   ACCUMULATE  the values summed into the array first (no store right
//         before the barrier: the rewrite loads each element)
//   SPEC  the workgroup size is specialization constant 0 (= WG)
//   PARTIAL  the tree covers the first half of the workgroup only
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DOP=MIN" --waverun="-DOP=MIN" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DOP=MAX -DTYPE=int" --waverun="-DOP=MAX -DTYPE=int" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DOP=MIN -DTYPE=int -DWG=32" --waverun="-DOP=MIN -DTYPE=int -DWG=32" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DOP=AND" --waverun="-DOP=AND" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DOP=OR -DWG=128" --waverun="-DOP=OR -DWG=128" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DOP=XOR -DWG=16" --waverun="-DOP=XOR -DWG=16" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DOP=MUL -DWG=8" --waverun="-DOP=MUL -DWG=8" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --float-reassoc --remarks=workgroup-reduce -DOP=FADD" --waverun="-DOP=FADD" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --float-reassoc --remarks=workgroup-reduce -DOP=FMIN -DWG=256" --waverun="-DOP=FMIN -DWG=256" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --pass-params=workgroup-reduce:float-reassoc --remarks=workgroup-reduce -DOP=FMAX -DUNROLLED" --waverun="-DOP=FMAX -DUNROLLED" 2>&1 | %FileCheck %s
// Sizes from 4 to 1024, unrolled, accumulated, not a power of two (and so
// not a multiple of the larger subgroup sizes), a tree over half the
// workgroup (the other half contributes the identity).
// RUN: %diff %s --waveopt-flags="-O --target=none --pass-params=workgroup-reduce:always --remarks=workgroup-reduce -DWG=4" --waverun="-DWG=4" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DWG=1024" --waverun="-DWG=1024" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DWG=512 -DUNROLLED -DOP=MAX" --waverun="-DWG=512 -DUNROLLED -DOP=MAX" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DACCUMULATE -DWG=256" --waverun="-DACCUMULATE -DWG=256" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DWG=48" --waverun="-DWG=48" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DWG=12 -DOP=MIN" --waverun="-DWG=12 -DOP=MIN" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DWG=200 -DUNROLLED" --waverun="-DWG=200 -DUNROLLED" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DWG=96 -DPARTIAL -DOP=MAX" --waverun="-DWG=96 -DPARTIAL -DOP=MAX" 2>&1 | %FileCheck %s
// A specialization-constant size (ggml's BLOCK_SIZE): powers of two take
// the rewrite, other sizes the original kept behind the test.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DSPEC" --waverun="-DSPEC -s 'const 0 = 256'" 2>&1 | %FileCheck %s --check-prefix=SPEC
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DSPEC -DUNROLLED" --waverun="-DSPEC -DUNROLLED -s 'const 0 = 1024'" 2>&1 | %FileCheck %s --check-prefix=SPEC
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DSPEC -DOP=MIN" --waverun="-DSPEC -DOP=MIN -s 'const 0 = 48'" 2>&1 | %FileCheck %s --check-prefix=SPEC
// After glslang and spirv-opt -O (the unrolled steps, the loop, the
// specialization constant).
// RUN: %diff %s --spirv-opt-O --glslang-defines="-DUNROLLED -DOP=MAX -DWG=256" --waveopt-flags="--workgroup-reduce --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// RUN: %diff %s --spirv-opt-O --glslang-defines="-DOP=XOR -DWG=1024" --waveopt-flags="--workgroup-reduce --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// RUN: %diff %s --spirv-opt-O --glslang-defines="-DSPEC -DOP=MIN" --waveopt-flags="--workgroup-reduce --remarks=workgroup-reduce" --waverun="-s 'const 0 = 512'" 2>&1 | %FileCheck %s --check-prefix=SPEC
// The forms: generic only, the run-time one-subgroup test, and the
// single-subgroup form under a promise (run only where the promise holds).
// RUN: %diff %s --waveopt-flags="-O --target=none --pass-params=workgroup-reduce:form=generic --remarks=workgroup-reduce -DWG=32" --waverun="-DWG=32" 2>&1 | %FileCheck %s --check-prefix=GENERIC
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DWG=64" --waverun="-DWG=64" 2>&1 | %FileCheck %s --check-prefix=RUNTIME
// RUN: %diff %s --waveopt-flags="-O --target=none --subgroup-size=64 --remarks=workgroup-reduce -DWG=64" --waverun="-DWG=64" --widths= --sim-widths=64 2>&1 | %FileCheck %s --check-prefix=SINGLE
// RUN: %diff %s --waveopt-flags="-O --assume-driver=radv --remarks=workgroup-reduce -DWG=32 -DOP=MIN" --waverun="-DWG=32 -DOP=MIN" --widths= --sim-widths=32,64 2>&1 | %FileCheck %s --check-prefix=SINGLE
// The folds of the slots: fold=serial (every invocation reads every slot;
// with one slot more where lavapipe rounds NumSubgroups down: 200
// invocations), and the RADV profile (the serial fold up to 256
// invocations, NumSubgroups as reported, no lavapipe correction: 200
// invocations run on the simulator only, which counts subgroups as RADV
// does, and leave a partial subgroup at 32 and 64; 256 and 64 are
// multiples of every lavapipe size; 64 takes the run-time test with the
// serial fold behind it).
// RUN: %diff %s --waveopt-flags="-O --target=none --pass-params=workgroup-reduce:fold=serial --remarks=workgroup-reduce -DWG=200" --waverun="-DWG=200" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --assume-driver=radv --remarks=workgroup-reduce -DWG=200" --waverun="-DWG=200" --widths= --sim-widths=32,64 2>&1 | %FileCheck %s --check-prefix=RADV
// RUN: %diff %s --waveopt-flags="-O --assume-driver=radv --remarks=workgroup-reduce -DWG=256 -DOP=MAX" --waverun="-DWG=256 -DOP=MAX" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --assume-driver=radv --remarks=workgroup-reduce -DWG=64 -DOP=AND" --waverun="-DWG=64 -DOP=AND" 2>&1 | %FileCheck %s --check-prefix=RUNTIME
// CHECK: applied ReducedTree in main
// CHECK: PASS: equal at sizes 4,8,16,32,64
// SPEC: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}}; other workgroup sizes than powers of two up to 1024 keep the original
// SPEC: PASS: equal at sizes 4,8,16,32,64
// GENERIC: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} becomes one shared slot per subgroup and one barrier
// GENERIC: PASS: equal at sizes 4,8,16,32,64
// RUNTIME: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} (NumSubgroups == 1), else one shared slot per subgroup
// RUNTIME: PASS: equal at sizes 4,8,16,32,64
// SINGLE: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} becomes one subgroup reduction, no shared memory
// SINGLE: PASS: equal at sizes
// RADV: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} becomes one shared slot per subgroup and one barrier
// RADV: PASS: equal at sizes 32,64
#version 450
#ifndef WG
#define WG 64
#endif
#ifndef OP
#define OP ADD
#endif
#ifndef TYPE
#define TYPE uint
#endif
#define IS_FLOAT (OP == FADD || OP == FMIN || OP == FMAX)
#define ADD 1
#define MUL 2
#define MIN 3
#define MAX 4
#define AND 5
#define OR 6
#define XOR 7
#define FADD 8
#define FMIN 9
#define FMAX 10

// The next power of two of WG.
#if WG > 512
#define NP2 1024
#elif WG > 256
#define NP2 512
#elif WG > 128
#define NP2 256
#elif WG > 64
#define NP2 128
#elif WG > 32
#define NP2 64
#elif WG > 16
#define NP2 32
#elif WG > 8
#define NP2 16
#elif WG > 4
#define NP2 8
#else
#define NP2 4
#endif

#ifdef SPEC
// As ggml: the size is a specialization constant, the tree assumes a power
// of two (other sizes take the original code).
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint BLOCK = WG;
#define TOP BLOCK
#else
layout(local_size_x = WG) in;
#define BLOCK WG
#ifdef PARTIAL
#define TOP (NP2 / 2)
#else
#define TOP NP2
#endif
#endif
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };

#if IS_FLOAT
#define T float
#else
#define T TYPE
#endif
shared T tmp[BLOCK];

// The operation, written inline (a call is not followed: waveopt -O inlines
// only the functions called in loops).
#if OP == ADD || OP == FADD
#define combine(a, b) ((a) + (b))
#elif OP == MUL
#define combine(a, b) ((a) * (b))
#elif OP == MIN || OP == FMIN
#define combine(a, b) min(a, b)
#elif OP == MAX || OP == FMAX
#define combine(a, b) max(a, b)
#elif OP == AND
#define combine(a, b) ((a) & (b))
#elif OP == OR
#define combine(a, b) ((a) | (b))
#else
#define combine(a, b) ((a) ^ (b))
#endif

#define STEP(S)                                                   \
  if (TOP > S) {                                                  \
    if (tid < S && tid + S < BLOCK) tmp[tid] = combine(tmp[tid], tmp[tid + S]); \
    barrier();                                                    \
  }

void main() {
  uint tid = gl_LocalInvocationID.x;
  uint g = gl_WorkGroupID.x * BLOCK + tid;
  uint d = data[g];
#if OP == MUL
  T v = T(d % 3u + 1u);
#elif OP == AND
  T v = T(d | (1u << (d % 7u)) | 0xf0f0u);
#elif IS_FLOAT
  T v = float(d % 1000u) - 300.0;
#else
  T v = T(d) - T(1000000);
#endif
#ifdef ACCUMULATE
  tmp[tid] = T(0);
  for (uint i = 0; i < 3u; ++i) tmp[tid] += v * T(i + 1u);
#else
  tmp[tid] = v;
#endif
  barrier();
#ifdef UNROLLED
  STEP(512) STEP(256) STEP(128) STEP(64) STEP(32) STEP(16) STEP(8) STEP(4)
  STEP(2) STEP(1)
#else
  for (uint s = TOP / 2; s > 0; s >>= 1) {
    if (tid < s && tid + s < BLOCK) tmp[tid] = combine(tmp[tid], tmp[tid + s]);
    barrier();
  }
#endif
  T r = tmp[0];
#if IS_FLOAT
  result[g] = floatBitsToUint(r) + tid;
#else
  result[g] = uint(r) + tid;
#endif
}
