// A 3x3 box filter at the invocation's pixel (8x8 workgroups), with the
// pixel spelled through every identity built-in: the global id, the
// workgroup id times the size plus the local id (either order), the local
// index split by % and / or by & and >>, and behind a bounds test written
// as &&, as all(lessThan()) or as an early return. morton-remap decides
// from the pixels the accesses touch, not from the built-in: Remapped in
// every spelling, raw and after spirv-opt -O, GLSL and HLSL.
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--morton-remap" --expect="morton-remap: applied Remapped" \
// RUN:   %s %S/Inputs/morton_remap_pixels.hlsl | %FileCheck %s
// CHECK: PASS: every spelling decided 'morton-remap: applied Remapped'
//
// FORMS: global local_plus_group group_plus_local index_mod index_bits
// FORMS: bounds_andand bounds_all bounds_return
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) writeonly uniform image2D dst;
layout(push_constant) uniform P { ivec2 size; } pc;

void main() {
#if defined(FORM_global) || defined(FORM_bounds_andand) || \
    defined(FORM_bounds_all) || defined(FORM_bounds_return)
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
#elif defined(FORM_local_plus_group)
  ivec2 p = ivec2(gl_LocalInvocationID.xy + gl_WorkGroupID.xy * 8u);
#elif defined(FORM_group_plus_local)
  ivec2 p = ivec2(8u * gl_WorkGroupID.xy) + ivec2(gl_LocalInvocationID.xy);
#elif defined(FORM_index_mod)
  uint i = gl_LocalInvocationIndex;
  ivec2 p = ivec2(gl_WorkGroupID.xy * 8u + uvec2(i % 8u, i / 8u));
#elif defined(FORM_index_bits)
  uint i = gl_LocalInvocationIndex;
  ivec2 p = ivec2(gl_WorkGroupID.xy * 8u + uvec2(i & 7u, i >> 3u));
#endif
#if defined(FORM_bounds_andand)
  if (p.x < pc.size.x && p.y < pc.size.y) {
#elif defined(FORM_bounds_all)
  if (all(lessThan(p, pc.size))) {
#elif defined(FORM_bounds_return)
  if (any(greaterThanEqual(p, pc.size))) return;
  {
#else
  {
#endif
    vec4 sum = vec4(0.0);
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        sum += texelFetch(src, p + ivec2(dx, dy), 0);
    imageStore(dst, p, sum / 9.0);
  }
}
