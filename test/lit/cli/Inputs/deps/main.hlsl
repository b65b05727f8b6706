// HLSL with an include: the same depfile.
#include "nested/hlsl_inner.hlsli"
RWStructuredBuffer<uint> counter : register(u0);
[numthreads(64, 1, 1)]
void main() { uint old; InterlockedAdd(counter[0], One(), old); }
