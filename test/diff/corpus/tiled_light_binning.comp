// Models: the tile pass of tiled (Forward+) light culling with 2.5D depth
// masks: one 8x8 workgroup per screen tile reduces the tile's min/max depth
// and an 8-slice occupancy mask in shared memory, counts pixels per slice,
// then tests every light against the tile (screen rectangle, depth range,
// slice mask) and sets the light's bit in the tile's light bitmask.
// Exercises: shared atomicMin/atomicMax/atomicOr of divergent values at one
// address, a per-tile small-bin counter indexed by the slice (8 bins, bound
// from min(.., 7)) behind a uniform tile index, a global slice histogram, a
// shared pair counter inside the strided light loop under a divergent test,
// the bitmask atomicOr at a per-lane word (refused), off-screen pixels
// skipped without an early return (barriers follow), 8x8 workgroups (rows of
// 8 lanes at 16 and above, morton-remap candidate).
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="--morton-remap=always --prereduce-atomics --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s --check-prefix=MORTON
// CHECK: morton-remap: missed NotProfitable in main: 2-D accesses weigh 1 (1 storage image access), linear accesses 18 (4 storage buffer accesses weighing 18)
// CHECK: batch-uniform-loads: missed LoopTripCountDivergent in main
// CHECK: :110:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMin of a divergent value; the returned value is unused
// CHECK: :111:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; the returned value is unused
// CHECK: :113:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicOr of a divergent value; the returned value is unused
// CHECK: :114:{{.*}} applied SmallBinSet in main: one atomic per distinct address per subgroup (the index takes at most 8 values; lanes sharing it found by 3 ballot(s)): OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: :115:{{.*}} applied SmallBinSet in main: one atomic per distinct address per subgroup (the index takes at most 8 values; lanes sharing it found by 3 ballot(s)): OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: :126:{{.*}} missed DivergentAddress in main: the address differs between lanes and its index is not provably in a set of at most 32 values
// CHECK: :127:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: :139:{{.*}} applied UniformAddressUniformValue in main
// CHECK: :140:{{.*}} applied UniformAddressUniformValue in main
// CHECK: PASS: equal at sizes 4,8,16,32,64
// MORTON: morton-remap: applied Remapped in main: 8x8x1 workgroup (the WorkgroupSize built-in), Morton order in 8x8 tiles; 2 identity built-in load(s) relabelled
// MORTON-COUNT-3: applied UniformAddressDivergentValue in main
// MORTON-COUNT-2: applied SmallBinSet in main
// MORTON: :126:{{.*}} missed DivergentAddress in main
// MORTON-COUNT-3: applied UniformAddressUniformValue in main
// MORTON: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 8, local_size_y = 8) in;

#define TILE_SIZE 8u
#define NUM_SLICES 8u
#define MAX_LIGHTS 256u
#define MASK_WORDS (MAX_LIGHTS / 32u)

struct TileInfo {
  uint depthMask;
  uint minDepthBits;
  uint maxDepthBits;
  uint lightCount;
  uint sliceCounts[NUM_SLICES];
};

layout(set = 0, binding = 0, r32f) readonly uniform image2D linearDepth;   // view depth / far, 1 = sky
layout(set = 0, binding = 1, std430) readonly buffer Lights { vec4 lights[]; }; // xy screen uv, z depth, w size
layout(set = 0, binding = 2, std430) buffer Tiles { TileInfo tiles[]; };
layout(set = 0, binding = 3, std430) buffer TileLightMasks { uint lightMasks[]; };
layout(set = 0, binding = 4, std430) buffer CullStats {
  uint totalPairs;
  uint litTiles;
  uint sliceHistogram[NUM_SLICES];
} stats;

layout(push_constant) uniform CullPush {
  uvec2 screenSize;
  uint numTilesX;
  uint lightCount;
} pc;

shared uint sMinDepth;
shared uint sMaxDepth;
shared uint sDepthMask;
shared uint sPairs;

uint depthSlice(float depth) {
  // logarithmic slices: 0 covers [0, 1/255), 7 covers [127/255, 1)
  return min(uint(log2(1.0 + depth * 255.0)), NUM_SLICES - 1u);
}

uint sliceRangeMask(float zMin, float zMax) {
  uint first = depthSlice(max(zMin, 0.0));
  uint last = depthSlice(min(zMax, 1.0));
  return ((2u << last) - 1u) & ~((1u << first) - 1u);
}

bool lightTouchesTile(vec4 light, uvec2 tile, float tileMin, float tileMax, uint tileMask) {
  vec2 center = light.xy * vec2(pc.screenSize);
  float radius = light.w * 24.0;
  vec2 lo = vec2(tile * TILE_SIZE);
  vec2 closest = clamp(center, lo, lo + vec2(TILE_SIZE));
  if (distance(closest, center) > radius) return false;
  float depthRadius = light.w * 0.25;
  if (light.z + depthRadius < tileMin || light.z - depthRadius > tileMax) return false;
  return (sliceRangeMask(light.z - depthRadius, light.z + depthRadius) & tileMask) != 0u;
}

void main() {
  uint lid = gl_LocalInvocationIndex;
  uvec2 tile = gl_WorkGroupID.xy;
  uint tileIndex = tile.y * pc.numTilesX + tile.x;

  if (lid == 0u) {
    sMinDepth = 0xFFFFFFFFu;
    sMaxDepth = 0u;
    sDepthMask = 0u;
    sPairs = 0u;
  }
  barrier();

  uvec2 pixel = gl_GlobalInvocationID.xy;
  if (all(lessThan(pixel, pc.screenSize))) {
    float depth = imageLoad(linearDepth, ivec2(pixel)).r;
    if (depth < 1.0) {                                // sky pixels do not bound the tile
      uint bits = floatBitsToUint(max(depth, 0.0));   // non-negative floats order as uints
      atomicMin(sMinDepth, bits);
      atomicMax(sMaxDepth, bits);
      uint slice = depthSlice(depth);
      atomicOr(sDepthMask, 1u << slice);
      atomicAdd(tiles[tileIndex].sliceCounts[slice], 1u);
      atomicAdd(stats.sliceHistogram[slice], 1u);
    }
  }
  barrier();

  uint tileMask = sDepthMask;
  float tileMin = uintBitsToFloat(sMinDepth);
  float tileMax = uintBitsToFloat(sMaxDepth);
  if (tileMask != 0u) {
    for (uint i = lid; i < pc.lightCount; i += TILE_SIZE * TILE_SIZE) {
      if (lightTouchesTile(lights[i], tile, tileMin, tileMax, tileMask)) {
        atomicOr(lightMasks[tileIndex * MASK_WORDS + i / 32u], 1u << (i & 31u));
        atomicAdd(sPairs, 1u);
      }
    }
  }
  barrier();

  if (lid == 0u) {
    tiles[tileIndex].depthMask = tileMask;
    tiles[tileIndex].minDepthBits = sMinDepth;
    tiles[tileIndex].maxDepthBits = sMaxDepth;
    tiles[tileIndex].lightCount = sPairs;
    if (sPairs != 0u) {
      atomicAdd(stats.totalPairs, sPairs);
      atomicAdd(stats.litTiles, 1u);
    }
  }
}
