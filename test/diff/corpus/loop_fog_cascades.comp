// Models: light injection for froxel-based volumetric fog (Frostbite /
// Wronski style): one invocation per froxel of a 3-D grid, 4x4x4 workgroups.
// Sun light: loop over the shadow cascades (a UBO array of structs with a
// scale/offset from cascade 0's space and the split depth); the first
// cascade containing the froxel (flag, no break) is filtered with a PCF loop
// over a Poisson disk (vec4 pairs in the same UBO) reading a shadow-map atlas
// (r32f storage image, one quadrant per cascade). Then the point lights of
// the froxel's screen tile (0, 1 or 2 per tile from a per-tile header),
// Henyey-Greenstein phase, result into a linear froxel buffer.
// Exercises: batch-uniform-loads on nested uniform loops: the inner PCF loop
// (inside a divergent `if`) and the outer cascade loop are both batched in
// one run (the pass works a nest innermost first, level by level); running
// the pass again changes nothing (TWICE). By default (-O) the register rule
// batches the tile loop and the PCF loop and refuses the cascade loop
// (about 20 values with the batch's 12 and 2 is over max-live=32; it
// counts what main holds across the call). RDNA2, `waverun isa`: with the
// two batched, VGPRs 24 -> 32 at wave64 and 32 -> 32 at wave32, full
// occupancy, instructions 424 -> 360 and 423 -> 340; with all three
// batched 24 -> 40 and 32 -> 48, a quarter and a third of the waves lost.
// The all-three rewrites are run with max-live=64. The tile light loop runs 0, 1 or
// 2 times per workgroup. The 10x7x6 grid is not a multiple of 4x4x4:
// out-of-grid lanes return early, and after that divergent return the tile
// loop, whose bound is `range.y` of a `uvec2 range` local, is batched too
// (-O turns the member reads of the vector local into whole loads, so the
// SSA rewrite promotes it and the bound is the uniform loaded value); with
// -DSCALAR_RANGE the range is read as two scalars, the same result.
// morton-remap refuses the 3-D workgroup.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="--inline-loop-callees --eliminate-dead-functions --scalar-replacement --convert-local-access-chains --eliminate-dead-code-aggressive --ssa-rewrite --batch-uniform-loads=max-live=64 --remarks=batch -DSCALAR_RANGE" --waverun="-DSCALAR_RANGE" 2>&1 | %FileCheck %s --check-prefix=SCALAR
// RUN: %diff %s --waveopt-flags="--inline-loop-callees --eliminate-dead-functions --scalar-replacement --convert-local-access-chains --eliminate-dead-code-aggressive --ssa-rewrite --batch-uniform-loads=max-live=64 --batch-uniform-loads=max-live=64 --remarks=batch" 2>&1 | %FileCheck %s --check-prefix=TWICE
// CHECK: morton-remap: missed UnsupportedWorkgroupSize in main: the workgroup is 4x4x4
// CHECK-DAG: batch-uniform-loads: missed RegisterPressure in sunVisibility(vf3;f1;: about 20 values per lane are live in the loop already (the kernel's busiest point: 20); with the batch (12)
// CHECK-DAG: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (2 shuffled part(s))
// CHECK-DAG: batch-uniform-loads: applied BatchedLoads in sunVisibility(vf3;f1;: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK-NOT: missed RegisterPressure
// CHECK: PASS: equal at sizes 4,8,16,32,64
// SCALAR-DAG: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (2 shuffled part(s))
// SCALAR-DAG: batch-uniform-loads: applied BatchedLoads in sunVisibility(vf3;f1;: 1 uniform load(s) per iteration (1 shuffled part(s))
// SCALAR-DAG: batch-uniform-loads: applied BatchedLoads in sunVisibility(vf3;f1;: 1 uniform load(s) per iteration (3 shuffled part(s))
// SCALAR: PASS: equal at sizes 4,8,16,32,64
// TWICE-COUNT-3: batch-uniform-loads: applied BatchedLoads in
// TWICE-NOT: applied
// TWICE: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

struct Cascade {
  vec4 scale;        // xyz: from cascade-0 shadow space
  vec4 offset;       // xyz; w: split (far) view depth of this cascade
  vec4 atlasRect;    // xy: atlas offset (texels), zw: size (texels)
};

layout(set = 0, binding = 0, std140) uniform ShadowConstants {
  vec4 sunDirection;      // xyz, w: anisotropy g
  vec4 sunColor;
  vec4 shadowSpace0X;     // cascade-0 shadow space = dot rows with world pos
  vec4 shadowSpace0Y;
  vec4 shadowSpace0Z;
  uvec4 counts;           // x: cascades, y: PCF samples
  Cascade cascades[4];
  vec4 poissonDisk[16];   // xy, zw unused
} shadow;

layout(push_constant) uniform FogParams {
  uvec4 grid;             // froxels x, y, z; tiles per row
  vec4 volume;            // xyz: world extent, w: density
} fog;

struct PointLight { vec4 positionRadius; vec4 color; };
layout(set = 0, binding = 1, std430) readonly buffer PointLights { PointLight pointLights[]; };
layout(set = 0, binding = 2, std430) readonly buffer TileLightRanges { uvec2 tileRanges[]; };
layout(set = 0, binding = 3, r32f) uniform readonly image2D shadowAtlas;
layout(set = 0, binding = 4, std430) writeonly buffer Froxels { vec4 froxels[]; };

float phaseHG(float cosTheta, float g) {
  float g2 = g * g;
  float denom = 1.0 + g2 - 2.0 * g * cosTheta;
  return (1.0 - g2) / (4.0 * 3.14159265 * denom * sqrt(denom));
}

float shadowTap(vec2 atlasTexel, float depth) {
  ivec2 t = ivec2(atlasTexel);
  return imageLoad(shadowAtlas, t).r >= depth ? 1.0 : 0.0;
}

float sunVisibility(vec3 worldPos, float viewDepth) {
  vec3 s0 = vec3(dot(shadow.shadowSpace0X, vec4(worldPos, 1.0)),
                 dot(shadow.shadowSpace0Y, vec4(worldPos, 1.0)),
                 dot(shadow.shadowSpace0Z, vec4(worldPos, 1.0)));
  float visibility = 1.0;
  bool found = false;
  for (uint c = 0u; c < shadow.counts.x; ++c) {
    Cascade cascade = shadow.cascades[c];
    if (found || viewDepth > cascade.offset.w) {
      continue;
    }
    vec3 sc = s0 * cascade.scale.xyz + cascade.offset.xyz;
    if (any(lessThan(sc.xy, vec2(0.0))) || any(greaterThanEqual(sc.xy, vec2(1.0)))) {
      continue;
    }
    found = true;
    vec2 base = cascade.atlasRect.xy + sc.xy * (cascade.atlasRect.zw - 2.0) + 1.0;
    float lit = 0.0;
    for (uint s = 0u; s < shadow.counts.y; ++s) {
      vec2 o = shadow.poissonDisk[s].xy;
      lit += shadowTap(base + o, sc.z);
    }
    visibility = lit / float(max(shadow.counts.y, 1u));
  }
  return visibility;
}

void main() {
  uvec3 froxel = gl_GlobalInvocationID;
  if (any(greaterThanEqual(froxel, fog.grid.xyz))) {
    return;
  }
  vec3 uvw = (vec3(froxel) + 0.5) / vec3(fog.grid.xyz);
  vec3 worldPos = uvw * fog.volume.xyz;
  float viewDepth = uvw.z * fog.volume.z;
  vec3 viewDir = normalize(vec3(uvw.xy - 0.5, 1.0));

  vec3 inScatter = shadow.sunColor.rgb * sunVisibility(worldPos, viewDepth) *
                   phaseHG(dot(viewDir, -shadow.sunDirection.xyz), shadow.sunDirection.w);

  uint tile = gl_WorkGroupID.y * fog.grid.w + gl_WorkGroupID.x;
#ifdef SCALAR_RANGE
  uint firstLight = tileRanges[tile].x;
  uint lightCount = tileRanges[tile].y;
#else
  uvec2 range = tileRanges[tile];
#define firstLight range.x
#define lightCount range.y
#endif
  for (uint i = 0u; i < lightCount; ++i) {
    PointLight light = pointLights[firstLight + i];
    vec3 toLight = light.positionRadius.xyz - worldPos;
    float d2 = dot(toLight, toLight);
    float r2 = light.positionRadius.w * light.positionRadius.w;
    if (d2 >= r2) {
      continue;
    }
    float falloff = (1.0 - d2 / r2) / (1.0 + d2);
    inScatter += light.color.rgb * falloff * phaseHG(dot(viewDir, toLight * inversesqrt(max(d2, 1e-6))), 0.3);
  }

  uint index = (froxel.z * fog.grid.y + froxel.y) * fog.grid.x + froxel.x;
  froxels[index] = vec4(inScatter * fog.volume.w, fog.volume.w);
}
