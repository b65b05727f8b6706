// Arg-max / arg-min pair trees whose step has an extra uniform bound,
// `t < s && t + s < n` (elements from n on take no part), compared with the
// original at subgroup sizes 4, 8, 16 (lavapipe) and 32, 64 (the simulator).
// Keys take few values (many ties), indices repeat.
//   BOUND=TABLE  n per workgroup from a constant table indexed by the
//                workgroup id: 0, 1, 5, 17, 32, 63, 64, 200 (workgroup-uniform,
//                made before the first barrier)
//   BOUND=PUSH   n a push constant (37 in argmax_bound.waverun), loaded in the
//                step as glslang writes it
//   FLOAT        float keys with NaNs and zeros of both signs
//   INTS         `int s` and nested ifs (`t + uint(s)`), else uint s, one if
//   MIN, TIE=KEEP (`>` alone) or by index (default)
//   DO           the steps as `do { ... s >>= 1; } while (s > 0u);`
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DFLOAT -DTIE=KEEP -DINTS" --waverun="-DFLOAT -DTIE=KEEP -DINTS" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DDO -DBOUND=PUSH -DMIN" --waverun="-DDO -DBOUND=PUSH -DMIN" 2>&1 | %FileCheck %s
// CHECK: applied ReducedPairTree in main: {{.*}}; elements from a uniform bound on take no part)
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
#define TABLE 0
#define PUSH 1
#ifndef BOUND
#define BOUND TABLE
#endif
#define BY_INDEX 0
#define KEEP 1
#ifndef TIE
#define TIE BY_INDEX
#endif
#ifdef FLOAT
#define KEY float
#else
#define KEY int
#endif
#ifdef MIN
#define BEATS(a, b) ((a) < (b))
#else
#define BEATS(a, b) ((a) > (b))
#endif
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint limit; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
shared KEY key[64];
shared uint pos[64];

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint w = gl_WorkGroupID.x;
  const uint g = w * 64u + t;
  const uint d = data[g % 2048u];
#if BOUND == TABLE
  const uint limits[8] = uint[8](0u, 1u, 5u, 17u, 32u, 63u, 64u, 200u);
  const uint n = limits[w % 8u];
#endif
#ifdef FLOAT
  const uint bits[8] = uint[8](0xbf800000u, 0x80000000u, 0x00000000u, 0x3f800000u,
                               0x40000000u, 0x7fc00000u, 0x3f800000u, 0x40000000u);
  key[t] = uintBitsToFloat(bits[d % 8u]);
#else
  key[t] = int(d % 5u) - 2;
#endif
  pos[t] = (d >> 8) % 11u + t % 3u;
  barrier();
#ifdef INTS
  for (int s = 32; s > 0; s >>= 1) {
#if BOUND == PUSH
    if (t < s && t + s < pc.limit) {
#else
    if (t < s && t + s < n) {
#endif
#if TIE == KEEP
      if (BEATS(key[t + s], key[t])) {
#else
      if (BEATS(key[t + s], key[t]) || (key[t + s] == key[t] && pos[t + s] < pos[t])) {
#endif
        key[t] = key[t + s];
        pos[t] = pos[t + s];
      }
    }
    barrier();
  }
#else
#ifdef DO
  uint s = 32u;
  do {
#else
  for (uint s = 32u; s > 0u; s >>= 1) {
#endif
#if BOUND == PUSH
    if (t < s && t + s < pc.limit &&
#else
    if (t < s && t + s < n &&
#endif
#if TIE == KEEP
        BEATS(key[t + s], key[t])) {
#else
        (BEATS(key[t + s], key[t]) || (key[t + s] == key[t] && pos[t + s] < pos[t]))) {
#endif
      key[t] = key[t + s];
      pos[t] = pos[t + s];
    }
    barrier();
#ifdef DO
    s >>= 1;
  } while (s > 0u);
#else
  }
#endif
#endif
#ifdef FLOAT
  result[2u * g] = floatBitsToUint(key[0]) + t;
#else
  result[2u * g] = uint(key[0]) + t;
#endif
  result[2u * g + 1u] = pos[0];
}
