// The simulator's GLSL.std.450 geometric functions
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::ExtGeometric(const Inst& in, const uint32_t* invs, uint32_t n) {
  uint32_t e = in.ops[1];
  const uint32_t* a = in.ops + 2;
  uint32_t res = in.result;
  const TypeInfo& rs = I_.Scalar(in.type);
  uint32_t w = rs.width;
  uint32_t s = I_.types[in.type].slots;
  auto lanes = [&](auto body) {
    for (uint32_t l = 0; l < n; ++l) body(invs[l]);
  };
  using std::abs;
  switch (e) {
    case GLSLstd450Length:
    case GLSLstd450Distance:
    case GLSLstd450Normalize:
    case GLSLstd450Cross:
    case GLSLstd450Reflect:
    case GLSLstd450Refract:
    case GLSLstd450FaceForward: {
      uint32_t cnt = Slots(a[0]);
      lanes([&](uint32_t inv) {
        auto dot = [&](auto x, auto y, uint32_t c) {
          using T = std::remove_cv_t<std::remove_reference_t<decltype(x[0])>>;
          T acc = 0;
          for (uint32_t k = 0; k < c; ++k) acc = k == 0 ? x[k] * y[k] : acc + x[k] * y[k];
          return acc;
        };
        auto run = [&](auto zero) {
          using T = decltype(zero);
          T x[4] = {0, 0, 0, 0}, y[4] = {0, 0, 0, 0}, out[4] = {0, 0, 0, 0};
          for (uint32_t k = 0; k < cnt && k < 4; ++k) {
            x[k] = static_cast<T>(ToDouble(R(a[0], k, inv), w));
            if (e != GLSLstd450Length && e != GLSLstd450Normalize) {
              y[k] = static_cast<T>(ToDouble(R(a[1], k, inv), w));
            }
          }
          if (e == GLSLstd450Length) {
            out[0] = std::sqrt(dot(x, x, cnt));
          } else if (e == GLSLstd450Distance) {
            T d[4];
            for (uint32_t k = 0; k < 4; ++k) d[k] = x[k] - y[k];
            out[0] = std::sqrt(dot(d, d, cnt));
          } else if (e == GLSLstd450Normalize) {
            T len = std::sqrt(dot(x, x, cnt));
            for (uint32_t k = 0; k < cnt; ++k) out[k] = x[k] / len;
          } else if (e == GLSLstd450Cross) {
            out[0] = x[1] * y[2] - y[1] * x[2];
            out[1] = x[2] * y[0] - y[2] * x[0];
            out[2] = x[0] * y[1] - y[0] * x[1];
          } else if (e == GLSLstd450Reflect) {
            T d = dot(y, x, cnt);
            for (uint32_t k = 0; k < cnt; ++k) out[k] = x[k] - static_cast<T>(2) * d * y[k];
          } else if (e == GLSLstd450FaceForward) {
            T z[4] = {0, 0, 0, 0};
            for (uint32_t k = 0; k < cnt && k < 4; ++k) {
              z[k] = static_cast<T>(ToDouble(R(a[2], k, inv), w));
            }
            T d = dot(z, y, cnt);
            for (uint32_t k = 0; k < cnt; ++k) out[k] = d < 0 ? x[k] : -x[k];
          } else {  // Refract(I, N, eta)
            T eta = static_cast<T>(ToDouble(R(a[2], 0, inv), ScalarOf(a[2]).width));
            T d = dot(y, x, cnt);
            T kk = static_cast<T>(1) - eta * eta * (static_cast<T>(1) - d * d);
            for (uint32_t k = 0; k < cnt; ++k) {
              out[k] = kk < 0 ? static_cast<T>(0) : eta * x[k] - (eta * d + std::sqrt(kk)) * y[k];
            }
          }
          for (uint32_t k = 0; k < s && k < 4; ++k) R(res, k, inv) = FromDouble(out[k], w);
        };
        if (w == 64) {
          run(0.0);
        } else {
          run(0.0f);
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
