// morton_remap_pixels.comp in HLSL: SV_DispatchThreadID, SV_GroupID * 8 +
// SV_GroupThreadID, SV_GroupIndex split, a bounds test.
// FORMS: dispatch group_thread group_index bounds
Texture2D<float4> src : register(t0);
RWTexture2D<float4> dst : register(u1);
cbuffer P : register(b2) { int2 size; };

[numthreads(8, 8, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID,
          uint3 gtid : SV_GroupThreadID, uint gi : SV_GroupIndex) {
#if defined(FORM_dispatch) || defined(FORM_bounds)
  int2 p = int2(dtid.xy);
#elif defined(FORM_group_thread)
  int2 p = int2(gid.xy * 8u + gtid.xy);
#elif defined(FORM_group_index)
  int2 p = int2(gid.xy * 8u + uint2(gi % 8u, gi / 8u));
#endif
#if defined(FORM_bounds)
  if (p.x >= size.x || p.y >= size.y) return;
#endif
  float4 sum = 0.0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      sum += src.Load(int3(p + int2(dx, dy), 0));
  dst[p] = sum / 9.0;
}
