// Models: the final post-processing resolve of a game renderer (16x16
// workgroups): exposure from the auto-exposure buffer, bloom composite from a
// half-resolution bloom texture (manual bilinear from four texel fetches),
// screen-space lens-flare ghosts (a loop over a UBO list of ghost scales and
// tints), vignette, ACES-fit tonemap, sRGB encode into an rgba8 target with
// luma in alpha (for FXAA), and a bright-pass (bloom threshold) output for
// the next frame's bloom chain.
// Exercises: morton-remap on a 16x16 image kernel (four 8x8 Morton tiles)
// with a 70x50 target (partial workgroups, early return), and
// batch-uniform-loads on the ghost loop (two UBO arrays indexed by the loop,
// the texel fetches per pixel): refused by the register rule under -O (39
// values live in the loop; RADV: VGPRs 40 -> 48 when batched), run batched
// with max-live=64 (FORCED). Ghost counts 5 (default), 0 and 1.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="--inline-loop-callees --eliminate-dead-functions --scalar-replacement --convert-local-access-chains --eliminate-dead-code-aggressive --ssa-rewrite --batch-uniform-loads=max-live=64 --remarks=batch" 2>&1 | %FileCheck %s --check-prefix=FORCED
// RUN: %diff %s --waveopt-flags="--inline-loop-callees --eliminate-dead-functions --scalar-replacement --convert-local-access-chains --eliminate-dead-code-aggressive --ssa-rewrite --batch-uniform-loads=max-live=64" --waverun="-s 'push fill=zero words=0x3f000000,0x3f800000,0,0x3e99999a'" 2>&1 | %FileCheck %s --check-prefix=EQUAL
// RUN: %diff %s --waveopt-flags="--inline-loop-callees --eliminate-dead-functions --scalar-replacement --convert-local-access-chains --eliminate-dead-code-aggressive --ssa-rewrite --batch-uniform-loads=max-live=64" --waverun="-s 'push fill=zero words=0x3f000000,0x3f800000,1,0x3e99999a'" 2>&1 | %FileCheck %s --check-prefix=EQUAL
// CHECK: morton-remap: applied Remapped in main: 16x16x1 workgroup
// CHECK: batch-uniform-loads: missed RegisterPressure in main: about 39 values per lane are live in the loop already
// FORCED: batch-uniform-loads: applied BatchedLoads in main: 2 uniform load(s) per iteration (2 shuffled part(s))
// FORCED: PASS: equal at sizes 4,8,16,32,64
// CHECK: PASS: equal at sizes 4,8,16,32,64
// EQUAL: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 16, local_size_y = 16) in;

layout(push_constant) uniform PostParams {
  float bloomIntensity;
  float bloomThreshold;
  uint ghostCount;
  float vignetteStrength;
} post;

layout(set = 0, binding = 0, std140) uniform LensFlare {
  vec4 ghostScale[8];   // x: scale along the flare axis, y: falloff
  vec4 ghostTint[8];
} flare;

layout(set = 0, binding = 1, std430) readonly buffer Exposure {
  float averageLuminance;
  float exposureCompensation;
} exposure;

layout(set = 0, binding = 2, rgba16f) uniform readonly image2D hdrScene;
layout(set = 0, binding = 3) uniform sampler2D bloomHalfRes;
layout(set = 0, binding = 4, rgba8) uniform writeonly image2D ldrOutput;
layout(set = 0, binding = 5, rgba16f) uniform writeonly image2D brightPass;

vec3 sampleBloomBilinear(vec2 uv) {
  ivec2 size = textureSize(bloomHalfRes, 0);
  vec2 p = uv * vec2(size) - 0.5;
  ivec2 i = ivec2(floor(p));
  vec2 f = p - vec2(i);
  ivec2 hi = size - 1;
  vec3 a = texelFetch(bloomHalfRes, clamp(i, ivec2(0), hi), 0).rgb;
  vec3 b = texelFetch(bloomHalfRes, clamp(i + ivec2(1, 0), ivec2(0), hi), 0).rgb;
  vec3 c = texelFetch(bloomHalfRes, clamp(i + ivec2(0, 1), ivec2(0), hi), 0).rgb;
  vec3 d = texelFetch(bloomHalfRes, clamp(i + ivec2(1, 1), ivec2(0), hi), 0).rgb;
  return mix(mix(a, b, f.x), mix(c, d, f.x), f.y);
}

vec3 acesFit(vec3 x) {
  const float a = 2.51, b = 0.03, c = 2.43, d = 0.59, e = 0.14;
  return clamp((x * (a * x + b)) / (x * (c * x + d) + e), 0.0, 1.0);
}

vec3 linearToSrgb(vec3 c) {
  vec3 lo = c * 12.92;
  vec3 hi = 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055;
  return mix(hi, lo, lessThanEqual(c, vec3(0.0031308)));
}

void main() {
  ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(hdrScene);
  if (pixel.x >= size.x || pixel.y >= size.y) {
    return;
  }
  vec2 uv = (vec2(pixel) + 0.5) / vec2(size);

  vec3 hdr = imageLoad(hdrScene, pixel).rgb;
  vec3 bloom = sampleBloomBilinear(uv);

  // Lens-flare ghosts: mirrored bloom samples along the axis through the center.
  vec2 toCenter = vec2(0.5) - uv;
  vec3 ghosts = vec3(0.0);
  for (uint g = 0u; g < post.ghostCount; ++g) {
    vec4 scale = flare.ghostScale[g];
    vec2 ghostUv = fract(uv + toCenter * scale.x);
    float falloff = max(1.0 - length(vec2(0.5) - ghostUv) * scale.y, 0.0);
    ghosts += sampleBloomBilinear(ghostUv) * flare.ghostTint[g].rgb * falloff;
  }

  vec3 color = hdr + (bloom + ghosts) * post.bloomIntensity;
  float ev = exposure.exposureCompensation / max(exposure.averageLuminance, 1e-3);
  color *= ev;

  vec2 v = uv * (1.0 - uv);
  color *= mix(1.0, clamp(v.x * v.y * 16.0, 0.0, 1.0), post.vignetteStrength);

  float luminance = dot(hdr * ev, vec3(0.2126, 0.7152, 0.0722));
  vec3 bright = hdr * max(luminance - post.bloomThreshold, 0.0) / max(luminance, 1e-4);
  imageStore(brightPass, pixel, vec4(bright, 1.0));

  vec3 ldr = linearToSrgb(acesFit(color));
  float luma = dot(ldr, vec3(0.299, 0.587, 0.114));
  imageStore(ldrOutput, pixel, vec4(ldr, luma));
}
