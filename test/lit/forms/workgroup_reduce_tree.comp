// A shared-memory add tree over 128 invocations written as a for loop
// halving by >>= 1 or by /= 2, a while loop, a do-while, a count-down over
// the step's exponent, a negated guard with the operands swapped, the
// thread id as gl_LocalInvocationIndex or gl_LocalInvocationID.x, and the
// steps unrolled by hand: workgroup-reduce rewrites it in every spelling, raw
// and after spirv-opt -O. (A guard written `if (tid >= s) { barrier();
// continue; }` puts the barriers in divergent control flow, which SPIR-V
// does not allow: NonUniformBarriers, in the pass doc.)
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="-O --target=none" --expect="workgroup-reduce: applied ReducedTree" \
// RUN:   %s | %FileCheck %s
// CHECK: PASS: every spelling decided 'workgroup-reduce: applied ReducedTree'
//
// FORMS: for_shift for_div while_loop do_while countdown negated_guard local_id unrolled
#version 450
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
shared uint tmp[128];

void main() {
#if defined(FORM_local_id)
  uint tid = gl_LocalInvocationID.x;
#else
  uint tid = gl_LocalInvocationIndex;
#endif
  tmp[tid] = data[gl_GlobalInvocationID.x] & 0xffffu;
  barrier();
#if defined(FORM_for_div)
  for (uint s = 64u; s > 0u; s /= 2u) {
    if (tid < s) tmp[tid] += tmp[tid + s];
    barrier();
  }
#elif defined(FORM_while_loop)
  uint s = 64u;
  while (s != 0u) {
    if (tid < s) tmp[tid] += tmp[tid + s];
    barrier();
    s >>= 1;
  }
#elif defined(FORM_do_while)
  uint s = 64u;
  do {
    if (tid < s) tmp[tid] += tmp[tid + s];
    barrier();
    s >>= 1;
  } while (s > 0u);
#elif defined(FORM_countdown)
  for (int k = 6; k >= 0; --k) {
    uint s = 1u << uint(k);
    if (tid < s) tmp[tid] += tmp[tid + s];
    barrier();
  }
#elif defined(FORM_negated_guard)
  for (uint s = 64u; s > 0u; s >>= 1) {
    if (!(tid >= s)) tmp[tid] = tmp[tid + s] + tmp[tid];
    barrier();
  }
#elif defined(FORM_unrolled)
#define STEP(S) if (tid < S) tmp[tid] += tmp[tid + S]; barrier();
  STEP(64u) STEP(32u) STEP(16u) STEP(8u) STEP(4u) STEP(2u) STEP(1u)
#else
  for (uint s = 64u; s > 0u; s >>= 1) {
    if (tid < s) tmp[tid] += tmp[tid + s];
    barrier();
  }
#endif
  result[gl_GlobalInvocationID.x] = tmp[0];
}
