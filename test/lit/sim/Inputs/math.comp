// Arithmetic, conversions, composites, matrices, GLSL.std.450 and a
// specialization constant expression, per invocation (workgroups of 32).
#version 450
layout(local_size_x = 32) in;
layout(constant_id = 0) const uint K = 3u;
const uint K2 = K * 2u + 1u;
layout(set = 0, binding = 0) readonly buffer In { vec4 f[]; };
layout(set = 0, binding = 1) readonly buffer Ints { ivec4 n[]; };
layout(set = 0, binding = 2) buffer Out { vec4 r[]; };
layout(set = 0, binding = 3) buffer IOut { uvec4 u[]; };
layout(push_constant) uniform P { mat2 m; float scale; };
struct S { vec2 a; uint b[3]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 a = f[i];
  ivec4 b = n[i];
  S s;
  s.a = a.xy * scale;
  for (uint k = 0u; k < 3u; ++k) s.b[k] = uint(b[k]) >> k;
  vec2 mv = m * s.a + vec2(s.b[0] & 7u, s.b[2] & 3u);
  float d = dot(a.xyz, vec3(0.25, 0.5, -0.75));
  r[4u * i] = vec4(clamp(a.x, 0.1, 0.9), min(a.y, a.z), max(a.z, a.w), abs(a.w - 0.5));
  r[4u * i + 1u] = vec4(floor(a.x * 10.0), fract(a.y * 7.0), sqrt(a.z), mix(a.x, a.y, 0.25));
  r[4u * i + 2u] = vec4(step(0.5, a.x), smoothstep(0.2, 0.8, a.y), length(a.xy), d);
  r[4u * i + 3u] = vec4(normalize(a.xyz + vec3(0.1)), mv.x + mv.y);
  u[2u * i] = uvec4(findMSB(uint(b.x)), findLSB(uint(b.y)), bitCount(uint(b.z)),
                    bitfieldExtract(uint(b.w), 3, 9));
  // (Signed % only on non-negative values: lavapipe computes OpSMod of a
  // negative dividend as a remainder, against the SPIR-V specification.)
  u[2u * i + 1u] = uvec4(uint(b.x / (abs(b.y) % 7 + 8)) + uint(abs(b.z) % 13) * K2,
                         packUnorm4x8(a), uint(a.x * 1000.0) ^ uint(int(a.y * -300.0)),
                         uint(b.w >> 3) + uint(b.w < 0 ? 1 : 0));
}
