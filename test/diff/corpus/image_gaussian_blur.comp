// Models: one pass of a separable Gaussian blur as used for bloom, depth of
// field or frosted-glass UI backgrounds. The same shader runs horizontally
// and vertically (direction in push constants); the normalised weights of
// the current radius live in a UBO (computed on the CPU when the blur
// strength changes), center tap first, then symmetric pairs.
// Exercises: batch-uniform-loads on the tap loop (`<=` exit test, the weight
// is the only uniform load; the two texel fetches per tap are per pixel),
// morton-remap on an 8x8 image kernel (texelFetch from a sampler plus an
// imageStore). 50x38 pixels: partial tiles on the right and bottom, whose
// lanes return early. Radius 6 horizontally, 11 vertically (tap loops of 6
// and 11, around subgroup sizes), and 0 (the loop never runs).
// RUN: %diff %s --waveopt-flags="-O --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O" --waverun="-s 'push fill=zero words=0,1,11'" 2>&1 | %FileCheck %s --check-prefix=EQUAL
// RUN: %diff %s --waveopt-flags="-O" --waverun="-s 'push fill=zero words=1,0,0'" 2>&1 | %FileCheck %s --check-prefix=EQUAL
// CHECK-DAG: morton-remap: applied Remapped in main: 8x8x1 workgroup
// CHECK-DAG: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK: PASS: equal at sizes 4,8,16,32,64
// EQUAL: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 8, local_size_y = 8) in;

layout(push_constant) uniform BlurPass {
  ivec2 direction;   // (1, 0) or (0, 1)
  int radius;        // taps on each side, <= 15
} blurPass;

layout(set = 0, binding = 0, std140) uniform BlurKernel {
  vec4 weights[16];  // .x: weight of tap i (0 = center)
  vec4 tint;
} kernel;

layout(set = 0, binding = 1) uniform sampler2D source;
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2D destination;

vec4 fetchClamped(ivec2 p, ivec2 size) {
  return texelFetch(source, clamp(p, ivec2(0), size - 1), 0);
}

void main() {
  ivec2 size = textureSize(source, 0);
  ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
  if (pixel.x >= size.x || pixel.y >= size.y) {
    return;
  }

  vec4 color = fetchClamped(pixel, size) * kernel.weights[0].x;
  for (int i = 1; i <= blurPass.radius; ++i) {
    float w = kernel.weights[i].x;
    ivec2 offset = blurPass.direction * i;
    color += (fetchClamped(pixel + offset, size) + fetchClamped(pixel - offset, size)) * w;
  }
  imageStore(destination, pixel, color * kernel.tint);
}
