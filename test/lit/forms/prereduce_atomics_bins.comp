// A 16-bin histogram in the first bins of a larger shared array (so that
// only the index's range makes the set small), the bin computed from a
// value by & 15, % 16, >> 28, bitfieldExtract, min, / 2^28 or an int % 16
// (OpSMod by a positive divisor is never negative): in every spelling the
// bin is provably one of 16, so prereduce-atomics takes one atomic per
// distinct bin in a subgroup (SmallBinSet), raw and after spirv-opt -O.
// (The final copy to the buffer, at the invocation's own index, is not a
// small set: DistinctAddresses.)
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--prereduce-atomics" --expect="prereduce-atomics: applied SmallBinSet" \
// RUN:   --expect="prereduce-atomics: missed DistinctAddresses" %s | %FileCheck %s
// CHECK: PASS: every spelling decided 'prereduce-atomics: applied SmallBinSet; prereduce-atomics: missed DistinctAddresses'
//
// FORMS: and mod shift extract min div int_mod
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) buffer Out { uint hist[16]; };
shared uint bins[256];

void main() {
  uint i = gl_LocalInvocationIndex;
  bins[i] = 0u;
  barrier();
  uint x = v[gl_GlobalInvocationID.x];
#if defined(FORM_and)
  uint b = x & 15u;
#elif defined(FORM_mod)
  uint b = x % 16u;
#elif defined(FORM_shift)
  uint b = x >> 28u;
#elif defined(FORM_extract)
  uint b = bitfieldExtract(x, 4, 4);
#elif defined(FORM_min)
  uint b = min(x, 15u);
#elif defined(FORM_div)
  uint b = x / 268435456u;
#elif defined(FORM_int_mod)
  int b = int(x) % 16;
#endif
  atomicAdd(bins[b], 1u);
  barrier();
  if (i < 16u) atomicAdd(hist[i], bins[i]);
}
