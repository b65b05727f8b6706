// The simulator's bitwise operations, bit fields, carries and extended products
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::PureIntBits(const Inst& in, const uint32_t* invs, uint32_t n) {
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
    case spv::OpBitwiseAnd:
      binary([](uint64_t a, uint64_t b) { return a & b; });
      return 1;
    case spv::OpBitwiseOr:
      binary([](uint64_t a, uint64_t b) { return a | b; });
      return 1;
    case spv::OpBitwiseXor:
      binary([](uint64_t a, uint64_t b) { return a ^ b; });
      return 1;
    case spv::OpNot:
      unary([&](uint64_t a) { return ~a & mask; });
      return 1;
    case spv::OpBitCount: {
      uint32_t s = slots();
      for_lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < s; ++k) {
          R(res, k, inv) = static_cast<uint64_t>(__builtin_popcountll(R(o[0], k, inv))) & mask;
        }
      });
      return 1;
    }
    case spv::OpBitReverse:
      unary([&](uint64_t a) {
        uint64_t r = 0;
        for (uint32_t b = 0; b < w; ++b) r |= ((a >> b) & 1) << (w - 1 - b);
        return r;
      });
      return 1;
    case spv::OpBitFieldInsert: {
      uint32_t s = slots();
      for_lanes([&](uint32_t inv) {
        uint64_t off = R(o[2], 0, inv), cnt = R(o[3], 0, inv);
        for (uint32_t k = 0; k < s; ++k) {
          uint64_t base = R(o[0], k, inv), ins = R(o[1], k, inv);
          // off > w first: off + cnt may wrap for huge operands.
          if (cnt == 0 || off > w || cnt > w - off) {
            R(res, k, inv) = cnt == 0 ? base : I_.poison & mask;
            continue;
          }
          uint64_t fm = WidthMask(static_cast<uint32_t>(cnt)) << off;
          R(res, k, inv) = ((base & ~fm) | ((ins << off) & fm)) & mask;
        }
      });
      return 1;
    }
    case spv::OpBitFieldSExtract:
    case spv::OpBitFieldUExtract: {
      bool sign = in.op == spv::OpBitFieldSExtract;
      uint32_t s = slots();
      for_lanes([&](uint32_t inv) {
        uint64_t off = R(o[1], 0, inv), cnt = R(o[2], 0, inv);
        for (uint32_t k = 0; k < s; ++k) {
          uint64_t base = R(o[0], k, inv);
          if (cnt == 0) {
            R(res, k, inv) = 0;
            continue;
          }
          if (off > w || cnt > w - off) {
            R(res, k, inv) = I_.poison & mask;
            continue;
          }
          uint64_t v = (base >> off) & WidthMask(static_cast<uint32_t>(cnt));
          if (sign) v = static_cast<uint64_t>(SignExtend(v, static_cast<uint32_t>(cnt)));
          R(res, k, inv) = v & mask;
        }
      });
      return 1;
    }
    case spv::OpIAddCarry:
    case spv::OpISubBorrow:
    case spv::OpUMulExtended:
    case spv::OpSMulExtended: {
      const TypeInfo& st = I_.types[in.type];
      uint32_t m0 = st.members[0];
      uint32_t cw = I_.Scalar(m0).width;
      uint32_t cn = I_.types[m0].slots;
      uint64_t cm = WidthMask(cw);
      uint32_t op = in.op;
      for_lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < cn; ++k) {
          uint64_t a = R(o[0], k, inv), b = R(o[1], k, inv), lo, hi;
          if (op == spv::OpIAddCarry) {
            lo = (a + b) & cm;
            hi = cw == 64 ? (lo < a) : ((a + b) >> cw) & 1;
          } else if (op == spv::OpISubBorrow) {
            lo = (a - b) & cm;
            hi = a < b ? 1 : 0;
          } else if (op == spv::OpUMulExtended) {
            unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
            lo = static_cast<uint64_t>(p) & cm;
            hi = static_cast<uint64_t>(p >> cw) & cm;
          } else {
            __int128 p = static_cast<__int128>(SignExtend(a, cw)) * SignExtend(b, cw);
            lo = static_cast<uint64_t>(p) & cm;
            hi = static_cast<uint64_t>(p >> cw) & cm;
          }
          R(res, k, inv) = lo;
          R(res, cn + k, inv) = hi;
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
