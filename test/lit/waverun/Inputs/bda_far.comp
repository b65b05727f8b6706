// Atomics through a device address 4 MiB per invocation into a buffer of a
// few KiB: every input --auto tries reaches past the buffers it allocated
// (and their 64 KiB guard), which can crash a driver (lavapipe: signal 11).
#version 450
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 32) in;
layout(buffer_reference, std430) buffer Ref { uint v[]; };
layout(push_constant) uniform P { Ref ref; };
layout(set = 0, binding = 0) buffer Out { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  o[i] = atomicAdd(ref.v[i * 1048576u], 1u);
}
