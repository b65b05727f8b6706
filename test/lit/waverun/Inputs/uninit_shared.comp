// Reads shared memory no invocation wrote: its result is undefined, so the
// module disagrees with itself when undefined memory holds junk.
#version 450
layout(local_size_x = 32) in;
shared uint scratch[64];
layout(set = 0, binding = 0) buffer Out { uint o[]; };
layout(set = 0, binding = 1) buffer Also { uint also[]; };
void main() {
  uint i = gl_LocalInvocationIndex;
  scratch[i] = i;
  barrier();
  o[gl_GlobalInvocationID.x] = scratch[i + 32u];
  also[gl_GlobalInvocationID.x] = i * 3u;
}
