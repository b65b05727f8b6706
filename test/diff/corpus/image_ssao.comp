// Models: a screen-space ambient occlusion pass (Crytek/LearnOpenGL-style
// hemisphere kernel): per pixel, reconstruct the view-space position from
// depth, build a TBN from the G-buffer normal and a tiled 4x4 rotation-noise
// texture, then loop over the sample kernel (vec4s in a UBO, the count from
// push constants), project every sample, fetch the depth there and
// accumulate range-checked occlusion. Samples that leave the screen are
// skipped with a per-pixel `continue`.
// Exercises: batch-uniform-loads on the sample loop (one uniform vec4 per
// iteration, the depth fetch at a per-pixel address), morton-remap on an 8x8
// image kernel; 52x36 pixels (partial workgroups, early return). Kernel
// sizes 16 (default), 7 and 33 (around subgroup sizes).
// RUN: %diff %s --waveopt-flags="-O --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O" --waverun="-s 'push fill=zero words=7,0x3f000000,0x3c23d70a,0x3fc00000'" 2>&1 | %FileCheck %s --check-prefix=EQUAL
// RUN: %diff %s --waveopt-flags="-O" --waverun="-s 'push fill=zero words=33,0x3f000000,0x3c23d70a,0x3fc00000'" 2>&1 | %FileCheck %s --check-prefix=EQUAL
// CHECK-DAG: morton-remap: applied Remapped in main: 8x8x1 workgroup
// CHECK-DAG: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK: PASS: equal at sizes 4,8,16,32,64
// EQUAL: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 8, local_size_y = 8) in;

layout(push_constant) uniform AOParams {
  uint sampleCount;   // <= 64
  float radius;
  float bias;
  float intensity;
} ao;

layout(set = 0, binding = 0, std140) uniform AOConstants {
  vec4 projection;    // x: P[0][0], y: P[1][1], z: near, w: far
  vec4 kernel[64];    // xyz: hemisphere sample (tangent space), w unused
} constants;

layout(set = 0, binding = 1, r32f) uniform readonly image2D depthBuffer;     // linear 0..1
layout(set = 0, binding = 2, rgba8) uniform readonly image2D normalBuffer;   // view-space, packed
layout(set = 0, binding = 3, rgba8) uniform readonly image2D rotationNoise;  // 4x4, tiled
layout(set = 0, binding = 4, r32f) uniform writeonly image2D occlusionOut;

float viewDepth(ivec2 p) {
  float d = imageLoad(depthBuffer, p).r;
  return -mix(constants.projection.z, constants.projection.w, d);
}

vec3 viewPosition(vec2 uv, float z) {
  vec2 ndc = uv * 2.0 - 1.0;
  return vec3(-ndc.x * z / constants.projection.x, -ndc.y * z / constants.projection.y, z);
}

vec2 projectToUv(vec3 v) {
  vec2 ndc = vec2(constants.projection.x * v.x, constants.projection.y * v.y) / -v.z;
  return ndc * 0.5 + 0.5;
}

void main() {
  ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(depthBuffer);
  if (pixel.x >= size.x || pixel.y >= size.y) {
    return;
  }
  vec2 uv = (vec2(pixel) + 0.5) / vec2(size);
  vec3 position = viewPosition(uv, viewDepth(pixel));
  vec3 normal = normalize(imageLoad(normalBuffer, pixel).xyz * 2.0 - 1.0 + vec3(0.0, 0.0, 0.01));
  vec3 randomVec = imageLoad(rotationNoise, pixel & 3).xyz * 2.0 - 1.0;

  // Gram-Schmidt: a tangent frame around the normal, rotated by the noise.
  vec3 tangent = randomVec - normal * dot(randomVec, normal);
  tangent = normalize(tangent + vec3(1e-3, 0.0, 0.0));
  vec3 bitangent = cross(normal, tangent);

  float occlusion = 0.0;
  for (uint i = 0u; i < ao.sampleCount; ++i) {
    vec3 k = constants.kernel[i].xyz;
    vec3 samplePos = position + (tangent * k.x + bitangent * k.y + normal * k.z) * ao.radius;
    vec2 sampleUv = projectToUv(samplePos);
    if (any(lessThan(sampleUv, vec2(0.0))) || any(greaterThanEqual(sampleUv, vec2(1.0)))) {
      continue;
    }
    ivec2 samplePixel = ivec2(sampleUv * vec2(size));
    float sceneDepth = viewDepth(samplePixel);
    float rangeCheck = smoothstep(0.0, 1.0, ao.radius / max(abs(position.z - sceneDepth), 1e-4));
    occlusion += (sceneDepth >= samplePos.z + ao.bias ? 1.0 : 0.0) * rangeCheck;
  }
  float visibility = 1.0 - occlusion / float(max(ao.sampleCount, 1u));
  imageStore(occlusionOut, pixel, vec4(pow(clamp(visibility, 0.0, 1.0), ao.intensity)));
}
