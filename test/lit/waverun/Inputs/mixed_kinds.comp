// A storage buffer and a storage image on one binding: no Vulkan layout can
// bind both.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Out { uint o[]; };
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
void main() { o[0] = imageLoad(img, ivec2(0)).x; }
