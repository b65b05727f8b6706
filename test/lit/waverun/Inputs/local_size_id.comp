#version 450
// A workgroup sized by a specialization constant, as kernels built for an
// application that always specializes them: `local_size_x_id = 0` gets its
// own default (1) from glslang beside BLOCK_SIZE's 32, and with those
// defaults the loop steps by 1 / 16 = 0 and never ends.
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint BLOCK_SIZE = 32;
layout(std430, binding = 0) buffer Data { uint data[]; };
layout(std430, binding = 1) buffer Sums { uint sums[]; };
layout(push_constant) uniform P { uint n; } p;
void main() {
  const uint step = gl_WorkGroupSize.x / 16;
  uint s = 0;
  for (uint i = gl_LocalInvocationID.x / 16; i < p.n; i += step) s += data[i];
  sums[gl_GlobalInvocationID.x] = s;
}
