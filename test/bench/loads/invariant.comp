// Shaped like sebbbi's perftest "*Invariant" kernels: every lane loads the
// same address in each of 256 iterations (the address advances with the
// loop, from a start read from a uniform buffer). KIND picks the memory:
//   1 raw read-only storage buffer (uint words)   (ByteAddressBuffer.Load)
//   2 structured read-only storage buffer (vec4)  (StructuredBuffer<float4>)
//   3 uniform buffer (vec4 array)                 (cbuffer)
//   4 uniform texel buffer (texelFetch)           (Buffer<float4>)
//   5 sampled image (texelFetch, row 0)           (Texture2D<float4>.Load)
//   6 storage buffer without readonly (vec4), the kernel never writes it
// Measured with `waverun isa` as written, -O and -O --assume-driver=radv
// (docs/design/batch-uniform-loads.md, "Driver profiles").
#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) uniform Constants { uint start; uint mask; } k;
#if KIND == 1
layout(set = 0, binding = 1) readonly buffer Source { uint data[]; };
vec4 element(uint a) { return vec4(uintBitsToFloat(data[a])); }
#elif KIND == 2
layout(set = 0, binding = 1) readonly buffer Source { vec4 data[]; };
vec4 element(uint a) { return data[a]; }
#elif KIND == 3
layout(set = 0, binding = 1) uniform Source { vec4 data[256]; };
vec4 element(uint a) { return data[a]; }
#elif KIND == 4
layout(set = 0, binding = 1) uniform samplerBuffer source;
vec4 element(uint a) { return texelFetch(source, int(a)); }
#elif KIND == 5
layout(set = 0, binding = 1) uniform sampler2D source;
vec4 element(uint a) { return texelFetch(source, ivec2(int(a), 0), 0); }
#elif KIND == 6
layout(set = 0, binding = 1) buffer Source { vec4 data[]; };
vec4 element(uint a) { return data[a]; }
#endif
layout(set = 0, binding = 2) writeonly buffer Out { vec4 result[]; };
void main() {
  vec4 value = vec4(0.0);
  for (uint i = 0u; i < 256u; ++i) value += element((k.start + i) & k.mask);
  result[gl_GlobalInvocationID.x] = value;
}
