#version 450
#include "common.glsl"
layout(local_size_x = 1) in;
void main() {}
