// A pixel shader: its stage comes from WAVEOPT_STAGE.
float4 PSMain(float4 pos : SV_Position) : SV_Target { return pos * 0.25; }
