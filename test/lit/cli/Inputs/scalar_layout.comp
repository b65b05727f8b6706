#version 450
#extension GL_EXT_scalar_block_layout : require
// A vec3 array with a 12-byte stride: valid only under scalar block layout.
layout(local_size_x = 64) in;
layout(scalar, set = 0, binding = 0) buffer Points { vec3 p[]; };
void main() { p[gl_GlobalInvocationID.x] *= 2.0; }
