// fold_at_use.comp's two trees in HLSL (glslang's HLSL front end): a min
// and a max over groupshared arrays, the results used by the group's first
// thread only, tested as SV_GroupThreadID == 0 (an && of two comparisons)
// or SV_GroupIndex == 0 (INDEX).
StructuredBuffer<uint> data : register(t0, space0);
RWStructuredBuffer<uint> result : register(u1, space0);
groupshared uint smin[256];
groupshared uint smax[256];

[numthreads(16, 16, 1)]
void main(uint3 gid : SV_GroupID, uint3 lid : SV_GroupThreadID,
          uint tid : SV_GroupIndex) {
  uint g = gid.x * 256 + tid;
  uint v = data[g] % 100000u;
  smin[tid] = v;
  GroupMemoryBarrierWithGroupSync();
  [loop] for (uint s = 128; s > 0; s >>= 1) {
    if (tid < s) smin[tid] = min(smin[tid], smin[tid + s]);
    GroupMemoryBarrierWithGroupSync();
  }
  uint lo = smin[0];
  smax[tid] = v;
  GroupMemoryBarrierWithGroupSync();
  [loop] for (uint t = 128; t > 0; t >>= 1) {
    if (tid < t) smax[tid] = max(smax[tid], smax[tid + t]);
    GroupMemoryBarrierWithGroupSync();
  }
#ifdef INDEX
  if (tid == 0) {
#else
  if (lid.x == 0 && lid.y == 0) {
#endif
    result[g] = lo * 3u + smax[0] * 5u + v;
  }
}
