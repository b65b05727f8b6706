// Negative control of the occupancy test: a small kernel...
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { vec4 v[]; };
layout(set = 0, binding = 1) writeonly buffer Out { vec4 o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  o[i] = v[i] * 2.0;
}
