// Clustered lighting's indirect form: the loop reads a light index from the
// tile's list and then the light at that index. Both loads batch: each lane
// loads idx[first + mine] and the light it names, for an iteration that
// runs. Tiles of 0..40 lights, workgroups of 48 (partial subgroups), a
// per-tile list in a second buffer, and one loop under a divergent branch.
// RUN: %diff %s --waveopt-flags="-O --remarks=batch" 2>&1 | %FileCheck %s
// CHECK: applied BatchedLoads in main: 2 uniform load(s) per iteration (3 shuffled part(s))
// CHECK: applied BatchedLoads in main: 2 uniform load(s) per iteration (2 shuffled part(s))
#version 450
layout(local_size_x = 48) in;
struct Light { vec4 pos; vec4 color; };
layout(set = 0, binding = 0) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 1) readonly buffer Index { uint idx[]; };
layout(set = 0, binding = 2) readonly buffer Tiles { uvec2 tiles[]; };
layout(set = 0, binding = 3) buffer Out { vec4 o[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  uvec2 t = tiles[gl_WorkGroupID.x];
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < t.y; ++i) {
    Light l = lights[idx[t.x + i]];
    acc += l.color * (l.pos.x - float(g & 7u));
  }
  if ((g & 3u) != 0u) {
    for (uint i = 0u; i < t.y; i += 2u) {
      acc.x += lights[idx[t.x + i] ^ 1u].pos.y;
    }
  }
  o[g] = acc;
}
