// Negative control: batching that assumes full subgroups (lane j owns
// element base + j, batches of gl_SubgroupSize): in the partial subgroup of
// a 20-invocation workgroup it shuffles from inactive lanes.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x = 20) in;
layout(set = 0, binding = 0) readonly buffer Table { uint table[]; };
layout(set = 0, binding = 1) readonly buffer Xs { uint x[]; };
layout(set = 0, binding = 2) buffer Ys { uint y[]; };
layout(push_constant) uniform Params { uint n; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  uint acc = 0u;
  for (uint base = 0u; base < n; base += gl_SubgroupSize) {
    uint idx = base + gl_SubgroupInvocationID;
    uint mine = idx < n ? table[idx] : 0u;
    uint batch = min(gl_SubgroupSize, n - base);
    for (uint j = 0u; j < batch; ++j) acc = acc * 31u + (subgroupShuffle(mine, j) ^ x[i]);
  }
  y[i] = acc;
}
