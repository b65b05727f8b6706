#version 450
// Tiled lighting (seed 000): every lane of an 8x8 tile loops over the same
// light list; each iteration loads one light at an address that is the same
// in every lane. batch-uniform-loads makes each lane load a different light
// of the next batch and hands them round with subgroup shuffles.
layout(local_size_x = 8, local_size_y = 8) in;
struct Light { vec4 position_radius; vec4 color; };
layout(set = 0, binding = 0) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 1) readonly buffer TileLists { uvec2 tile_start_count[]; };
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2D lit;

void main() {
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uvec2 sc = tile_start_count[tile];
  vec2 pixel = vec2(gl_GlobalInvocationID.xy) + 0.5;
  vec3 sum = vec3(0.0);
  for (uint i = 0u; i < sc.y; ++i) {
    Light light = lights[sc.x + i];
    float d = distance(pixel, light.position_radius.xy);
    if (d >= light.position_radius.w) continue;
    sum += light.color.rgb * (1.0 - d / light.position_radius.w);
  }
  imageStore(lit, ivec2(gl_GlobalInvocationID.xy), vec4(sum, 1.0));
}
