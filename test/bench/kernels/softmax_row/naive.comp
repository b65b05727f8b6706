// Soft max of rows of 1024 floats, one workgroup of 256 invocations per row,
// as ggml's soft_max shader does it: a shared-memory tree for the row's
// maximum, one for the sum of exponentials, then every element normalised.
#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };
shared float vals[256];

void main() {
  uint tid = gl_LocalInvocationIndex;
  uint base = gl_WorkGroupID.x * 1024u;
  float m = -1.0 / 0.0;
  for (uint c = tid; c < 1024u; c += 256u) m = max(m, x[base + c]);
  vals[tid] = m;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s) vals[tid] = max(vals[tid], vals[tid + s]);
    barrier();
  }
  float maxv = vals[0];
  barrier();
  float sum = 0.0;
  for (uint c = tid; c < 1024u; c += 256u) sum += exp(x[base + c] - maxv);
  vals[tid] = sum;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s) vals[tid] += vals[tid + s];
    barrier();
  }
  float inv = 1.0 / vals[0];
  for (uint c = tid; c < 1024u; c += 256u) y[base + c] = exp(x[base + c] - maxv) * inv;
}
