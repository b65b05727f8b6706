// lit feature probe (test/diff/lit.cfg.py): waverun binds uniform and
// storage texel buffers.
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) uniform samplerBuffer tb;
layout(set = 0, binding = 1, rgba32f) readonly uniform imageBuffer ib;
layout(set = 0, binding = 2) buffer Out { vec4 o[]; };
void main() {
  o[gl_LocalInvocationIndex] = texelFetch(tb, int(gl_LocalInvocationIndex)) +
                               imageLoad(ib, int(gl_LocalInvocationIndex));
}
