// A light loop: every invocation walks the same list of lights (a readonly
// buffer, the count a push constant), with the loop written as for, while,
// do-while (after a test for an empty list), counting down, with a != or
// a <= test, or with the counter in a local the body updates. The loop's
// exits and the load's address are the same in every lane: batch-uniform-
// loads batches the light loads in every spelling, raw and after
// spirv-opt -O, GLSL and HLSL. (Through waveopt -O, whose preparation
// takes raw modules to SSA form first: the pass alone refuses a counter
// kept in a local variable, AddressNotInduction, and says to run
// --ssa-rewrite; docs/design/batch-uniform-loads.md.)
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="-O --target=none" --expect="batch-uniform-loads: applied BatchedLoads" \
// RUN:   %s %S/Inputs/batch_uniform_loads_loops.hlsl | %FileCheck %s
// CHECK: PASS: every spelling decided 'batch-uniform-loads: applied BatchedLoads'
//
// FORMS: for while do_while count_down not_equal less_equal unsigned_down
#version 450
layout(local_size_x = 64) in;
struct Light { vec4 pos; vec4 color; };
layout(set = 0, binding = 0) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 1) buffer Out { vec4 result[]; };
layout(push_constant) uniform P { uint count; } pc;

vec4 shade(Light l, vec3 p) {
  vec3 d = l.pos.xyz - p;
  return l.color / (1.0 + dot(d, d));
}

void main() {
  uint i = gl_GlobalInvocationID.x;
  vec3 p = vec3(float(i), 0.0, 1.0);
  vec4 sum = vec4(0.0);
#if defined(FORM_for)
  for (uint k = 0u; k < pc.count; ++k) sum += shade(lights[k], p);
#elif defined(FORM_while)
  uint k = 0u;
  while (k < pc.count) {
    sum += shade(lights[k], p);
    k++;
  }
#elif defined(FORM_do_while)
  if (pc.count > 0u) {
    uint k = 0u;
    do {
      sum += shade(lights[k], p);
      k += 1u;
    } while (k < pc.count);
  }
#elif defined(FORM_count_down)
  for (int k = int(pc.count) - 1; k >= 0; --k) sum += shade(lights[k], p);
#elif defined(FORM_not_equal)
  for (uint k = 0u; k != pc.count; k++) sum += shade(lights[k], p);
#elif defined(FORM_less_equal)
  for (uint k = 1u; k <= pc.count; ++k) sum += shade(lights[k - 1u], p);
#elif defined(FORM_unsigned_down)
  for (uint k = pc.count; k-- > 0u;) sum += shade(lights[k], p);
#endif
  result[i] = sum;
}
