// Declares binding 0.2 and never uses it (waveopt's cleanup drops such
// bindings): its partner has only 0.0 and 0.1.
#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
layout(set = 0, binding = 2) buffer Unused { uint unused[]; };
void main() { o[gl_GlobalInvocationID.x] = data[gl_GlobalInvocationID.x] * 2u; }
