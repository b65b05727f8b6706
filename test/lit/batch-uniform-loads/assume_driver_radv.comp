// --target=amd: a uniform-address load of a uniform buffer or of a
// read-only storage buffer (decorated NonWritable, or written by no
// instruction of the module) is left to RADV, which loads it with scalar
// loads (missed DriverScalarizes); texel buffers, images and storage buffers
// the module writes keep being batched. A loop with both kinds batches the
// texel buffer only. The generic profile batches every loop.
// RUN: %waveopt %s -O --assume-driver=radv -o %t.radv.spv --remarks=batch --remarks-missed=batch 2> %t.radv.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.radv.spv
// RUN: %FileCheck %s --check-prefix=RADV < %t.radv.remarks
// RUN: %waveopt %s -O --target=none -o %t.spv --remarks=batch --remarks-missed=batch 2> %t.remarks
// RUN: %FileCheck %s --check-prefix=GENERIC < %t.remarks
// RADV: remark: batch-uniform-loads: missed DriverScalarizes in main: --target=amd: the load reads a storage buffer decorated NonWritable at a subgroup-uniform address, which RADV loads with scalar loads (s_buffer_load: one request per wave, no vector registers; fact scalar-uniform-loads) [loop at line {{[0-9]+}}]
// RADV: remark: batch-uniform-loads: missed DriverScalarizes in main: --target=amd: the load reads a storage buffer no instruction of the module writes at a subgroup-uniform address
// RADV: remark: batch-uniform-loads: missed DriverScalarizes in main: --target=amd: the load reads a uniform buffer at a subgroup-uniform address
// RADV: remark: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (1 shuffled part(s)) now load one element per lane per batch; each iteration takes its element from the owning lane (4 words per lane) [loop
// RADV: remark: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (1 shuffled part(s)) now load one element per lane per batch; each iteration takes its element from the owning lane (4 words per lane) [loop
// RADV: remark: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (1 shuffled part(s)) now load one element per lane per batch; each iteration takes its element from the owning lane (4 words per lane) [loop
// RADV: remark: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (1 shuffled part(s)) now load one element per lane per batch; each iteration takes its element from the owning lane (4 words per lane); 1 load(s) left to the driver (--target=amd: the load reads a storage buffer decorated NonWritable at a subgroup-uniform address
// RADV-NOT: DriverScalarizes
// GENERIC-NOT: DriverScalarizes
// GENERIC-COUNT-7: applied BatchedLoads in main
// GENERIC-NOT: left to the driver
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform Constants { uint n; } k;
layout(set = 0, binding = 1) readonly buffer Lights { vec4 lights[]; };
layout(set = 0, binding = 2) buffer Never { vec4 never_written[]; };
layout(set = 0, binding = 3) uniform Table { vec4 table[256]; };
layout(set = 0, binding = 4) uniform samplerBuffer texel;
layout(set = 0, binding = 5) uniform sampler2D image;
layout(set = 0, binding = 6) buffer Written { vec4 written[]; };
layout(set = 0, binding = 7) writeonly buffer Out { vec4 result[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  vec4 acc = vec4(0.0);
  for (uint i = 0u; i < k.n; ++i) acc += lights[i];
  for (uint i = 0u; i < k.n; ++i) acc += never_written[i];
  for (uint i = 0u; i < k.n; ++i) acc += table[i & 255u];
  for (uint i = 0u; i < k.n; ++i) acc += texelFetch(texel, int(i));
  for (uint i = 0u; i < k.n; ++i) acc += texelFetch(image, ivec2(int(i), 0), 0);
  for (uint i = 0u; i < k.n; ++i) acc += written[i];
  for (uint i = 0u; i < k.n; ++i) acc += lights[i] * texelFetch(texel, int(i));
  written[g] = acc;
  result[g] = acc;
}
