// --assume-driver=radv: three 32-bit uniform-address atomics with unused
// results in one block are rewritten with one shared election (RADV would
// elect once per atomic); workgroups of 100 (partial subgroups), the first
// workgroup's lanes partly inactive.
// RUN: %diff %s --waveopt-flags="-O --assume-driver=radv --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicIAdd of a divergent value; the returned value is unused{{$}}
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; the returned value is unused; shares the elected branch of the atomic before it
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMin of a divergent value; the returned value is unused; shares the elected branch of the atomic before it
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out { uint total; uint hi; uint lo; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  if (g < 100u && g % 7u == 3u) return;
  uint v = values[g];
  atomicAdd(total, v);
  uint w = (v >> 3) ^ 0x5555u;
  atomicMax(hi, w);
  atomicMin(lo, v ^ g);
}
