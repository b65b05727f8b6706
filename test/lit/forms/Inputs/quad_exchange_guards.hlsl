// The downsample of quad_exchange_guards.comp in HLSL (glslang's HLSL front
// end): the same guards.
// FORMS: bitor andand mod2 all_equal early_return nested
RWTexture2D<float4> src : register(u0);
RWTexture2D<float4> mip1 : register(u1);
RWTexture2D<float4> mip2 : register(u2);
groupshared float4 tile[8][8];

[numthreads(8, 8, 1)]
void main(uint3 gtid : SV_GroupThreadID, uint3 dtid : SV_DispatchThreadID) {
  uint2 l = gtid.xy;
  int2 p = int2(dtid.xy);
  float4 a = src[p];
  mip1[p] = a;
  tile[l.y][l.x] = a;
  GroupMemoryBarrierWithGroupSync();
#if defined(FORM_bitor)
  if (((l.x | l.y) & 1u) == 0u) {
#elif defined(FORM_andand)
  if ((l.x & 1u) == 0u && (l.y & 1u) == 0u) {
#elif defined(FORM_mod2)
  if (l.x % 2u == 0u && l.y % 2u == 0u) {
#elif defined(FORM_all_equal)
  if (all((l & 1u) == uint2(0u, 0u))) {
#elif defined(FORM_early_return)
  if (((l.x | l.y) & 1u) != 0u) return;
  {
#elif defined(FORM_nested)
  if ((l.x & 1u) == 0u) if ((l.y & 1u) == 0u) {
#endif
    float4 m2 = (tile[l.y][l.x] + tile[l.y][l.x + 1u] + tile[l.y + 1u][l.x] +
                 tile[l.y + 1u][l.x + 1u]) * 0.25;
    mip2[p / 2] = m2;
  }
}
