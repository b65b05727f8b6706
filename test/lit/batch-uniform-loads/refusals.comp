// Every loop here is left alone, each with its reason; the output equals the
// input.
// RUN: %waveopt %s --ssa-rewrite -o %t.orig.spv
// RUN: %waveopt %s --ssa-rewrite --batch-uniform-loads=min-trip=4 -o %t.spv --remarks-missed=batch 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %FileCheck %s < %t.remarks
// CHECK: missed LoopTripCountDivergent in main: lanes may leave the loop at different iterations
// CHECK: missed DivergentAddress in main: the address differs between lanes
// CHECK: missed LoopWritesMemory in main: the loop writes the memory it loads from
// CHECK: missed BarrierInLoop in main: a barrier in the loop
// CHECK: missed CoherentOrVolatile in main: the memory is Coherent or Volatile
// CHECK: missed MultipleExits in main: the loop leaves other than through one exit test
// CHECK: missed ShortLoop in main: the loop runs 3 times, fewer than min-trip=4
// CHECK: missed UnsupportedType in main: an 8- or 16-bit member would need subgroup extended types
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
layout(set = 0, binding = 4) readonly buffer Count { uint n; };
layout(set = 0, binding = 1) coherent buffer Shared { uint shared_data[]; };
layout(set = 0, binding = 2) readonly buffer Halves { uint16_t halves[]; };
layout(set = 0, binding = 3) buffer Out { uint result[]; };
shared uint tile[64];
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint acc = 0u;
  for (uint i = 0u; i < g % 5u; ++i) acc += data[i];
  for (uint i = 0u; i < n; ++i) acc += data[i + g];
  for (uint i = 0u; i < n; ++i) { acc += data[i]; data[i + 1u] = acc; }
  for (uint i = 0u; i < n; ++i) { acc += tile[i & 63u]; barrier(); tile[g & 63u] = acc; barrier(); }
  for (uint i = 0u; i < n; ++i) acc += shared_data[i];
  for (uint i = 0u; i < n; ++i) { if (data[i] == 7u) break; acc += data[i]; }
  for (uint i = 0u; i < 3u; ++i) acc += data[i];
  for (uint i = 0u; i < n; ++i) acc += uint(halves[i]);
  result[g] = acc;
}
