// The simulator's matrix and outer products, transpose
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::PureMatrix(const Inst& in, const uint32_t* invs, uint32_t n) {
  const uint32_t* o = in.ops;
  uint32_t res = in.result;
  const TypeInfo& rs = in.type ? I_.Scalar(in.type) : I_.types[0];
  uint32_t w = rs.width;
  auto for_lanes = [&](auto body) { ForLanes(invs, n, body); };
  switch (in.op) {
    case spv::OpMatrixTimesVector:
    case spv::OpVectorTimesMatrix:
    case spv::OpMatrixTimesMatrix:
    case spv::OpOuterProduct:
    case spv::OpTranspose: {
      uint32_t op = in.op;
      const TypeInfo& rt = I_.types[in.type];
      const TypeInfo& t0 = TypeOf(o[0]);
      auto mul = [&](uint64_t a, uint64_t b) {
        return FloatBinary(a, b, w, [](auto x, auto y) { return x * y; });
      };
      auto add = [&](uint64_t a, uint64_t b) {
        return FloatBinary(a, b, w, [](auto x, auto y) { return x + y; });
      };
      std::vector<uint64_t> out(rt.slots);
      for_lanes([&](uint32_t inv) {
        if (op == spv::OpMatrixTimesVector) {
          uint32_t cols = t0.count, rows = I_.types[t0.elem].count;
          for (uint32_t r = 0; r < rows; ++r) {
            uint64_t acc = 0;
            for (uint32_t c = 0; c < cols; ++c) {
              uint64_t p = mul(R(o[0], c * rows + r, inv), R(o[1], c, inv));
              acc = c == 0 ? p : add(acc, p);
            }
            out[r] = acc;
          }
        } else if (op == spv::OpVectorTimesMatrix) {
          const TypeInfo& mt = TypeOf(o[1]);
          uint32_t cols = mt.count, rows = I_.types[mt.elem].count;
          for (uint32_t c = 0; c < cols; ++c) {
            uint64_t acc = 0;
            for (uint32_t r = 0; r < rows; ++r) {
              uint64_t p = mul(R(o[0], r, inv), R(o[1], c * rows + r, inv));
              acc = r == 0 ? p : add(acc, p);
            }
            out[c] = acc;
          }
        } else if (op == spv::OpMatrixTimesMatrix) {
          const TypeInfo& bt = TypeOf(o[1]);
          uint32_t rows = I_.types[t0.elem].count, inner = t0.count, cols = bt.count;
          for (uint32_t c = 0; c < cols; ++c) {
            for (uint32_t r = 0; r < rows; ++r) {
              uint64_t acc = 0;
              for (uint32_t k = 0; k < inner; ++k) {
                uint64_t p = mul(R(o[0], k * rows + r, inv), R(o[1], c * inner + k, inv));
                acc = k == 0 ? p : add(acc, p);
              }
              out[c * rows + r] = acc;
            }
          }
        } else if (op == spv::OpOuterProduct) {
          uint32_t rows = Slots(o[0]), cols = Slots(o[1]);
          for (uint32_t c = 0; c < cols; ++c) {
            for (uint32_t r = 0; r < rows; ++r)
              out[c * rows + r] = mul(R(o[0], r, inv), R(o[1], c, inv));
          }
        } else {
          uint32_t cols = t0.count, rows = I_.types[t0.elem].count;
          for (uint32_t c = 0; c < cols; ++c) {
            for (uint32_t r = 0; r < rows; ++r) out[r * cols + c] = R(o[0], c * rows + r, inv);
          }
        }
        for (uint32_t k = 0; k < rt.slots; ++k) R(res, k, inv) = out[k];
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
