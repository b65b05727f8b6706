// The cost rule (docs/design/batch-uniform-loads.md): each loop here is
// legal to batch and refused for what it would cost, with its reason; with
// `always` (the rule off) every one is batched. The parameters move the
// limits.
// RUN: %waveopt %s -O --target=none -o %t.spv --remarks=batch --remarks-missed=batch 2> %t.remarks
// RUN: %FileCheck %s < %t.remarks
// RUN: %waveopt %s --scalar-replacement --ssa-rewrite --batch-uniform-loads=always -o %t.always.spv --remarks=batch 2> %t.always.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.always.spv
// RUN: %FileCheck %s --check-prefix=ALWAYS < %t.always.remarks
// RUN: %waveopt %s --scalar-replacement --ssa-rewrite --batch-uniform-loads=driver-unroll=8,max-components=20,max-live=200 -o %t.p.spv --remarks=batch --remarks-missed=batch 2> %t.p.remarks
// RUN: %FileCheck %s --check-prefix=PARAMS < %t.p.remarks
// CHECK: missed UnrolledByDriver in main: the loop runs a constant 16 times: drivers unroll it and load its elements with scalar loads at constant offsets (driver-unroll=32)
// CHECK: missed TooManyComponents in main: a batch would hold 20 32-bit values per lane across the loop, more than max-components=16
// CHECK: missed RegisterPressure in main: about {{[0-9]+}} values per lane are live in the loop already (the kernel's busiest point: {{[0-9]+}}); with the batch (4) that is more than max-live=32, which would cost occupancy
// CHECK: missed NotProfitable in main: over 5 iterations the rewrite removes 16 units of memory issue and adds {{[0-9]+}} units of shuffles and bookkeeping
// CHECK: applied BatchedLoads in main: 1 uniform load(s) per iteration (1 shuffled part(s)) {{.*}} [loop at line {{[0-9]+}}]
// ALWAYS-COUNT-5: applied BatchedLoads in main
// PARAMS: missed NotProfitable in main
// PARAMS-COUNT-4: applied BatchedLoads in main
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 64) in;
struct Big { vec4 a, b, c, d, e; };
layout(set = 0, binding = 0) readonly buffer Data { vec4 v[]; };
layout(set = 0, binding = 4) readonly buffer Floats { float f[]; };
layout(set = 0, binding = 1) readonly buffer Bigs { Big big[]; };
layout(set = 0, binding = 2) readonly buffer Count { uint n; };
layout(set = 0, binding = 3) buffer Out { vec4 o[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  vec4 acc = vec4(0.0);
  // A constant trip count drivers unroll.
  for (uint i = 0u; i < 16u; ++i) acc += v[i] * float(g);
  // 5 vec4s per iteration.
  for (uint i = 0u; i < n; ++i) { Big b = big[i]; acc += b.a * b.b + b.c * b.d + b.e; }
  // Many values live per lane across the loop already.
  vec4 k0 = v[g], k1 = v[g + 1u], k2 = v[g + 2u], k3 = v[g + 3u], k4 = v[g + 4u], k5 = v[g + 5u];
  vec4 k6 = v[g + 6u], k7 = v[g + 7u], k8 = v[g + 8u], k9 = v[g + 9u], k10 = v[g + 10u], k11 = v[g + 11u];
  for (uint i = 0u; i < n; ++i) {
    vec4 x = v[i];
    k0 += x; k1 *= x; k2 -= x; k3 += x * k0; k4 += x * k1; k5 += x * k2;
    k6 += x * k3; k7 += x * k4; k8 += x * k5; k9 += x * k6; k10 += x * k7; k11 += x * k8;
  }
  acc += k0 + k1 + k2 + k3 + k4 + k5 + k6 + k7 + k8 + k9 + k10 + k11;
  // At most 5 iterations of one float: too few loads to pay for the batch.
  [[dont_unroll]] for (uint i = 0u; i < min(n, 5u); ++i) acc.x += f[i];
  // 16 iterations that are never unrolled: batched.
  [[dont_unroll]] for (uint i = 0u; i < 16u; ++i) acc += v[i + 32u];
  o[g] = acc;
}
