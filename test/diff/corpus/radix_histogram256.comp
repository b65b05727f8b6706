// Models: the histogram pass of an LSD GPU radix sort with 8-bit digits
// (256 bins, four passes over 32-bit keys): shared-memory block histogram,
// flushed into the global histogram with a strided loop.
// Exercises: a 256-value bin index, above the pass's default max-bins (32),
// so the bin atomic must NOT be treated as a small bin set (missed remark
// says why); the strided flush loop's atomics at per-lane addresses; a
// second run with max-bins=128 still refuses (the bound is 256); workgroups
// of 120 (partial subgroups at 16, 32 and 64).
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="--prereduce-atomics=max-bins=128 --remarks=prereduce --remarks-missed=prereduce" 2>&1 | %FileCheck %s --check-prefix=BINS128
// CHECK: morton-remap: missed LinearIndex in main: the 120x1x1 workgroup
// CHECK: :51:{{.*}} prereduce-atomics: missed DivergentAddress in main: the address differs between lanes and its index is not provably in a set of at most 32 values
// CHECK: :58:{{.*}} prereduce-atomics: missed DivergentAddress in main: the address differs between lanes and its index is not provably in a set of at most 32 values
// CHECK-NOT: applied
// CHECK: PASS: equal at sizes 4,8,16,32,64
// BINS128: :51:{{.*}} missed DivergentAddress in main: the address differs between lanes and its index is not provably in a set of at most 128 values
// BINS128: :58:{{.*}} missed DivergentAddress
// BINS128-NOT: applied
// BINS128: PASS: equal at sizes 4,8,16,32,64
#version 450
#define RADIX_SIZE 256u
#define WG_SIZE 120u
#define KEYS_PER_THREAD 3u

layout(local_size_x = 120) in;

layout(set = 0, binding = 0, std430) readonly buffer Keys { uint keys[]; };
layout(set = 0, binding = 1, std430) buffer Histogram { uint globalHistogram[RADIX_SIZE]; };

layout(push_constant) uniform SortPush {
  uint numKeys;
  uint shift;
} pc;

shared uint localHistogram[RADIX_SIZE];

void clearLocal(uint lid) {
  for (uint b = lid; b < RADIX_SIZE; b += WG_SIZE) localHistogram[b] = 0u;
}

void main() {
  uint lid = gl_LocalInvocationID.x;
  clearLocal(lid);
  barrier();

  uint blockStart = gl_WorkGroupID.x * WG_SIZE * KEYS_PER_THREAD;
  for (uint i = 0u; i < KEYS_PER_THREAD; ++i) {
    uint index = blockStart + i * WG_SIZE + lid;
    if (index < pc.numKeys) {
      uint digit = bitfieldExtract(keys[index], int(pc.shift), 8);
      atomicAdd(localHistogram[digit & 0xFFu], 1u);
    }
  }
  barrier();

  for (uint b = lid; b < RADIX_SIZE; b += WG_SIZE) {
    uint count = localHistogram[b];
    if (count > 0u) atomicAdd(globalHistogram[b], count);
  }
}
