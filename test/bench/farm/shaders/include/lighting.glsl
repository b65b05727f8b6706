// Point lights read in a loop (batch-uniform-loads' shape).
#include "falloff.glsl"
struct Light { vec4 position_radius; vec4 color; };
layout(set = 0, binding = 2) readonly buffer Lights { Light lights[]; };
layout(push_constant) uniform Push { uint light_count; };

vec3 Shade(vec3 p) {
  vec3 sum = vec3(0.0);
  for (uint i = 0u; i < light_count; ++i) {
    Light light = lights[i];
    float d = distance(p, light.position_radius.xyz);
    sum += light.color.rgb * Falloff(d, light.position_radius.w);
  }
  return sum;
}
