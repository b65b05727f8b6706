// Models: a one-shader tiled deferred/forward+ light pass with bitmask light
// lists (16x16 tiles): (1) every lane loads its pixel's depth and the tile's
// depth bounds are built with shared atomicMin/atomicMax; (2) the lanes cull
// the scene's lights against the tile (a strided loop, lane i tests lights
// i, i+256, ...) and set bits in a shared light mask with atomicOr; (3) each
// pixel walks the mask word by word, bit-scanning the set bits, and shades
// the visible lights. The light mask is order-independent, so the result is
// deterministic whatever order the invocations run in.
// Exercises: batch-uniform-loads leaving the loop over *workgroup* memory
// after the barrier (the mask words; no store or barrier inside the loop),
// its refusal of the culling loop (per-lane start: LoopTripCountDivergent)
// and of the bit-scan `while` (no induction variable); morton-remap on a
// 16x16 image kernel with shared atomics and barriers (legal, but not
// profitable: the culling loop reads the lights at the flat local index, and
// Morton order would split each quad's four consecutive lights over two
// 64-byte lines; it weighs 8 as a loop of unknown trip count, with the
// shared mask 9, against 3 image accesses); prereduce-atomics on the shared
// min/max/or atomics (lanes of a subgroup hit one address).
// 70x44 pixels: partial tiles keep their lanes (no return before the
// barriers) and only skip the depth bounds and the store.
// Alpha holds the tile's light count (a light-complexity heatmap), so the
// culling result (depth bounds, mask) is part of the compared output.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// CHECK: morton-remap: missed NotProfitable in main: 2-D accesses weigh 3 (3 storage image accesses), linear accesses 17 (1 storage buffer access weighing 8, 2 shared memory accesses weighing 9)
// CHECK-DAG: batch-uniform-loads: missed LoopTripCountDivergent in main
// CHECK-DAG: batch-uniform-loads: missed AddressNotInduction in main: the address changes from iteration to iteration, but not as a function of the loop's counters
// CHECK-DAG: prereduce-atomics: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMin
// CHECK-DAG: prereduce-atomics: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax
// CHECK-DAG: prereduce-atomics: applied SmallBinSet in main: {{.*}}OpAtomicOr
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 16, local_size_y = 16) in;

#define MAX_LIGHTS 128u
#define MASK_WORDS (MAX_LIGHTS / 32u)

struct Light {
  vec4 positionRadius;  // xy: screen uv, z: depth, w: radius (uv units)
  vec4 color;
};

layout(push_constant) uniform LightingParams {
  uint lightCount;      // <= MAX_LIGHTS
  float depthScale;     // depth units to uv units for the distance
  float ambient;
  float radiusScale;    // light radius units to uv units
} params;

layout(set = 0, binding = 0, std430) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 1, r32f) uniform readonly image2D sceneDepth;
layout(set = 0, binding = 2, rgba8) uniform readonly image2D albedo;
layout(set = 0, binding = 3, rgba32f) uniform writeonly image2D lighting;

shared uint tileDepthMin;
shared uint tileDepthMax;
shared uint tileLightMask[MASK_WORDS];

bool sphereTouchesTile(vec4 sphere, vec2 tileMin, vec2 tileMax, float zMin, float zMax) {
  float radius = sphere.w * params.radiusScale;
  vec2 closest = clamp(sphere.xy, tileMin, tileMax);
  vec2 d = sphere.xy - closest;
  return dot(d, d) <= radius * radius &&
         sphere.z + radius / params.depthScale >= zMin &&
         sphere.z - radius / params.depthScale <= zMax;
}

void main() {
  ivec2 size = imageSize(sceneDepth);
  ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
  bool onScreen = pixel.x < size.x && pixel.y < size.y;
  uint lane = gl_LocalInvocationIndex;

  if (lane == 0u) {
    tileDepthMin = 0x7F7FFFFFu;  // FLT_MAX bits
    tileDepthMax = 0u;
  }
  if (lane < MASK_WORDS) {
    tileLightMask[lane] = 0u;
  }
  barrier();

  float depth = 0.0;
  if (onScreen) {
    depth = imageLoad(sceneDepth, pixel).r;  // in [0, 1]: the bits order like the floats
    atomicMin(tileDepthMin, floatBitsToUint(depth));
    atomicMax(tileDepthMax, floatBitsToUint(depth));
  }
  barrier();

  vec2 invSize = 1.0 / vec2(size);
  vec2 tileMin = vec2(gl_WorkGroupID.xy * gl_WorkGroupSize.xy) * invSize;
  vec2 tileMax = vec2(gl_WorkGroupID.xy * gl_WorkGroupSize.xy + gl_WorkGroupSize.xy) * invSize;
  float zMin = uintBitsToFloat(tileDepthMin);
  float zMax = uintBitsToFloat(tileDepthMax);
  uint lightCount = min(params.lightCount, MAX_LIGHTS);
  for (uint i = lane; i < lightCount; i += gl_WorkGroupSize.x * gl_WorkGroupSize.y) {
    if (sphereTouchesTile(lights[i].positionRadius, tileMin, tileMax, zMin, zMax)) {
      atomicOr(tileLightMask[i >> 5], 1u << (i & 31u));
    }
  }
  barrier();

  if (!onScreen) {
    return;
  }
  vec2 uv = (vec2(pixel) + 0.5) * invSize;
  vec3 base = imageLoad(albedo, pixel).rgb;
  vec3 color = base * params.ambient;
  uint tileLights = 0u;  // the debug light-complexity heatmap, in alpha
  for (uint w = 0u; w < MASK_WORDS; ++w) {
    uint bits = tileLightMask[w];
    tileLights += uint(bitCount(bits));
    while (bits != 0u) {
      uint bit = uint(findLSB(bits));
      bits &= bits - 1u;
      Light light = lights[w * 32u + bit];
      vec3 d = vec3(light.positionRadius.xy - uv, (light.positionRadius.z - depth) * params.depthScale);
      float dist2 = dot(d, d);
      float radius = light.positionRadius.w * params.radiusScale;
      float r2 = radius * radius;
      if (dist2 < r2) {
        float falloff = 1.0 - dist2 / r2;
        color += base * light.color.rgb * falloff * falloff;
      }
    }
  }
  imageStore(lighting, pixel, vec4(color, float(tileLights)));
}
