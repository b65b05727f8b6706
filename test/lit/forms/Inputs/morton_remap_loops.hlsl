// morton_remap_loops.comp in HLSL.
// FORMS: for while count_down
Texture2D<float4> src : register(t0);
RWStructuredBuffer<float4> data : register(u1);
StructuredBuffer<float4> bias : register(t2);

[numthreads(8, 8, 1)]
void main(uint3 dtid : SV_DispatchThreadID) {
  int2 p = int2(dtid.xy);
  uint row = dtid.y * 64u + dtid.x;
  float4 sum = bias[row] + bias[row + 4096u];
#if defined(FORM_for)
  [loop] for (int i = 0; i < 3; ++i) sum += src.Load(int3(p + int2(i, 0), 0));
#elif defined(FORM_while)
  int i = 0;
  [loop] while (i < 3) { sum += src.Load(int3(p + int2(i, 0), 0)); i++; }
#elif defined(FORM_count_down)
  [loop] for (int i = 2; i >= 0; --i) sum += src.Load(int3(p + int2(i, 0), 0));
#endif
  data[row] = sum;
  data[row + 4096u] = sum * 2.0;
}
