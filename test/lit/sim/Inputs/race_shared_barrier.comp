#version 450
// race_shared.comp with its barrier.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; };
shared uint tile[64];
void main() {
  uint i = gl_LocalInvocationID.x;
  tile[i] = i * 3u + gl_WorkGroupID.x;
  barrier();
  data[gl_GlobalInvocationID.x] = tile[(i + 1u) % 64u];
}
