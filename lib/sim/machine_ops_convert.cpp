// The simulator's conversions and bitcasts
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::PureConvert(const Inst& in, const uint32_t* invs, uint32_t n) {
  const uint32_t* o = in.ops;
  uint32_t res = in.result;
  const TypeInfo& rs = in.type ? I_.Scalar(in.type) : I_.types[0];
  uint32_t w = rs.width;
  uint64_t mask = WidthMask(w);
  auto for_lanes = [&](auto body) { ForLanes(invs, n, body); };
  auto slots = [&]() { return I_.types[in.type].slots; };
  auto unary = [&](auto f) { MapUnary(in, invs, n, f); };
  switch (in.op) {
    // Conversions.
    case spv::OpConvertFToU:
    case spv::OpConvertFToS: {
      uint32_t sw = ScalarOf(o[0]).width;
      bool sign = in.op == spv::OpConvertFToS;
      unary([&](uint64_t a) {
        double d = ToDouble(a, sw);
        return sign ? FloatToSigned(d, w) : FloatToUnsigned(d, w);
      });
      return 1;
    }
    case spv::OpConvertSToF:
    case spv::OpConvertUToF: {
      uint32_t sw = ScalarOf(o[0]).width;
      bool sign = in.op == spv::OpConvertSToF;
      unary([&](uint64_t a) -> uint64_t {
        if (w == 64) {
          return DoubleToBits(sign ? static_cast<double>(SignExtend(a, sw))
                                   : static_cast<double>(a));
        }
        float f = sign ? static_cast<float>(SignExtend(a, sw)) : static_cast<float>(a);
        return w == 16 ? FloatToHalf(f) : FloatToBits(f);
      });
      return 1;
    }
    case spv::OpUConvert:
      unary([&](uint64_t a) { return a & mask; });
      return 1;
    case spv::OpSConvert: {
      uint32_t sw = ScalarOf(o[0]).width;
      unary([&](uint64_t a) { return static_cast<uint64_t>(SignExtend(a, sw)) & mask; });
      return 1;
    }
    case spv::OpFConvert: {
      uint32_t sw = ScalarOf(o[0]).width;
      unary([&](uint64_t a) { return FromDouble(ToDouble(a, sw), w); });
      return 1;
    }
    case spv::OpQuantizeToF16:
      unary([&](uint64_t a) { return FloatToBits(HalfToFloat(FloatToHalf(BitsToFloat(a)))); });
      return 1;
    case spv::OpConvertUToPtr:
      for_lanes([&](uint32_t inv) { R(res, 0, inv) = RawToPtr(R(o[0], 0, inv)); });
      return 1;
    case spv::OpConvertPtrToU:
      for_lanes([&](uint32_t inv) { R(res, 0, inv) = PtrToRaw(R(o[0], 0, inv)) & mask; });
      return 1;
    case spv::OpBitcast: {
      const TypeInfo& st = ScalarOf(o[0]);
      uint32_t sn = Slots(o[0]);
      uint32_t rn = slots();
      if (st.kind == TypeKind::kPointer && rs.kind == TypeKind::kPointer) {
        unary([](uint64_t a) { return a; });
        return 1;
      }
      if (st.kind == TypeKind::kPointer || rs.kind == TypeKind::kPointer) {
        // A 64-bit address to or from a 64-bit integer or a pair of 32-bit ones.
        bool to_ptr = rs.kind == TypeKind::kPointer;
        const TypeInfo& ints = to_ptr ? st : rs;
        uint32_t count = to_ptr ? sn : rn;
        if (ints.kind != TypeKind::kInt || ints.width * count != 64) {
          return Fail("unsupported OpBitcast between pointers and integers"), -1;
        }
        for_lanes([&](uint32_t inv) {
          if (to_ptr) {
            uint64_t raw = count == 1 ? R(o[0], 0, inv)
                                      : (R(o[0], 0, inv) & 0xffffffffu) | (R(o[0], 1, inv) << 32);
            R(res, 0, inv) = RawToPtr(raw);
          } else {
            uint64_t raw = PtrToRaw(R(o[0], 0, inv));
            if (count == 1) {
              R(res, 0, inv) = raw;
            } else {
              R(res, 0, inv) = raw & 0xffffffffu;
              R(res, 1, inv) = raw >> 32;
            }
          }
        });
        return 1;
      }
      uint32_t sw = st.kind == TypeKind::kPointer ? 64 : st.width;
      for_lanes([&](uint32_t inv) {
        uint8_t bytes[64] = {0};
        for (uint32_t k = 0; k < sn; ++k) {
          uint64_t v = R(o[0], k, inv);
          std::memcpy(bytes + k * (sw / 8), &v, sw / 8);
        }
        for (uint32_t k = 0; k < rn; ++k) {
          uint64_t v = 0;
          std::memcpy(&v, bytes + k * (w / 8), w / 8);
          R(res, k, inv) = v;
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
