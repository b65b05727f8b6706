// append.comp taking a slot for every key below 6: one more item in some
// invocations, which no multiset comparison can hide.
#version 450
layout(local_size_x = 50) in;
layout(set = 0, binding = 0) readonly buffer Keys { uint key[]; };
layout(set = 0, binding = 1) buffer Counter { uint count; };
layout(set = 0, binding = 2) buffer Items { uint items[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (key[i] < 6u) {
    uint slot = atomicAdd(count, 1u);
    items[slot] = i;
  }
}
