// The negative cases: the pass must leave each alone (a read across quads,
// a second write before the read, an exit between the store and the
// barrier), and the original and the output agree. The exit between the
// barrier and the read is no reason to refuse: the quad operations run at
// the barrier, where the writer is still active (RETURN fires and must
// agree).
// RUN: %diff %s --waveopt-flags="--quad-exchange --remarks-missed=quad-exchange -DCASE=1" --waverun="-DCASE=1" 2>&1 | %FileCheck %s --check-prefix=ACROSS
// RUN: %diff %s --waveopt-flags="--quad-exchange --remarks-missed=quad-exchange -DCASE=2" --waverun="-DCASE=2" 2>&1 | %FileCheck %s --check-prefix=SECOND
// RUN: %diff %s --waveopt-flags="--quad-exchange --remarks=quad-exchange -DCASE=3" --waverun="-DCASE=3" 2>&1 | %FileCheck %s --check-prefix=RETURN
// ACROSS: missed NotQuadOrdered in main: invocation 0 reads the element 's' that invocation 4 writes, outside its quad 0..3
// ACROSS: PASS: equal at sizes 4,8,16,32,64
// SECOND: missed SecondWrite in main
// SECOND: PASS: equal at sizes 4,8,16,32,64
// RETURN: applied Exchanged in main: 1 read(s) of 's' (horizontal swap)
// RETURN: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { float data[]; };
layout(set = 0, binding = 1) buffer Out { float result[]; };
shared float s[64];

void main() {
  uint i = gl_LocalInvocationIndex;
  uint g = gl_WorkGroupID.x * 64u + i;
  float v = data[g];
  s[i] = v;
  barrier();
#if CASE == 1
  result[g] = v + s[i ^ 4u];
#elif CASE == 2
  s[i] = v * 2.0;
  barrier();
  result[g] = v + s[i ^ 1u];
#elif CASE == 3
  if (data[g] < 0.25) return;
  result[g] = v + s[i ^ 1u];
#endif
}
