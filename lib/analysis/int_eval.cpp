// The analyses' integer evaluator: see int_eval.h.
#include "analysis/int_eval.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace waveopt {

namespace {

using Op = spv::Op;

// Operand |i| as unsigned and as signed |w|-bit numbers.
#define U(i) MaskTo(x[i], w)
#define S(i) SignExtend(x[i], w)
// A fold that is always defined.
#define TOTAL(expr)                                  \
  [](const uint64_t* x, uint32_t w, uint64_t* out) { \
    (void)x;                                         \
    (void)w;                                         \
    *out = static_cast<uint64_t>(expr);              \
    return true;                                     \
  }

int64_t MinSigned(uint32_t w) { return SignExtend(uint64_t{1} << (w - 1), w); }

// Signed division and remainders: undefined by zero and for min / -1.
bool SignedDivision(Op op, int64_t a, int64_t b, uint32_t w, uint64_t* out) {
  if (b == 0 || (b == -1 && a == MinSigned(w))) return false;
  int64_t r = op == Op::OpSDiv ? a / b : a % b;
  if (op == Op::OpSMod && r != 0 && ((r < 0) != (b < 0))) r += b;
  *out = static_cast<uint64_t>(r);
  return true;
}

// A shift amount of the width or more is undefined.
bool Shift(Op op, const uint64_t* x, uint32_t w, uint64_t* out) {
  if (x[1] >= w) return false;
  *out = op == Op::OpShiftLeftLogical    ? x[0] << x[1]
         : op == Op::OpShiftRightLogical ? U(0) >> x[1]
                                         : static_cast<uint64_t>(S(0) >> x[1]);
  return true;
}

// x[0] with x[1] inserted at offset x[2], x[3] bits; undefined past the width.
bool FieldInsert(const uint64_t* x, uint32_t w, uint64_t* out) {
  const uint64_t o = x[2], n = x[3];
  if (o > w || n > w - o) return false;
  if (n == 0) {
    *out = x[0];
    return true;
  }
  const uint64_t m = MaskTo(~uint64_t{0}, static_cast<uint32_t>(n)) << o;
  *out = (x[0] & ~m) | ((x[1] << o) & m);
  return true;
}

// x[2] bits of x[0] from offset x[1], sign- or zero-extended.
bool FieldExtract(bool sign, const uint64_t* x, uint32_t w, uint64_t* out) {
  const uint64_t o = x[1], n = x[2];
  if (o > w || n > w - o) return false;
  if (n == 0) {
    *out = 0;
    return true;
  }
  const uint64_t field = MaskTo(U(0) >> o, static_cast<uint32_t>(n));
  *out = sign ? static_cast<uint64_t>(SignExtend(field, static_cast<uint32_t>(n))) : field;
  return true;
}

uint64_t Reverse(uint64_t v, uint32_t w) {
  uint64_t r = 0;
  for (uint32_t b = 0; b < w; ++b) {
    if ((v >> b) & 1) r |= uint64_t{1} << (w - 1 - b);
  }
  return r;
}

// GLSL.std.450 numbers.
constexpr uint32_t kSAbs = 5, kSSign = 7, kUMin = 38, kSMin = 39, kUMax = 41, kSMax = 42,
                   kUClamp = 44, kSClamp = 45;

constexpr IntResult kSame = IntResult::kSame, kBool = IntResult::kBool, kConv = IntResult::kConvert;

// clang-format off
const std::vector<IntOp>& Table() {
  static const std::vector<IntOp> table = {
    // op, ext, name, arity, result, logical, signed, fold
    {Op::OpSNegate, 0, "SNegate", 1, kSame, false, false, TOTAL(0 - x[0])},
    {Op::OpNot, 0, "Not", 1, kSame, false, false, TOTAL(~x[0])},
    {Op::OpBitReverse, 0, "BitReverse", 1, kSame, false, false, TOTAL(Reverse(x[0], w))},
    {Op::OpBitCount, 0, "BitCount", 1, kConv, false, false, TOTAL(__builtin_popcountll(U(0)))},
    {Op::OpUConvert, 0, "UConvert", 1, kConv, false, false, TOTAL(U(0))},
    {Op::OpSConvert, 0, "SConvert", 1, kConv, false, true, TOTAL(S(0))},
    {Op::OpBitcast, 0, "Bitcast", 1, kConv, false, false, TOTAL(x[0])},
    {Op::OpLogicalNot, 0, "LogicalNot", 1, kSame, true, false, TOTAL((x[0] & 1) ^ 1)},
    {Op::OpIAdd, 0, "IAdd", 2, kSame, false, false, TOTAL(x[0] + x[1])},
    {Op::OpISub, 0, "ISub", 2, kSame, false, false, TOTAL(x[0] - x[1])},
    {Op::OpIMul, 0, "IMul", 2, kSame, false, false, TOTAL(x[0] * x[1])},
    {Op::OpUDiv, 0, "UDiv", 2, kSame, false, false,
     [](const uint64_t* x, uint32_t w, uint64_t* out) {
       if (U(1) == 0) return false;
       *out = U(0) / U(1);
       return true;
     }},
    {Op::OpUMod, 0, "UMod", 2, kSame, false, false,
     [](const uint64_t* x, uint32_t w, uint64_t* out) {
       if (U(1) == 0) return false;
       *out = U(0) % U(1);
       return true;
     }},
    {Op::OpSDiv, 0, "SDiv", 2, kSame, false, true,
     [](const uint64_t* x, uint32_t w, uint64_t* out) {
       return SignedDivision(Op::OpSDiv, S(0), S(1), w, out);
     }},
    {Op::OpSRem, 0, "SRem", 2, kSame, false, true,
     [](const uint64_t* x, uint32_t w, uint64_t* out) {
       return SignedDivision(Op::OpSRem, S(0), S(1), w, out);
     }},
    {Op::OpSMod, 0, "SMod", 2, kSame, false, true,
     [](const uint64_t* x, uint32_t w, uint64_t* out) {
       return SignedDivision(Op::OpSMod, S(0), S(1), w, out);
     }},
    {Op::OpShiftLeftLogical, 0, "ShiftLeftLogical", 2, kSame, false, false,
     [](const uint64_t* x, uint32_t w, uint64_t* out) {
       return Shift(Op::OpShiftLeftLogical, x, w, out);
     }},
    {Op::OpShiftRightLogical, 0, "ShiftRightLogical", 2, kSame, false, false,
     [](const uint64_t* x, uint32_t w, uint64_t* out) {
       return Shift(Op::OpShiftRightLogical, x, w, out);
     }},
    {Op::OpShiftRightArithmetic, 0, "ShiftRightArithmetic", 2, kSame, false, true,
     [](const uint64_t* x, uint32_t w, uint64_t* out) {
       return Shift(Op::OpShiftRightArithmetic, x, w, out);
     }},
    {Op::OpBitwiseAnd, 0, "BitwiseAnd", 2, kSame, false, false, TOTAL(x[0] & x[1])},
    {Op::OpBitwiseOr, 0, "BitwiseOr", 2, kSame, false, false, TOTAL(x[0] | x[1])},
    {Op::OpBitwiseXor, 0, "BitwiseXor", 2, kSame, false, false, TOTAL(x[0] ^ x[1])},
    {Op::OpLogicalAnd, 0, "LogicalAnd", 2, kSame, true, false, TOTAL(x[0] & x[1] & 1)},
    {Op::OpLogicalOr, 0, "LogicalOr", 2, kSame, true, false, TOTAL((x[0] | x[1]) & 1)},
    {Op::OpLogicalEqual, 0, "LogicalEqual", 2, kBool, true, false, TOTAL((x[0] & 1) == (x[1] & 1))},
    {Op::OpLogicalNotEqual, 0, "LogicalNotEqual", 2, kBool, true, false, TOTAL((x[0] & 1) != (x[1] & 1))},
    {Op::OpIEqual, 0, "IEqual", 2, kBool, false, false, TOTAL(U(0) == U(1))},
    {Op::OpINotEqual, 0, "INotEqual", 2, kBool, false, false, TOTAL(U(0) != U(1))},
    {Op::OpULessThan, 0, "ULessThan", 2, kBool, false, false, TOTAL(U(0) < U(1))},
    {Op::OpULessThanEqual, 0, "ULessThanEqual", 2, kBool, false, false, TOTAL(U(0) <= U(1))},
    {Op::OpUGreaterThan, 0, "UGreaterThan", 2, kBool, false, false, TOTAL(U(0) > U(1))},
    {Op::OpUGreaterThanEqual, 0, "UGreaterThanEqual", 2, kBool, false, false, TOTAL(U(0) >= U(1))},
    {Op::OpSLessThan, 0, "SLessThan", 2, kBool, false, true, TOTAL(S(0) < S(1))},
    {Op::OpSLessThanEqual, 0, "SLessThanEqual", 2, kBool, false, true, TOTAL(S(0) <= S(1))},
    {Op::OpSGreaterThan, 0, "SGreaterThan", 2, kBool, false, true, TOTAL(S(0) > S(1))},
    {Op::OpSGreaterThanEqual, 0, "SGreaterThanEqual", 2, kBool, false, true, TOTAL(S(0) >= S(1))},
    {Op::OpBitFieldInsert, 0, "BitFieldInsert", 4, kSame, false, false, FieldInsert},
    {Op::OpBitFieldSExtract, 0, "BitFieldSExtract", 3, kSame, false, true,
     [](const uint64_t* x, uint32_t w, uint64_t* out) { return FieldExtract(true, x, w, out); }},
    {Op::OpBitFieldUExtract, 0, "BitFieldUExtract", 3, kSame, false, false,
     [](const uint64_t* x, uint32_t w, uint64_t* out) { return FieldExtract(false, x, w, out); }},
    {Op::OpExtInst, kSAbs, "SAbs", 1, kSame, false, true, TOTAL(S(0) < 0 ? 0 - U(0) : U(0))},
    {Op::OpExtInst, kSSign, "SSign", 1, kSame, false, true, TOTAL(S(0) < 0 ? -1 : S(0) > 0 ? 1 : 0)},
    {Op::OpExtInst, kUMin, "UMin", 2, kSame, false, false, TOTAL(std::min(U(0), U(1)))},
    {Op::OpExtInst, kSMin, "SMin", 2, kSame, false, true, TOTAL(std::min(S(0), S(1)))},
    {Op::OpExtInst, kUMax, "UMax", 2, kSame, false, false, TOTAL(std::max(U(0), U(1)))},
    {Op::OpExtInst, kSMax, "SMax", 2, kSame, false, true, TOTAL(std::max(S(0), S(1)))},
    {Op::OpExtInst, kUClamp, "UClamp", 3, kSame, false, false,
     [](const uint64_t* x, uint32_t w, uint64_t* out) {
       if (U(1) > U(2)) return false;
       *out = std::min(std::max(U(0), U(1)), U(2));
       return true;
     }},
    {Op::OpExtInst, kSClamp, "SClamp", 3, kSame, false, true,
     [](const uint64_t* x, uint32_t w, uint64_t* out) {
       if (S(1) > S(2)) return false;
       *out = static_cast<uint64_t>(std::min(std::max(S(0), S(1)), S(2)));
       return true;
     }},
  };
  return table;
}
// clang-format on

#undef TOTAL
#undef S
#undef U

}  // namespace

const std::vector<IntOp>& IntOps() { return Table(); }

const IntOp* FindIntOp(spv::Op op, uint32_t ext) {
  // (op, ext) → the table's first entry for it: the evaluators ask for
  // every instruction of every invocation they run (compile time).
  static const std::unordered_map<uint64_t, const IntOp*> index = [] {
    std::unordered_map<uint64_t, const IntOp*> m;
    for (const IntOp& entry : Table()) {
      m.emplace((uint64_t{static_cast<uint32_t>(entry.op)} << 32) | entry.ext, &entry);
    }
    return m;
  }();
  // Core opcodes below kDirect: an array (the common case).
  constexpr uint32_t kDirect = 1024;
  static const std::array<const IntOp*, kDirect> direct = [] {
    std::array<const IntOp*, kDirect> a{};
    for (const IntOp& entry : Table()) {
      const auto o = static_cast<uint32_t>(entry.op);
      if (entry.op != Op::OpExtInst && entry.ext == 0 && o < kDirect && a[o] == nullptr) {
        a[o] = &entry;
      }
    }
    return a;
  }();
  if (op != Op::OpExtInst && static_cast<uint32_t>(op) < kDirect) {
    return direct[static_cast<uint32_t>(op)];
  }
  const uint32_t key_ext = op == Op::OpExtInst ? ext : 0;
  auto it = index.find((uint64_t{static_cast<uint32_t>(op)} << 32) | key_ext);
  return it == index.end() ? nullptr : it->second;
}

bool FoldInt(const IntOp& op, const uint64_t* x, uint32_t width, uint32_t result_width,
             uint64_t* out) {
  uint64_t r = 0;
  if (!op.fold(x, width, &r)) return false;
  const uint32_t w = op.result == IntResult::kBool      ? 1
                     : op.result == IntResult::kConvert ? result_width
                                                        : width;
  *out = MaskTo(r, w);
  return true;
}

}  // namespace waveopt
