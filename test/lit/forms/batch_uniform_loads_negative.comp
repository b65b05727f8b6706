// Light loops that look like batch_uniform_loads_loops.comp's but are not
// the same in every lane: an exit test that adds the lane's low bit to the
// count (lanes leave at different iterations: LoopTripCountDivergent) and
// a light index that does (lanes read different lights: DivergentAddress).
// Refused raw and after spirv-opt -O.
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="-O --target=none" --forms=exit --expect="batch-uniform-loads: missed LoopTripCountDivergent" \
// RUN:   %s | %FileCheck %s --check-prefix=EXIT
// EXIT: PASS: every spelling decided 'batch-uniform-loads: missed LoopTripCountDivergent'
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="-O --target=none" --forms=address --expect="batch-uniform-loads: missed DivergentAddress" \
// RUN:   %s | %FileCheck %s --check-prefix=ADDRESS
// ADDRESS: PASS: every spelling decided 'batch-uniform-loads: missed DivergentAddress'
//
// FORMS: exit address
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Lights { vec4 lights[]; };
layout(set = 0, binding = 1) buffer Out { vec4 result[]; };
layout(push_constant) uniform P { uint count; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 sum = vec4(0.0);
#if defined(FORM_exit)
  for (uint k = 0u; k < pc.count + (i & 1u); ++k) sum += lights[k];
#elif defined(FORM_address)
  for (uint k = 0u; k < pc.count; ++k) sum += lights[k + (i & 1u)];
#endif
  result[i] = sum;
}
