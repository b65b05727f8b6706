// Negative control: a hand "optimization" that assumes every subgroup is
// full: it adds gl_SubgroupSize and indexes by gl_SubgroupInvocationID. With
// workgroups of 20 it over-counts at sizes 8 and 16 (the last subgroup of a
// workgroup has 4 lanes) and is right only at size 4.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 20) in;
layout(set = 0, binding = 0) buffer Counter { uint count; };
layout(set = 0, binding = 1) buffer Items { uint items[]; };

void main() {
  uint base = 0u;
  if (subgroupElect()) base = atomicAdd(count, gl_SubgroupSize);
  base = subgroupBroadcastFirst(base);
  items[base + gl_SubgroupInvocationID] = gl_GlobalInvocationID.x;
}
