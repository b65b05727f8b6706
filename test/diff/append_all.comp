// Positive control: every invocation appends its id (uniform value 1, used
// return value) against a hand pre-reduced version. Workgroups of 20: at
// sizes 8 and 16 the last subgroup of each workgroup is partial.
//
// RUN: %diff %s --against %S/Inputs/append_all_prereduced.comp
// RUN: %diff %s --waveopt-flags=""
#version 450
layout(local_size_x = 20) in;
layout(set = 0, binding = 0) buffer Counter { uint count; };
layout(set = 0, binding = 1) buffer Items { uint items[]; };

void main() {
  items[atomicAdd(count, 1u)] = gl_GlobalInvocationID.x;
}
