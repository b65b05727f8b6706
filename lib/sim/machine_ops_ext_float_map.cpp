// The simulator's GLSL.std.450 rounding, trigonometry, exponentials and roots
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::ExtFloatMap(const Inst& in, const uint32_t* invs, uint32_t n) {
  uint32_t e = in.ops[1];
  const uint32_t* a = in.ops + 2;
  uint32_t res = in.result;
  const TypeInfo& rs = I_.Scalar(in.type);
  uint32_t w = rs.width;
  uint32_t s = I_.types[in.type].slots;
  auto lanes = [&](auto body) {
    for (uint32_t l = 0; l < n; ++l) body(invs[l]);
  };
  auto f1 = [&](auto f) {
    lanes([&](uint32_t inv) {
      for (uint32_t k = 0; k < s; ++k) R(res, k, inv) = FloatUnary(R(a[0], k, inv), w, f);
    });
  };
  auto f2 = [&](auto f) {
    lanes([&](uint32_t inv) {
      for (uint32_t k = 0; k < s; ++k) {
        R(res, k, inv) = FloatBinary(R(a[0], k, inv), R(a[1], k, inv), w, f);
      }
    });
  };
  using std::abs;
  switch (e) {
    case GLSLstd450Round:
      f1([](auto x) { return std::round(x); });
      return 1;
    case GLSLstd450RoundEven:
      f1([](auto x) { return std::nearbyint(x); });
      return 1;
    case GLSLstd450Trunc:
      f1([](auto x) { return std::trunc(x); });
      return 1;
    case GLSLstd450FAbs:
      f1([](auto x) { return std::fabs(x); });
      return 1;
    case GLSLstd450FSign:
      f1([](auto x) -> decltype(x) { return x > 0 ? 1 : x < 0 ? -1 : x; });
      return 1;
    case GLSLstd450Floor:
      f1([](auto x) { return std::floor(x); });
      return 1;
    case GLSLstd450Ceil:
      f1([](auto x) { return std::ceil(x); });
      return 1;
    case GLSLstd450Fract:
      f1([](auto x) { return x - std::floor(x); });
      return 1;
    case GLSLstd450Radians:
      f1([](auto x) { return x * static_cast<decltype(x)>(0.017453292519943295); });
      return 1;
    case GLSLstd450Degrees:
      f1([](auto x) { return x * static_cast<decltype(x)>(57.29577951308232); });
      return 1;
    case GLSLstd450Sin:
      f1([](auto x) { return std::sin(x); });
      return 1;
    case GLSLstd450Cos:
      f1([](auto x) { return std::cos(x); });
      return 1;
    case GLSLstd450Tan:
      f1([](auto x) { return std::tan(x); });
      return 1;
    case GLSLstd450Asin:
      f1([](auto x) { return std::asin(x); });
      return 1;
    case GLSLstd450Acos:
      f1([](auto x) { return std::acos(x); });
      return 1;
    case GLSLstd450Atan:
      f1([](auto x) { return std::atan(x); });
      return 1;
    case GLSLstd450Sinh:
      f1([](auto x) { return std::sinh(x); });
      return 1;
    case GLSLstd450Cosh:
      f1([](auto x) { return std::cosh(x); });
      return 1;
    case GLSLstd450Tanh:
      f1([](auto x) { return std::tanh(x); });
      return 1;
    case GLSLstd450Asinh:
      f1([](auto x) { return std::asinh(x); });
      return 1;
    case GLSLstd450Acosh:
      f1([](auto x) { return std::acosh(x); });
      return 1;
    case GLSLstd450Atanh:
      f1([](auto x) { return std::atanh(x); });
      return 1;
    case GLSLstd450Atan2:
      f2([](auto y, auto x) { return std::atan2(y, x); });
      return 1;
    case GLSLstd450Pow:
      f2([](auto x, auto y) { return std::pow(x, y); });
      return 1;
    case GLSLstd450Exp:
      f1([](auto x) { return std::exp(x); });
      return 1;
    case GLSLstd450Log:
      f1([](auto x) { return std::log(x); });
      return 1;
    case GLSLstd450Exp2:
      f1([](auto x) { return std::exp2(x); });
      return 1;
    case GLSLstd450Log2:
      f1([](auto x) { return std::log2(x); });
      return 1;
    case GLSLstd450Sqrt:
      f1([](auto x) { return std::sqrt(x); });
      return 1;
    case GLSLstd450InverseSqrt:
      f1([](auto x) { return static_cast<decltype(x)>(1) / std::sqrt(x); });
      return 1;
    default:
      return 0;
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
