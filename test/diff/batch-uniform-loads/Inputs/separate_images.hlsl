// HLSL's texture reads in a loop at uniform coordinates: Texture2D.Load
// (OpImageFetch), SampleLevel through a separate SamplerState
// (OpImageSampleExplicitLod of an OpSampledImage), a typed Buffer<float4>,
// and a Load whose loop may break on the data read (the fill reads ahead,
// bounds-checked with OpImageQuerySizeLod). See separate_images.test.
Texture2D<float4> tex : register(t0);
SamplerState samp : register(s1);
Buffer<float4> list : register(t2);
StructuredBuffer<uint4> c : register(t3);
RWStructuredBuffer<float4> o : register(u4);
[numthreads(40, 1, 1)]
void main(uint3 gid : SV_GroupID, uint3 tid : SV_DispatchThreadID, uint lane : SV_GroupIndex) {
  uint4 sc = c[gid.x];
  uint g = tid.x;
  float4 a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (uint i = 0; i < sc.y; ++i) a0 += tex.Load(int3((sc.x + i) % 16, sc.z, 0)) * float(lane);
  for (uint i = 0; i < sc.y; ++i) a1 += tex.SampleLevel(samp, (float2((sc.x + i) % 16, sc.z) + 0.5) / 16.0, 0);
  for (uint i = 0; i < sc.y; ++i) a2 += list[sc.x + i];
  for (int i = int(sc.w); i >= -100; --i) {
    float4 v = tex.Load(int3(i, 0, 0));
    if (v.w > 0.8) break;
    a3 += v;
  }
  o[g * 4] = a0; o[g * 4 + 1] = a1; o[g * 4 + 2] = a2; o[g * 4 + 3] = a3;
}
