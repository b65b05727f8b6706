// lit feature probe (test/diff/lit.cfg.py): waverun binds separate images
// and samplers (HLSL Texture2D + SamplerState).
Texture2D<float4> t : register(t0);
SamplerState s : register(s1);
RWStructuredBuffer<float4> o : register(u2);
[numthreads(4, 1, 1)]
void main(uint lane : SV_GroupIndex) {
  o[lane] = t.Load(int3(lane, 0, 0)) + t.SampleLevel(s, float2(0.5, 0.5), 0);
}
