// The simulator's subgroup moves between lanes: broadcasts, shuffles and
// quad operations, and their KHR forms (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

bool Machine::GroupShuffle(const Inst& in, Subgroup* sg, Frame* f) {
  const uint32_t* a = GroupOperands(in);
  if (a == nullptr) return false;
  uint32_t res = in.result;
  const std::vector<uint32_t>& act = f->active;
  uint32_t base = sg->base;
  uint32_t n = in.type ? I_.types[in.type].slots : 0;
  const TypeInfo& rsc = in.type ? I_.Scalar(in.type) : I_.types[0];
  // Component k of |id| in lane |src| (poison if inactive).
  auto read_lane = [&](uint32_t id, uint32_t k, uint64_t src) -> uint64_t {
    if (!(src < N_ && active_mask_.Get(static_cast<uint32_t>(src)))) return PoisonFor(rsc);
    return R(id, k, base + static_cast<uint32_t>(src));
  };
  std::vector<uint64_t> out(act.size() * n);
  for (size_t i = 0; i < act.size(); ++i) {
    uint32_t lane = act[i];
    uint32_t inv = base + lane;
    uint64_t src;
    switch (in.op) {
      case spv::OpGroupNonUniformBroadcastFirst:
      case spv::OpSubgroupFirstInvocationKHR:
        src = act.front();
        break;
      case spv::OpGroupNonUniformBroadcast:
      case spv::OpGroupNonUniformShuffle:
      case spv::OpSubgroupReadInvocationKHR:
        src = R(a[1], 0, inv) & WidthMask(ScalarOf(a[1]).width);
        break;
      case spv::OpGroupNonUniformShuffleXor:
        src = lane ^ R(a[1], 0, inv);
        break;
      case spv::OpGroupNonUniformShuffleUp: {
        uint64_t d = R(a[1], 0, inv);
        src = d > lane ? ~uint64_t{0} : lane - d;
        break;
      }
      case spv::OpGroupNonUniformShuffleDown:
        src = lane + R(a[1], 0, inv);
        break;
      case spv::OpGroupNonUniformQuadBroadcast:
        src = (lane & ~3u) + (R(a[1], 0, inv) & 3u);
        break;
      default: {  // QuadSwap
        uint64_t dir = R(a[1], 0, inv);
        src = lane ^ (dir == 0 ? 1u : dir == 1 ? 2u : 3u);
        break;
      }
    }
    for (uint32_t k = 0; k < n; ++k) out[i * n + k] = read_lane(a[0], k, src);
  }
  for (size_t i = 0; i < act.size(); ++i) {
    for (uint32_t k = 0; k < n; ++k) R(res, k, base + act[i]) = out[i * n + k];
  }
  return true;
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
