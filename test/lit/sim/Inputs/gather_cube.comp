// textureGather on a cube map: OpImageGather of a cube image, which the
// simulator does not run.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform samplerCube sky;
layout(set = 0, binding = 1) buffer Out { vec4 o; };
void main() { o = textureGather(sky, vec3(0.3, -0.5, 0.8), 1); }
