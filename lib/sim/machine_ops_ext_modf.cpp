// The simulator's GLSL.std.450 modf and frexp (pointer and struct forms)
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::ExtModfFrexp(const Inst& in, const uint32_t* invs, uint32_t n) {
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
    case GLSLstd450ModfStruct:
    case GLSLstd450FrexpStruct: {
      const TypeInfo& st = I_.types[in.type];
      uint32_t m0 = st.members[0];
      uint32_t cn = I_.types[m0].slots;
      uint32_t fw = I_.Scalar(m0).width;
      uint32_t ew = I_.Scalar(st.members[1]).width;
      lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < cn; ++k) {
          double x = ToDouble(R(a[0], k, inv), fw);
          if (e == GLSLstd450ModfStruct) {
            double ip;
            double fr = std::modf(x, &ip);
            R(res, k, inv) = FromDouble(fr, fw);
            R(res, cn + k, inv) = FromDouble(ip, fw);
          } else {
            int ex = 0;
            double fr = std::frexp(x, &ex);
            R(res, k, inv) = FromDouble(fr, fw);
            R(res, cn + k, inv) = static_cast<uint64_t>(static_cast<int64_t>(ex)) & WidthMask(ew);
          }
        }
      });
      return 1;
    }
    case GLSLstd450Modf:
    case GLSLstd450Frexp: {
      // The second result goes through the pointer operand.
      uint32_t ptr = a[1];
      uint32_t ptype = I_.value_type[ptr];
      const TypeInfo& ot = I_.Scalar(I_.types[ptype].elem);
      std::vector<uint64_t> second(s);
      for (uint32_t l = 0; l < n; ++l) {
        uint32_t inv = cur_inv_ = invs[l];
        for (uint32_t k = 0; k < s; ++k) {
          double x = ToDouble(R(a[0], k, inv), w);
          if (e == GLSLstd450Modf) {
            double ip;
            double fr = std::modf(x, &ip);
            R(res, k, inv) = FromDouble(fr, w);
            second[k] = FromDouble(ip, w);
          } else {
            int ex = 0;
            double fr = std::frexp(x, &ex);
            R(res, k, inv) = FromDouble(fr, w);
            second[k] = static_cast<uint64_t>(static_cast<int64_t>(ex)) & WidthMask(ot.width);
          }
        }
        if (!Store(ptype, R(ptr, 0, inv), second.data())) return -1;
      }
      return 1;
    }
    default:
      return 0;
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
