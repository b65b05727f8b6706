// A pixel shader: nothing in a .hlsl file says so.
float4 PSMain(float4 pos : SV_Position) : SV_Target { return pos * 0.5; }
