#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer B { uint v[]; };
void main() { v[gl_GlobalInvocationID.x] += 1u; }
