// workgroup-reduce's private header, implemented in workgroup_reduce_pairs.cpp
// (a header of the pass's own, so the pass and its pair trees include each
// other without an include cycle).
//
// workgroup-reduce on (value, index) pairs: the arg-max/arg-min tree over
// two shared arrays that the plain-tree analysis refuses as
// BranchOnArrayValue (its step branches on the values).
//
// Before (GLSL; ggml's argmax, top-k and softmax kernels, with the ties
// broken by the index):
//   v[t] = x; i[t] = ix;                               // S0
//   barrier();                                         // B0
//   for (uint s = N / 2; s > 0; s >>= 1) {
//     if (t < s && (v[t+s] > v[t] || (v[t+s] == v[t] && i[t+s] < i[t]))) {
//       v[t] = v[t+s]; i[t] = i[t+s];
//     }
//     barrier();
//   }
//   ... = v[0]; ... = i[0];                            // the readers
//
// After (every subgroup size, partial subgroups, any lane order):
//   bv = subgroupMax(x);                               // the best value
//   bi = subgroupMin(x == bv ? ix : UINT_MAX);         // its lowest index
//   (ranked: the first rank among those lanes, and that lane's bits)
//   if (subgroupElect()) { v[SubgroupId] = bv; i[SubgroupId] = bi; }
//   barrier();
//   (rv, ri) = the best pair of the slots, folded in order with the step's
//              own comparison by every invocation
//   ... = rv; ... = ri;
//
// Legality (docs/design/workgroup-reduce.md, "Pairs"): the step's
// condition, evaluated on every ordering of the two keys (a NaN too, for
// floats), of the two indices and on every (t, s) the tree runs, must be
// exactly "t < s and (v[t+s], i[t+s]) comes strictly first": by the key
// (max or min), then by the index (min or max), or with ties left to the
// position (`>` alone keeps, `>=` takes). Among pairs neither of which comes
// first the canonical tree keeps the element whose position comes first in
// bit-reversed order: that rank is a third key (a third slot array), which
// makes the order total, so the result is the first (key, index, rank) of
// the N elements, and so is the rewrite's. Float keys: an element reaches
// the root iff no element t mod 2^j is a NaN (a NaN in a slot stays and
// drops what meets it), which each invocation tests after B0 (S0 and B0
// stay); a NaN in element 0 is the result.
#ifndef WAVEOPT_PASSES_WORKGROUP_REDUCE_PASS_IMPL_H_
#define WAVEOPT_PASSES_WORKGROUP_REDUCE_PASS_IMPL_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "passes/emitter.h"
#include "passes/workgroup_reduce_reason.h"
#include "source/opt/basic_block.h"
#include "source/opt/function.h"
#include "source/opt/instruction.h"

namespace spvtools::opt {
class IRContext;
}  // namespace spvtools::opt

namespace waveopt {

// The one value a phi takes when every incoming value is it or the phi
// itself (the SSA rewrite's loop-carried copy of a value from before the
// loop); 0 otherwise.
inline uint32_t TrivialPhiValue(const spvtools::opt::Instruction* phi) {
  if (phi->opcode() != spv::Op::OpPhi) return 0;
  uint32_t only = 0;
  for (uint32_t i = 0; i + 1 < phi->NumInOperands(); i += 2) {
    const uint32_t in = phi->GetSingleWordInOperand(i);
    if (in == phi->result_id()) continue;
    if (only != 0 && in != only) return 0;
    only = in;
  }
  return only;
}

class WorkgroupReducePass;

// The SpecId of |id| when it is a specialization constant, else -1.
int64_t SpecIdOf(spvtools::opt::IRContext* context, uint32_t id);

// One pair tree from barrier B0: Analyze, then (when it returns kNone)
// Describe and Rewrite.
class PairTree {
 public:
  using Reason = WorkgroupReduceReason;
  PairTree(WorkgroupReducePass* pass, spvtools::opt::Function* func,
           spvtools::opt::Instruction* barrier)
      : pass_(pass), func_(func), barrier_(barrier) {}

  // kNone when the tree can be rewritten, else a missed remark's reason
  // with the sentence |*why| (naming what to change) and the instruction
  // |*where|.
  Reason Analyze(std::string* why, spvtools::opt::Instruction** where);
  // After Analyze(): whether the loop has a pair tree's shape (two arrays
  // stepped by one halving loop), whatever else refused it.
  bool ShapeFound() const { return shape_found_; }
  // The applied remark's message.
  std::string Describe() const;
  // Rewrites the analysed tree; false when ids ran out.
  bool Rewrite();

 private:
  Reason FindLoop(std::string* why);
  Reason CheckBody(std::string* why, spvtools::opt::Instruction** where);
  // The loop's stores and loads of Workgroup memory and its barrier; kNone
  // or a refusal (other effects, breaks, two barriers).
  Reason ScanLoop(std::vector<spvtools::opt::Instruction*>* stores,
                  std::vector<spvtools::opt::Instruction*>* loads,
                  spvtools::opt::Instruction** step_barrier, std::string* why,
                  spvtools::opt::Instruction** where);
  Reason CheckCondition(std::string* why);
  Reason FindInitAndReaders(std::string* why, spvtools::opt::Instruction** where);
  Reason CheckSize(std::string* why);
  // The workgroup size into size_: literal, or its x one specialization
  // constant (then spec_values_ and spec_id_); false when neither.
  bool ReadSize();
  // The value of an integer constant, or of a specialization constant (or
  // an OpSpecConstantOp of them) of the size's SpecId at spec_value_.
  bool ConstValue(uint32_t id, uint64_t* out, int depth = 0) const;
  // The Rewrite of a tree analysed at spec_value_: the original stays
  // behind a test that the constants hold it.
  // |keep| is the if on the test, in its then arm after the new code;
  // |rest|, the original from S0 or B0 on, becomes its else arm and
  // |result| the phis of both sides' results.
  bool KeepOriginal(Emitter* e, Emitter::If* keep, spvtools::opt::BasicBlock* rest,
                    uint32_t result[2]);
  // The role of a pointer to an element of the pair arrays: 0 v[t], 1
  // v[t+s], 2 i[t], 3 i[t+s]; -1 otherwise.
  int Role(uint32_t ptr) const;
  // Whether |id| is the invocation's index t (through copies).
  bool IsT(uint32_t id) const;
  bool FindT(uint32_t id) const;
  int FindRole(uint32_t ptr) const;
  // Runs the step's condition: whether the stores run for these values.
  // -1 when it cannot be evaluated.
  // |bound|: the value of the bound's comparison (t + s < n).
  int Evaluate(const uint64_t roles[4], uint64_t t, uint64_t s, bool bound) const;
  struct EvalState;
  // The integer or boolean value of |id| in |st|; false when unknown.
  bool Value(EvalState* st, uint32_t id, uint64_t* out, int depth) const;
  // The values of t and s the condition reads (signature_ids_); false
  // when its blocks are not a small region before the store and barrier.
  bool FindSignatureIds();
  std::vector<uint32_t> signature_ids_;
  // The step's extra uniform bound `t + s < n` (ggml's `col + s < p.KX`):
  // one unsigned comparison of t + s with a workgroup-uniform value n from
  // before B0; elements from n on take no part. False when the condition
  // has none (bound_ stays 0) or more than one.
  bool FindBound(const std::vector<spvtools::opt::BasicBlock*>& blocks);
  bool shape_found_ = false;
  uint32_t bound_ = 0;      // n
  uint32_t bound_cmp_ = 0;  // the comparison, t + s < n
  // n's load when it is in the loop (a push constant or uniform block
  // member, loaded again before the rewrite); null when n is from before B0.
  const spvtools::opt::Instruction* bound_load_ = nullptr;
  bool ReadOnlyLoad(uint32_t id) const;
  // One evaluation of the condition: t, s, the four values and the bound's
  // comparison.
  struct Case {
    uint64_t t, s;
    uint64_t r[4];  // v[t], v[t + s], i[t], i[t + s] (the key array first)
    bool bound = true;
  };
  // The cases that decide the hypotheses; false when the condition reads
  // t and s in a way no hypothesis can match.
  bool ConditionCases(std::vector<Case>* cases);
  // Whether the tree's priority among equal pairs (the rank) is needed:
  // float keys (+0.0 and -0.0 are equal) or ties by position.
  bool Ranked() const { return float_key_ || tie_ != Tie::kIndex; }
  // Whether (b) comes strictly before (a) in the step's order (the ranks
  // last when Ranked()).
  uint32_t EmitBetter(Emitter* e, const uint32_t a[3], const uint32_t b[3]);
  // The rank of invocation |tid| (< N): its position in the order in which
  // the tree prefers equal pairs (see the design note).
  uint32_t EmitRank(Emitter* e, uint32_t tid);
  // Float keys: whether the element of |tid| is dropped by a NaN (its own
  // or one of the elements tid mod 2^j, read after B0); |*v0|, |*i0| get
  // element 0, the result when its value is a NaN.
  uint32_t EmitNanDrops(Emitter* e, uint32_t tid, uint32_t x, uint32_t* v0, uint32_t* i0);
  // Each invocation's (value, index, rank) into |x| (S0's value and index
  // on entry); float keys: element 0 into |*v0|, |*i0|.
  void EmitContribution(Emitter* e, uint32_t index_var, uint32_t x[3], uint32_t* v0, uint32_t* i0);
  // The subgroup's first (value, index, rank) of |x| into |best|.
  bool EmitSubgroupFirst(Emitter* e, const uint32_t x[3], uint32_t best[3]);
  // The fold of the slots; |acc| gets the first (value, index).
  bool EmitFold(Emitter* e, uint32_t acc[2]);
  // A Workgroup uint array of one slot per invocation for the ranks.
  uint32_t DeclareRankSlots(Emitter* e);
  uint32_t EmitKeyIdentity(Emitter* e);
  uint32_t EmitIndexIdentity(Emitter* e);
  // The slot pointer types, the rank slots and built-ins of the rewrite.
  uint32_t ptr_[3] = {0, 0, 0};
  uint32_t slots_var_[3] = {0, 0, 0};

  WorkgroupReducePass* pass_;
  spvtools::opt::Function* func_;
  spvtools::opt::Instruction* barrier_;
  uint32_t var_[2] = {0, 0};   // the value (key) and index arrays
  uint32_t type_[2] = {0, 0};  // their element types
  uint64_t length_[2] = {0, 0};
  bool signed_[2] = {false, false};  // their comparisons' signedness
  bool key_max_ = true;              // the larger value wins
  bool index_min_ = true;            // among equal values, the smaller index
  bool float_key_ = false;           // float keys (compared ordered)
  uint32_t float_type_ = 0;          // their type
  // How equal keys are ordered: by the index, or by position (the element
  // already there stays, or the other one is taken).
  enum class Tie { kIndex, kKeep, kTake };
  Tie tie_ = Tie::kIndex;
  uint32_t s_ = 0;                // the loop's s phi
  uint64_t half_ = 0;             // s's first value: N / 2
  uint64_t workgroup_ = 0;        // invocations
  uint32_t size_[3] = {0, 0, 0};  // 0: unknown
  // A size given by a specialization constant: its SpecId (-1: none), the
  // value analysed, and every constant of that SpecId (the size's, and the
  // kernel's own `constant_id`) with that value, which the rewrite assumes.
  int64_t spec_id_ = -1;
  uint64_t spec_value_ = 0;
  std::vector<std::pair<uint32_t, uint64_t>> spec_values_;
  spvtools::opt::BasicBlock* header_ = nullptr;  // the loop
  spvtools::opt::BasicBlock* merge_ = nullptr;
  spvtools::opt::BasicBlock* test_ = nullptr;  // the exit test's block
  spvtools::opt::BasicBlock* body_ = nullptr;  // its target
  spvtools::opt::BasicBlock* store_block_ = nullptr;
  spvtools::opt::BasicBlock* barrier_block_ = nullptr;  // the step's barrier
  std::vector<spvtools::opt::BasicBlock*> loop_blocks_;
  spvtools::opt::Instruction* init_[2] = {nullptr, nullptr};  // S0's stores
  std::vector<spvtools::opt::Instruction*> readers_[2];
  // Memos of IsT and Role (the condition is evaluated many times).
  mutable std::unordered_map<uint32_t, bool> is_t_;
  mutable std::unordered_map<uint32_t, int> role_;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_WORKGROUP_REDUCE_PASS_IMPL_H_
