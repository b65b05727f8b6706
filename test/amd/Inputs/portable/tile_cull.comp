// Tile light culling: each invocation tests lights against its tile's depth
// range and appends the visible ones to the tile's list in shared memory.
#version 450
layout(local_size_x = 64) in;
struct Sphere { vec4 center_radius; };
layout(set = 0, binding = 0) readonly buffer Spheres { Sphere spheres[]; };
layout(set = 0, binding = 1) readonly buffer DepthRanges { vec2 depth[]; };
layout(set = 0, binding = 2) writeonly buffer LightLists { uint lists[]; };
layout(set = 0, binding = 3) writeonly buffer LightCounts { uint counts[]; };
layout(push_constant) uniform Setup { uint light_count; } setup;
shared uint visible_count;
shared uint visible[256];
void main() {
  const uint tile = gl_WorkGroupID.x;
  const vec2 range = depth[tile];
  if (gl_LocalInvocationIndex == 0u) visible_count = 0u;
  barrier();
  for (uint i = gl_LocalInvocationIndex; i < setup.light_count; i += 64u) {
    const vec4 s = spheres[i].center_radius;
    if (s.z + s.w >= range.x && s.z - s.w <= range.y) {
      const uint slot = atomicAdd(visible_count, 1u);
      if (slot < 256u) visible[slot] = i;
    }
  }
  barrier();
  const uint n = min(visible_count, 256u);
  for (uint j = gl_LocalInvocationIndex; j < n; j += 64u) lists[tile * 256u + j] = visible[j];
  if (gl_LocalInvocationIndex == 0u) counts[tile] = n;
}
