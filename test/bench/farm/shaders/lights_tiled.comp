#version 450
#extension GL_GOOGLE_include_directive : require
// Shades the centre of each pixel's tile.
#include "common.glsl"
#include "lighting.glsl"
#include "tile.glsl"
layout(set = 0, binding = 1) writeonly buffer Out { vec4 color[]; };

void main() {
  uint p = gl_GlobalInvocationID.x;
  uint t = TileOf(p);
  vec3 c = Shade(vec3(float(t % 128u), float(t / 128u), Prepare(Luma(data[p]))));
  color[p] = vec4(c, 1.0);
}
