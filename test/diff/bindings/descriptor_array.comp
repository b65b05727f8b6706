// Arrays of descriptors: a fixed array of storage buffers and one of
// combined image samplers (sizes from the type). The loop reads them at
// uniform indices: its loads are batched. The negative control picks the
// wrong buffer of the array.
// RUN: %diff %s --waveopt-flags="-O --remarks=batch" 2>&1 | %FileCheck %s
// CHECK: applied BatchedLoads
// RUN: %diff %s --against %S/Inputs/descriptor_array_wrong_index.comp --expect=differ
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) readonly buffer Data { uint d[]; } bufs[3];
layout(set = 0, binding = 1) uniform sampler2D texs[2];
layout(set = 0, binding = 2) buffer Out { vec4 o[]; };
layout(push_constant) uniform Params { uint n; uint pick; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 acc = vec4(0.0);
  for (uint j = 0u; j < n; ++j) {
    acc += vec4(float(bufs[1].d[j] & 255u));
    acc += textureLod(texs[j & 1u], vec2(float(j) / 8.0, 0.5), 0.0);
  }
  o[i] = acc + vec4(float(bufs[pick].d[i] & 7u));
}
