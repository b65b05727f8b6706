// A kernel with no spec file: sizes come from time --auto.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float src[]; };
layout(set = 0, binding = 1) buffer Out { float dst[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  dst[i] = src[i] * 2.0 + 1.0;
}
