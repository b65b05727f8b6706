// Forms that look like the downsample's but do not mean the same, and
// guards the analysis cannot evaluate: each remark states only what was
// established.
// - odd_reads: (x even OR y even) lets invocations with x even and y odd
//   read the next row, another quad: ReadAcrossQuads names one.
// - signed_mod (HLSL, Inputs/): (int(x) - 4) % 2 != 1. As DXC compiles
//   HLSL's % (OpSRem, the sign of the dividend), -3 % 2 is -1, so
//   invocation 1 reads across quads, although (x - 4) & 1 would say it is
//   odd. (glslang's HLSL front end emits OpSMod, the sign of the divisor:
//   then the guard is "x even" and the rewrite is right.)
// - push_constant_or: the odd invocations read when a push constant says
//   so, which the analysis cannot evaluate; if they read, they read across
//   quads: GuardNotEvaluable -- never "every invocation reads", and never a
//   ReadAcrossQuads that states a read the analysis did not establish.
// - push_constant_and: the push constant can only keep the even
//   invocations from reading, and they are served from their quad either
//   way: applied, whatever the push constant holds.
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--morton-remap --quad-exchange" --forms=odd_reads \
// RUN:   --expect="morton-remap: applied Remapped" --expect="quad-exchange: missed ReadAcrossQuads" \
// RUN:   %s | %FileCheck %s --check-prefix=ODD
// ODD: PASS: every spelling decided 'morton-remap: applied Remapped; quad-exchange: missed ReadAcrossQuads'
// RUN: %glslang -D -S comp -e main --target-env vulkan1.1 %S/Inputs/quad_exchange_negative.hlsl -o %t.smod.spv
// RUN: %spirv-dis %t.smod.spv | sed 's/OpSMod/OpSRem/' | %spirv-as --target-env vulkan1.1 -o %t.srem.spv -
// RUN: %spirv-opt -O %t.srem.spv -o %t.srem.opt.spv
// RUN: %waveopt %t.srem.spv --morton-remap --quad-exchange --remarks-missed=quad-exchange -o %t.1.spv 2>&1 | %FileCheck %s --check-prefix=SREM
// RUN: %waveopt %t.srem.opt.spv --morton-remap --quad-exchange --remarks-missed=quad-exchange -o %t.2.spv 2>&1 | %FileCheck %s --check-prefix=SREM
// SREM: missed ReadAcrossQuads in main{{( (at|near) [^:]+)?}}: invocation 1 reads the element 'tile' that invocation 8 writes, outside its quad 0..3
// RUN: %waveopt %t.smod.spv --morton-remap --quad-exchange --remarks=quad-exchange -o %t.3.spv 2>&1 | %FileCheck %s --check-prefix=SMOD
// SMOD: applied Exchanged in main
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--morton-remap --quad-exchange" --forms=push_constant_or \
// RUN:   --expect="morton-remap: applied Remapped" --expect="quad-exchange: missed GuardNotEvaluable" \
// RUN:   %s | %FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: PASS: every spelling decided 'morton-remap: applied Remapped; quad-exchange: missed GuardNotEvaluable'
// RUN: %python %S/forms.py --waveopt %waveopt --glslang %glslang --spirv-opt %spirv-opt --spirv-val %spirv-val \
// RUN:   --flags="--morton-remap --quad-exchange" --forms=push_constant_and \
// RUN:   --expect="morton-remap: applied Remapped" --expect="quad-exchange: applied Exchanged" \
// RUN:   %s | %FileCheck %s --check-prefix=EITHER
// EITHER: PASS: every spelling decided 'morton-remap: applied Remapped; quad-exchange: applied Exchanged'
// The remarks name the invocation and the value it could not evaluate, or
// the read it established:
// RUN: %waveopt %s -DFORM_push_constant_or --morton-remap --quad-exchange --remarks-missed=quad-exchange -o %t.spv 2>&1 | %FileCheck %s --check-prefix=TEXT
// TEXT: quad_exchange_negative.comp:{{[0-9]+}}: remark: quad-exchange: missed GuardNotEvaluable in main{{( (at|near) [^:]+)?}}: whether invocation 1 reads 'tile' here depends on OpLoad %{{[0-9]+}}, which the analysis cannot evaluate for it in every workgroup, and if it does, it reads the element that invocation 8 writes, outside its quad
// RUN: %waveopt %s -DFORM_odd_reads --morton-remap --quad-exchange --remarks-missed=quad-exchange -o %t.spv 2>&1 | %FileCheck %s --check-prefix=ACROSS
// ACROSS: missed ReadAcrossQuads in main{{( (at|near) [^:]+)?}}: invocation {{[0-9]+}} reads the element 'tile' that invocation {{[0-9]+}} writes, outside its quad
//
// FORMS: odd_reads push_constant_or push_constant_and
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D src;
layout(set = 0, binding = 2, rgba8) writeonly uniform image2D mip2;
layout(push_constant) uniform P { uint levels; } pc;
shared vec4 tile[8][8];

void main() {
  uvec2 l = gl_LocalInvocationID.xy;
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  tile[l.y][l.x] = imageLoad(src, p);
  barrier();
#if defined(FORM_odd_reads)
  if ((l.x & 1u) == 0u || (l.y & 1u) == 0u) {
#elif defined(FORM_push_constant_or)
  if (((l.x | l.y) & 1u) == 0u || pc.levels > 1u) {
#elif defined(FORM_push_constant_and)
  if (((l.x | l.y) & 1u) == 0u && pc.levels > 1u) {
#endif
    vec4 m2 = (tile[l.y][l.x] + tile[l.y][(l.x + 1u) & 7u] +
               tile[(l.y + 1u) & 7u][l.x] + tile[(l.y + 1u) & 7u][(l.x + 1u) & 7u]) * 0.25;
    imageStore(mip2, p / 2, m2);
  }
}
