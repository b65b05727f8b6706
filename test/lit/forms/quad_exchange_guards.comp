// Issue 23's table: a 2x2 downsample (tile[l.y][l.x] = a; barrier(); the
// even invocations average their quad) with the guard of the reads spelled
// in every way below, each compiled by glslang as is and after spirv-opt -O.
// morton-remap makes lanes 4k..4k+3 a 2x2 block, then quad-exchange must
// serve all four reads from the quad in every spelling (the execution
// predicate of the lane layout analysis evaluates them; the first six rows
// are the issue's table). The HLSL partner spells the same guards in HLSL.
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--morton-remap --quad-exchange" \
// RUN:   --expect="morton-remap: applied Remapped" --expect="quad-exchange: applied Exchanged" \
// RUN:   %s %S/Inputs/quad_exchange_guards.hlsl | %FileCheck %s
// CHECK: PASS: every spelling decided 'morton-remap: applied Remapped; quad-exchange: applied Exchanged'
//
// FORMS: bitor nested early_return andand mod2 all_equal
// FORMS: oror_not global_bitor ternary switch any_not_equal int_mod2 select_flag
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D src;
layout(set = 0, binding = 1, rgba8) writeonly uniform image2D mip1;
layout(set = 0, binding = 2, rgba8) writeonly uniform image2D mip2;
shared vec4 tile[8][8];

void main() {
  uvec2 l = gl_LocalInvocationID.xy;
  uvec2 g = gl_GlobalInvocationID.xy;
  ivec2 p = ivec2(g);
  vec4 a = imageLoad(src, p);
  imageStore(mip1, p, a);
  tile[l.y][l.x] = a;
  barrier();
#if defined(FORM_bitor)
  if (((l.x | l.y) & 1u) == 0u) {
#elif defined(FORM_nested)
  if ((l.x & 1u) == 0u) if ((l.y & 1u) == 0u) {
#elif defined(FORM_early_return)
  if (((l.x | l.y) & 1u) != 0u) return;
  {
#elif defined(FORM_andand)
  if ((l.x & 1u) == 0u && (l.y & 1u) == 0u) {
#elif defined(FORM_mod2)
  if (l.x % 2u == 0u && l.y % 2u == 0u) {
#elif defined(FORM_all_equal)
  if (all(equal(l & 1u, uvec2(0u)))) {
#elif defined(FORM_oror_not)
  if (!((l.x & 1u) != 0u || (l.y & 1u) != 0u)) {
#elif defined(FORM_global_bitor)
  if (((g.x | g.y) & 1u) == 0u) {
#elif defined(FORM_ternary)
  bool even = (l.x & 1u) == 0u ? (l.y & 1u) == 0u : false;
  if (even) {
#elif defined(FORM_switch)
  switch ((l.x & 1u) | ((l.y & 1u) << 1u)) {
  case 1u: case 2u: case 3u: return;
  default: break;
  }
  {
#elif defined(FORM_any_not_equal)
  if (!any(notEqual(l % 2u, uvec2(0u)))) {
#elif defined(FORM_int_mod2)
  if (int(g.x) % 2 == 0 && int(g.y) % 2 == 0) {
#elif defined(FORM_select_flag)
  uint odd = (l.x & 1u) != 0u ? 1u : ((l.y & 1u) != 0u ? 1u : 0u);
  if (odd == 0u) {
#endif
    vec4 m2 = (tile[l.y][l.x] + tile[l.y][l.x + 1u] + tile[l.y + 1u][l.x] +
               tile[l.y + 1u][l.x + 1u]) * 0.25;
    imageStore(mip2, p / 2, m2);
  }
}
