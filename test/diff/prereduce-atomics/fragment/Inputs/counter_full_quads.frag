// Negative control for counter.frag: a hand-written pre-reduction that is
// wrong on purpose. It counts the subgroup's lanes rounded up to whole 2x2
// quads, as if the helper invocations that fill the quads cut by the
// target's odd edges were live: the counter (and so the slots counted)
// comes out too large.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(set = 0, binding = 0) buffer Counter { uint count; };
layout(set = 0, binding = 1) buffer Slots { uint slots[]; };
layout(location = 0) out vec4 color;
void main() {
  vec2 p = gl_FragCoord.xy;
  float slope = dFdx(p.x * p.y);
  uvec4 live = subgroupBallot(true);
  uint lanes = (subgroupBallotBitCount(live) + 3u) & ~3u;  // wrong: whole quads
  uint base = 0u;
  if (subgroupElect()) base = atomicAdd(count, lanes);
  uint slot = subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(live);
  slots[slot] = uint(p.y) * 64u + uint(p.x) + (slope > 0.0 ? 0x10000u : 0u);
  color = vec4(slope);
}
