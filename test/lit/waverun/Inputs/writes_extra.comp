// unused_binding.comp writing binding 0.2 too: a module without it cannot
// be equal.
#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
layout(set = 0, binding = 2) buffer Unused { uint unused[]; };
void main() {
  o[gl_GlobalInvocationID.x] = data[gl_GlobalInvocationID.x] * 2u;
  unused[gl_GlobalInvocationID.x] = 1u;
}
