// The GLSL.std.450 instructions beyond the basics: modf and frexp with
// their second result through a pointer, determinant and inverse of 2x2,
// 3x3 and 4x4 matrices of small integers (exact in single and double
// precision), packDouble2x32 / unpackDouble2x32 (workgroups of 32).
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer In { vec4 f[]; };
layout(set = 0, binding = 1) buffer Out { vec4 r[]; };
layout(set = 0, binding = 2) buffer IOut { ivec4 n[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 a = f[i] * 8.0 - 4.0;
  vec4 whole;
  vec4 frac = modf(a, whole);
  ivec4 e;
  vec4 m = frexp(a, e);
  vec4 k = floor(a);
  mat2 m2 = mat2(k.xy, k.zw + vec2(2.0, 0.0));
  mat3 m3 = mat3(k.xyz, k.yzw, vec3(1.0, k.x, 2.0));
  mat4 m4 = mat4(k, k.yzwx + vec4(1.0), k.zwxy * 2.0, vec4(0.0, 1.0, k.w, 3.0));
  mat4 inv4 = inverse(m4);
  mat3 inv3 = inverse(m3);
  r[6u * i] = frac;
  r[6u * i + 1u] = whole;
  r[6u * i + 2u] = m;
  r[6u * i + 3u] = vec4(determinant(m2), determinant(m3), determinant(m4), inverse(m2)[1][0]);
  r[6u * i + 4u] = inv4[2] + vec4(inv3[1], inv3[0][2]);
  r[6u * i + 5u] = vec4(inv3[2], inverse(m2)[0][1]);
  uvec2 halves = unpackDouble2x32(packDouble2x32(uvec2(floatBitsToUint(a.x), i)));
  n[i] = ivec4(e.xy, int(halves.x ^ floatBitsToUint(a.x)), int(halves.y));
}
