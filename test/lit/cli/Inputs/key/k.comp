#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : enable
// The cache key's test shader: a define and an include change its code.
#include "k_inc.glsl"
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Bins { uint bins[]; };
layout(set = 0, binding = 1) buffer Keys { uint keys[]; };
void main() {
#ifdef BIG
  const uint mask = 15u;
#else
  const uint mask = 7u;
#endif
  atomicAdd(bins[keys[gl_GlobalInvocationID.x] & mask], Weight());
}
