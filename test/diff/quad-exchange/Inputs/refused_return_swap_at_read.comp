// A deliberately wrong rewrite of ../refused.comp (CASE 3): the quad swap
// is placed at the read, after the divergent return, where the writer may
// be gone (its value is undefined there).
#version 450
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float data[]; };
layout(set = 0, binding = 1) buffer Out { float result[]; };

void main() {
  uint i = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
  uint g = gl_WorkGroupID.x * 64u + i;
  float v = data[g];
  if (data[g] < 0.25) return;
  result[g] = v + subgroupQuadSwapHorizontal(v);
}
