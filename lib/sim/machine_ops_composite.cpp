// The simulator's OpUndef, copies and composites
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::PureComposite(const Inst& in, const uint32_t* invs, uint32_t n) {
  const uint32_t* o = in.ops;
  uint32_t res = in.result;
  const TypeInfo& rs = in.type ? I_.Scalar(in.type) : I_.types[0];
  uint32_t w = rs.width;
  uint64_t mask = WidthMask(w);
  auto for_lanes = [&](auto body) { ForLanes(invs, n, body); };
  auto slots = [&]() { return I_.types[in.type].slots; };
  auto unary = [&](auto f) { MapUnary(in, invs, n, f); };
  switch (in.op) {
    case spv::OpUndef: {
      std::vector<uint64_t> p(slots());
      I_.Poison(in.type, p.data());
      for_lanes([&](uint32_t inv) {
        for (uint32_t k = 0; k < p.size(); ++k) R(res, k, inv) = p[k];
      });
      return 1;
    }
    case spv::OpCopyObject:
    case spv::OpCopyLogical:
      unary([](uint64_t a) { return a; });
      return 1;
    // Composites.
    case spv::OpCompositeConstruct: {
      for_lanes([&](uint32_t inv) {
        uint32_t k = 0;
        for (uint32_t c = 0; c < in.num_ops; ++c) {
          uint32_t cn = Slots(o[c]);
          for (uint32_t j = 0; j < cn; ++j) R(res, k++, inv) = R(o[c], j, inv);
        }
      });
      return 1;
    }
    case spv::OpCompositeExtract:
    case spv::OpCompositeInsert: {
      bool insert = in.op == spv::OpCompositeInsert;
      uint32_t composite = insert ? o[1] : o[0];
      uint32_t first_index = insert ? 2 : 1;
      uint32_t t = I_.value_type[composite];
      uint32_t slot = 0;
      for (uint32_t i = first_index; i < in.num_ops; ++i) {
        const TypeInfo& ti = I_.types[t];
        uint32_t idx = o[i];
        switch (ti.kind) {
          case TypeKind::kStruct:
            slot += ti.member_slot[idx];
            t = ti.members[idx];
            break;
          case TypeKind::kArray:
          case TypeKind::kMatrix:
          case TypeKind::kVector:
            slot += idx * I_.types[ti.elem].slots;
            t = ti.elem;
            break;
          default:
            return Fail("OpComposite" + std::string(insert ? "Insert" : "Extract") +
                        " into a non-composite"),
                   -1;
        }
      }
      uint32_t part = I_.types[t].slots;
      uint32_t total = Slots(composite);
      for_lanes([&](uint32_t inv) {
        if (insert) {
          for (uint32_t k = 0; k < total; ++k) R(res, k, inv) = R(composite, k, inv);
          for (uint32_t k = 0; k < part; ++k) R(res, slot + k, inv) = R(o[0], k, inv);
        } else {
          for (uint32_t k = 0; k < part; ++k) R(res, k, inv) = R(composite, slot + k, inv);
        }
      });
      return 1;
    }
    case spv::OpVectorExtractDynamic: {
      uint32_t cnt = Slots(o[0]);
      for_lanes([&](uint32_t inv) {
        uint64_t idx = R(o[1], 0, inv);
        R(res, 0, inv) = idx < cnt ? R(o[0], static_cast<uint32_t>(idx), inv) : I_.poison & mask;
      });
      return 1;
    }
    case spv::OpVectorInsertDynamic: {
      uint32_t cnt = Slots(o[0]);
      for_lanes([&](uint32_t inv) {
        uint64_t idx = R(o[2], 0, inv);
        for (uint32_t k = 0; k < cnt; ++k) R(res, k, inv) = R(o[0], k, inv);
        if (idx < cnt) R(res, static_cast<uint32_t>(idx), inv) = R(o[1], 0, inv);
      });
      return 1;
    }
    case spv::OpVectorShuffle: {
      uint32_t n1 = Slots(o[0]);
      uint32_t s = slots();
      for_lanes([&](uint32_t inv) {
        uint64_t tmp[16];
        for (uint32_t k = 0; k < s && k < 16; ++k) {
          uint32_t c = o[2 + k];
          tmp[k] = c == 0xffffffffu ? I_.poison & mask
                   : c < n1         ? R(o[0], c, inv)
                                    : R(o[1], c - n1, inv);
        }
        for (uint32_t k = 0; k < s && k < 16; ++k) R(res, k, inv) = tmp[k];
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
