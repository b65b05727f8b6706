// The arg-max pair tree of argmax.comp in HLSL (glslang's HLSL front end):
// groupshared value and index arrays, SV_GroupIndex, ties to the lowest
// index; keys with few values so that ties happen.
#define WG 128
StructuredBuffer<uint> data : register(t0, space0);
RWStructuredBuffer<uint> result : register(u1, space0);
groupshared int v[WG];
groupshared uint ix[WG];

[numthreads(WG, 1, 1)]
void main(uint3 gid : SV_GroupID, uint tid : SV_GroupIndex) {
  uint g = gid.x * WG + tid;
  uint d = data[g];
  v[tid] = int(d % 5u) - 2;
  ix[tid] = (d >> 8) % 13u + tid % 3u;
  GroupMemoryBarrierWithGroupSync();
  [loop] for (uint s = WG / 2; s > 0; s >>= 1) {
    if (tid < s && (v[tid + s] > v[tid] ||
                    (v[tid + s] == v[tid] && ix[tid + s] < ix[tid]))) {
      v[tid] = v[tid + s];
      ix[tid] = ix[tid + s];
    }
    GroupMemoryBarrierWithGroupSync();
  }
  result[2 * g] = uint(v[0]) + tid;
  result[2 * g + 1] = ix[0];
}
