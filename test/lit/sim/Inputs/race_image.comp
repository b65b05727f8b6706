#version 450
// Two invocations of different workgroups store different values to the
// same texel of a storage image.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
void main() {
  imageStore(img, ivec2(gl_LocalInvocationID.xy), uvec4(gl_WorkGroupID.x + 1u));
}
