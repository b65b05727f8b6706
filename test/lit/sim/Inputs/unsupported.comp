// textureLod on a shadow sampler: OpImageSampleDrefExplicitLod (depth
// comparison), which the simulator does not run.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2DShadow tex;
layout(set = 0, binding = 1) buffer Out { float lit; };
void main() { lit = textureLod(tex, vec3(0.5, 0.5, 0.25), 0.0); }
