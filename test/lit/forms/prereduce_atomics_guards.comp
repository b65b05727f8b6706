// An append counter bumped by the invocations that pass a test, with the
// test spelled as an if, nested ifs, &&, an early return, a switch or a
// bool from ?:. The address and the value are the same in every lane:
// prereduce-atomics pre-reduces it (one atomic per subgroup of the ballot's
// count) in every spelling, raw and after spirv-opt -O, GLSL and HLSL.
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--prereduce-atomics" --expect="prereduce-atomics: applied UniformAddressUniformValue" \
// RUN:   %s %S/Inputs/prereduce_atomics_guards.hlsl | %FileCheck %s
// CHECK: PASS: every spelling decided 'prereduce-atomics: applied UniformAddressUniformValue'
//
// FORMS: if nested andand early_return switch ternary
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float v[]; };
layout(set = 0, binding = 1) buffer Count { uint count; };
layout(set = 0, binding = 2) buffer Out { uint slots[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  float x = v[i];
#if defined(FORM_if)
  if (x > 0.5 && x < 2.0) {
#elif defined(FORM_nested)
  if (x > 0.5) if (x < 2.0) {
#elif defined(FORM_andand)
  bool keep = x > 0.5 && x < 2.0;
  if (keep) {
#elif defined(FORM_early_return)
  if (x <= 0.5 || x >= 2.0) return;
  {
#elif defined(FORM_switch)
  switch (int(x > 0.5) + 2 * int(x < 2.0)) {
  case 3: break;
  default: return;
  }
  {
#elif defined(FORM_ternary)
  bool keep = x > 0.5 ? x < 2.0 : false;
  if (keep) {
#endif
    uint slot = atomicAdd(count, 1u);
    slots[slot] = i;
  }
}
