// The simulator's float arithmetic, scalar and dot products
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::PureFloat(const Inst& in, const uint32_t* invs, uint32_t n) {
  const uint32_t* o = in.ops;
  uint32_t res = in.result;
  const TypeInfo& rs = in.type ? I_.Scalar(in.type) : I_.types[0];
  uint32_t w = rs.width;
  auto for_lanes = [&](auto body) { ForLanes(invs, n, body); };
  auto slots = [&]() { return I_.types[in.type].slots; };
  auto unary = [&](auto f) { MapUnary(in, invs, n, f); };
  auto binary = [&](auto f) { MapBinary(in, invs, n, f); };
  switch (in.op) {
    // Float arithmetic.
    case spv::OpFNegate:
      unary([&](uint64_t a) { return FloatUnary(a, w, [](auto x) { return -x; }); });
      return 1;
    case spv::OpFAdd:
      binary([&](uint64_t a, uint64_t b) {
        return FloatBinary(a, b, w, [](auto x, auto y) { return x + y; });
      });
      return 1;
    case spv::OpFSub:
      binary([&](uint64_t a, uint64_t b) {
        return FloatBinary(a, b, w, [](auto x, auto y) { return x - y; });
      });
      return 1;
    case spv::OpFMul:
      binary([&](uint64_t a, uint64_t b) {
        return FloatBinary(a, b, w, [](auto x, auto y) { return x * y; });
      });
      return 1;
    case spv::OpFDiv:
      binary([&](uint64_t a, uint64_t b) {
        return FloatBinary(a, b, w, [](auto x, auto y) { return x / y; });
      });
      return 1;
    case spv::OpFRem:
      binary([&](uint64_t a, uint64_t b) {
        return FloatBinary(a, b, w, [](auto x, auto y) { return std::fmod(x, y); });
      });
      return 1;
    case spv::OpFMod:
      binary([&](uint64_t a, uint64_t b) {
        return FloatBinary(a, b, w, [](auto x, auto y) { return x - y * std::floor(x / y); });
      });
      return 1;
    case spv::OpVectorTimesScalar:
    case spv::OpMatrixTimesScalar: {
      uint32_t s = slots();
      for_lanes([&](uint32_t inv) {
        uint64_t b = R(o[1], 0, inv);
        for (uint32_t k = 0; k < s; ++k) {
          R(res, k, inv) = FloatBinary(R(o[0], k, inv), b, w, [](auto x, auto y) { return x * y; });
        }
      });
      return 1;
    }
    case spv::OpDot: {
      uint32_t cnt = Slots(o[0]);
      for_lanes([&](uint32_t inv) {
        uint64_t acc = 0;
        for (uint32_t k = 0; k < cnt; ++k) {
          uint64_t p = FloatBinary(R(o[0], k, inv), R(o[1], k, inv), w,
                                   [](auto x, auto y) { return x * y; });
          acc = k == 0 ? p : FloatBinary(acc, p, w, [](auto x, auto y) { return x + y; });
        }
        R(res, 0, inv) = acc;
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
