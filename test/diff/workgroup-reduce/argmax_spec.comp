// Arg-max pair trees over a workgroup whose x size is a specialization
// constant (`layout(local_size_x_id = 0)`, the arrays and the steps sized by
// `constant_id = 0`, the step bounded by a push constant): rewritten for
// the constant's default (64), the original kept behind `size == 64` for
// any other value. Compared with the original at 4, 8, 16 (lavapipe) and
// 32, 64 (the simulator): at 64 (argmax_spec.waverun; the rewrite runs) and
// at 128 with the bound 100 (the original runs, and must still be right: the
// rewrite for 64 would leave elements 64 to 99 out).
//   FLOAT  float keys with NaNs and zeros of both signs, ties kept (`>`)
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none --float-reassoc --remarks=workgroup-reduce -DFLOAT" --waverun="-DFLOAT" 2>&1 | %FileCheck %s --check-prefix=FLOAT
// RUN: %diff %s --waveopt-flags="-O --target=none" --waverun="-s 'const 0 = 128' -s 'push words=100'" 2>&1 | %FileCheck %s --check-prefix=OTHER
// CHECK: applied ReducedPairTree in main: an arg-max pair tree over key and pos (6 steps, 7 barriers; ties go to the lowest index; elements from a uniform bound on take no part) becomes one shared slot per subgroup and one barrier; other workgroup sizes than constant 0 = 64 keep the original
// CHECK: PASS: equal at sizes 4,8,16,32,64
// FLOAT: applied ReducedPairTree in main: {{.*}}; other workgroup sizes than constant 0 = 64 keep the original
// FLOAT: PASS: equal at sizes 4,8,16,32,64
// OTHER: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint BS = 64;
layout(push_constant) uniform Push { uint limit; } pc;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
#ifdef FLOAT
shared float key[BS];
#else
shared int key[BS];
#endif
shared uint pos[BS];

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint g = gl_GlobalInvocationID.x;
  const uint d = data[g % 2048u];
#ifdef FLOAT
  const uint bits[8] = uint[8](0xbf800000u, 0x80000000u, 0x00000000u, 0x3f800000u,
                               0x40000000u, 0x7fc00000u, 0x3f800000u, 0x40000000u);
  key[t] = uintBitsToFloat(bits[d % 8u]);
#else
  key[t] = int(d % 5u) - 2;
#endif
  pos[t] = (d >> 8) % 11u + t % 3u;
  barrier();
  for (uint s = BS / 2u; s > 0u; s >>= 1) {
    if (t < s && t + s < pc.limit) {
#ifdef FLOAT
      if (key[t] < key[t + s]) {
#else
      if (key[t] < key[t + s] || (key[t] == key[t + s] && pos[t + s] < pos[t])) {
#endif
        key[t] = key[t + s];
        pos[t] = pos[t + s];
      }
    }
    barrier();
  }
#ifdef FLOAT
  result[2u * g] = floatBitsToUint(key[0]) + t;
#else
  result[2u * g] = uint(key[0]) + t;
#endif
  result[2u * g + 1u] = pos[0];
}
