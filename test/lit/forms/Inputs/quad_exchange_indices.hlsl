// quad_exchange_indices.comp in HLSL: SV_GroupThreadID, SV_GroupIndex split,
// SV_DispatchThreadID modulo the group size.
// FORMS: group_thread group_index dispatch_mod
RWTexture2D<float4> src : register(u0);
RWTexture2D<float4> mip2 : register(u2);
groupshared float4 tile[8][8];

[numthreads(8, 8, 1)]
void main(uint3 gtid : SV_GroupThreadID, uint gi : SV_GroupIndex,
          uint3 gid : SV_GroupID, uint3 dtid : SV_DispatchThreadID) {
#if defined(FORM_group_thread)
  uint2 l = gtid.xy;
#elif defined(FORM_group_index)
  uint2 l = uint2(gi % 8u, gi / 8u);
#elif defined(FORM_dispatch_mod)
  uint2 l = dtid.xy % 8u;
#endif
  int2 p = int2(gid.xy * 8u + l);
  float4 a = src[p];
  tile[l.y][l.x] = a;
  GroupMemoryBarrierWithGroupSync();
  if (((l.x | l.y) & 1u) == 0u) {
    mip2[p / 2] = (tile[l.y][l.x] + tile[l.y][l.x + 1u] + tile[l.y + 1u][l.x] +
                   tile[l.y + 1u][l.x + 1u]) * 0.25;
  }
}
