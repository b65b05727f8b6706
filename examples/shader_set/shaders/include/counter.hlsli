RWStructuredBuffer<uint> counter : register(u0);
RWStructuredBuffer<uint> slots : register(u1);
