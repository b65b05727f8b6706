// 8- and 16-bit loads batched (see test/lit/batch-uniform-loads/
// small_types.comp for the rewrite's shape): with the arithmetic
// capabilities (-DARITH) a half, a uint16 and an int16 travel widened to 32
// bits and are narrowed back after the shuffle, an f16vec4 moves as two
// 32-bit words; with 16-bit storage only the loop's 32-bit conversions
// (vec4(h[i]), uint(u[i]), int(s[i])) are batched. Buffers end at the last element read (37); negative int16
// values check the sign extension.
// RUN: %diff %s --same-oob --waveopt-flags="-O --remarks=batch" 2>&1 | %FileCheck %s --check-prefix=STORAGE
// RUN: %diff %s --same-oob --waveopt-flags="-O --assume-driver=cpu --remarks=batch" 2>&1 | %FileCheck %s --check-prefix=STORAGE
// RUN: %diff %s --same-oob --waveopt-flags="-O --remarks=batch -DARITH" --waverun="-DARITH" 2>&1 | %FileCheck %s --check-prefix=ARITH
// STORAGE: applied BatchedLoads in main: 1 uniform load(s) per iteration (1 shuffled part(s))
// STORAGE: applied BatchedLoads in main: 2 uniform load(s) per iteration (2 shuffled part(s))
// STORAGE: PASS: equal at sizes 4,8,16,32,64
// ARITH-COUNT-3: applied BatchedLoads in main
// ARITH: PASS: equal at sizes 4,8,16,32,64
#version 450
#extension GL_EXT_shader_16bit_storage : require
#ifdef ARITH
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#endif
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) readonly buffer Halves { f16vec4 h[]; };
layout(set = 0, binding = 1) readonly buffer UWords { uint16_t u[]; };
layout(set = 0, binding = 4) readonly buffer SWords { int16_t s[]; };
layout(set = 0, binding = 2) readonly buffer Count { uint n[]; };
layout(set = 0, binding = 3) buffer Out { vec4 o[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint count = n[gl_WorkGroupID.x];
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < count; ++i) acc += vec4(h[i]) * float(g & 7u);
  o[2u * g] = acc;
#ifdef ARITH
  float16_t hs = float16_t(0.0);
  for (uint i = 0u; i < count; ++i) hs += h[i].x * float16_t(g & 3u);
  uint16_t us = uint16_t(0);
  int16_t ss = int16_t(0);
  for (uint i = 0u; i < count; ++i) { us += u[i] * uint16_t(g); ss += s[i] * int16_t(g & 7u); }
  o[2u * g + 1u] = vec4(float(hs), float(us), float(ss), 0.0);
#else
  uint us = 0u;
  int ss = 0;
  for (uint i = 0u; i < count; ++i) { us += uint(u[i]) * g; ss += int(s[i]) * int(g & 7u); }
  o[2u * g + 1u] = vec4(0.0, float(us), float(ss), 0.0);
#endif
}
