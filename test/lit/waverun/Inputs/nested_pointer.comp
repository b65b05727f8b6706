// A buffer reference inside a nested struct: its address goes at byte 24.
#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 1) in;
layout(buffer_reference, std430) buffer Items { uint v[]; };
struct Ref { uint pad; Items items; };   // items@8
layout(std430, set = 0, binding = 0) readonly buffer Tables { uint a[4]; Ref ref; } t;  // ref@16
layout(set = 0, binding = 1) buffer Out { uint o[]; };
void main() { o[0] = t.ref.items.v[3]; }
