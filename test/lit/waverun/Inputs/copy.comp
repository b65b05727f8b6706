// Copies 16 words of input to output, and the push constants after them.
#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(set = 0, binding = 1) buffer Dst { uint dst[]; };
layout(push_constant) uniform Params { uint p0; uint p1; };
layout(constant_id = 3) const uint kAdd = 0u;

void main() {
  uint i = gl_LocalInvocationIndex;
  dst[i] = src[i] + kAdd;
  if (i == 0u) {
    dst[16] = p0;
    dst[17] = p1;
  }
}
