// textureQueryLevels: OpImageQueryLevels, which the simulator does not run.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) buffer Out { int levels; };
void main() { levels = textureQueryLevels(tex); }
