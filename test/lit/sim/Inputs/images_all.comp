// Sampling and fetching images of every dimension: 1-D, 1-D array, 2-D,
// 2-D array, 3-D, cube and cube array at explicit level 0 (coordinates past
// the edges included), a separate image with a separate sampler, gathers
// with and without offsets, texel fetches out of bounds, a uniform texel
// buffer, size and level queries (workgroups of 64).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler1D t1;
layout(set = 0, binding = 1) uniform sampler1DArray t1a;
layout(set = 0, binding = 2) uniform sampler2D t2;
layout(set = 0, binding = 3) uniform sampler2DArray t2a;
layout(set = 0, binding = 4) uniform sampler3D t3;
layout(set = 0, binding = 5) uniform samplerCube tc;
layout(set = 0, binding = 6) uniform samplerCubeArray tca;
layout(set = 0, binding = 7) uniform texture2D sep;
layout(set = 0, binding = 8) uniform sampler smp;
layout(set = 0, binding = 9) uniform samplerBuffer tb;
layout(set = 0, binding = 10) readonly buffer Coords { vec4 c[]; };
layout(set = 0, binding = 11) buffer Out { vec4 o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 k = c[i];
  vec4 k2 = c[i + 1024u];
  uint b = i * 16u;
  o[b + 0u] = textureLod(t1, k.x, 0.0);
  o[b + 1u] = textureLod(t1a, vec2(k.x, k.y * 6.0 - 1.0), 0.0);
  o[b + 2u] = textureLod(t2, k.xy, 0.0);
  o[b + 3u] = textureLod(t2a, vec3(k.xy, k.z * 6.0 - 1.0), 0.0);
  o[b + 4u] = textureLod(t3, k.xyz, 0.0);
  o[b + 5u] = textureLod(tc, k.xyz * 2.0 - 1.0, 0.0);
  o[b + 6u] = textureLod(tca, vec4(k.xyz * 2.0 - 1.0, k.w * 3.0 - 0.5), 0.0);
  o[b + 7u] = textureLod(sampler2D(sep, smp), k2.xy, 0.0);
  o[b + 8u] = textureGather(t2, k2.xy, 1);
  o[b + 9u] = textureGather(t2a, vec3(k2.xy, k2.z * 4.0), 2);
  o[b + 10u] = texelFetch(t2, ivec2(k2.zw * 20.0) - 2, 0);
  o[b + 11u] = texelFetch(tb, int(k.w * 300.0) - 20);
  o[b + 12u] = texelFetch(t3, ivec3(k.xyz * 10.0) - 1, 0);
  o[b + 13u] = vec4(vec3(textureSize(t2a, 0)), float(textureSize(t1, 0) + textureQueryLevels(t3)));
  o[b + 14u] = vec4(vec3(textureSize(tca, 0)), float(textureSize(tb)));
  o[b + 15u] = textureLodOffset(t2, k.xy, 0.0, ivec2(1, -1)) + textureGatherOffset(t2, k2.yx, ivec2(-1, 2), 3);
}
