// lit feature probe (test/diff/lit.cfg.py): waverun fills buffer device
// addresses with real buffers.
#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 4) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Vecs { vec4 v[]; };
layout(set = 0, binding = 0) readonly buffer Root { Vecs vecs; };
layout(set = 0, binding = 1) buffer Out { vec4 o[]; };
void main() { o[gl_LocalInvocationIndex] = vecs.v[gl_LocalInvocationIndex]; }
