// The same kernel with register()s in two spaces, HLSL's usual numbering
// (t0, u0, s0 overlap until shifted).
Buffer<float4> lightData : register(t0);
Texture2D<uint2> lightRanges : register(t1, space1);
RWTexture2D<float4> result : register(u0);
SamplerState linearSampler : register(s0);
Texture2D<float4> atlas : register(t2);

[numthreads(8, 8, 1)]
void CSMain(uint3 id : SV_DispatchThreadID, uint3 tile : SV_GroupID) {
  uint2 range = lightRanges.Load(int3(tile.xy, 0));
  float4 sum = 0;
  for (uint i = range.x; i < range.y; ++i) sum += lightData[i];
  result[id.xy] = sum * atlas.SampleLevel(linearSampler, float2(0.5, 0.5), 0);
}
