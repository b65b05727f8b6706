// The simulator's subgroup ballots: OpGroupNonUniformBallot (and its KHR
// form), InverseBallot, BallotBitExtract, BallotBitCount, BallotFindLSB and
// BallotFindMSB (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

LaneMask Machine::BallotOf(uint32_t id, uint32_t inv) {
  const uint32_t N = N_;
  LaneMask m;
  uint32_t n = Slots(id);
  const TypeInfo& sc = ScalarOf(id);
  if (sc.width == 64) {
    for (uint32_t k = 0; k < n && k < 2; ++k) m.w[k] = R(id, k, inv);
  } else {
    for (uint32_t k = 0; k < n && k < 4; ++k) {
      m.w[k / 2] |= (R(id, k, inv) & 0xffffffffu) << (32 * (k % 2));
    }
  }
  if (N < 128) {
    if (N <= 64) {
      m.w[1] = 0;
      if (N < 64) m.w[0] &= (uint64_t{1} << N) - 1;
    } else {
      m.w[1] &= (uint64_t{1} << (N - 64)) - 1;
    }
  }
  return m;
}

void Machine::WriteBallot(const Inst& in, const LaneMask& m, uint32_t inv) {
  uint32_t res = in.result;
  uint32_t rslots = in.type ? I_.types[in.type].slots : 0;
  const TypeInfo& rsc = in.type ? I_.Scalar(in.type) : I_.types[0];
  if (rsc.width == 64) {
    for (uint32_t k = 0; k < rslots; ++k) R(res, k, inv) = k < 2 ? m.w[k] : 0;
  } else {
    for (uint32_t k = 0; k < rslots; ++k)
      R(res, k, inv) = k < 4 ? (m.w[k / 2] >> (32 * (k % 2))) & 0xffffffffu : 0;
  }
}

bool Machine::GroupBallot(const Inst& in, Subgroup* sg, Frame* f) {
  const uint32_t* a = GroupOperands(in);
  if (a == nullptr) return false;
  uint32_t res = in.result;
  const uint32_t N = N_;
  const std::vector<uint32_t>& act = f->active;
  uint32_t base = sg->base;
  const TypeInfo& rsc = in.type ? I_.Scalar(in.type) : I_.types[0];
  switch (in.op) {
    case spv::OpGroupNonUniformBallot:
    case spv::OpSubgroupBallotKHR: {
      LaneMask m;
      for (uint32_t lane : act) {
        if (R(a[0], 0, base + lane) != 0) m.Set(lane);
      }
      for (uint32_t lane : act) WriteBallot(in, m, base + lane);
      return true;
    }
    case spv::OpGroupNonUniformInverseBallot:
      for (uint32_t lane : act) {
        LaneMask m = BallotOf(a[0], base + lane);
        R(res, 0, base + lane) = m.Get(lane);
      }
      return true;
    case spv::OpGroupNonUniformBallotBitExtract:
      for (uint32_t lane : act) {
        uint32_t inv = base + lane;
        LaneMask m = BallotOf(a[0], inv);
        uint64_t idx = R(a[1], 0, inv);
        R(res, 0, inv) = idx < N ? m.Get(static_cast<uint32_t>(idx)) : 0;
      }
      return true;
    case spv::OpGroupNonUniformBallotBitCount: {
      uint32_t gop = a[0];
      for (uint32_t lane : act) {
        uint32_t inv = base + lane;
        LaneMask m = BallotOf(a[1], inv);
        uint32_t limit = gop == spv::GroupOperationReduce          ? N
                         : gop == spv::GroupOperationInclusiveScan ? lane + 1
                                                                   : lane;
        uint64_t cnt = 0;
        for (uint32_t b = 0; b < limit; ++b) cnt += m.Get(b);
        R(res, 0, inv) = cnt & WidthMask(rsc.width);
      }
      if (gop > spv::GroupOperationExclusiveScan) {
        return Fail("OpGroupNonUniformBallotBitCount: unsupported group operation");
      }
      return true;
    }
    default: {  // OpGroupNonUniformBallotFindLSB, OpGroupNonUniformBallotFindMSB
      bool lsb = in.op == spv::OpGroupNonUniformBallotFindLSB;
      for (uint32_t lane : act) {
        uint32_t inv = base + lane;
        LaneMask m = BallotOf(a[0], inv);
        uint64_t r = 0xffffffffu;
        for (uint32_t b = 0; b < N; ++b) {
          uint32_t bit = lsb ? b : N - 1 - b;
          if (m.Get(bit)) {
            r = bit;
            break;
          }
        }
        R(res, 0, inv) = r & WidthMask(rsc.width);
      }
      return true;
    }
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
