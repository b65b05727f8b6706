// Every refusal leaves the module unchanged (output == input) and names its
// reason. The kernel: a 64-wide 1-D workgroup whose reads are in the
// writer's quad unless a case changes that.
// RUN: %waveopt %s -DCASE=0 -o %t0.spv --quad-exchange --remarks=quad-exchange 2> %t0.remarks
// RUN: %FileCheck %s --check-prefix=FIRES < %t0.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t0.spv
// RUN: %python %S/refuse.py %waveopt %s 1 NotQuadOrdered
// RUN: %python %S/refuse.py %waveopt %s 2 SecondWrite
// RUN: %python %S/refuse.py %waveopt %s 3 DivergentExitBetween
// RUN: %python %S/refuse.py %waveopt %s 4 OtherAccessesNeedBarrier
// RUN: %python %S/refuse.py %waveopt %s 5 OtherAccessesNeedBarrier
// RUN: %python %S/refuse.py %waveopt %s 6 UnsupportedAccess
// RUN: %python %S/refuse.py %waveopt %s 7 ReadsUnwritten
// RUN: %python %S/refuse.py %waveopt %s 8 MixedQuadLanes
// RUN: %python %S/refuse.py %waveopt %s 9 ReadBeforeBarrier
// RUN: %python %S/refuse.py %waveopt %s 10 IndexNotLocal
// RUN: %python %S/refuse.py %waveopt %s 11 PartialElement
// RUN: %python %S/refuse.py %waveopt %s 12 NoBarrier
// RUN: %python %S/refuse.py %waveopt %s 13 UsesSubgroupOps
// RUN: %python %S/refuse.py %waveopt %s 14 IdentityInCallee
// RUN: %python %S/refuse.py %waveopt %s 15 ConflictingWrites
// RUN: %python %S/refuse.py %waveopt %s 16 SecondWrite
// RUN: %python %S/refuse.py %waveopt %s 17 OutOfBounds
// RUN: %python %S/refuse.py %waveopt %s 18 IndexNotEvaluated
// RUN: %python %S/refuse.py %waveopt %s 0 TargetLacksSubgroupOps --target-env=vulkan1.0
// FIRES: applied Exchanged in main: 1 read(s) of 's' (horizontal swap) served by 1 quad operation(s)
#version 450
#extension GL_KHR_shader_subgroup_basic : enable
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Buf { float data[]; };
#if CASE == 7
shared float s[128];
#elif CASE == 11
shared vec2 s[64];
#else
shared float s[64];
#endif
#if CASE == 4
shared float t[64];
#endif

float callee() { return float(gl_LocalInvocationIndex); }

void main() {
  uint i = gl_LocalInvocationIndex;
  uint g = gl_WorkGroupID.x * 64u + i;
  float v = data[g];
#if CASE == 15
  s[i / 2u] = v;
#elif CASE == 16
  for (int k = 0; k < 2; ++k) s[i] = v + float(k);
#elif CASE == 17
  s[i + 1u] = v;
#elif CASE == 18
  uint j = i + 128u;
  while (j >= 64u) j -= 64u;
  s[j] = v;
#elif CASE == 9
  float early = s[i ^ 1u];
  s[i] = v;
#elif CASE == 11
  s[i] = vec2(v);
#else
  s[i] = v;
#endif
#if CASE == 3
  if (v < 0.5) return;
#endif
#if CASE == 4
  t[i] = v;
#endif
#if CASE == 5
  memoryBarrierBuffer();
#endif
#if CASE != 12
  barrier();
#endif
#if CASE == 1
  data[g] = s[i ^ 4u];
#elif CASE == 2
  s[i] = 2.0 * v;
  barrier();
  data[g] = s[i ^ 1u];
#elif CASE == 6
  float copy[64] = s;
  data[g] = copy[i ^ 1u];
#elif CASE == 7
  data[g] = s[i + 64u];
#elif CASE == 8
  data[g] = s[i ^ (1u + ((i >> 1u) & 1u))];
#elif CASE == 9
  data[g] = s[i ^ 1u] + early;
#elif CASE == 10
  data[g] = s[(i ^ 1u) + (gl_WorkGroupID.x & 1u)];
#elif CASE == 11
  data[g] = s[i ^ 1u].y;
#elif CASE == 13
  data[g] = s[i ^ 1u] + float(gl_SubgroupSize);
#elif CASE == 14
  data[g] = s[i ^ 1u] + callee();
#elif CASE == 15
  data[g] = s[i / 2u];
#elif CASE == 17
  data[g] = s[i ^ 1u];
#elif CASE == 18
  data[g] = s[i];
#else
  data[g] = s[i ^ 1u];
#endif
}
