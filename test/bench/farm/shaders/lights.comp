#version 450
#extension GL_GOOGLE_include_directive : require
// Shades one point per invocation with every light.
#include "common.glsl"
#include "lighting.glsl"
layout(set = 0, binding = 1) writeonly buffer Out { vec4 color[]; };

void main() {
  uint p = gl_GlobalInvocationID.x;
  vec3 c = Shade(data[p].xyz);
  color[p] = vec4(c * Prepare(Luma(data[p])), 1.0);
}
