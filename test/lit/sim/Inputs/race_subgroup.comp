#version 450
// Pairs of invocations exchange through shared memory with a subgroup
// barrier between: ordered when both are in one subgroup (subgroup size 2
// and up), a race at size 1.
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; };
shared uint tile[64];
void main() {
  uint i = gl_LocalInvocationID.x;
  tile[i] = i * 7u + 1u;
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  data[gl_GlobalInvocationID.x] = tile[i ^ 1u];
}
