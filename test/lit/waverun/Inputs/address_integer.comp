// A device address held in a 64-bit integer (ggml's BDA kernels): the push
// constant is converted to a pointer after arithmetic, through a local
// variable; waverun finds the field and fills it with a buffer's address.
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(buffer_reference, std430) buffer Halfs { float v; };
layout(push_constant) uniform Params { uint count; uint pad; uint64_t dst_addr; };
layout(set = 0, binding = 0) readonly buffer In { float data[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint64_t addr = dst_addr + 4ul * uint64_t(i);
  Halfs(addr).v = data[i] * float(count);
}
