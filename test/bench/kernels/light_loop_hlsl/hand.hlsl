// Seed 000's tiled-lighting loop, hand-tuned with HLSL wave intrinsics: each
// lane loads one light of the next batch of WaveGetLaneCount() lights, and
// every iteration broadcasts one light with WaveReadLaneAt. The batch is
// indexed by WaveGetLaneIndex(), which is only right when the active lanes
// are lanes 0..n-1: checked once (a ballot), any other active set takes the
// plain loop.
StructuredBuffer<float4> lightData : register(t0);
StructuredBuffer<uint2> tileRange : register(t1);
RWStructuredBuffer<float4> shaded : register(u2);

float4 Shade(float4 light, float2 uv) {
  float2 d = light.xy - uv;
  return light.w * saturate(1.0 - dot(d, d) / (light.z * light.z + 1e-3)) *
         float4(light.xyz, 1.0);
}

// The highest set bit of a 128-lane ballot.
uint HighestLane(uint4 b) {
  return b.w != 0 ? 96 + firstbithigh(b.w)
       : b.z != 0 ? 64 + firstbithigh(b.z)
       : b.y != 0 ? 32 + firstbithigh(b.y)
       : firstbithigh(b.x);
}

[numthreads(8, 8, 1)]
void main(uint3 pixel : SV_DispatchThreadID, uint3 tile : SV_GroupID) {
  uint tiles_x = 32;
  uint2 range = tileRange[tile.y * tiles_x + tile.x];
  float2 uv = float2(pixel.xy) / float2(256.0, 128.0);
  float4 sum = 0;
  uint lanes = WaveActiveCountBits(true);
  if (HighestLane(WaveActiveBallot(true)) + 1 == lanes) {
    uint lane = WaveGetLaneIndex();
    for (uint base = 0; base < range.y; base += lanes) {
      float4 mine = 0;
      if (base + lane < range.y) mine = lightData[range.x + base + lane];
      uint n = min(lanes, range.y - base);
      for (uint k = 0; k < n; ++k) sum += Shade(WaveReadLaneAt(mine, k), uv);
    }
  } else {
    for (uint k = 0; k < range.y; ++k) sum += Shade(lightData[range.x + k], uv);
  }
  shaded[pixel.y * 256 + pixel.x] = sum;
}
