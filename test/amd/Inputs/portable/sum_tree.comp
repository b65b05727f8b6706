// A 256-wide shared-memory sum tree: one partial sum per workgroup.
#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Values { uint values[]; };
layout(set = 0, binding = 1) writeonly buffer Sums { uint sums[]; };
shared uint partial[256];
void main() {
  const uint t = gl_LocalInvocationID.x;
  partial[t] = values[gl_GlobalInvocationID.x];
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1u) {
    if (t < s) partial[t] += partial[t + s];
    barrier();
  }
  if (t == 0u) sums[gl_WorkGroupID.x] = partial[0];
}
