#version 450
#extension GL_GOOGLE_include_directive : require
// Every lane walks the same light list: batch-uniform-loads loads one light
// per lane per batch and shuffles them round.
#include "lighting.glsl"
layout(local_size_x = 64) in;
layout(set = 0, binding = 1) buffer Out { vec4 result[]; };

void main() {
  vec2 p = vec2(gl_GlobalInvocationID.xy);
  vec3 sum = vec3(0.0);
  for (uint i = 0u; i < light_count; ++i) {
    Light l = lights[i];
    sum += l.color.rgb * Falloff(distance(p, l.position_radius.xy), l.position_radius.w);
  }
  result[gl_GlobalInvocationID.x] = vec4(sum, 1.0);
}
