// Storage images of every dimension read, written (coordinates past the
// edges included: dropped) and sized; image atomics on a 3-D image, a
// cube array and a storage texel buffer, with order-dependent returned
// values (workgroups of 32).
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, rgba32f) uniform image1D line;
layout(set = 0, binding = 1, rgba16f) uniform image1DArray lines;
layout(set = 0, binding = 2, r32f) uniform image2DArray layers;
layout(set = 0, binding = 3, r32ui) uniform uimage3D volume;
layout(set = 0, binding = 4, rgba8) uniform imageCube sky;
layout(set = 0, binding = 5, r32ui) uniform uimageCubeArray probes;
layout(set = 0, binding = 6, r32i) uniform iimageBuffer tb;
layout(set = 0, binding = 7) buffer Out { uvec4 o[]; };
void main() {
  int i = int(gl_GlobalInvocationID.x);
  vec4 a = imageLoad(line, i - 4);
  imageStore(line, i % 40, a + 1.0);
  imageStore(lines, ivec2(i % 9, i / 9), imageLoad(lines, ivec2(i / 9, i % 9)) * 2.0);
  imageStore(layers, ivec3(i % 4, i / 4 % 4, i / 16), vec4(float(i)));
  uint v = imageAtomicAdd(volume, ivec3(i % 2, 1, i / 16), uint(i));
  vec4 s = imageLoad(sky, ivec3(i % 4, i / 8 % 4, i % 7));
  imageStore(sky, ivec3(i / 8 % 4, i % 4, i % 6), s.wzyx);
  uint w = imageAtomicMax(probes, ivec3(i % 4, 0, i % 13), uint(i * 7));
  int t = imageAtomicExchange(tb, i % 20, i);
  o[i] = uvec4(v, w, uint(t), uint(imageSize(probes).z * 1000 + imageSize(layers).z * 100 +
                                    imageSize(lines).y * 10 + imageSize(tb)));
}
