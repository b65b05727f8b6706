// morton-remap weighs 2-D image accesses against linear ones by how often
// they run (docs/design/morton-remap.md): here a loop of 3 image reads
// (weight 3) against 4 row-major buffer accesses that the remap would make
// touch more 64-byte lines (weight 4). Whatever the loop's spelling -- for,
// while, do-while, counting down, != or <= tests, the counter unsigned --
// its trip count is 3, so the default mode refuses: NotProfitable. (A loop
// whose count were not recognised would weigh 8 and win.)
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--morton-remap" --expect="morton-remap: missed NotProfitable" \
// RUN:   %s %S/Inputs/morton_remap_loops.hlsl | %FileCheck %s
// CHECK: PASS: every spelling decided 'morton-remap: missed NotProfitable'
//
// FORMS: for while do_while count_down not_equal less_equal unsigned_down
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1) buffer B { vec4 data[]; };
layout(set = 0, binding = 2) readonly buffer C { vec4 bias[]; };

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  uint row = gl_GlobalInvocationID.y * 64u + gl_GlobalInvocationID.x;
  vec4 sum = bias[row] + bias[row + 4096u];
#if defined(FORM_for)
  for (int i = 0; i < 3; ++i) sum += texelFetch(src, p + ivec2(i, 0), 0);
#elif defined(FORM_while)
  int i = 0;
  while (i < 3) {
    sum += texelFetch(src, p + ivec2(i, 0), 0);
    i++;
  }
#elif defined(FORM_do_while)
  int i = 0;
  do {
    sum += texelFetch(src, p + ivec2(i, 0), 0);
    ++i;
  } while (i < 3);
#elif defined(FORM_count_down)
  for (int i = 2; i >= 0; --i) sum += texelFetch(src, p + ivec2(i, 0), 0);
#elif defined(FORM_not_equal)
  for (int i = 0; i != 3; i++) sum += texelFetch(src, p + ivec2(i, 0), 0);
#elif defined(FORM_less_equal)
  for (int i = 1; i <= 3; i += 1) sum += texelFetch(src, p + ivec2(i, 0), 0);
#elif defined(FORM_unsigned_down)
  for (uint i = 3u; i-- > 0u;) sum += texelFetch(src, p + ivec2(i, 0), 0);
#endif
  data[row] = sum;
  data[row + 4096u] = sum * 2.0;
}
