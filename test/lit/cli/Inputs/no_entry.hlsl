RWStructuredBuffer<uint> data : register(u0);
[numthreads(64, 1, 1)]
void CSMain(uint3 tid : SV_DispatchThreadID) { data[tid.x] = tid.x; }
