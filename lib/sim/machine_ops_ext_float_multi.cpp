// The simulator's GLSL.std.450 float min/max/clamp, mix, step, fma and ldexp
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::ExtFloatMulti(const Inst& in, const uint32_t* invs, uint32_t n) {
  uint32_t e = in.ops[1];
  const uint32_t* a = in.ops + 2;
  uint32_t res = in.result;
  const TypeInfo& rs = I_.Scalar(in.type);
  uint32_t w = rs.width;
  uint32_t s = I_.types[in.type].slots;
  auto lanes = [&](auto body) {
    for (uint32_t l = 0; l < n; ++l) body(invs[l]);
  };
  auto f2 = [&](auto f) {
    lanes([&](uint32_t inv) {
      for (uint32_t k = 0; k < s; ++k) {
        R(res, k, inv) = FloatBinary(R(a[0], k, inv), R(a[1], k, inv), w, f);
      }
    });
  };
  auto f3 = [&](auto f) {
    lanes([&](uint32_t inv) {
      for (uint32_t k = 0; k < s; ++k) {
        R(res, k, inv) = FloatTernary(R(a[0], k, inv), R(a[1], k, inv), R(a[2], k, inv), w, f);
      }
    });
  };
  using std::abs;
  switch (e) {
    case GLSLstd450FMin:
    case GLSLstd450NMin:
      f2([](auto x, auto y) { return FMinOf(x, y); });
      return 1;
    case GLSLstd450FMax:
    case GLSLstd450NMax:
      f2([](auto x, auto y) { return FMaxOf(x, y); });
      return 1;
    case GLSLstd450FClamp:
    case GLSLstd450NClamp:
      f3([](auto x, auto lo, auto hi) { return FMinOf(FMaxOf(x, lo), hi); });
      return 1;
    case GLSLstd450FMix:
      f3([](auto x, auto y, auto t) { return x * (static_cast<decltype(x)>(1) - t) + y * t; });
      return 1;
    case GLSLstd450Step:
      f2([](auto edge, auto x) -> decltype(x) { return x < edge ? 0 : 1; });
      return 1;
    case GLSLstd450SmoothStep:
      f3([](auto e0, auto e1, auto x) {
        using T = decltype(x);
        T t = (x - e0) / (e1 - e0);
        t = FMinOf(FMaxOf(t, static_cast<T>(0)), static_cast<T>(1));
        return t * t * (static_cast<T>(3) - static_cast<T>(2) * t);
      });
      return 1;
    case GLSLstd450Fma:
      f3([](auto x, auto y, auto z) { return std::fma(x, y, z); });
      return 1;
    case GLSLstd450Ldexp:
      lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < s; ++k) {
          int64_t ex = SignExtend(R(a[1], k, inv), ScalarOf(a[1]).width);
          ex = std::max<int64_t>(std::min<int64_t>(ex, 4096), -4096);
          R(res, k, inv) = FloatUnary(R(a[0], k, inv), w,
                                      [&](auto x) { return std::ldexp(x, static_cast<int>(ex)); });
        }
      });
      return 1;
    default:
      return 0;
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
