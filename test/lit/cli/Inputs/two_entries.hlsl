// A compute and a pixel entry point in one file.
RWStructuredBuffer<uint> data : register(u0);
[numthreads(64, 1, 1)]
void CSMain(uint3 tid : SV_DispatchThreadID) { data[tid.x] = tid.x; }
float4 PSMain(float4 pos : SV_Position) : SV_Target { return pos * 0.5; }
