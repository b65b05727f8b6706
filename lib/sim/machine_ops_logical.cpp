// The simulator's logical operations, OpAny/OpAll and OpSelect
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::PureLogical(const Inst& in, const uint32_t* invs, uint32_t n) {
  const uint32_t* o = in.ops;
  uint32_t res = in.result;
  auto for_lanes = [&](auto body) { ForLanes(invs, n, body); };
  auto slots = [&]() { return I_.types[in.type].slots; };
  auto unary = [&](auto f) { MapUnary(in, invs, n, f); };
  auto binary = [&](auto f) { MapBinary(in, invs, n, f); };
  switch (in.op) {
    case spv::OpLogicalEqual:
      binary([](uint64_t a, uint64_t b) -> uint64_t { return (a != 0) == (b != 0); });
      return 1;
    case spv::OpLogicalNotEqual:
      binary([](uint64_t a, uint64_t b) -> uint64_t { return (a != 0) != (b != 0); });
      return 1;
    case spv::OpLogicalOr:
      binary([](uint64_t a, uint64_t b) -> uint64_t { return (a != 0) || (b != 0); });
      return 1;
    case spv::OpLogicalAnd:
      binary([](uint64_t a, uint64_t b) -> uint64_t { return (a != 0) && (b != 0); });
      return 1;
    case spv::OpLogicalNot:
      unary([](uint64_t a) -> uint64_t { return a == 0; });
      return 1;
    case spv::OpAny:
    case spv::OpAll: {
      bool any = in.op == spv::OpAny;
      uint32_t cnt = Slots(o[0]);
      for_lanes([&](uint32_t inv) {
        bool r = !any;
        for (uint32_t k = 0; k < cnt; ++k) {
          bool b = R(o[0], k, inv) != 0;
          r = any ? (r || b) : (r && b);
        }
        R(res, 0, inv) = r;
      });
      return 1;
    }
    case spv::OpSelect: {
      uint32_t s = slots();
      bool vector_cond = Slots(o[0]) > 1;
      for_lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < s; ++k) {
          bool c = R(o[0], vector_cond ? k : 0, inv) != 0;
          R(res, k, inv) = R(c ? o[1] : o[2], k, inv);
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
