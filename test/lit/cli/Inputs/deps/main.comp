#version 450
#extension GL_GOOGLE_include_directive : require
// Includes next to the file, nested, and from an -I directory.
#include "common.glsl"
#include "lib.glsl"
layout(local_size_x = 64) in;
void main() { atomicAdd(counter, Scale(1u)); }
