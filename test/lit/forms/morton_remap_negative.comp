// One-dimensional kernels whose pixel looks like the row split i % 16,
// i / 16 but is not a permutation of rows: y = i / 8 (two lanes per
// pixel), the bit-field form of it, and the split of i - 32 (negative
// pixels for the first lanes). morton-remap finds no rows of lanes to put
// on 2x2 blocks and refuses (LinearIndex), raw and after spirv-opt -O; the
// true split (rows) is remapped.
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--morton-remap" --forms=rows --expect="morton-remap: applied Remapped" \
// RUN:   %s | %FileCheck %s --check-prefix=ROWS
// ROWS: PASS: every spelling decided 'morton-remap: applied Remapped'
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--morton-remap" --forms=half_rows,half_rows_bits,shifted \
// RUN:   --expect="morton-remap: missed LinearIndex" %s | %FileCheck %s --check-prefix=NOT
// NOT: PASS: every spelling decided 'morton-remap: missed LinearIndex'
//
// FORMS: rows half_rows half_rows_bits shifted
#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) writeonly uniform image2D dst;

void main() {
  uint i = gl_LocalInvocationIndex;
#if defined(FORM_rows)
  ivec2 p = ivec2(i % 16u, i / 16u);
#elif defined(FORM_half_rows)
  ivec2 p = ivec2(i % 16u, i / 8u);
#elif defined(FORM_half_rows_bits)
  ivec2 p = ivec2(i & 15u, i >> 3u);
#elif defined(FORM_shifted)
  ivec2 p = ivec2((int(i) - 32) % 16, (int(i) - 32) / 16);
#endif
  p += ivec2(gl_WorkGroupID.xy) * 16;
  imageStore(dst, p, texelFetch(src, p, 0) + texelFetch(src, p + ivec2(1, 0), 0));
}
