// unused_binding.comp without its unused binding 0.2.
#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
void main() { o[gl_GlobalInvocationID.x] = data[gl_GlobalInvocationID.x] * 2u; }
