// Tiled light loop (seed 000), naive: every lane of the 8x8 tile walks the
// tile's light list and loads each light from the same address.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;

struct Light {
  vec4 pos_inv_r2;  // xyz position, w = 1 / radius^2
  vec4 color;
  vec4 spot;        // xyz direction, w = cosine cut-off
};
layout(set = 0, binding = 0) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 1) readonly buffer Tiles { uvec2 start_count[]; };
layout(set = 0, binding = 2) writeonly buffer Out { vec4 color[]; };

vec4 shade(Light L, vec3 p) {
  vec3 d = L.pos_inv_r2.xyz - p;
  float d2 = dot(d, d);
  float atten = max(0.0, 1.0 - d2 * L.pos_inv_r2.w);
  float cone = max(0.0, dot(d * inversesqrt(d2 + 1e-4), L.spot.xyz) - L.spot.w);
  return L.color * (atten * cone);
}

void main() {
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uvec2 sc = start_count[tile];  // start, count (0..256)
  uvec2 size = gl_NumWorkGroups.xy * 8u;
  vec3 p = vec3(vec2(gl_GlobalInvocationID.xy) / vec2(size), 0.25);
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < sc.y; ++i) {
    acc += shade(lights[sc.x + i], p);
  }
  color[gl_GlobalInvocationID.y * size.x + gl_GlobalInvocationID.x] = acc;
}
