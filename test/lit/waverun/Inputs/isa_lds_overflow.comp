// waverun isa: 400 KB of shared memory, more than any AMD GPU has; Mesa
// 22.3's RADV dies on it (SIGFPE) rather than refusing it.
#version 450
layout(local_size_x = 64) in;
shared uint big[100000];
layout(set = 0, binding = 0) buffer B { uint d[]; };
void main() {
  big[gl_LocalInvocationIndex * 1000u] = d[gl_LocalInvocationIndex];
  barrier();
  d[gl_LocalInvocationIndex] = big[(gl_LocalInvocationIndex * 7u) % 100000u];
}
