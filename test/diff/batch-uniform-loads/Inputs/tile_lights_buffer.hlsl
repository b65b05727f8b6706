// Tiled light accumulation in the shape of seed 000's example (written for
// this test): every 8x8 tile walks its range of a typed light buffer; the
// range comes from a texture, the result goes to a storage texture.
Buffer<float4> lightList : register(t0);
Texture2D<uint2> tileRanges : register(t1);
RWTexture2D<float4> result : register(u2);
[numthreads(8, 8, 1)]
void main(uint3 pixel : SV_DispatchThreadID, uint3 tile : SV_GroupID) {
  uint2 range = tileRanges[tile.xy];
  float4 sum = 0;
  for (uint k = 0; k < range.y; ++k) {
    sum += lightList[range.x + k] * (1.0 + 0.125 * float(pixel.x & 7));
  }
  result[pixel.xy] = sum;
}
