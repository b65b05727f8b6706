// Seed 000's tiled-lighting loop as HLSL writes it (our own kernel of the
// seed's shape), naive: every lane of an 8x8 tile walks the tile's range of
// a light list and loads each light (one float4) from the same address.
// The seed reads the list as Buffer<float4> and the ranges from a texture;
// here both are structured buffers, which waverun binds today.
StructuredBuffer<float4> lightData : register(t0);
StructuredBuffer<uint2> tileRange : register(t1);
RWStructuredBuffer<float4> shaded : register(u2);

[numthreads(8, 8, 1)]
void main(uint3 pixel : SV_DispatchThreadID, uint3 tile : SV_GroupID) {
  uint tiles_x = 32;
  uint2 range = tileRange[tile.y * tiles_x + tile.x];  // start, count (0..256)
  float2 uv = float2(pixel.xy) / float2(256.0, 128.0);
  float4 sum = 0;
  for (uint k = 0; k < range.y; ++k) {
    float4 light = lightData[range.x + k];  // xy position, z radius, w intensity
    float2 d = light.xy - uv;
    sum += light.w * saturate(1.0 - dot(d, d) / (light.z * light.z + 1e-3)) *
           float4(light.xyz, 1.0);
  }
  shaded[pixel.y * 256 + pixel.x] = sum;
}
