// quad_exchange_negative.comp's signed_mod: HLSL's % (OpSRem) of a negative
// value keeps its sign, so (x - 4) % 2 != 1 is true for x = 1.
RWTexture2D<float4> src : register(u0);
RWTexture2D<float4> mip2 : register(u2);
groupshared float4 tile[8][8];

[numthreads(8, 8, 1)]
void main(uint3 gtid : SV_GroupThreadID, uint3 dtid : SV_DispatchThreadID) {
  uint2 l = gtid.xy;
  int2 p = int2(dtid.xy);
  tile[l.y][l.x] = src[p];
  GroupMemoryBarrierWithGroupSync();
  if ((int(l.x) - 4) % 2 != 1 && (l.y & 1u) == 0u) {
    mip2[p / 2] = (tile[l.y][l.x] + tile[l.y][(l.x + 1u) & 7u] + tile[l.y + 1u][l.x] +
                   tile[l.y + 1u][(l.x + 1u) & 7u]) * 0.25;
  }
}
