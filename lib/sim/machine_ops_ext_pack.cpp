// The simulator's GLSL.std.450 packing and unpacking
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::ExtPack(const Inst& in, const uint32_t* invs, uint32_t n) {
  uint32_t e = in.ops[1];
  const uint32_t* a = in.ops + 2;
  uint32_t res = in.result;
  uint32_t s = I_.types[in.type].slots;
  auto lanes = [&](auto body) {
    for (uint32_t l = 0; l < n; ++l) body(invs[l]);
  };
  using std::abs;
  switch (e) {
    case GLSLstd450PackUnorm4x8:
    case GLSLstd450PackSnorm4x8:
    case GLSLstd450PackUnorm2x16:
    case GLSLstd450PackSnorm2x16:
    case GLSLstd450PackHalf2x16: {
      lanes([&](uint32_t inv) {
        uint32_t r = 0;
        auto comp = [&](uint32_t k) { return BitsToFloat(R(a[0], k, inv)); };
        if (e == GLSLstd450PackUnorm4x8 || e == GLSLstd450PackSnorm4x8) {
          for (uint32_t k = 0; k < 4; ++k) {
            float v = comp(k);
            int32_t q =
                e == GLSLstd450PackUnorm4x8
                    ? static_cast<int32_t>(std::nearbyint(FMinOf(FMaxOf(v, 0.0f), 1.0f) * 255.0f))
                    : static_cast<int32_t>(std::nearbyint(FMinOf(FMaxOf(v, -1.0f), 1.0f) * 127.0f));
            r |= (static_cast<uint32_t>(q) & 0xffu) << (8 * k);
          }
        } else {
          for (uint32_t k = 0; k < 2; ++k) {
            float v = comp(k);
            uint32_t q;
            if (e == GLSLstd450PackHalf2x16) {
              q = FloatToHalf(v);
            } else if (e == GLSLstd450PackUnorm2x16) {
              q = static_cast<uint32_t>(std::nearbyint(FMinOf(FMaxOf(v, 0.0f), 1.0f) * 65535.0f));
            } else {
              q = static_cast<uint32_t>(
                  static_cast<int32_t>(std::nearbyint(FMinOf(FMaxOf(v, -1.0f), 1.0f) * 32767.0f)));
            }
            r |= (q & 0xffffu) << (16 * k);
          }
        }
        R(res, 0, inv) = r;
      });
      return 1;
    }
    case GLSLstd450UnpackUnorm4x8:
    case GLSLstd450UnpackSnorm4x8:
    case GLSLstd450UnpackUnorm2x16:
    case GLSLstd450UnpackSnorm2x16:
    case GLSLstd450UnpackHalf2x16: {
      lanes([&](uint32_t inv) {
        uint32_t v = static_cast<uint32_t>(R(a[0], 0, inv));
        for (uint32_t k = 0; k < s; ++k) {
          float f;
          if (e == GLSLstd450UnpackUnorm4x8) {
            f = static_cast<float>((v >> (8 * k)) & 0xffu) / 255.0f;
          } else if (e == GLSLstd450UnpackSnorm4x8) {
            f = std::max(static_cast<float>(static_cast<int8_t>((v >> (8 * k)) & 0xffu)) / 127.0f,
                         -1.0f);
          } else if (e == GLSLstd450UnpackUnorm2x16) {
            f = static_cast<float>((v >> (16 * k)) & 0xffffu) / 65535.0f;
          } else if (e == GLSLstd450UnpackSnorm2x16) {
            f = std::max(
                static_cast<float>(static_cast<int16_t>((v >> (16 * k)) & 0xffffu)) / 32767.0f,
                -1.0f);
          } else {
            f = HalfToFloat(static_cast<uint16_t>((v >> (16 * k)) & 0xffffu));
          }
          R(res, k, inv) = FloatToBits(f);
        }
      });
      return 1;
    }
    case GLSLstd450PackDouble2x32:
      lanes([&](uint32_t inv) {
        R(res, 0, inv) = (R(a[0], 0, inv) & 0xffffffffu) | (R(a[0], 1, inv) << 32);
      });
      return 1;
    case GLSLstd450UnpackDouble2x32:
      lanes([&](uint32_t inv) {
        uint64_t v = R(a[0], 0, inv);
        R(res, 0, inv) = v & 0xffffffffu;
        R(res, 1, inv) = v >> 32;
      });
      return 1;
    default:
      return 0;
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
