// Models: the feedback-resolve pass of virtual texturing / texture
// streaming: the feedback buffer written during rendering holds one packed
// page request per texel (bit 31: written this frame; mip and page
// coordinates below). Each invocation walks a few texels, marks the
// requested page in a residency-request bitmask, appends a page to the
// request list the first time it is seen this frame (the returned old mask
// word decides), stamps the page's 64-bit last-use time for LRU eviction,
// and keeps 64-bit byte and sample totals, per-mip counts, a
// still-unrequested-mip mask (atomicAnd) and an order-independent checksum
// (atomicXor).
// Exercises: 64-bit atomics (uniform value: applied; divergent value at a
// uniform address: 32-bit pieces, or 64-bit ones with extended-types;
// atomicMax at a per-page address: refused), atomicAnd/atomicXor of
// divergent values, a small-bin counter (mip, bound from min(.., 4)), the
// bitmask atomicOr at one of 11 words (bound from the array length) with
// its returned value used, an append with the slot used -- all inside a
// per-thread loop with break/continue under a divergent "texel valid"
// branch; workgroups of 40.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="--prereduce-atomics=extended-types --remarks=prereduce --remarks-missed=prereduce" 2>&1 | %FileCheck %s --check-prefix=EXT
// CHECK: morton-remap: missed LinearIndex in main: the 40x1x1 workgroup
// CHECK: batch-uniform-loads: missed LoopTripCountDivergent in main
// CHECK: :98:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicUMax of a uniform value; the returned value is unused
// CHECK: :112:{{.*}} applied SmallBinSet in main: one atomic per distinct address per subgroup (the index takes at most 11 values; a loop takes one index at a time): OpAtomicOr of a divergent value; each lane's returned value is rebuilt
// CHECK: :114:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// CHECK: :116:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicIAdd of a divergent value; the returned value is unused; the 64-bit value is reduced as 32-bit pieces
// CHECK: :118:{{.*}} missed DivergentAddress in main: the address differs between lanes and its index is not provably in a set of at most 32 values
// CHECK: :120:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: :121:{{.*}} applied SmallBinSet in main: one atomic per distinct address per subgroup (the index takes at most 5 values; lanes sharing it found by 3 ballot(s)): OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: :122:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicAnd of a divergent value; the returned value is unused
// CHECK: :123:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicXor of a divergent value; the returned value is unused
// CHECK: PASS: equal at sizes 4,8,16,32,64
// EXT-NOT: reduced as 32-bit pieces
// EXT: :116:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicIAdd of a divergent value; the returned value is unused{{$}}
// EXT: PASS: equal at sizes 4,8,16,32,64
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 40) in;

#define TEXELS_PER_THREAD 4u
#define MAX_MIP 4u
#define PAGES_MIP0_SIDE 16u
#define TOTAL_PAGES 341u                 // 16^2 + 8^2 + 4^2 + 2^2 + 1^2
#define RESIDENCY_WORDS ((TOTAL_PAGES + 31u) / 32u)

layout(set = 0, binding = 0, std430) readonly buffer Feedback { uint feedbackTexels[]; };

layout(set = 0, binding = 1, std430) buffer Residency {
  uint requestedBits[RESIDENCY_WORDS];
};

layout(set = 0, binding = 2, std430) buffer RequestList {
  uint requestCount;
  uint requestedPages[];
};

layout(set = 0, binding = 4, std430) buffer PageLastUse { uint64_t pageLastUse[TOTAL_PAGES]; };

layout(set = 0, binding = 3, std430) buffer StreamingStats {
  uint64_t requestedBytes;
  uint64_t validSamples;
  uint64_t lastFrame;
  uint perMipSamples[MAX_MIP + 1u];
  uint unrequestedMips;
  uint feedbackHash;
} stats;

layout(push_constant) uniform ResolvePush {
  uint texelCount;
  uint frameIndex;
  uint64_t frameTimestampUs;
} pc;

const uint mipPageOffset[MAX_MIP + 1u] = uint[](0u, 256u, 320u, 336u, 340u);

uint pageIndexOf(uint x, uint y, uint mip) {
  uint side = PAGES_MIP0_SIDE >> mip;
  return mipPageOffset[mip] + (y >> mip) * side + (x >> mip);
}

uint64_t pageBytes(uint mip) {
  // 128x128 RGBA8 tile plus borders; mips share the tile size but the
  // coarse ones are packed in a tail and cost less
  return mip < 3u ? 65536ul : uint64_t(16384u >> (mip - 3u));
}

uint hashTexel(uint v) {
  v = (v ^ 61u) ^ (v >> 16);
  v *= 9u;
  v ^= v >> 4;
  v *= 0x27d4eb2du;
  return v ^ (v >> 15);
}

void main() {
  uint gid = gl_GlobalInvocationID.x;
  atomicMax(stats.lastFrame, uint64_t(pc.frameIndex));

  for (uint i = 0u; i < TEXELS_PER_THREAD; ++i) {
    uint texel = gid * TEXELS_PER_THREAD + i;
    if (texel >= pc.texelCount) break;
    uint packed = feedbackTexels[texel];
    if ((packed & 0x80000000u) == 0u) continue;    // not written this frame

    uint x = packed & 0xFu;
    uint y = (packed >> 8) & 0xFu;
    uint mip = min((packed >> 16) & 0x7u, MAX_MIP);
    uint page = pageIndexOf(x, y, mip);

    uint bit = 1u << (page & 31u);
    uint before = atomicOr(requestedBits[page >> 5], bit);
    if ((before & bit) == 0u) {                     // first request this frame
      uint slot = atomicAdd(requestCount, 1u);
      requestedPages[slot] = page;
      atomicAdd(stats.requestedBytes, pageBytes(mip));
    }
    atomicMax(pageLastUse[page], pc.frameTimestampUs);

    atomicAdd(stats.validSamples, 1ul);
    atomicAdd(stats.perMipSamples[mip], 1u);
    atomicAnd(stats.unrequestedMips, ~(1u << mip));
    atomicXor(stats.feedbackHash, hashTexel(packed));
  }
}
