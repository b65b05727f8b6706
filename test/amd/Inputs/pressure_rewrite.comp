// ...and a "rewrite" that keeps 32 loaded vec4s live at once (128 VGPRs
// before the sum): fewer waves fit per SIMD, which the test must catch.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { vec4 v[]; };
layout(set = 0, binding = 1) writeonly buffer Out { vec4 o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec4 t[32];
  for (int k = 0; k < 32; ++k) t[k] = v[i * 32u + uint(k)];
  vec4 s = vec4(0.0);
  for (int k = 0; k < 32; ++k) s += t[k] * t[31 - k];
  o[i] = s * 2.0;
}
