// copy.comp's bindings without its push constants.
#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(set = 0, binding = 1) buffer Dst { uint dst[]; };

void main() { dst[gl_LocalInvocationIndex] = src[gl_LocalInvocationIndex]; }
