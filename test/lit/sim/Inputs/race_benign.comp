#version 450
// Not races, whatever the order: every invocation writes the same value to
// one flag; invocations read a word that others overwrite with the value it
// already holds (when the spec starts |same| at 5); atomics from every
// workgroup on one counter.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint flag; uint same; uint count; uint data[]; };
void main() {
  flag = 1u;
  uint v = same;
  same = 5u;
  atomicAdd(count, 1u);
  data[gl_GlobalInvocationID.x] = v;
}
