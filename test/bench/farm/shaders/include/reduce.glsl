// A workgroup reduction through shared memory; MODE picks the operation.
shared float partial[WG_SIZE];

float Combine(float a, float b) {
#if MODE == 0
  return a + b;
#elif MODE == 1
  return max(a, b);
#elif MODE == 2
  return min(a, b);
#else
  return a + b * b;
#endif
}

float ReduceWorkgroup(float v) {
  uint l = gl_LocalInvocationIndex;
  partial[l] = v;
  barrier();
  for (uint s = WG_SIZE / 2u; s > 0u; s >>= 1) {
    if (l < s) partial[l] = Combine(partial[l], partial[l + s]);
    barrier();
  }
  return partial[0];
}
