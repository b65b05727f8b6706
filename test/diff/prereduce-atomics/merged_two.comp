// Two atomics on the same counter share one elected branch, both returned
// values used, in a divergent branch (any active set) of workgroups of 100
// (partial subgroups at every size but 4): the second atomic's returned
// values must start where the first atomic's whole subgroup ended.
// RUN: %diff %s --waveopt-flags="--prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicIAdd of a divergent value; each lane's returned value is rebuilt{{$}}
// CHECK: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt; shares the elected branch of the atomic before it
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out { uint counter; uint pad0; uint pad1; uint pad2; uint seen[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint v = values[g];
  uint seen_value = 0xffffffffu;
  if ((v & 3u) != 0u) {
    uint a = atomicAdd(counter, v & 255u);
    uint b = atomicAdd(counter, 5u);
    seen_value = a * 3u + b;
  }
  seen[g] = seen_value;
}
