// Registers b0, t0 and u0 of an HLSL shader compiled without binding shifts:
// a uniform buffer, a texel buffer and a storage buffer all on binding 0.
// No Vulkan layout binds them as declared; --auto moves every binding to one
// per kind (spec line separate-kinds), in both modules of a diff alike.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Params { uint scale; uint bias; };
layout(set = 0, binding = 0) uniform usamplerBuffer src;
layout(set = 0, binding = 0) buffer Out { uint o[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  o[i] = texelFetch(src, int(i)).x * scale + bias;
}
