// The tiled light loop in HLSL: a StructuredBuffer of lights walked by every
// invocation of an 8x8 tile.
struct PointLight { float4 position_radius; float4 color; };
StructuredBuffer<PointLight> lights : register(t0);
StructuredBuffer<uint2> ranges : register(t1);
StructuredBuffer<float4> positions : register(t2);
RWStructuredBuffer<float4> radiance : register(u3);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID) {
  const uint index = id.y * 64 + id.x;
  const float3 p = positions[index].xyz;
  const uint2 range = ranges[group.y * 8 + group.x];
  float3 sum = 0;
  for (uint i = 0; i < range.y; ++i) {
    const PointLight l = lights[range.x + i];
    const float3 d = l.position_radius.xyz - p;
    sum += l.color.rgb * max(0.0, 1.0 - dot(d, d) / (l.position_radius.w * l.position_radius.w));
  }
  radiance[index] = float4(sum, 1.0);
}
