// HLSL with an include of its own: a counter every thread bumps.
#include "include/counter.hlsli"

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint slot;
  InterlockedAdd(counter[0], 1u, slot);
  slots[id.x] = slot;
}
