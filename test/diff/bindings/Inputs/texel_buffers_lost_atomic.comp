// texel_buffers.comp losing the atomic of lane 0 of every subgroup.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
layout(local_size_x = 40) in;
layout(set = 0, binding = 0) uniform samplerBuffer taps;
layout(set = 0, binding = 1, r32ui) uniform uimageBuffer hits;
layout(set = 0, binding = 2, rgba16f) uniform writeonly imageBuffer result;
layout(push_constant) uniform Params { int n; };
void main() {
  int i = int(gl_GlobalInvocationID.x);
  vec4 acc = vec4(0.0);
  for (int j = 0; j < n; ++j) acc += texelFetch(taps, j) * float(i - j);
  if (acc.x > 0.0 && gl_SubgroupInvocationID != 0u) imageAtomicAdd(hits, int(gl_WorkGroupID.x), 1u);
  imageStore(result, i, acc / 64.0);
}
