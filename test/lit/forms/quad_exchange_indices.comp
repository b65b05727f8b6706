// The downsample of quad_exchange_guards.comp with the shared tile indexed
// through other built-ins: the local id, the local index split by % and /
// or by & and >>, the global id modulo the workgroup size (the same in
// every workgroup: the analysis follows which bits depend on the workgroup
// id), and a flat array. morton-remap and quad-exchange decide the same on
// every one (the index path of morton-remap for the split index).
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--morton-remap --quad-exchange" \
// RUN:   --expect="morton-remap: applied Remapped" --expect="quad-exchange: applied Exchanged" \
// RUN:   %s %S/Inputs/quad_exchange_indices.hlsl | %FileCheck %s
// CHECK: PASS: every spelling decided 'morton-remap: applied Remapped; quad-exchange: applied Exchanged'
//
// FORMS: local_id index_mod index_bits global_mod global_and flat reordered
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D src;
layout(set = 0, binding = 2, rgba8) writeonly uniform image2D mip2;
#if defined(FORM_flat)
shared vec4 tile[64];
#define TILE(y, x) tile[(y) * 8u + (x)]
#else
shared vec4 tile[8][8];
#define TILE(y, x) tile[y][x]
#endif

void main() {
#if defined(FORM_local_id) || defined(FORM_flat)
  uvec2 l = gl_LocalInvocationID.xy;
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
#elif defined(FORM_index_mod)
  uint i = gl_LocalInvocationIndex;
  uvec2 l = uvec2(i % 8u, i / 8u);
  ivec2 p = ivec2(gl_WorkGroupID.xy * 8u + l);
#elif defined(FORM_index_bits)
  uint i = gl_LocalInvocationIndex;
  uvec2 l = uvec2(i & 7u, i >> 3u);
  ivec2 p = ivec2(gl_WorkGroupID.xy * 8u + l);
#elif defined(FORM_global_mod)
  uvec2 l = gl_GlobalInvocationID.xy % 8u;
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
#elif defined(FORM_global_and)
  uvec2 l = gl_GlobalInvocationID.xy & uvec2(7u);
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
#elif defined(FORM_reordered)
  uvec2 l = uvec2(gl_LocalInvocationID.x, gl_LocalInvocationID.y);
  ivec2 p = ivec2(gl_LocalInvocationID.xy + 8u * gl_WorkGroupID.xy);
#endif
  vec4 a = imageLoad(src, p);
  TILE(l.y, l.x) = a;
  barrier();
  if (((l.x | l.y) & 1u) == 0u) {
    vec4 m2 = (TILE(l.y, l.x) + TILE(l.y, 1u + l.x) + TILE(l.y + 1u, l.x) +
               TILE(1u + l.y, l.x + 1u)) * 0.25;
    imageStore(mip2, p / 2, m2);
  }
}
