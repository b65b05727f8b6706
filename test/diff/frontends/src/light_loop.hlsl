// Tiled lighting (seed 000) in HLSL, as DXC users write it: the light list
// of the workgroup's tile, a per-lane `continue` for far lights.
struct Light { float4 pos; float4 color; float4 params; };
[[vk::binding(0, 0)]] StructuredBuffer<Light> lights;
[[vk::binding(1, 0)]] StructuredBuffer<uint2> tiles;
[[vk::binding(2, 0)]] RWStructuredBuffer<float4> result;

[numthreads(8, 8, 1)]
void main(uint3 gid : SV_GroupID, uint3 lid : SV_GroupThreadID, uint3 id : SV_DispatchThreadID) {
  uint2 sc = tiles[gid.x];
  float3 p = float3(lid.xy, 0.5) * 0.125;
  float4 acc = 0;
  for (uint i = 0; i < sc.y; ++i) {
    Light L = lights[sc.x + i];
    float d = distance(p, L.pos.xyz);
    if (d > L.params.x) continue;
    acc += L.color * (1.0 - d / L.params.x);
  }
  result[id.x + id.y * 96] = acc;
}
