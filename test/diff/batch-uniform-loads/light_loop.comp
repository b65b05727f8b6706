// Tiled lighting (seed 000): every lane of an 8x8 tile loops over the tile's
// light list; a light is {pos, color, params}; lanes skip far lights with a
// per-lane `continue`. Tiles have 0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17 and 40
// lights: trip counts around every subgroup size (4, 8, 16).
// RUN: %diff %s --waveopt-flags="--ssa-rewrite --batch-uniform-loads --remarks=batch" 2>&1 | %FileCheck %s
// --assume-driver=cpu's reads: a shuffle at 8 lanes, else a broadcast
// (SPIR-V 1.5) or one-slot batches read from the first lane (SPIR-V 1.3):
// RUN: %diff %s --waveopt-flags="-O --assume-driver=cpu --target-env=vulkan1.2 --remarks=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --assume-driver=cpu --remarks=batch" 2>&1 | %FileCheck %s
// CHECK: applied BatchedLoads in main: 1 uniform load(s) per iteration (3 shuffled part(s))
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
struct Light { vec4 pos; vec4 color; vec4 params; };
layout(set = 0, binding = 0) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 1) readonly buffer Tiles { uvec2 tiles[]; };
layout(set = 0, binding = 2) buffer Out { vec4 result[]; };
void main() {
  uvec2 sc = tiles[gl_WorkGroupID.x];
  vec3 p = vec3(gl_LocalInvocationID.xy, 0.5) * 0.125;
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < sc.y; ++i) {
    Light L = lights[sc.x + i];
    float d = distance(p, L.pos.xyz);
    if (d > L.params.x) continue;
    acc += L.color * (1.0 - d / L.params.x);
  }
  result[gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * 96u] = acc;
}
