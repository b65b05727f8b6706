// Positive control: a naive atomic append (every lane whose key is 0 takes a
// slot) against a hand pre-reduced one (one atomic per subgroup, slots rebuilt
// with an exclusive ballot count). 100 invocations per workgroup: partial
// subgroups at sizes 8 and 16.
//
// RUN: %diff %s --against %S/Inputs/atomic_append_prereduced.comp
// RUN: %diff %s --waveopt-flags=""
#version 450
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) readonly buffer Keys { uint key[]; };
layout(set = 0, binding = 1) buffer Counter { uint count; };
layout(set = 0, binding = 2) buffer Items { uint items[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (key[i] == 0u) {
    uint slot = atomicAdd(count, 1u);
    items[slot] = i;
  }
}
