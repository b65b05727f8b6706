// Models: the histogram (upsweep) pass of an LSD GPU radix sort with 4-bit
// digits: each workgroup counts the digits of its block of keys in shared
// memory, writes its block histogram (digit-major, for the following scan)
// and adds it into the global digit histogram.
// Exercises: shared-memory small-bin atomic (16 bins, bound from the
// & 0xF mask) inside a per-thread key loop with a bounds check, barriers,
// the flush atomic at distinct addresses (must be refused), a partially
// filled last block, workgroups of 80 (partial subgroups at 32 and 64).
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// CHECK: morton-remap: missed LinearIndex in main: the 80x1x1 workgroup
// CHECK: batch-uniform-loads: missed LoopTripCountDivergent in main
// CHECK: :53:{{.*}} applied SmallBinSet in main: one atomic per distinct address per subgroup (the index takes at most 16 values; lanes sharing it found by 4 ballot(s)): OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: :60:{{.*}} missed DistinctAddresses in main: the index is the invocation's own index
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
#define RADIX_BITS 4
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_MASK (RADIX_SIZE - 1u)
#define WG_SIZE 80u
#define KEYS_PER_THREAD 4u

layout(local_size_x = 80) in;

layout(set = 0, binding = 0, std430) readonly buffer Keys { uint keys[]; };
layout(set = 0, binding = 1, std430) buffer Histograms {
  uint globalHistogram[RADIX_SIZE];
  uint blockHistograms[];           // [digit * numBlocks + block]
};

layout(push_constant) uniform SortPush {
  uint numKeys;
  uint shift;
  uint numBlocks;
} pc;

shared uint localHistogram[RADIX_SIZE];

uint extractDigit(uint key) {
  return (key >> pc.shift) & RADIX_MASK;
}

void main() {
  uint lid = gl_LocalInvocationID.x;
  uint block = gl_WorkGroupID.x;

  if (lid < RADIX_SIZE) localHistogram[lid] = 0u;
  barrier();

  uint blockStart = block * WG_SIZE * KEYS_PER_THREAD;
  for (uint i = 0u; i < KEYS_PER_THREAD; ++i) {
    uint index = blockStart + i * WG_SIZE + lid;   // coalesced
    if (index >= pc.numKeys) break;
    atomicAdd(localHistogram[extractDigit(keys[index])], 1u);
  }
  barrier();

  if (lid < RADIX_SIZE) {
    uint count = localHistogram[lid];
    blockHistograms[lid * pc.numBlocks + block] = count;
    if (count != 0u) atomicAdd(globalHistogram[lid], count);
  }
}
