// Every loop here is left alone, each with the one reason that stopped it;
// the output equals the input (byte for byte).
// RUN: %waveopt %s --ssa-rewrite -o %t.orig.spv
// RUN: %waveopt %s --ssa-rewrite --batch-uniform-loads -o %t.spv --remarks-missed=batch 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %FileCheck %s < %t.remarks
// CHECK: missed LoopTripCountDivergent in main: lanes may leave the loop at different iterations (an exit test is not subgroup-uniform) [loop at line {{[0-9]+}}]
// CHECK: missed DivergentAddress in main: the address differs between lanes
// CHECK: missed LoopWritesMemory in main: the loop writes the memory it loads from
// CHECK: missed BarrierInLoop in main: a barrier in the loop
// CHECK: missed CoherentOrVolatile in main: the memory is Coherent or Volatile
// CHECK: missed UnprovenBounds in main: the load is conditional, so elements would be read ahead of time, and a buffer device address has no length to check against
// CHECK: missed ShortLoop in main: the loop runs 3 times, fewer than min-trip=4
// CHECK: missed UnsupportedType in main: the loaded value has more than 64 scalar or vector parts
// CHECK: missed AddressNotInduction in main: the address changes from iteration to iteration, but not as a function of the loop's counters
#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Vecs { vec4 v[]; };
layout(set = 0, binding = 0) buffer Data { uint data[]; };
layout(set = 0, binding = 4) readonly buffer Count { uint n; Vecs vecs; };
layout(set = 0, binding = 1) coherent buffer Shared { uint shared_data[]; };
struct Big { float f[70]; };
layout(set = 0, binding = 2) readonly buffer Bigs { Big bigs[]; };
layout(set = 0, binding = 5) readonly buffer List { uint head; uint next[]; };
layout(set = 0, binding = 3) buffer Out { uint result[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint acc = 0u;
  for (uint i = 0u; i < g % 5u; ++i) acc += data[i];
  for (uint i = 0u; i < n; ++i) acc += data[i + g];
  for (uint i = 0u; i < n; ++i) { acc += data[i]; data[i + 1u] = acc; }
  for (uint i = 0u; i < n; ++i) { acc += data[i]; barrier(); }
  for (uint i = 0u; i < n; ++i) acc += shared_data[i];
  for (uint i = 0u; i < n; ++i) { if ((i & 1u) != 0u) acc += uint(vecs.v[i].x); }
  for (uint i = 0u; i < 3u; ++i) acc += data[i];
  for (uint i = 0u; i < n; ++i) { Big b = bigs[i]; acc += uint(b.f[g % 70u]); }
  for (uint node = head; node != 0u; node = next[node]) acc += node;
  result[g] = acc;
}
