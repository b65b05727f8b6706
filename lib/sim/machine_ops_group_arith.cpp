// The simulator's subgroup arithmetic: OpGroupNonUniformIAdd to LogicalXor
// as reductions, inclusive and exclusive scans and clustered reductions
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

namespace {

// The identity of the operation |op| on |w|-bit values.
uint64_t GroupIdentity(uint32_t op, uint32_t w) {
  const uint64_t mask = WidthMask(w);
  switch (op) {
    case spv::OpGroupNonUniformIAdd:
      return 0;
    case spv::OpGroupNonUniformIMul:
      return 1;
    case spv::OpGroupNonUniformFAdd:
      return FromDouble(0.0, w);
    case spv::OpGroupNonUniformFMul:
      return FromDouble(1.0, w);
    case spv::OpGroupNonUniformSMin:
      return mask >> 1;
    case spv::OpGroupNonUniformUMin:
      return mask;
    case spv::OpGroupNonUniformFMin:
      return FromDouble(std::numeric_limits<double>::infinity(), w);
    case spv::OpGroupNonUniformSMax:
      return (mask >> 1) + 1;
    case spv::OpGroupNonUniformUMax:
      return 0;
    case spv::OpGroupNonUniformFMax:
      return FromDouble(-std::numeric_limits<double>::infinity(), w);
    case spv::OpGroupNonUniformBitwiseAnd:
      return mask;
    case spv::OpGroupNonUniformBitwiseOr:
      return 0;
    case spv::OpGroupNonUniformBitwiseXor:
      return 0;
    case spv::OpGroupNonUniformLogicalAnd:
      return 1;
    case spv::OpGroupNonUniformLogicalOr:
      return 0;
    default:
      return 0;  // LogicalXor
  }
}

// |x| combined with |y| by the operation |op| on |w|-bit values.
uint64_t GroupCombine(uint32_t op, uint32_t w, uint64_t x, uint64_t y) {
  const uint64_t mask = WidthMask(w);
  switch (op) {
    case spv::OpGroupNonUniformIAdd:
      return (x + y) & mask;
    case spv::OpGroupNonUniformIMul:
      return (x * y) & mask;
    case spv::OpGroupNonUniformFAdd:
      return FloatBinary(x, y, w, [](auto p, auto q) { return p + q; });
    case spv::OpGroupNonUniformFMul:
      return FloatBinary(x, y, w, [](auto p, auto q) { return p * q; });
    case spv::OpGroupNonUniformSMin:
      return SignExtend(y, w) < SignExtend(x, w) ? y : x;
    case spv::OpGroupNonUniformUMin:
      return std::min(x, y);
    case spv::OpGroupNonUniformFMin:
      return FloatBinary(x, y, w, [](auto p, auto q) { return FMinOf(p, q); });
    case spv::OpGroupNonUniformSMax:
      return SignExtend(y, w) > SignExtend(x, w) ? y : x;
    case spv::OpGroupNonUniformUMax:
      return std::max(x, y);
    case spv::OpGroupNonUniformFMax:
      return FloatBinary(x, y, w, [](auto p, auto q) { return FMaxOf(p, q); });
    case spv::OpGroupNonUniformBitwiseAnd:
      return x & y;
    case spv::OpGroupNonUniformBitwiseOr:
      return x | y;
    case spv::OpGroupNonUniformBitwiseXor:
      return x ^ y;
    case spv::OpGroupNonUniformLogicalAnd:
      return (x != 0) && (y != 0);
    case spv::OpGroupNonUniformLogicalOr:
      return (x != 0) || (y != 0);
    default:
      return (x != 0) != (y != 0);
  }
}

}  // namespace

// Operands: (scope) group-operation value [cluster size].
bool Machine::GroupArith(const Inst& in, Subgroup* sg, Frame* f) {
  const uint32_t* a = GroupOperands(in);
  if (a == nullptr) return false;
  uint32_t op = in.op, gop = a[0], val = a[1];
  uint32_t cluster = N_;
  if (gop == spv::GroupOperationClusteredReduce) {
    if (in.num_ops < 4) return Fail(OpcodeName(op) + ": ClusteredReduce without a cluster size");
    cluster = static_cast<uint32_t>(ConstValue(a[2]));
    if (cluster == 0 || (cluster & (cluster - 1)))
      return Fail(OpcodeName(op) + ": bad cluster size");
  } else if (gop > spv::GroupOperationExclusiveScan) {
    return Fail(OpcodeName(op) + ": unsupported group operation " + std::to_string(gop));
  }
  const std::vector<uint32_t>& act = f->active;
  uint32_t base = sg->base;
  uint32_t w = (in.type ? I_.Scalar(in.type) : I_.types[0]).width;
  auto combine = [&](uint64_t x, uint64_t y) { return GroupCombine(op, w, x, y); };
  uint32_t n = in.type ? I_.types[in.type].slots : 0;
  std::vector<uint64_t> out(act.size() * n);
  for (uint32_t k = 0; k < n; ++k) {
    if (gop == spv::GroupOperationReduce || gop == spv::GroupOperationClusteredReduce) {
      // Per cluster, in lane order.
      size_t i = 0;
      while (i < act.size()) {
        uint32_t c = act[i] / cluster;
        size_t j = i;
        uint64_t accv = 0;
        bool first = true;
        while (j < act.size() && act[j] / cluster == c) {
          uint64_t v = R(val, k, base + act[j]);
          accv = first ? v : combine(accv, v);
          first = false;
          ++j;
        }
        for (size_t q = i; q < j; ++q) out[q * n + k] = accv;
        i = j;
      }
    } else {
      uint64_t accv = GroupIdentity(op, w);
      for (size_t i = 0; i < act.size(); ++i) {
        uint64_t v = R(val, k, base + act[i]);
        if (gop == spv::GroupOperationExclusiveScan) {
          out[i * n + k] = accv;
          accv = i == 0 ? v : combine(accv, v);
        } else {
          accv = i == 0 ? v : combine(accv, v);
          out[i * n + k] = accv;
        }
      }
    }
  }
  for (size_t i = 0; i < act.size(); ++i) {
    for (uint32_t k = 0; k < n; ++k) R(in.result, k, base + act[i]) = out[i * n + k];
  }
  return true;
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
