// Mip 1 per invocation, mip 2 through a 2x2 round trip in groupshared
// memory, the guard written with && as HLSL code usually has it.
[[vk::binding(0, 0)]] RWTexture2D<float4> src;
[[vk::binding(1, 0)]] RWTexture2D<float4> mip1;
[[vk::binding(2, 0)]] RWTexture2D<float4> mip2;
groupshared float4 tile[8][8];

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 l : SV_GroupThreadID) {
  int2 p = int2(id.xy);
  int2 s = 2 * p;
  float4 m1 = (((src[s] + src[s + int2(1, 0)]) + src[s + int2(0, 1)]) + src[s + int2(1, 1)]) * 0.25;
  mip1[p] = m1;
  tile[l.y][l.x] = m1;
  GroupMemoryBarrierWithGroupSync();
  if (((l.x | l.y) & 1) == 0) {
    float4 m2 = (((tile[l.y][l.x] + tile[l.y][l.x + 1]) + tile[l.y + 1][l.x]) + tile[l.y + 1][l.x + 1]) * 0.25;
    mip2[p / 2] = m2;
  }
}
