// The benchmark's light loop (test/bench/kernels/light_loop/naive.comp) as
// HLSL writes it: the same kernel through glslang's HLSL front end, which
// copies SV_DispatchThreadID before the loop (GLSL reads
// gl_GlobalInvocationID again after it) and loads the Light struct whole.
// Used by light_loop_front_ends.test: the register estimate is the GLSL one.
struct Light {
  float4 pos_inv_r2;
  float4 color;
  float4 spot;
};
StructuredBuffer<Light> lights : register(t0);
StructuredBuffer<uint2> start_count : register(t1);
RWStructuredBuffer<float4> color : register(u2);

float4 shade(Light L, float3 p) {
  float3 d = L.pos_inv_r2.xyz - p;
  float d2 = dot(d, d);
  float atten = max(0.0, 1.0 - d2 * L.pos_inv_r2.w);
  float cone = max(0.0, dot(d * rsqrt(d2 + 1e-4), L.spot.xyz) - L.spot.w);
  return L.color * (atten * cone);
}

[numthreads(8, 8, 1)]
void main(uint3 gid : SV_GroupID, uint3 id : SV_DispatchThreadID) {
  uint2 groups = uint2(32, 16);
  uint tile = gid.y * groups.x + gid.x;
  uint2 sc = start_count[tile];
  uint2 size = groups * 8u;
  float3 p = float3(float2(id.xy) / float2(size), 0.25);
  float4 acc = 0;
  for (uint i = 0u; i < sc.y; ++i) {
    acc += shade(lights[sc.x + i], p);
  }
  color[id.y * size.x + id.x] = acc;
}
