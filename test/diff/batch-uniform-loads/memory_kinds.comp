// Every kind of memory seed 000 names that waverun runs today, one loop
// each: a std140 uniform block's fixed array, a storage image (imageLoad),
// a sampled image by texelFetch and by textureLod at an explicit LOD, a load
// in a called function (inlined by -O), and four consecutive words of a uint
// array read as one element. HLSL (Inputs/memory_kinds.hlsl): a cbuffer
// array, RWTexture2D reads, ByteAddressBuffer Load4 / Load2 / Load (words in
// bytes), a StructuredBuffer of structs (BufferBlock). Each compiled as
// written and after spirv-opt -O. Texel buffers, separate images and
// samplers and buffer device addresses: texel_buffer_bda.comp (they need
// waverun support that is not there yet). 18 workgroups of 40, 0..100
// iterations, every buffer sized to the last element read.
// RUN: %diff %s --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --same-oob --waveopt-flags="-O --assume-driver=cpu --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --same-oob --waveopt-flags="-O --assume-driver=cpu --target-env=vulkan1.2 --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %s --spirv-opt-O --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s
// RUN: %diff %S/Inputs/memory_kinds.hlsl --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s --check-prefix=HLSL
// RUN: %diff %S/Inputs/memory_kinds.hlsl --spirv-opt-O --same-oob --waveopt-flags="-O --remarks=batch --remarks-missed=batch" 2>&1 | %FileCheck %s --check-prefix=HLSL
// CHECK-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 4 uniform load(s) per iteration (4 shuffled part(s))
// CHECK-NOT: : missed
// CHECK: PASS: equal at sizes 4,8,16,32,64
// HLSL-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// HLSL-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// HLSL-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (1 shuffled part(s))
// HLSL-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 4 uniform load(s) per iteration (4 shuffled part(s))
// HLSL-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 2 uniform load(s) per iteration (2 shuffled part(s))
// HLSL-DAG: applied BatchedLoads in main{{( (at|near) [^:]+)?}}: 1 uniform load(s) per iteration (2 shuffled part(s))
// HLSL-NOT: : missed
// HLSL: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 40) in;
layout(set = 0, binding = 0, std140) uniform Table { vec4 table[64]; };
layout(set = 0, binding = 1) readonly buffer Words { uint words[]; };
layout(set = 0, binding = 2, rgba32f) readonly uniform image2D img;
layout(set = 0, binding = 3) uniform sampler2D tex;
layout(set = 0, binding = 4) readonly buffer Counts { uvec4 c[]; };
layout(set = 0, binding = 5) buffer Out { vec4 o[]; };
vec4 getEntry(uint i) { return table[i & 63u] * 2.0; }
void main() {
  uvec4 sc = c[gl_WorkGroupID.x];
  uint start = sc.x, n = sc.y, row = sc.z;
  uint g = gl_GlobalInvocationID.x;
  float l = float(gl_LocalInvocationIndex);
  vec4 a0 = vec4(0), a1 = vec4(0), a2 = vec4(0), a3 = vec4(0), a4 = vec4(0), a5 = vec4(0);
  for (uint i = 0u; i < n; ++i) a0 += table[(start + i) & 63u] * l;
  o[g * 6u + 0u] = a0;
  for (uint i = 0u; i < n; ++i) a1 += imageLoad(img, ivec2((start + i) % 16u, row));
  o[g * 6u + 1u] = a1;
  for (uint i = 0u; i < n; ++i) a2 += texelFetch(tex, ivec2((start + i) % 16u, row), 0) + l;
  o[g * 6u + 2u] = a2;
  for (uint i = 0u; i < n; ++i) a3 += textureLod(tex, (vec2(float(i % 16u), float(row)) + 0.5) / 16.0, 0.0);
  o[g * 6u + 3u] = a3;
  for (uint i = 0u; i < n; ++i) a4 += getEntry(start + i);
  o[g * 6u + 4u] = a4;
  for (uint i = 0u; i < n; ++i) {
    uint b = (start + i) * 4u;
    a5 += vec4(float(words[b]), float(words[b + 1u]), float(words[b + 2u] & 255u), float(words[b + 3u] >> 24));
  }
  o[g * 6u + 5u] = a5;
}
