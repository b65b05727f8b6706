#version 450
#extension GL_GOOGLE_include_directive : require
#include "weight.glsl"
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Bins { uint bins[]; };
layout(set = 0, binding = 1) readonly buffer Keys { uint keys[]; };
#ifndef WIDE
#error count.comp needs WIDE (its WAVEOPT_DEFINES)
#endif
void main() {
  uint k = keys[gl_GlobalInvocationID.x];
  atomicAdd(bins[k % BINS], Weight(k));
}
