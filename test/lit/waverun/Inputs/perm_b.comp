// Same values as perm_a.comp, rotated by 5 (equal as a multiset, not as a
// whole nor in the first 40), and floats 0, 1 or 2 ulps away.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counter { uint count; };
layout(set = 0, binding = 1) buffer Items { uint items[]; };
layout(set = 0, binding = 2) buffer Floats { float f[]; };

void main() {
  uint i = gl_LocalInvocationIndex;
  if (i == 0u) count = 40u;
  items[(i + 5u) % 64u] = i * 3u;
  f[i] = uintBitsToFloat(floatBitsToUint(float(i) * 0.37) + (i % 3u));
}
