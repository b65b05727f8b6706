#version 450
// A neighbour exchange through shared memory. Without BARRIER, invocation i
// reads the word invocation i+1 writes: a read/write race in the workgroup.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; };
shared uint tile[64];
void main() {
  uint i = gl_LocalInvocationID.x;
  tile[i] = i * 3u + gl_WorkGroupID.x;
#ifdef BARRIER
  barrier();
#endif
  data[gl_GlobalInvocationID.x] = tile[(i + 1u) % 64u];
}
