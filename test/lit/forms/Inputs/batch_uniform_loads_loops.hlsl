// batch_uniform_loads_loops.comp in HLSL.
// FORMS: for while count_down
struct Light { float4 pos; float4 color; };
StructuredBuffer<Light> lights : register(t0);
RWStructuredBuffer<float4> result : register(u1);
cbuffer P : register(b2) { uint count; };

float4 shade(Light l, float3 p) {
  float3 d = l.pos.xyz - p;
  return l.color / (1.0 + dot(d, d));
}

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID) {
  float3 p = float3(float(dtid.x), 0.0, 1.0);
  float4 sum = 0.0;
#if defined(FORM_for)
  [loop] for (uint k = 0; k < count; ++k) sum += shade(lights[k], p);
#elif defined(FORM_while)
  uint k = 0;
  [loop] while (k < count) { sum += shade(lights[k], p); k++; }
#elif defined(FORM_count_down)
  [loop] for (int k = int(count) - 1; k >= 0; --k) sum += shade(lights[k], p);
#endif
  result[dtid.x] = sum;
}
