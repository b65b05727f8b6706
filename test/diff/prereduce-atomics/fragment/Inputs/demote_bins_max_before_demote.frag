// Negative control for demote_bins.frag: the max is reduced over the
// subgroup before the demote, so the lanes demoted afterwards (helpers from
// then on, whose own atomics have no effect) still contribute their values.
#version 450
#extension GL_EXT_demote_to_helper_invocation : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(set = 0, binding = 0) readonly buffer In { uint noise[]; };
layout(set = 0, binding = 1) buffer Out {
  uint bins[16]; uint highest; uint pad[15]; uint seen[];
};
layout(location = 0) out vec4 color;
void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uint id = p.y * 37u + p.x;
  uint n = noise[id];
  uint subgroup_top = subgroupMax(n >> 4);  // wrong: before the demote
  if (n % 3u == 0u) demote;
  uint before = atomicAdd(bins[n & 15u], 1u);
  uint top = atomicMax(highest, subgroup_top);
  seen[2u * id] = before;
  seen[2u * id + 1u] = top;
  color = vec4(dFdx(float(n)));
}
