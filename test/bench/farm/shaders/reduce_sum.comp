#version 450
#extension GL_GOOGLE_include_directive : require
// A workgroup reduction of luma, one atomic per workgroup.
#include "common.glsl"
#include "reduce.glsl"
layout(set = 0, binding = 1) buffer Out { uint total; };

void main() {
  float r = ReduceWorkgroup(Prepare(Luma(data[gl_GlobalInvocationID.x])));
  if (gl_LocalInvocationIndex == 0u) atomicAdd(total, uint(r * 256.0));
}
