// Stream compaction through a counter (InterlockedAdd's original value
// indexes the output), workgroups of 100: partial subgroups.
[[vk::binding(0, 0)]] StructuredBuffer<uint> values;
[[vk::binding(1, 0)]] RWStructuredBuffer<uint> count;
[[vk::binding(2, 0)]] RWStructuredBuffer<uint> kept;

[numthreads(100, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint v = values[id.x];
  if ((v & 3) == 0) {
    uint slot;
    InterlockedAdd(count[0], 1, slot);
    kept[slot] = v;
  }
}
