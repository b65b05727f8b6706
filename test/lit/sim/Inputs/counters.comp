// Cost counters: 64 invocations read In[i * STRIDE] and write Out[i], add 1
// to one counter, and store to shared memory at l * SSTRIDE words.
#version 450
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint STRIDE = 1u;
layout(constant_id = 1) const uint SSTRIDE = 1u;
layout(set = 0, binding = 0) readonly buffer In { uint x[]; };
layout(set = 0, binding = 1) buffer Out { uint count; uint pad[15]; uint y[]; };
shared uint s[2048];
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint l = gl_LocalInvocationIndex;
  atomicAdd(count, 1u);
  s[l * SSTRIDE] = x[i * STRIDE];
  barrier();
  y[i] = s[l * SSTRIDE];
}
