// Reads past the end of its input (the original of a rewrite may: its
// inputs were sized for another dispatch): robust buffer access gives
// zeros on lavapipe, the simulator counts the accesses.
#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  o[i] = data[i * 4u] + 1u;
  o[i + 1000u] = 5u;
}
