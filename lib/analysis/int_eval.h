// The integer evaluator of the analyses (lane layout, workgroup trace,
// loops): one table of the integer, boolean and GLSL.std.450 integer
// operations they fold, each with its arity, how it reads its operands and
// the function that folds it. The simulator (lib/sim) keeps its own
// evaluator as an independent oracle; test/unit/int_eval_test.cpp compares
// the two on every entry of this table and every width.
//
// Operands are scalar components, each already reduced to its own width.
// Where SPIR-V leaves a result undefined (division or remainder by zero,
// signed division overflow, a shift by the width or more, a clamp whose
// minimum exceeds its maximum) the analyses know nothing: the fold fails.
#ifndef WAVEOPT_LIB_ANALYSIS_INT_EVAL_H_
#define WAVEOPT_LIB_ANALYSIS_INT_EVAL_H_

#include <cstdint>
#include <vector>

#include "spirv/unified1/spirv.hpp11"

namespace waveopt {

// How an operation's result is sized.
enum class IntResult : uint8_t {
  kSame,     // the operands' width
  kBool,     // a comparison: width 1
  kConvert,  // the result type's width (conversions, bitcasts)
};

struct IntOp {
  spv::Op op;
  uint32_t ext;      // GLSL.std.450 instruction when op is OpExtInst, else 0
  const char* name;  // for messages and tests
  uint8_t arity;     // operands (the import and instruction not counted)
  IntResult result;
  bool logical;      // operands and result are booleans (width 1)
  bool signed_read;  // operands are read sign-extended
  // Folds |x| (|arity| operands of |width| bits) into |*out|, not yet
  // reduced to the result's width; false where the result is undefined.
  bool (*fold)(const uint64_t* x, uint32_t width, uint64_t* out);
};

// Every operation of the table, in a fixed order.
const std::vector<IntOp>& IntOps();
// The entry for |op| (|ext| for OpExtInst of GLSL.std.450), or null.
const IntOp* FindIntOp(spv::Op op, uint32_t ext = 0);

// Folds |op| on |x| (operands of |width| bits) into |*out|, reduced to
// |result_width| (ignored unless the result is kConvert: kSame gives
// |width|, kBool 1). False where undefined.
bool FoldInt(const IntOp& op, const uint64_t* x, uint32_t width, uint32_t result_width,
             uint64_t* out);

// |v| reduced modulo 2^|width|; |v| sign-extended from |width| bits (loops.h
// includes them for the passes). Inline: the lane evaluators call them per
// operation and invocation.
inline uint64_t MaskTo(uint64_t v, uint32_t width) {
  return width >= 64 ? v : (v & ((uint64_t{1} << width) - 1));
}
inline int64_t SignExtend(uint64_t v, uint32_t width) {
  if (width == 0 || width >= 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t{1} << (width - 1);
  v = MaskTo(v, width);
  return static_cast<int64_t>((v ^ sign) - sign);
}

}  // namespace waveopt

#endif  // WAVEOPT_LIB_ANALYSIS_INT_EVAL_H_
