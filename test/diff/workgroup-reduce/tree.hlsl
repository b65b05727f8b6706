// The tree of tree.comp in HLSL (glslang's HLSL front end): groupshared
// memory, GroupMemoryBarrierWithGroupSync, a loop over halving strides, and
// a min (UNROLLED: the steps written out).
#ifndef WG
#define WG 128
#endif
StructuredBuffer<uint> data : register(t0, space0);
RWStructuredBuffer<uint> result : register(u1, space0);
groupshared uint tmp[WG];

[numthreads(WG, 1, 1)]
void main(uint3 gid : SV_GroupID, uint tid : SV_GroupIndex) {
  uint g = gid.x * WG + tid;
  tmp[tid] = data[g] % 100000u;
  GroupMemoryBarrierWithGroupSync();
#ifdef UNROLLED
  [unroll] for (uint s = WG / 2; s > 0; s >>= 1) {
#else
  [loop] for (uint s = WG / 2; s > 0; s >>= 1) {
#endif
    if (tid < s) tmp[tid] = min(tmp[tid], tmp[tid + s]);
    GroupMemoryBarrierWithGroupSync();
  }
  result[g] = tmp[0] + tid;
}
