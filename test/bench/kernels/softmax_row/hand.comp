// Soft max of rows of 1024 floats, hand-tuned as seed 001 reduces: each
// subgroup reduces its values (subgroupMax, subgroupAdd), one shared slot
// per subgroup, one barrier, every invocation folds the slots.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };
shared float smax[256];  // one per subgroup (at most one per invocation)
shared float ssum[256];

void main() {
  uint tid = gl_LocalInvocationIndex;
  uint base = gl_WorkGroupID.x * 1024u;
  float m = -1.0 / 0.0;
  for (uint c = tid; c < 1024u; c += 256u) m = max(m, x[base + c]);
  m = subgroupMax(m);
  if (subgroupElect()) smax[gl_SubgroupID] = m;
  barrier();
  float maxv = smax[0];
  for (uint i = 1u; i < gl_NumSubgroups; ++i) maxv = max(maxv, smax[i]);
  float sum = 0.0;
  for (uint c = tid; c < 1024u; c += 256u) sum += exp(x[base + c] - maxv);
  sum = subgroupAdd(sum);
  if (subgroupElect()) ssum[gl_SubgroupID] = sum;
  barrier();
  float total = 0.0;
  for (uint i = 0u; i < gl_NumSubgroups; ++i) total += ssum[i];
  float inv = 1.0 / total;
  for (uint c = tid; c < 1024u; c += 256u) y[base + c] = exp(x[base + c] - maxv) * inv;
}
