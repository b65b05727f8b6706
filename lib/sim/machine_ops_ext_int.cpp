// The simulator's GLSL.std.450 integer abs, sign, min/max/clamp and bit search
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::ExtInt(const Inst& in, const uint32_t* invs, uint32_t n) {
  uint32_t e = in.ops[1];
  const uint32_t* a = in.ops + 2;
  uint32_t res = in.result;
  const TypeInfo& rs = I_.Scalar(in.type);
  uint32_t w = rs.width;
  uint64_t mask = WidthMask(w);
  uint32_t s = I_.types[in.type].slots;
  auto lanes = [&](auto body) {
    for (uint32_t l = 0; l < n; ++l) body(invs[l]);
  };
  auto i2 = [&](auto f) {
    lanes([&](uint32_t inv) {
      for (uint32_t k = 0; k < s; ++k) R(res, k, inv) = f(R(a[0], k, inv), R(a[1], k, inv)) & mask;
    });
  };
  auto i3 = [&](auto f) {
    lanes([&](uint32_t inv) {
      for (uint32_t k = 0; k < s; ++k) {
        R(res, k, inv) = f(R(a[0], k, inv), R(a[1], k, inv), R(a[2], k, inv)) & mask;
      }
    });
  };
  auto smin = [&](uint64_t x, uint64_t y) { return SignExtend(x, w) < SignExtend(y, w) ? x : y; };
  auto smax = [&](uint64_t x, uint64_t y) { return SignExtend(x, w) > SignExtend(y, w) ? x : y; };
  using std::abs;
  switch (e) {
    case GLSLstd450SAbs:
      lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < s; ++k) {
          int64_t v = SignExtend(R(a[0], k, inv), w);
          R(res, k, inv) = static_cast<uint64_t>(v < 0 ? 0 - static_cast<uint64_t>(v) : v) & mask;
        }
      });
      return 1;
    case GLSLstd450SSign:
      lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < s; ++k) {
          int64_t v = SignExtend(R(a[0], k, inv), w);
          R(res, k, inv) = static_cast<uint64_t>(v > 0 ? 1 : v < 0 ? -1 : 0) & mask;
        }
      });
      return 1;
    case GLSLstd450UMin:
      i2([](uint64_t x, uint64_t y) { return std::min(x, y); });
      return 1;
    case GLSLstd450UMax:
      i2([](uint64_t x, uint64_t y) { return std::max(x, y); });
      return 1;
    case GLSLstd450SMin:
      i2(smin);
      return 1;
    case GLSLstd450SMax:
      i2(smax);
      return 1;
    case GLSLstd450UClamp:
      i3([](uint64_t x, uint64_t lo, uint64_t hi) { return std::min(std::max(x, lo), hi); });
      return 1;
    case GLSLstd450SClamp:
      i3([&](uint64_t x, uint64_t lo, uint64_t hi) { return smin(smax(x, lo), hi); });
      return 1;
    case GLSLstd450FindILsb:
      lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < s; ++k) {
          uint64_t v = R(a[0], k, inv);
          R(res, k, inv) = v == 0 ? mask : static_cast<uint64_t>(__builtin_ctzll(v));
        }
      });
      return 1;
    case GLSLstd450FindUMsb:
    case GLSLstd450FindSMsb: {
      bool sign = e == GLSLstd450FindSMsb;
      uint32_t sw = ScalarOf(a[0]).width;
      lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < s; ++k) {
          uint64_t v = R(a[0], k, inv);
          if (sign && SignExtend(v, sw) < 0) v = ~v & WidthMask(sw);
          R(res, k, inv) = v == 0 ? mask : static_cast<uint64_t>(BitLength(v) - 1);
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
