// A tiled light loop written as HLSL often is: no register() anywhere.
Buffer<float4> lightData;
Texture2D<uint2> lightRanges;
RWTexture2D<float4> result;
SamplerState linearSampler;
Texture2D<float4> atlas;

[numthreads(8, 8, 1)]
void CSMain(uint3 id : SV_DispatchThreadID, uint3 tile : SV_GroupID) {
  uint2 range = lightRanges.Load(int3(tile.xy, 0));
  float4 sum = 0;
  for (uint i = range.x; i < range.y; ++i) sum += lightData[i];
  result[id.xy] = sum * atlas.SampleLevel(linearSampler, float2(0.5, 0.5), 0);
}
