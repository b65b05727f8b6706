// shapes.comp's kernel in HLSL (see there).
StructuredBuffer<float4> d : register(t0);
StructuredBuffer<uint4> c : register(t1);
RWStructuredBuffer<float4> o : register(u2);
[numthreads(40, 1, 1)]
void main(uint3 gid : SV_GroupID, uint3 tid : SV_DispatchThreadID, uint lane : SV_GroupIndex) {
  uint4 sc = c[gid.x];
  uint start = sc.x, n = sc.y, stop = sc.z;
  uint g = tid.x;
  float4 a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0, a8 = 0, a9 = 0, a10 = 0, a11 = 0;
  for (uint i = 0; i < n; ++i) a0 += d[start + i] * float(lane + 1);
  o[g * 12 + 0] = a0;
  if (n > 0) { uint i = 0; do { a1 += d[start + i]; ++i; } while (i < n); }
  o[g * 12 + 1] = a1;
  for (int i = int(n) - 1; i >= 0; --i) a2 = a2 * 0.5 + d[start + uint(i)];
  o[g * 12 + 2] = a2;
  { uint i = n; while (i != 0) { --i; a3 += d[start + i] * float(i); } }
  o[g * 12 + 3] = a3;
  for (uint i = 0; i < n; i += 3) a4 += d[start + i];
  o[g * 12 + 4] = a4;
  for (uint i = 0; ; ++i) { if (i >= n) break; a5 += d[start + i] - float(lane); }
  o[g * 12 + 5] = a5;
  for (int i = int(sc.w); i > -1000; --i) { float4 v = d[i]; if (v.w > 0.8) break; a6 += v; }
  o[g * 12 + 6] = a6;
  for (uint i = 0; i < n; ++i) { if ((i & 1) == 0) a8 += d[start + i]; }
  o[g * 12 + 8] = a8;
  if (lane % 3 != 1) { for (uint i = 0; i < n; ++i) a9 += d[start + i] + float(lane); }
  o[g * 12 + 9] = a9;
  for (int i = 0; i <= int(n) - 1; ++i) a10 += d[start + uint(i)];
  o[g * 12 + 10] = a10;
  for (uint i = start + n; i > start; --i) a11 += d[i - 1];
  o[g * 12 + 11] = a11;
  for (uint i = 0; i < n; ++i) {
    if (i == stop) { o[g * 12 + 7] = a7; return; }
    a7 += d[start + i];
  }
  o[g * 12 + 7] = a7 + 1000.0;
}
