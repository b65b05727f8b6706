#version 450
#extension GL_GOOGLE_include_directive : require
// One atomic per pixel into a global histogram.
#include "common.glsl"
#include "bins.glsl"

void main() {
  atomicAdd(bins[BinOf(Prepare(Luma(data[gl_GlobalInvocationID.x])))], 1u);
}
