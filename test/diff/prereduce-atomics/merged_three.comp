// Three atomics of one block share one elected branch: an add (returned
// value used), a max and a min of a value computed between them (used, and
// moved above the reductions), all on different addresses; workgroups of
// 100 (partial subgroups), the first workgroup's lanes partly inactive.
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicIAdd of a divergent value; each lane's returned value is rebuilt{{$}}
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; each lane's returned value is rebuilt; shares the elected branch of the atomic before it
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMin of a divergent value; each lane's returned value is rebuilt; shares the elected branch of the atomic before it
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out { uint total; uint hi; uint lo; uint pad; uint seen[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  if (g < 100u && g % 7u == 3u) return;
  uint v = values[g];
  uint a = atomicAdd(total, v);
  uint w = (v >> 3) ^ 0x5555u;
  uint b = atomicMax(hi, w);
  uint c = atomicMin(lo, v ^ g);
  seen[g] = a ^ (b * 3u) ^ (c * 7u);
}
