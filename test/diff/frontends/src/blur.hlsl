// A 3x3 box blur between two storage images, 8x8 workgroups.
[[vk::binding(0, 0)]] RWTexture2D<float4> src;
[[vk::binding(1, 0)]] RWTexture2D<float4> dst;

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 lid : SV_GroupThreadID, uint3 gid : SV_GroupID) {
  int2 p = int2(id.xy);
  uint w, h;
  src.GetDimensions(w, h);
  int2 size = int2(w, h);
  float4 sum = 0;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      sum += src[clamp(p + int2(dx, dy), int2(0, 0), size - 1)];
    }
  }
  float4 tag = float4(lid.xy, gid.xy) / 255.0;
  dst[p] = sum / 9.0 + tag;
}
