// Tiled light loop (seed 000), hand-tuned: each lane loads one light of the
// next batch (one load per lane instead of one per lane per light) and every
// iteration broadcasts one light from the lane that holds it.
//
// Seed 000 indexes the batch by SV_GroupIndex and reads lane i2, which is
// only right when the active lanes are lanes 0..n-1 of the subgroup. Here the
// batch is indexed by the lane's subgroup id and the fast path is guarded by
// that exact condition (checked with a ballot, uniform across the subgroup);
// any other active set takes the plain loop.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 8, local_size_y = 8) in;

struct Light {
  vec4 pos_inv_r2;
  vec4 color;
  vec4 spot;
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
  uvec2 sc = start_count[tile];
  uvec2 size = gl_NumWorkGroups.xy * 8u;
  vec3 p = vec3(vec2(gl_GlobalInvocationID.xy) / vec2(size), 0.25);
  vec4 acc = vec4(0.0);

  uvec4 in_loop = subgroupBallot(true);
  uint lanes = subgroupBallotBitCount(in_loop);
  // Active lanes are exactly 0..lanes-1 (full subgroup, or a partial one
  // filled from lane 0): then lane k holds the k-th light of a batch.
  bool prefix = subgroupBallotFindMSB(in_loop) + 1u == lanes;
  if (prefix) {
    uint lane = gl_SubgroupInvocationID;
    for (uint base = 0u; base < sc.y; base += lanes) {
      Light mine = Light(vec4(0.0), vec4(0.0), vec4(0.0));
      if (base + lane < sc.y) mine = lights[sc.x + base + lane];
      uint n = min(lanes, sc.y - base);
      for (uint k = 0u; k < n; ++k) {
        Light L;
        L.pos_inv_r2 = subgroupShuffle(mine.pos_inv_r2, k);
        L.color = subgroupShuffle(mine.color, k);
        L.spot = subgroupShuffle(mine.spot, k);
        acc += shade(L, p);
      }
    }
  } else {
    for (uint i = 0u; i < sc.y; ++i) acc += shade(lights[sc.x + i], p);
  }
  color[gl_GlobalInvocationID.y * size.x + gl_GlobalInvocationID.x] = acc;
}
