// Arg-max / arg-min (value, index) pair trees, compared with the original at
// subgroup sizes 4, 8, 16 (lavapipe) and 32, 64 (the simulator). The keys
// take few distinct values (many ties) and the indices are scrambled and
// repeat, so the tie-break is exercised on every run. Every invocation reads
// both results (all are readers).
//   MIN      the smaller value wins (else the larger)
//   HIGH     among equal values the highest index wins (else the lowest)
//   KEY      int (default) or uint
//   INDEX    uint (default) or int
//   WG       workgroup size; PARTIAL: the tree covers its first half only
//   FLOAT    float keys: -1, -0, +0, 1, 2, infinities and NaNs of two
//            payloads (NONAN: none)
//   TIE      BY_INDEX (default), KEEP (`>` only: ggml's argmax), TAKE (`>=`)
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// 200 invocations (not a multiple of the larger subgroup sizes: partial
// subgroups, and one slot more where lavapipe rounds NumSubgroups down), a
// tree over the first 128 of them.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DMIN -DHIGH -DKEY=uint -DINDEX=int -DWG=200 -DPARTIAL" --waverun="-DMIN -DHIGH -DKEY=uint -DINDEX=int -DWG=200 -DPARTIAL" 2>&1 | %FileCheck %s
// Ties by position (the rank slot): `>=`.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DTIE=TAKE -DWG=128" --waverun="-DTIE=TAKE -DWG=128" 2>&1 | %FileCheck %s
// Float keys with NaNs of two payloads (each workgroup drops a quarter to
// a half of its elements) and zeros of both signs; and ggml's spelling
// (float keys, `>` only; here min) after glslang and spirv-opt -O.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DFLOAT" --waverun="-DFLOAT" 2>&1 | %FileCheck %s
// RUN: %diff %s --spirv-opt-O --glslang-defines="-DFLOAT -DTIE=KEEP -DMIN -DWG=256" --waveopt-flags="--workgroup-reduce --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// CHECK: applied ReducedPairTree in main
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
#ifndef WG
#define WG 64
#endif
#ifndef KEY
#define KEY int
#endif
#ifndef INDEX
#define INDEX uint
#endif
#ifdef PARTIAL
#if WG == 200
#define N 128
#else
#define N (WG / 2)
#endif
#else
#define N WG
#endif
#ifndef TIE
#define TIE BY_INDEX
#endif
#define BY_INDEX 0
#define KEEP 1
#define TAKE 2
#ifdef FLOAT
#undef KEY
#define KEY float
#endif
#ifdef MIN
#define BEATS(a, b) ((a) < (b))
#else
#define BEATS(a, b) ((a) > (b))
#endif
#ifdef HIGH
#define FIRST(a, b) ((a) > (b))
#else
#define FIRST(a, b) ((a) < (b))
#endif
layout(local_size_x = WG) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
shared KEY v[WG];
shared INDEX ix[WG];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint g = gl_WorkGroupID.x * WG + t;
  uint d = data[g % 2048u];
  // Five key values around zero (negative ones too), and indices that
  // repeat (d >> 8 % 13) or follow t: ties on the value and on the pair.
#ifdef FLOAT
  // One NaN in 16 (one in 32 of each payload), zeros of both signs.
  const uint bits[16] = uint[16](0xbf800000u, 0x80000000u, 0x00000000u, 0x3f800000u,
                                 0x40000000u, 0x7f800000u, 0xff800000u, 0x3f800000u,
                                 0x80000000u, 0x00000000u, 0x40000000u, 0xbf800000u,
                                 0x40000000u, 0x00000000u, 0x80000000u, 0x7fc00000u);
  uint b = bits[d % 16u];
#ifdef NONAN
  if (b == 0x7fc00000u) b = 0x40000000u;
#else
  if (b == 0x7fc00000u && (d & 0x10000u) != 0u) b = 0xffc12345u;
  // And one of elements 1..4 a NaN: it drops the elements 1 mod 2, 2 or 3
  // mod 4, or 4 mod 8 of the tree (a quarter to a half of them).
  if (t == gl_WorkGroupID.x % 4u + 1u) b = 0x7fc00000u;
#endif
  v[t] = uintBitsToFloat(b);
#else
  v[t] = KEY(int(d % 5u) - 2);
#endif
  ix[t] = INDEX((d >> 8) % 13u) - INDEX(6) + INDEX(t % 3u);
  barrier();
  for (uint s = N / 2; s > 0; s >>= 1) {
#if TIE == KEEP
    if (t < s && BEATS(v[t + s], v[t])) {
#elif TIE == TAKE
    if (t < s && (BEATS(v[t + s], v[t]) || v[t + s] == v[t])) {
#else
    if (t < s && (BEATS(v[t + s], v[t]) ||
                  (v[t + s] == v[t] && FIRST(ix[t + s], ix[t])))) {
#endif
      v[t] = v[t + s];
      ix[t] = ix[t + s];
    }
    barrier();
  }
#ifdef FLOAT
  result[2u * g] = floatBitsToUint(v[0]) + t;
#else
  result[2u * g] = uint(v[0]) + t;
#endif
  result[2u * g + 1u] = uint(ix[0]);
}
