#version 450
#extension GL_GOOGLE_include_directive : require
// A reduction per workgroup written to the workgroup's tile.
#include "common.glsl"
#include "reduce.glsl"
#include "tile.glsl"
layout(set = 0, binding = 1) buffer Out { float tiles[]; };

void main() {
  uint p = gl_GlobalInvocationID.x;
  float r = ReduceWorkgroup(Prepare(Luma(data[p])));
  if (gl_LocalInvocationIndex == 0u) tiles[TileOf(p)] = r;
}
