// A tiled light loop: every invocation of a 16x16 tile walks the tile's light
// range of a read-only light buffer (subgroup-uniform addresses).
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
struct PointLight { vec4 position_radius; vec4 color; };
layout(set = 0, binding = 0) readonly buffer Lights { PointLight lights[]; };
layout(set = 0, binding = 1) readonly buffer TileRanges { uvec2 ranges[]; };
layout(set = 0, binding = 2) readonly buffer GBuffer { vec4 positions[]; };
layout(set = 0, binding = 3) writeonly buffer Radiance { vec4 radiance[]; };
layout(push_constant) uniform Frame { uint width; } frame;
void main() {
  const uvec2 pixel = gl_GlobalInvocationID.xy;
  const uint index = pixel.y * frame.width + pixel.x;
  const vec3 p = positions[index].xyz;
  const uvec2 range = ranges[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x];
  vec3 sum = vec3(0.0);
  for (uint i = range.x; i < range.x + range.y; ++i) {
    const vec4 pr = lights[i].position_radius;
    const vec3 d = pr.xyz - p;
    const float falloff = max(0.0, 1.0 - dot(d, d) / (pr.w * pr.w));
    sum += lights[i].color.rgb * falloff;
  }
  radiance[index] = vec4(sum, 1.0);
}
