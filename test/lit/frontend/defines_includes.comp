// -D and -I reach glslang's preprocessor.
// RUN: %waveopt %s -DWIDTH=32 -I %S/Inputs --emit=glsl | %FileCheck %s
// RUN: %not %waveopt %s -I %S/Inputs 2>&1 | %FileCheck %s --check-prefix=NODEF
// CHECK: layout(local_size_x = 32, local_size_y = 1, local_size_z = 1) in;
// CHECK: 7u
// NODEF: error: {{.*}}defines_includes.comp: {{.*}}WIDTH
#version 450
#extension GL_GOOGLE_include_directive : require
#include "seven.h"
layout(local_size_x = WIDTH) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
void main() { data[gl_GlobalInvocationID.x] = SEVEN; }
