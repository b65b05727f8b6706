// Light falloff; MODE picks the curve.
float Falloff(float d, float radius) {
  float x = clamp(1.0 - d / radius, 0.0, 1.0);
#if MODE == 0
  return x;
#elif MODE == 1
  return x * x;
#elif MODE == 2
  return x * x * (3.0 - 2.0 * x);
#else
  return x / (1.0 + d * d);
#endif
}
