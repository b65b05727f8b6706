// 8- and 16-bit values travel between lanes as 32-bit ones: with the
// arithmetic capability for their type they are widened (FConvert, UConvert,
// SConvert) into the batch and narrowed back after the shuffle; a module
// that may only store them (16-bit storage, no Int16/Float16) batches the
// 32-bit conversions the loop makes of them instead.
// RUN: %glslang -V --target-env vulkan1.1 -S comp %s -DARITH -o %t.arith.spv
// RUN: %waveopt %t.arith.spv --ssa-rewrite --batch-uniform-loads=always -o %t.a.spv --remarks=batch 2> %t.a.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.a.spv
// RUN: %FileCheck %s --check-prefix=ARITH < %t.a.remarks
// RUN: %spirv-dis %t.a.spv | %FileCheck %s --check-prefix=ARITH-IR
// ARITH-COUNT-3: applied BatchedLoads in main
// ARITH-IR-DAG: OpGroupNonUniformShuffle %float
// ARITH-IR-DAG: OpGroupNonUniformShuffle %uint
// ARITH-IR-DAG: OpGroupNonUniformShuffle %int
// ARITH-IR-DAG: OpFConvert %half
// ARITH-IR-DAG: OpUConvert %ushort
// ARITH-IR-DAG: OpSConvert %short
// RUN: %glslang -V --target-env vulkan1.1 -S comp %s -o %t.storage.spv
// RUN: %waveopt %t.storage.spv --ssa-rewrite --batch-uniform-loads=always -o %t.s.spv --remarks=batch 2> %t.s.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.s.spv
// RUN: %FileCheck %s --check-prefix=STORAGE < %t.s.remarks
// RUN: %spirv-dis %t.s.spv | %FileCheck %s --check-prefix=STORAGE-IR
// STORAGE-COUNT-1: applied BatchedLoads in main
// STORAGE-IR-NOT: OpCapability Float16{{$}}
// STORAGE-IR: OpGroupNonUniformShuffle %v4float
#version 450
#extension GL_EXT_shader_16bit_storage : require
#ifdef ARITH
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#endif
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Halves { f16vec4 h[]; };
#ifdef ARITH
layout(set = 0, binding = 1) readonly buffer UWords { uint16_t u[]; };
layout(set = 0, binding = 4) readonly buffer SWords { int16_t s[]; };
#endif
layout(set = 0, binding = 2) readonly buffer Count { uint n; };
layout(set = 0, binding = 3) buffer Out { vec4 o[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < n; ++i) acc += vec4(h[i]) * float(g);
  o[g] = acc;
#ifdef ARITH
  float16_t hs = float16_t(0.0);
  for (uint i = 0u; i < n; ++i) hs += h[i].x * float16_t(g);
  uint16_t us = uint16_t(0);
  int16_t ss = int16_t(0);
  for (uint i = 0u; i < n; ++i) { us += u[i] * uint16_t(g); ss += s[i] * int16_t(g); }
  o[g + 1u] = vec4(float(hs), float(us), float(ss), 0.0);
#endif
}
