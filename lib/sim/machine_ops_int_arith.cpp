// The simulator's integer arithmetic and shifts
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::PureIntArith(const Inst& in, const uint32_t* invs, uint32_t n) {
  const uint32_t* o = in.ops;
  uint32_t res = in.result;
  const TypeInfo& rs = in.type ? I_.Scalar(in.type) : I_.types[0];
  uint32_t w = rs.width;
  uint64_t mask = WidthMask(w);
  auto for_lanes = [&](auto body) { ForLanes(invs, n, body); };
  auto slots = [&]() { return I_.types[in.type].slots; };
  auto unary = [&](auto f) { MapUnary(in, invs, n, f); };
  auto binary = [&](auto f) { MapBinary(in, invs, n, f); };
  switch (in.op) {
    // Integer arithmetic.
    case spv::OpSNegate:
      unary([&](uint64_t a) { return (0 - a) & mask; });
      return 1;
    case spv::OpIAdd:
      binary([&](uint64_t a, uint64_t b) { return (a + b) & mask; });
      return 1;
    case spv::OpISub:
      binary([&](uint64_t a, uint64_t b) { return (a - b) & mask; });
      return 1;
    case spv::OpIMul:
      binary([&](uint64_t a, uint64_t b) { return (a * b) & mask; });
      return 1;
    case spv::OpUDiv:
      binary([&](uint64_t a, uint64_t b) { return b == 0 ? mask : (a / b) & mask; });
      return 1;
    case spv::OpUMod:
      binary([&](uint64_t a, uint64_t b) { return b == 0 ? mask : (a % b) & mask; });
      return 1;
    case spv::OpSDiv:
    case spv::OpSRem:
    case spv::OpSMod: {
      uint32_t op = in.op;
      binary([&](uint64_t ua, uint64_t ub) -> uint64_t {
        int64_t a = SignExtend(ua, w), b = SignExtend(ub, w);
        if (b == 0) return mask;
        if (b == -1) {  // avoids INT_MIN / -1
          return op == spv::OpSDiv ? (0 - ua) & mask : 0;
        }
        int64_t r;
        if (op == spv::OpSDiv) {
          r = a / b;
        } else {
          r = a % b;
          if (op == spv::OpSMod && r != 0 && ((r < 0) != (b < 0))) r += b;
        }
        return static_cast<uint64_t>(r) & mask;
      });
      return 1;
    }
    case spv::OpShiftLeftLogical:
    case spv::OpShiftRightLogical:
    case spv::OpShiftRightArithmetic: {
      uint32_t op = in.op;
      uint32_t s = slots();
      for_lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < s; ++k) {
          uint64_t a = R(o[0], k, inv);
          uint64_t sh = R(o[1], k, inv) & (w - 1);
          uint64_t r;
          if (op == spv::OpShiftLeftLogical) {
            r = a << sh;
          } else if (op == spv::OpShiftRightLogical) {
            r = a >> sh;
          } else {
            r = static_cast<uint64_t>(SignExtend(a, w) >> sh);
          }
          R(res, k, inv) = r & mask;
        }
      });
      return 1;
    }
    default:
      return 0;
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
