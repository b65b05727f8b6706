// waverun isa: an append through one global counter (uniform address,
// uniform value, returned value used: prereduce-atomics' case A).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counter { uint count; };
layout(set = 0, binding = 1) readonly buffer In { uint vals[]; };
layout(set = 0, binding = 2) writeonly buffer Out { uint kept[]; };
void main() {
  uint v = vals[gl_GlobalInvocationID.x];
  if ((v & 3u) == 0u) kept[atomicAdd(count, 1u)] = v;
}
