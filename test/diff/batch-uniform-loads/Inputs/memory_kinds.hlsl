// memory_kinds.comp's HLSL forms (see there).
cbuffer Table : register(b0) { float4 table[64]; };
ByteAddressBuffer words : register(t1);
RWTexture2D<float4> img : register(u2);
struct Item { float4 a; uint2 b; };
StructuredBuffer<Item> items : register(t3);
StructuredBuffer<uint4> c : register(t4);
RWStructuredBuffer<float4> o : register(u5);
[numthreads(40, 1, 1)]
void main(uint3 gid : SV_GroupID, uint3 tid : SV_DispatchThreadID, uint lane : SV_GroupIndex) {
  uint4 sc = c[gid.x];
  uint start = sc.x, n = sc.y, row = sc.z;
  uint g = tid.x;
  float l = float(lane);
  float4 a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0;
  for (uint i = 0; i < n; ++i) a0 += table[(start + i) & 63] * l;
  o[g * 6 + 0] = a0;
  for (uint i = 0; i < n; ++i) a1 += img[uint2((start + i) % 16, row)];
  o[g * 6 + 1] = a1;
  for (uint i = 0; i < n; ++i) a2 += asfloat(words.Load4((start + i) * 16)) + l;
  o[g * 6 + 2] = a2;
  for (uint i = 0; i < n; ++i) a3.xy += asfloat(words.Load2((start + i) * 8));
  o[g * 6 + 3] = a3;
  for (int i = 0; i < int(n); ++i) a4.x += asfloat(words.Load(((start + uint(i)) * 4) | 0));
  o[g * 6 + 4] = a4;
  for (uint i = 0; i < n; ++i) { Item it = items[start + i]; a5 += it.a * float(it.b.x & 7) + float(it.b.y & 3); }
  o[g * 6 + 5] = a5;
}
