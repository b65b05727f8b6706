// The simulator's integer and float comparisons
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::PureCompare(const Inst& in, const uint32_t* invs, uint32_t n) {
  const uint32_t* o = in.ops;
  auto unary = [&](auto f) { MapUnary(in, invs, n, f); };
  auto binary = [&](auto f) { MapBinary(in, invs, n, f); };
  switch (in.op) {
    // Relational and logical.
    case spv::OpIEqual:
    case spv::OpINotEqual:
    case spv::OpUGreaterThan:
    case spv::OpSGreaterThan:
    case spv::OpUGreaterThanEqual:
    case spv::OpSGreaterThanEqual:
    case spv::OpULessThan:
    case spv::OpSLessThan:
    case spv::OpULessThanEqual:
    case spv::OpSLessThanEqual: {
      uint32_t sw = ScalarOf(o[0]).width;
      uint32_t op = in.op;
      binary([&](uint64_t a, uint64_t b) -> uint64_t {
        int64_t sa = SignExtend(a, sw), sb = SignExtend(b, sw);
        switch (op) {
          case spv::OpIEqual:
            return a == b;
          case spv::OpINotEqual:
            return a != b;
          case spv::OpUGreaterThan:
            return a > b;
          case spv::OpSGreaterThan:
            return sa > sb;
          case spv::OpUGreaterThanEqual:
            return a >= b;
          case spv::OpSGreaterThanEqual:
            return sa >= sb;
          case spv::OpULessThan:
            return a < b;
          case spv::OpSLessThan:
            return sa < sb;
          case spv::OpULessThanEqual:
            return a <= b;
          default:
            return sa <= sb;
        }
      });
      return 1;
    }
    case spv::OpFOrdEqual:
    case spv::OpFUnordEqual:
    case spv::OpFOrdNotEqual:
    case spv::OpFUnordNotEqual:
    case spv::OpFOrdLessThan:
    case spv::OpFUnordLessThan:
    case spv::OpFOrdGreaterThan:
    case spv::OpFUnordGreaterThan:
    case spv::OpFOrdLessThanEqual:
    case spv::OpFUnordLessThanEqual:
    case spv::OpFOrdGreaterThanEqual:
    case spv::OpFUnordGreaterThanEqual: {
      uint32_t sw = ScalarOf(o[0]).width;
      uint32_t op = in.op;
      binary([&](uint64_t a, uint64_t b) -> uint64_t {
        double x = ToDouble(a, sw), y = ToDouble(b, sw);
        bool unord = std::isnan(x) || std::isnan(y);
        switch (op) {
          case spv::OpFOrdEqual:
            return !unord && x == y;
          case spv::OpFUnordEqual:
            return unord || x == y;
          case spv::OpFOrdNotEqual:
            return !unord && x != y;
          case spv::OpFUnordNotEqual:
            return unord || x != y;
          case spv::OpFOrdLessThan:
            return !unord && x < y;
          case spv::OpFUnordLessThan:
            return unord || x < y;
          case spv::OpFOrdGreaterThan:
            return !unord && x > y;
          case spv::OpFUnordGreaterThan:
            return unord || x > y;
          case spv::OpFOrdLessThanEqual:
            return !unord && x <= y;
          case spv::OpFUnordLessThanEqual:
            return unord || x <= y;
          case spv::OpFOrdGreaterThanEqual:
            return !unord && x >= y;
          default:
            return unord || x >= y;
        }
      });
      return 1;
    }
    case spv::OpIsNan:
    case spv::OpIsInf: {
      uint32_t sw = ScalarOf(o[0]).width;
      bool nan = in.op == spv::OpIsNan;
      unary([&](uint64_t a) -> uint64_t {
        double d = ToDouble(a, sw);
        return nan ? std::isnan(d) : std::isinf(d);
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
