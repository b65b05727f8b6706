// An append buffer: invocations whose key is small take a slot with an
// atomic and write their index there; the order of the slots depends on
// the order the atomics return. Workgroups of 50.
#version 450
layout(local_size_x = 50) in;
layout(set = 0, binding = 0) readonly buffer Keys { uint key[]; };
layout(set = 0, binding = 1) buffer Counter { uint count; };
layout(set = 0, binding = 2) buffer Items { uint items[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (key[i] < 5u) {
    uint slot = atomicAdd(count, 1u);
    items[slot] = i;
  }
}
