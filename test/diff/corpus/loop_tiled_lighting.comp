// Models: the light-accumulation pass of a tiled deferred renderer (one 8x8
// workgroup per screen tile). A culling pass has written, per tile, an
// (offset, count) header into a light-index list; every pixel of the tile
// walks that list, fetches the light structs (with a 64-bit layer mask) from
// a readonly SSBO, and shades point and spot lights (branch on the light type,
// per-pixel `continue` for lights out of range or on another layer).
// Exercises: batch-uniform-loads on a loop whose light-index load and
// light-struct load are both subgroup-uniform; morton-remap on the 8x8
// G-buffer reads.
// The screen (60x44) is not a multiple of the tile: edge tiles return early
// per pixel, so the loop runs in partial subgroups. Tiles hold 0..65 lights
// (trip counts around every subgroup size).
// With -DCOMPACT_LIGHTS the culling pass has copied the light structs into
// the per-tile list (lights[first + i], no index indirection): the whole
// struct is batched (9 parts; the uint64 moves as a uvec2).
// Without it the index load and the light struct at that index are both
// batched (each lane loads idx[first + mine] and the light it names).
// --no-check-sim: the original module already differs between lavapipe and
// the wave simulator by up to 13 ulps on 3 words (normalize() of a vector
// with negative components rounds 1 ulp apart, amplified by the lighting
// math; over the 8-ulp trust tolerance). Original vs rewrite stays exact.
// Under -O the cost rule refuses both (the batch would hold 17 words per
// lane: TooManyComponents; compact: 25 values live in the loop plus 16:
// RegisterPressure; RADV navi21 measured VGPRs 32 -> 48 at both wave sizes
// when batched, a third of the waves lost); the rewrites run forced
// (max-live=64, max-components=20: FORCED, FCOMPACT).
// RUN: %diff %s --no-check-sim --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s --check-prefix=INDIRECT
// RUN: %diff %s --no-check-sim --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.* -DCOMPACT_LIGHTS" --waverun="-DCOMPACT_LIGHTS --spec=%S/loop_tiled_lighting_compact.waverun" 2>&1 | %FileCheck %s --check-prefix=COMPACT
// INDIRECT: morton-remap: applied Remapped in main: 8x8x1 workgroup {{.*}}; 2-D accesses weigh 5 (5 storage image accesses), linear accesses 0 (none)
// RUN: %diff %s --no-check-sim --waveopt-flags="--inline-loop-callees --eliminate-dead-functions --scalar-replacement --convert-local-access-chains --eliminate-dead-code-aggressive --ssa-rewrite --batch-uniform-loads=max-live=64,max-components=20 --remarks=batch" 2>&1 | %FileCheck %s --check-prefix=FORCED
// RUN: %diff %s --no-check-sim --waveopt-flags="--inline-loop-callees --eliminate-dead-functions --scalar-replacement --convert-local-access-chains --eliminate-dead-code-aggressive --ssa-rewrite --batch-uniform-loads=max-live=64,max-components=20 --remarks=batch -DCOMPACT_LIGHTS" --waverun="-DCOMPACT_LIGHTS --spec=%S/loop_tiled_lighting_compact.waverun" 2>&1 | %FileCheck %s --check-prefix=FCOMPACT
// INDIRECT: batch-uniform-loads: missed TooManyComponents in main: a batch would hold 17 32-bit values per lane
// INDIRECT: PASS: equal at sizes 4,8,16,32,64
// COMPACT: morton-remap: applied Remapped in main: 8x8x1 workgroup
// COMPACT: batch-uniform-loads: missed RegisterPressure in main
// COMPACT: PASS: equal at sizes 4,8,16,32,64
// FORCED: batch-uniform-loads: applied BatchedLoads in main: 2 uniform load(s) per iteration (10 shuffled part(s))
// FORCED: PASS: equal at sizes 4,8,16,32,64
// FCOMPACT: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (9 shuffled part(s))
// FCOMPACT: PASS: equal at sizes 4,8,16,32,64
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 8, local_size_y = 8) in;

#define LIGHT_POINT 0u
#define LIGHT_SPOT  1u

struct Light {
  vec3 position;  float radius;
  vec3 color;     float intensity;
  vec3 direction; float spotCosOuter;
  float spotCosInner;
  uint type;
  uint64_t layerMask;
};

layout(set = 0, binding = 0, std140) uniform FrameConstants {
  mat4 invViewProj;
  vec4 cameraPos;
  uvec4 screen;      // x, y: size in pixels; z: tiles per row
} frame;

layout(set = 0, binding = 1, std430) readonly buffer LightBuffer { Light lights[]; };
layout(set = 0, binding = 2, std430) readonly buffer TileHeaders { uint tileHeader[]; }; // offset << 8 | count
#ifndef COMPACT_LIGHTS
layout(set = 0, binding = 3, std430) readonly buffer LightIndices { uint lightIndex[]; };
#endif

layout(set = 0, binding = 4, r32f)    uniform readonly image2D gDepth;
layout(set = 0, binding = 5, rgba16f) uniform readonly image2D gNormal;
layout(set = 0, binding = 6, rgba8)   uniform readonly image2D gAlbedo;
layout(set = 0, binding = 7, r32ui)   uniform readonly uimage2D gMaterial;
layout(set = 0, binding = 8, rgba32f) uniform writeonly image2D outRadiance; // HDR accumulation target

struct Surface {
  vec3 position;
  vec3 normal;
  vec3 albedo;
  uint layer;
};

vec3 reconstructPosition(ivec2 pixel, float depth) {
  vec2 uv = (vec2(pixel) + 0.5) / vec2(frame.screen.xy);
  vec4 clip = vec4(uv * 2.0 - 1.0, depth, 1.0);
  vec4 world = frame.invViewProj * clip;
  return world.xyz / max(world.w, 1e-4);
}

Surface loadSurface(ivec2 pixel) {
  Surface s;
  s.position = reconstructPosition(pixel, imageLoad(gDepth, pixel).r);
  s.normal = normalize(imageLoad(gNormal, pixel).xyz * 2.0 - 1.0 + vec3(0.0, 0.0, 1e-3));
  s.albedo = imageLoad(gAlbedo, pixel).rgb;
  s.layer = imageLoad(gMaterial, pixel).r & 63u;
  return s;
}

float distanceAttenuation(float dist, float radius) {
  float x = clamp(1.0 - (dist * dist) / (radius * radius), 0.0, 1.0);
  return x * x / (dist * dist + 1.0);
}

void main() {
  ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(uvec2(pixel), frame.screen.xy))) {
    return;
  }

  Surface surf = loadSurface(pixel);
  uint tile = gl_WorkGroupID.y * frame.screen.z + gl_WorkGroupID.x;
  uint header = tileHeader[tile];
  uint first = header >> 8;
  uint count = header & 0xFFu;

  vec3 radiance = surf.albedo * 0.03;
  for (uint i = 0u; i < count; ++i) {
#ifdef COMPACT_LIGHTS
    Light L = lights[first + i];
#else
    Light L = lights[lightIndex[first + i]];
#endif
    if ((L.layerMask & (uint64_t(1) << surf.layer)) == uint64_t(0)) {
      continue;
    }
    vec3 toLight = L.position - surf.position;
    float dist = length(toLight);
    if (dist >= L.radius) {
      continue;
    }
    vec3 l = toLight / max(dist, 1e-4);
    float atten = distanceAttenuation(dist, L.radius);
    if ((L.type & 1u) == LIGHT_SPOT) {
      float cosAngle = dot(-l, normalize(L.direction + vec3(1e-3)));
      float inner = max(L.spotCosInner, L.spotCosOuter + 1e-3);
      atten *= clamp((cosAngle - L.spotCosOuter) / (inner - L.spotCosOuter), 0.0, 1.0);
    }
    float ndotl = max(dot(surf.normal, l), 0.0);
    radiance += surf.albedo * L.color * (L.intensity * atten * ndotl);
  }
  imageStore(outRadiance, pixel, vec4(radiance, 1.0));
}
