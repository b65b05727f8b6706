// Every integer atomic on buffer, shared and image memory, 32 and 64 bits,
// with returned values kept (they depend on the order: lanes in order,
// subgroups in order, workgroups in order on both lavapipe and the
// simulator). Workgroups of 24.
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 24) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(set = 0, binding = 1) buffer Cells { uint c[8]; int s[2]; uint64_t w[2]; uint seen[]; };
layout(set = 0, binding = 2, r32ui) uniform uimage2D img;
shared uint sh[4];
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint l = gl_LocalInvocationIndex;
  uint x = v[i];
  if (l < 4u) sh[l] = l;
  barrier();
  uint r0 = atomicAdd(c[0], x & 15u);
  uint r1 = atomicOr(c[1], 1u << (x % 32u));
  uint r2 = atomicXor(c[2], x);
  uint r3 = atomicAnd(c[3], x | 0x0f0f0000u);
  uint r4 = atomicMin(c[4], x);
  uint r5 = atomicMax(c[5], x >> 4);
  uint r6 = atomicExchange(c[6], i);
  uint r7 = atomicCompSwap(c[7], i - 1u, i);
  int r8 = atomicMin(s[0], int(x));
  int r9 = atomicMax(s[1], int(x));
  uint64_t r10 = atomicAdd(w[0], uint64_t(x) << 20);
  uint64_t r11 = atomicMax(w[1], uint64_t(x) * 3ul);
  uint r12 = atomicAdd(sh[x % 4u], x & 255u);
  uint r13 = imageAtomicAdd(img, ivec2(x % 4u, (x >> 2) % 4u), 1u);
  uint r14 = imageAtomicMax(img, ivec2((x >> 4) % 4u, 0), i);
  uint h = r0 ^ (r1 * 3u) ^ (r2 * 5u) ^ (r3 * 7u) ^ (r4 * 11u) ^ (r5 * 13u) ^ (r6 * 17u) ^
           (r7 * 19u) ^ uint(r8) * 23u ^ uint(r9) * 29u ^ uint(r10 >> 20) ^ uint(r11) ^
           (r12 * 31u) ^ (r13 * 37u) ^ (r14 * 41u);
  seen[i] = h;
  barrier();
  if (l < 4u) atomicAdd(c[0], sh[l]);
}
