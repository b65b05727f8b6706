// The simulator's subgroup votes: OpGroupNonUniformElect, All, Any,
// AllEqual and their KHR forms (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

bool Machine::GroupVote(const Inst& in, Subgroup* sg, Frame* f) {
  const uint32_t* a = GroupOperands(in);
  if (a == nullptr) return false;
  uint32_t res = in.result;
  const std::vector<uint32_t>& act = f->active;
  uint32_t base = sg->base;
  switch (in.op) {
    case spv::OpGroupNonUniformElect:
      for (uint32_t lane : act) R(res, 0, base + lane) = lane == act.front();
      return true;
    case spv::OpGroupNonUniformAll:
    case spv::OpGroupNonUniformAny:
    case spv::OpSubgroupAllKHR:
    case spv::OpSubgroupAnyKHR: {
      bool all = in.op == spv::OpGroupNonUniformAll || in.op == spv::OpSubgroupAllKHR;
      bool r = all;
      for (uint32_t lane : act) {
        bool b = R(a[0], 0, base + lane) != 0;
        r = all ? (r && b) : (r || b);
      }
      for (uint32_t lane : act) R(res, 0, base + lane) = r;
      return true;
    }
    default: {  // OpGroupNonUniformAllEqual, OpSubgroupAllEqualKHR
      uint32_t n = Slots(a[0]);
      bool eq = true;
      for (uint32_t lane : act) {
        for (uint32_t k = 0; k < n; ++k) {
          if (R(a[0], k, base + lane) != R(a[0], k, base + act.front())) eq = false;
        }
      }
      for (uint32_t lane : act) R(res, 0, base + lane) = eq;
      return true;
    }
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
