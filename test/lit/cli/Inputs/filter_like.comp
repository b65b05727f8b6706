// An 8x8 image kernel that reads the image at the invocation's coordinates
// (morton-remap's shape).
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  imageStore(dst, p, imageLoad(src, p) * 0.5);
}
