// Stream compaction with a global counter (end of seed 000): every kept
// element (25 %: the low two bits are zero) takes a slot with its own atomic.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint vals[]; };
layout(set = 0, binding = 1) buffer Counter { uint count; };
layout(set = 0, binding = 2) writeonly buffer Out { uint kept[]; };

void main() {
  uint i = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 64u) + gl_GlobalInvocationID.x;
  uint v = vals[i];
  if ((v & 3u) == 0u) {
    uint slot = atomicAdd(count, 1u);
    kept[slot] = v;
  }
}
