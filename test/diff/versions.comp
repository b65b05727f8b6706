// Plain -O's versions (docs/targets.md): a light loop over a read-only buffer
// (amd and portable leave it, the nvidia version batches it) and a 16-bin
// histogram (portable leaves it, the amd and nvidia versions pre-reduce it).
// run_diff.py compares the default specialization and each version (its
// SpecId set true) with the original at 4/8/16 and 32/64.
// RUN: %diff %s --waveopt-flags="-O" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --spec-id-base=40" 2>&1 | %FileCheck %s --check-prefix=BASE
// CHECK: SpecId 1000 bool waveopt_amd = false: true on amd (prereduce-atomics)
// CHECK: SpecId 1001 bool waveopt_nvidia = false: true on nvidia (batch-uniform-loads, prereduce-atomics)
// CHECK: --const=1001=true
// CHECK: PASS: equal at sizes 4,8,16,32,64
// BASE: SpecId 41 bool waveopt_nvidia
// BASE: PASS
// Private globals that look alike (two uints, no initializer): the join
// of the versions must keep them apart (it once made every one of the
// nvidia version's the base's first: ggml's mul_mat_vec offsets).
// RUN: %diff %s --waveopt-flags="-O -DPRIVATE" --waverun="-DPRIVATE" 2>&1 | %FileCheck %s --check-prefix=PRIVATE
// PRIVATE: --const=1001=true
// PRIVATE: PASS: equal at sizes 4,8,16,32,64
// Negative control: a broken batch (one more trip) lives in the nvidia
// version only; the default and amd specializations stay equal, nvidia's is
// caught.
// RUN: %diff %s --waveopt-flags="-O" --mutant=one-more-trip --expect=differ --sim-widths= 2>&1 | %FileCheck %s --check-prefix=MUTANT
// MUTANT: [sg=4] equal
// MUTANT: --const=1000=true
// MUTANT-NEXT: [sg=4] equal
// MUTANT: --const=1001=true
// MUTANT-NEXT: [sg=4] DIFFERENT
// MUTANT: PASS: the difference was caught
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Lights { vec4 lights[]; };
layout(set = 0, binding = 1) buffer Out { vec4 color[]; };
layout(set = 0, binding = 2) buffer Bins { uint bins[16]; };
layout(push_constant) uniform Count { uint count; } pc;
#ifdef PRIVATE
uint offA;
uint offB;
void offsets() {
  offA = gl_LocalInvocationID.x % 7u;
  offB = 3u + gl_WorkGroupID.x;
}
#endif
void main() {
  vec4 sum = vec4(0.0);
#ifdef PRIVATE
  offsets();
  for (uint i = 0u; i < pc.count; ++i) sum += lights[i] * float(offA) + vec4(float(offB));
#else
  for (uint i = 0u; i < pc.count; ++i) sum += lights[i] * float(gl_LocalInvocationID.x % 7u);
#endif
  color[gl_GlobalInvocationID.x] = sum;
  atomicAdd(bins[min(uint(sum.x) & 31u, 15u)], 1u);
}
