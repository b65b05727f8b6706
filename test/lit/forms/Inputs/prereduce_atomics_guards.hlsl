// prereduce_atomics_guards.comp in HLSL (InterlockedAdd with the original
// value).
// FORMS: if early_return nested
StructuredBuffer<float> v : register(t0);
RWByteAddressBuffer count : register(u1);
RWStructuredBuffer<uint> slots : register(u2);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID) {
  uint i = dtid.x;
  float x = v[i];
#if defined(FORM_if)
  if (x > 0.5 && x < 2.0) {
#elif defined(FORM_early_return)
  if (x <= 0.5 || x >= 2.0) return;
  {
#elif defined(FORM_nested)
  if (x > 0.5) if (x < 2.0) {
#endif
    uint slot;
    count.InterlockedAdd(0, 1u, slot);
    slots[slot] = i;
  }
}
