// workgroup-reduce on (value, index) pairs: see workgroup_reduce_pass_impl.h
// for the rewrite, docs/design/workgroup-reduce.md ("Pairs") for why it is
// exact.
#include "passes/workgroup_reduce_pass_impl.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <unordered_set>

#include "analysis/int_eval.h"
#include "analysis/ir_util.h"
#include "analysis/loops.h"
#include "analysis/uniformity.h"
#include "passes/emitter.h"
#include "passes/workgroup_reduce_pass.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/ir_context.h"
#include "source/opt/type_manager.h"
#include "source/opt/types.h"
#include "source/util/small_vector.h"
#include "source/util/string_utils.h"

namespace waveopt {

using spvtools::opt::BasicBlock;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;
using spvtools::opt::Operand;

namespace {

constexpr int kReduce = static_cast<int>(spv::GroupOperation::Reduce);

uint32_t TrivialPhi(IRContext* context, const Instruction* phi) {
  (void)context;
  return TrivialPhiValue(phi);
}

bool IsIntConst(IRContext* context, uint32_t id, uint64_t value) {
  uint64_t v = 0;
  return IntConstantId(context, id, &v) && v == value;
}

// Whether |op| accesses memory other than by a plain load or store, or
// has another effect an invocation's neighbours can see.
bool HasOtherEffect(spv::Op op) {
  return spvOpcodeIsAtomicOp(op) || op == spv::Op::OpMemoryBarrier || op == spv::Op::OpImageWrite ||
         op == spv::Op::OpCopyMemory || op == spv::Op::OpCopyMemorySized ||
         op == spv::Op::OpFunctionCall || op == spv::Op::OpKill ||
         op == spv::Op::OpTerminateInvocation || op == spv::Op::OpReturn ||
         op == spv::Op::OpReturnValue || op == spv::Op::OpUnreachable ||
         op == spv::Op::OpEmitVertex || spvOpcodeIsNonUniformGroupOperation(op);
}

bool Less(uint64_t a, uint64_t b, bool is_signed) {
  if (is_signed) return SignExtend(a, 32) < SignExtend(b, 32);
  return MaskTo(a, 32) < MaskTo(b, 32);
}

float AsFloat(uint64_t bits) {
  const auto word = static_cast<uint32_t>(bits);
  float f = 0;
  std::memcpy(&f, &word, sizeof f);
  return f;
}

// A float comparison (or OpIsNan, |b| unused) on the bits of two 32-bit
// floats; false when |op| is none.
bool FloatCompare(spv::Op op, uint64_t a_bits, uint64_t b_bits, bool* out) {
  const float a = AsFloat(a_bits), b = AsFloat(b_bits);
  const bool unordered = std::isnan(a) || std::isnan(b);
  switch (op) {
    case spv::Op::OpIsNan:
      *out = std::isnan(a);
      return true;
    case spv::Op::OpFOrdEqual:
      *out = a == b;
      return true;
    case spv::Op::OpFOrdNotEqual:
      *out = !unordered && a != b;
      return true;
    case spv::Op::OpFOrdLessThan:
      *out = a < b;
      return true;
    case spv::Op::OpFOrdGreaterThan:
      *out = a > b;
      return true;
    case spv::Op::OpFOrdLessThanEqual:
      *out = a <= b;
      return true;
    case spv::Op::OpFOrdGreaterThanEqual:
      *out = a >= b;
      return true;
    case spv::Op::OpFUnordEqual:
      *out = unordered || a == b;
      return true;
    case spv::Op::OpFUnordNotEqual:
      *out = unordered || a != b;
      return true;
    case spv::Op::OpFUnordLessThan:
      *out = unordered || a < b;
      return true;
    case spv::Op::OpFUnordGreaterThan:
      *out = unordered || a > b;
      return true;
    case spv::Op::OpFUnordLessThanEqual:
      *out = unordered || a <= b;
      return true;
    case spv::Op::OpFUnordGreaterThanEqual:
      *out = unordered || a >= b;
      return true;
    default:
      return false;
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Analysis.

bool PairTree::IsT(uint32_t id) const {
  auto found = is_t_.find(id);
  if (found != is_t_.end()) return found->second;
  return is_t_[id] = FindT(id);
}

int PairTree::Role(uint32_t ptr) const {
  auto found = role_.find(ptr);
  if (found != role_.end()) return found->second;
  return role_[ptr] = FindRole(ptr);
}

bool PairTree::FindT(uint32_t id) const {
  IRContext* context = pass_->context();
  for (int guard = 0; guard < 8; ++guard) {
    const Instruction* def = context->get_def_use_mgr()->GetDef(id);
    if (def == nullptr) return false;
    const spv::Op op = def->opcode();
    if (op == spv::Op::OpCopyObject || op == spv::Op::OpBitcast) {
      id = def->GetSingleWordInOperand(0);
      continue;
    }
    if (op == spv::Op::OpPhi && TrivialPhi(context, def) != 0) {
      id = TrivialPhi(context, def);
      continue;
    }
    if (op == spv::Op::OpCompositeExtract && def->NumInOperands() == 2 &&
        def->GetSingleWordInOperand(1) == 0) {
      const Instruction* load = context->get_def_use_mgr()->GetDef(def->GetSingleWordInOperand(0));
      return load != nullptr && load->opcode() == spv::Op::OpLoad &&
             BuiltInOf(context, load->GetSingleWordInOperand(0)) == spv::BuiltIn::LocalInvocationId;
    }
    if (op != spv::Op::OpLoad) return false;
    const uint32_t ptr = def->GetSingleWordInOperand(0);
    if (BuiltInOf(context, ptr) == spv::BuiltIn::LocalInvocationIndex) return true;
    const Instruction* chain = context->get_def_use_mgr()->GetDef(ptr);
    return chain != nullptr && chain->opcode() == spv::Op::OpAccessChain &&
           chain->NumInOperands() == 2 &&
           BuiltInOf(context, chain->GetSingleWordInOperand(0)) ==
               spv::BuiltIn::LocalInvocationId &&
           IsIntConst(context, chain->GetSingleWordInOperand(1), 0);
  }
  return false;
}

int PairTree::FindRole(uint32_t ptr) const {
  IRContext* context = pass_->context();
  const Instruction* chain = context->get_def_use_mgr()->GetDef(ptr);
  if (chain == nullptr ||
      (chain->opcode() != spv::Op::OpAccessChain &&
       chain->opcode() != spv::Op::OpInBoundsAccessChain) ||
      chain->NumInOperands() != 2) {
    return -1;
  }
  const uint32_t base = chain->GetSingleWordInOperand(0);
  const int array = base == var_[0] ? 0 : base == var_[1] ? 1 : -1;
  if (array < 0) return -1;
  const uint32_t index = chain->GetSingleWordInOperand(1);
  if (IsT(index)) return array * 2;
  const Instruction* add = context->get_def_use_mgr()->GetDef(index);
  if (add == nullptr || add->opcode() != spv::Op::OpIAdd) return -1;
  const uint32_t a = add->GetSingleWordInOperand(0), b = add->GetSingleWordInOperand(1);
  // s, or s converted (an int s added to a uint t: `t + uint(s)`).
  auto is_s = [&](uint32_t id) {
    const Instruction* def = context->get_def_use_mgr()->GetDef(id);
    return id == s_ ||
           (def != nullptr &&
            (def->opcode() == spv::Op::OpBitcast || def->opcode() == spv::Op::OpCopyObject) &&
            def->GetSingleWordInOperand(0) == s_);
  };
  if ((IsT(a) && is_s(b)) || (IsT(b) && is_s(a))) return array * 2 + 1;
  return -1;
}

PairTree::Reason PairTree::FindLoop(std::string* why) {
  IRContext* context = pass_->context();
  const std::string shape =
      "the steps are not one loop right after the barrier, `for (uint s = N / 2; "
      "s > 0; s >>= 1) { if (t < s && ...) {...} barrier(); }` (write them so)";
  BasicBlock* block = context->get_instr_block(barrier_);
  Instruction* term = block->terminator();
  if (term->opcode() != spv::Op::OpBranch) return *why = shape, Reason::kPairTreeShape;
  header_ = context->get_instr_block(term->GetSingleWordInOperand(0));
  Instruction* loop_merge = header_->GetLoopMergeInst();
  if (loop_merge == nullptr) return *why = shape, Reason::kPairTreeShape;
  merge_ = context->get_instr_block(loop_merge->GetSingleWordInOperand(0));
  // One phi, s: N / 2 from before the loop, s >> 1 along the back edge.
  int phis = 0;
  header_->ForEachPhiInst([&](Instruction* phi) {
    if (TrivialPhi(context, phi) != 0) return;  // a copy of t (the SSA rewrite's)
    ++phis;
    s_ = phi->result_id();
  });
  if (phis != 1) return *why = shape, Reason::kPairTreeShape;
  const Instruction* phi = context->get_def_use_mgr()->GetDef(s_);
  if (phi->NumInOperands() != 4) return *why = shape, Reason::kPairTreeShape;
  // (value, block) twice: the value from before the loop first or second.
  const int from = phi->GetSingleWordInOperand(1) == block->id()   ? 0
                   : phi->GetSingleWordInOperand(3) == block->id() ? 2
                                                                   : -1;
  if (from < 0) return *why = shape, Reason::kPairTreeShape;
  const Instruction* init = context->get_def_use_mgr()->GetDef(phi->GetSingleWordInOperand(from));
  const Instruction* next =
      context->get_def_use_mgr()->GetDef(phi->GetSingleWordInOperand(from ^ 2));
  uint64_t half = 0;
  if (init == nullptr || !ConstValue(init->result_id(), &half) || half == 0 ||
      (half & (half - 1)) != 0 || half > 512 || next == nullptr || next->NumInOperands() != 2 ||
      next->GetSingleWordInOperand(0) != s_) {
    return *why = shape, Reason::kPairTreeShape;
  }
  const spv::Op nop = next->opcode();
  const uint32_t amount = next->GetSingleWordInOperand(1);
  const bool halves =
      ((nop == spv::Op::OpShiftRightLogical || nop == spv::Op::OpShiftRightArithmetic) &&
       IsIntConst(context, amount, 1)) ||
      ((nop == spv::Op::OpUDiv || nop == spv::Op::OpSDiv) && IsIntConst(context, amount, 2));
  if (!halves) return *why = shape, Reason::kPairTreeShape;
  half_ = half;
  // The exit test s > 0 (or s != 0), in the header or the block after it;
  // or, in a do-while, s / 2 > 0 in the latch (the same steps: the first,
  // s = N / 2 > 0, runs either way).
  test_ = header_;
  if (test_->terminator()->opcode() == spv::Op::OpBranch) {
    test_ = context->get_instr_block(test_->terminator()->GetSingleWordInOperand(0));
  }
  uint32_t tested = s_;
  const Instruction* first = test_->terminator();
  if (first->opcode() != spv::Op::OpBranchConditional ||
      (first->GetSingleWordInOperand(1) != merge_->id() &&
       first->GetSingleWordInOperand(2) != merge_->id())) {
    test_ = context->get_instr_block(header_->GetLoopMergeInst()->GetSingleWordInOperand(1));
    tested = next->result_id();
    body_ = header_;
  }
  Instruction* br = test_->terminator();
  if (br->opcode() != spv::Op::OpBranchConditional ||
      br->GetSingleWordInOperand(2) != merge_->id()) {
    return *why = shape, Reason::kPairTreeShape;
  }
  const Instruction* cond = context->get_def_use_mgr()->GetDef(br->GetSingleWordInOperand(0));
  const spv::Op cop = cond->opcode();
  if ((cop != spv::Op::OpUGreaterThan && cop != spv::Op::OpSGreaterThan &&
       cop != spv::Op::OpINotEqual) ||
      cond->GetSingleWordInOperand(0) != tested ||
      !IsIntConst(context, cond->GetSingleWordInOperand(1), 0)) {
    return *why = shape, Reason::kPairTreeShape;
  }
  if (body_ == header_) {
    if (br->GetSingleWordInOperand(1) != header_->id()) return *why = shape, Reason::kPairTreeShape;
  } else {
    body_ = context->get_instr_block(br->GetSingleWordInOperand(1));
  }
  // The loop's blocks: those the header dominates and the merge does not.
  spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(func_);
  for (BasicBlock& b : *func_) {
    if (dom->Dominates(header_, &b) && !dom->Dominates(merge_, &b)) {
      loop_blocks_.push_back(&b);
    }
  }
  return Reason::kNone;
}

PairTree::Reason PairTree::ScanLoop(std::vector<Instruction*>* stores,
                                    std::vector<Instruction*>* loads, Instruction** step_barrier,
                                    std::string* why, Instruction** where) {
  IRContext* context = pass_->context();
  const uint32_t latch = header_->GetLoopMergeInst()->GetSingleWordInOperand(1);
  for (BasicBlock* b : loop_blocks_) {
    bool leaves = false;
    b->ForEachSuccessorLabel([&](uint32_t succ) {
      if ((succ == merge_->id() && b != test_) || (succ == header_->id() && b->id() != latch)) {
        leaves = true;
      }
    });
    for (Instruction& inst : *b) {
      const spv::Op op = inst.opcode();
      if ((op == spv::Op::OpLoopMerge && b != header_) || leaves) {
        *where = &inst;
        *why =
            "the step has a loop, a break or a continue in it (write it as "
            "one if and one barrier)";
        return Reason::kPairTreeShape;
      }
      if (op == spv::Op::OpControlBarrier) {
        if (*step_barrier != nullptr) {
          *where = &inst;
          *why = "a step has more than one barrier (keep one, after the if)";
          return Reason::kPairTreeShape;
        }
        *step_barrier = &inst;
        continue;
      }
      if (HasOtherEffect(op)) {
        *where = &inst;
        *why =
            "the code between the tree's barriers does more than the tree "
            "(move that work before or after it)";
        return Reason::kOtherWorkInTree;
      }
      if (op != spv::Op::OpLoad && op != spv::Op::OpStore) continue;
      Instruction* root = RootVariable(context, inst.GetSingleWordInOperand(0));
      const spv::StorageClass sc = root == nullptr
                                       ? spv::StorageClass::Max
                                       : spv::StorageClass(root->GetSingleWordInOperand(0));
      if (op == spv::Op::OpStore && sc != spv::StorageClass::Workgroup) {
        if (sc == spv::StorageClass::Function) continue;
        *where = &inst;
        *why =
            "the code between the tree's barriers writes other memory (move "
            "that work before or after the tree)";
        return Reason::kOtherWorkInTree;
      }
      if (sc == spv::StorageClass::Workgroup) {
        (op == spv::Op::OpStore ? stores : loads)->push_back(&inst);
      }
    }
  }
  return Reason::kNone;
}

PairTree::Reason PairTree::CheckBody(std::string* why, Instruction** where) {
  IRContext* context = pass_->context();
  spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(func_);
  std::vector<Instruction*> stores, loads;
  Instruction* step_barrier = nullptr;
  const uint32_t latch = header_->GetLoopMergeInst()->GetSingleWordInOperand(1);
  const Reason reason = ScanLoop(&stores, &loads, &step_barrier, why, where);
  if (reason != Reason::kNone) return reason;
  if (step_barrier == nullptr) {
    *why = "a step has no barrier (the original races: add one after the if)";
    return Reason::kRaceInTree;
  }
  barrier_block_ = context->get_instr_block(step_barrier);
  if (!dom->Dominates(barrier_block_->id(), latch)) {
    *where = step_barrier;
    *why = "the step's barrier does not run in every step (put it after the if)";
    return Reason::kNonUniformBarriers;
  }
  const std::string pair_why =
      "a step must copy both elements t + s of two shared arrays of scalars "
      "into elements t (`v[t] = v[t + s]; i[t] = i[t + s];`) in one block, "
      "and only those";
  if (stores.size() != 2) return *why = pair_why, Reason::kPairTreeShape;
  store_block_ = context->get_instr_block(stores[0]);
  for (int k = 0; k < 2; ++k) {
    var_[k] = RootVariable(context, stores[k]->GetSingleWordInOperand(0))->result_id();
  }
  if (var_[0] == var_[1] || context->get_instr_block(stores[1]) != store_block_) {
    return *why = pair_why, Reason::kPairTreeShape;
  }
  for (int k = 0; k < 2; ++k) {
    const Instruction* value =
        context->get_def_use_mgr()->GetDef(stores[k]->GetSingleWordInOperand(1));
    if (Role(stores[k]->GetSingleWordInOperand(0)) != 2 * k || value->opcode() != spv::Op::OpLoad ||
        Role(value->GetSingleWordInOperand(0)) != 2 * k + 1) {
      *where = stores[k];
      return *why = pair_why, Reason::kPairTreeShape;
    }
  }
  for (Instruction* inst : loads) {
    const uint32_t root = RootVariable(context, inst->GetSingleWordInOperand(0))->result_id();
    if (root != var_[0] && root != var_[1]) continue;
    if (Role(inst->GetSingleWordInOperand(0)) < 0) {
      *where = inst;
      *why = "a step reads an element other than t and t + s of the arrays";
      return Reason::kPairTreeShape;
    }
  }
  // Every access before the step's barrier (the body has no cycle: a block
  // the barrier does not dominate runs before it).
  for (Instruction* inst : loads) {
    BasicBlock* b = context->get_instr_block(inst);
    bool after = b != barrier_block_ && dom->Dominates(barrier_block_, b);
    if (b == barrier_block_) {
      for (auto it = BasicBlock::iterator(step_barrier); it != b->end(); ++it) {
        if (&*it == inst) after = true;
      }
    }
    if (after) {
      *where = inst;
      *why = "a step reads the arrays after its barrier (read them before it)";
      return Reason::kPairTreeShape;
    }
  }
  if (store_block_ == barrier_block_ || dom->Dominates(barrier_block_, store_block_)) {
    return *why = pair_why, Reason::kPairTreeShape;
  }
  return Reason::kNone;
}

struct PairTree::EvalState {
  const uint64_t* roles;  // null: a load of the arrays is unknown
  uint64_t t, s;
  // The values known so far, by id: a step's condition is a few dozen
  // instructions, so a flat list without a heap allocation per
  // evaluation (compile time: CheckCondition evaluates thousands).
  spvtools::utils::SmallVector<std::pair<uint32_t, uint64_t>, 32> val;
  bool bound = true;  // the bound's comparison t + s < n
  const uint64_t* Find(uint32_t id) const {
    for (const auto& [key, value] : val) {
      if (key == id) return &value;
    }
    return nullptr;
  }
  uint64_t Set(uint32_t id, uint64_t value) {
    for (auto& entry : val) {
      if (entry.first == id) return entry.second = value;
    }
    val.push_back({id, value});
    return value;
  }
};

bool PairTree::Value(EvalState* st, uint32_t id, uint64_t* out, int depth) const {
  IRContext* context = pass_->context();
  auto* def_use = context->get_def_use_mgr();
  if (const uint64_t* known = st->Find(id)) return *out = *known, true;
  if (depth > 32) return false;
  if (bound_cmp_ != 0 && id == bound_cmp_) return *out = st->bound ? 1 : 0, true;
  if (id == s_) return *out = st->s, true;
  if (IsT(id)) return *out = st->t, true;
  const Instruction* def = def_use->GetDef(id);
  if (def == nullptr) return false;
  uint64_t c = 0;
  if (def->opcode() == spv::Op::OpConstantTrue) return *out = 1, true;
  if (def->opcode() == spv::Op::OpConstantFalse) return *out = 0, true;
  if (IntConstant(context, def, &c)) return *out = MaskTo(c, 32), true;
  if (def->opcode() == spv::Op::OpSpecConstant || def->opcode() == spv::Op::OpSpecConstantOp) {
    if (!ConstValue(id, &c)) return false;
    return *out = st->Set(id, c), true;
  }
  if (def->opcode() == spv::Op::OpLoad) {
    const int role = Role(def->GetSingleWordInOperand(0));
    if (role < 0 || st->roles == nullptr) return false;
    return *out = st->roles[role], true;
  }
  if (def->opcode() == spv::Op::OpPhi) return false;  // set on entry
  uint64_t x[4] = {0, 0, 0, 0};
  bool compared = false;
  if (FloatCompare(def->opcode(), 0, 0, &compared)) {
    for (uint32_t i = 0; i < def->NumInOperands() && i < 2; ++i) {
      if (!Value(st, def->GetSingleWordInOperand(i), &x[i], depth + 1)) return false;
    }
    FloatCompare(def->opcode(), x[0], x[1], &compared);
    return *out = st->Set(id, compared ? 1 : 0), true;
  }
  const Instruction* type = def_use->GetDef(def->type_id());
  if (type == nullptr) return false;
  const uint32_t width = type->opcode() == spv::Op::OpTypeBool  ? 1
                         : type->opcode() == spv::Op::OpTypeInt ? type->GetSingleWordInOperand(0)
                                                                : 0;
  if (width != 1 && width != 32) return false;
  const bool pick = def->opcode() == spv::Op::OpSelect || def->opcode() == spv::Op::OpCopyObject;
  const IntOp* op = pick ? nullptr : FindIntOp(def->opcode());
  const uint32_t arity = pick ? def->NumInOperands() : op == nullptr ? 0 : op->arity;
  if ((!pick && op == nullptr) || def->NumInOperands() != arity || arity > 4) return false;
  for (uint32_t i = 0; i < arity; ++i) {
    if (!Value(st, def->GetSingleWordInOperand(i), &x[i], depth + 1)) return false;
  }
  if (pick) {
    *out = def->opcode() == spv::Op::OpCopyObject ? x[0] : (x[0] & 1) ? x[1] : x[2];
  } else if (!FoldInt(*op, x, op->logical ? 1 : 32, width, out)) {
    return false;
  }
  st->Set(id, *out);
  return true;
}

int PairTree::Evaluate(const uint64_t roles[4], uint64_t t, uint64_t s, bool bound) const {
  IRContext* context = pass_->context();
  EvalState st{roles, t, s, {}, bound};
  BasicBlock* block = body_;
  BasicBlock* pred = nullptr;
  for (int guard = 0; guard < 64; ++guard) {
    if (block == store_block_) return 1;
    if (block == barrier_block_) return 0;
    bool ok = true;
    if (block != header_) {  // the header's only phi that counts is s
      block->ForEachPhiInst([&](Instruction* phi) {
        uint64_t v = 0;
        for (uint32_t i = 0; ok && i + 1 < phi->NumInOperands(); i += 2) {
          if (pred != nullptr && phi->GetSingleWordInOperand(i + 1) == pred->id()) {
            ok = Value(&st, phi->GetSingleWordInOperand(i), &v, 0);
            st.Set(phi->result_id(), v);
            return;
          }
        }
        ok = false;
      });
    }
    if (!ok) return -1;
    Instruction* term = block->terminator();
    uint32_t target = 0;
    if (term->opcode() == spv::Op::OpBranch) {
      target = term->GetSingleWordInOperand(0);
    } else if (term->opcode() == spv::Op::OpBranchConditional) {
      uint64_t c = 0;
      if (!Value(&st, term->GetSingleWordInOperand(0), &c, 0)) return -1;
      target = term->GetSingleWordInOperand((c & 1) ? 1 : 2);
    } else {
      return -1;
    }
    pred = block;
    block = context->get_instr_block(target);
    if (block == nullptr || block == header_ || block == merge_) return -1;  // left the step
  }
  return -1;
}

bool PairTree::ReadOnlyLoad(uint32_t id) const {
  // A load of a push constant or uniform block member by constant indices:
  // the same value in every invocation and everywhere in the kernel.
  IRContext* context = pass_->context();
  auto* def_use = context->get_def_use_mgr();
  const Instruction* load = def_use->GetDef(id);
  if (load == nullptr || load->opcode() != spv::Op::OpLoad || load->NumInOperands() != 1) {
    return false;
  }
  const Instruction* chain = def_use->GetDef(load->GetSingleWordInOperand(0));
  if (chain == nullptr || chain->opcode() != spv::Op::OpAccessChain) return false;
  for (uint32_t i = 1; i < chain->NumInOperands(); ++i) {
    const Instruction* c = def_use->GetDef(chain->GetSingleWordInOperand(i));
    if (c == nullptr || c->opcode() != spv::Op::OpConstant) return false;
  }
  const Instruction* var = def_use->GetDef(chain->GetSingleWordInOperand(0));
  if (var == nullptr || var->opcode() != spv::Op::OpVariable) return false;
  const auto sc = spv::StorageClass(var->GetSingleWordInOperand(0));
  if (sc == spv::StorageClass::PushConstant) return true;
  if (sc != spv::StorageClass::Uniform) return false;
  // Uniform blocks (Block) are read-only; BufferBlock ones are storage.
  const Instruction* ptr = def_use->GetDef(var->type_id());
  const uint32_t block = ptr->GetSingleWordInOperand(1);
  bool is_block = false;
  context->get_decoration_mgr()->ForEachDecoration(block,
                                                   static_cast<uint32_t>(spv::Decoration::Block),
                                                   [&](const Instruction&) { is_block = true; });
  return is_block;
}

bool PairTree::FindBound(const std::vector<BasicBlock*>& blocks) {
  IRContext* context = pass_->context();
  auto* def_use = context->get_def_use_mgr();
  spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(func_);
  BasicBlock* pre = context->get_instr_block(barrier_);
  std::unordered_set<const BasicBlock*> in_loop(loop_blocks_.begin(), loop_blocks_.end());
  // n: an integer made before B0 (outside the loop), not from t or s.
  auto before_b0 = [&](uint32_t id) {
    Instruction* def = def_use->GetDef(id);
    BasicBlock* b = def == nullptr ? nullptr : context->get_instr_block(def);
    if (b == nullptr || in_loop.count(b) || def->opcode() == spv::Op::OpPhi) return false;
    if (b != pre) return dom->StrictlyDominates(b, pre);
    for (auto it = b->begin(); &*it != barrier_; ++it) {
      if (&*it == def) return true;
    }
    return false;
  };
  bound_ = bound_cmp_ = 0;
  std::unique_ptr<UniformityAnalysis> uniformity;
  for (BasicBlock* b : blocks) {
    for (Instruction& inst : *b) {
      const spv::Op op = inst.opcode();
      if (op != spv::Op::OpULessThan && op != spv::Op::OpUGreaterThan) continue;
      const uint32_t n = inst.GetSingleWordInOperand(op == spv::Op::OpULessThan ? 1 : 0);
      const uint32_t x = inst.GetSingleWordInOperand(op == spv::Op::OpULessThan ? 0 : 1);
      if (n == s_ || IsT(n)) continue;
      const bool read_only = ReadOnlyLoad(n);
      if (!read_only) {
        if (!before_b0(n)) continue;
        if (uniformity == nullptr) uniformity = std::make_unique<UniformityAnalysis>(context);
        if (uniformity->ValueLevel(n) != Uniformity::kWorkgroupUniform) continue;
      }
      if (bound_cmp_ != 0) return false;  // two bounds
      bound_cmp_ = inst.result_id();
      bound_ = n;
      bound_load_ = read_only ? def_use->GetDef(n) : nullptr;
      // Its other side is t + s in every step the tree runs.
      for (uint64_t s = half_; s > 0; s >>= 1) {
        for (uint64_t t = 0; t < workgroup_; ++t) {
          EvalState st{nullptr, t, s, {}};
          uint64_t v = 0;
          if (!Value(&st, x, &v, 0) || v != MaskTo(t + s, 32)) return false;
        }
      }
    }
  }
  return true;
}

bool PairTree::FindSignatureIds() {
  // The condition's blocks: from the body to the store or the barrier.
  IRContext* context = pass_->context();
  std::vector<BasicBlock*> blocks, stack = {body_};
  std::unordered_set<uint32_t> seen;
  while (!stack.empty()) {
    BasicBlock* b = stack.back();
    stack.pop_back();
    if (b == store_block_ || b == barrier_block_ || !seen.insert(b->id()).second) continue;
    if ((b == header_ && b != body_) || b == merge_ || blocks.size() > 64) return false;
    blocks.push_back(b);
    b->ForEachSuccessorLabel([&](uint32_t id) { stack.push_back(context->get_instr_block(id)); });
  }
  if (!FindBound(blocks)) return false;
  // Values that depend on the arrays' (or on the path: phis), to a fixed
  // point; the others are functions of t and s.
  std::unordered_set<uint32_t> dependent;
  for (bool grew = true; grew;) {
    grew = false;
    for (BasicBlock* b : blocks) {
      for (Instruction& inst : *b) {
        if (inst.result_id() == 0 || dependent.count(inst.result_id())) continue;
        // The header's phis (a do-while's body starts there) are s and
        // loop-carried copies, read only where the condition uses them.
        if (inst.opcode() == spv::Op::OpPhi && b == header_) continue;
        bool dep = inst.opcode() == spv::Op::OpPhi || inst.result_id() == bound_cmp_ ||
                   (inst.opcode() == spv::Op::OpLoad && Role(inst.GetSingleWordInOperand(0)) >= 0);
        inst.ForEachInId([&](const uint32_t* id) { dep = dep || dependent.count(*id); });
        if (dep) grew = dependent.insert(inst.result_id()).second || grew;
      }
    }
  }
  // The others that a dependent value or a branch reads: they and the
  // arrays' values decide the outcome. The bound's comparison reads none:
  // its outcome is the case's (Value), so t + s, one value per t, is no key
  // (compile time: ggml's argmax had a group per (t, s), 64 M instructions).
  std::unordered_set<uint32_t> keys;
  for (BasicBlock* b : blocks) {
    for (Instruction& inst : *b) {
      if (inst.opcode() == spv::Op::OpPhi && b == header_) continue;
      const bool reads = dependent.count(inst.result_id()) || &inst == b->terminator();
      if (!reads || inst.opcode() == spv::Op::OpLoad) continue;
      if (bound_cmp_ != 0 && inst.result_id() == bound_cmp_) continue;
      inst.ForEachInId([&](const uint32_t* id) {
        const Instruction* def = context->get_def_use_mgr()->GetDef(*id);
        if (!dependent.count(*id) && *id != bound_ && def != nullptr && def->type_id() != 0 &&
            !spvOpcodeIsConstant(def->opcode())) {
          keys.insert(*id);
        }
      });
    }
  }
  signature_ids_.assign(keys.begin(), keys.end());
  std::sort(signature_ids_.begin(), signature_ids_.end());
  return true;
}

bool PairTree::ConditionCases(std::vector<Case>* cases) {
  // Orderings of two values: equal, and either larger, in both readings
  // (integers), and with a NaN (floats).
  static const uint64_t kInts[3] = {0xffffffffu, 0, 1};
  static const uint64_t kFloats[4] = {0xbf800000u, 0, 0x3f800000u, 0x7fc00000u};
  const uint64_t* keys = float_key_ ? kFloats : kInts;
  const int nk = float_key_ ? 4 : 3;
  // The (t, s) the tree runs, grouped by the values of t and s the
  // condition reads (its signature): one of each group is evaluated on
  // every ordering of the values. A group whose members differ in t < s
  // matches no hypothesis.
  std::map<std::vector<uint64_t>, Case> groups;
  if (!FindSignatureIds()) return false;
  for (uint64_t s = half_; s > 0; s >>= 1) {
    for (uint64_t t = 0; t < workgroup_; ++t) {
      EvalState st{nullptr, t, s, {}};
      std::vector<uint64_t> sig(signature_ids_.size());
      for (size_t i = 0; i < sig.size(); ++i) {
        if (!Value(&st, signature_ids_[i], &sig[i], 0)) return false;
      }
      auto [it, fresh] = groups.emplace(sig, Case{t, s, {}});
      if (!fresh && (it->second.t < it->second.s) != (t < s)) return false;
    }
  }
  for (const auto& group : groups) {
    for (int k = 0; k < nk * nk * 9 * (bound_ != 0 ? 2 : 1); ++k) {
      const Case& c = group.second;
      const int v = k % (nk * nk * 9);
      cases->push_back(
          {c.t,
           c.s,
           {keys[v % nk], keys[v / nk % nk], kInts[v / nk / nk % 3], kInts[v / nk / nk / 3]},
           k < nk * nk * 9});
    }
  }
  return true;
}

PairTree::Reason PairTree::CheckCondition(std::string* why) {
  std::vector<Case> all;
  const bool mixed = !ConditionCases(&all);
  // The step's answer in each case, per order of the arrays, evaluated
  // once: it does not depend on the hypothesis below (compile time: the
  // hypotheses evaluated it again, ggml's argmax 388 M instructions).
  constexpr int kNotYet = -2;
  std::vector<int> answers[2];
  auto answer = [&](size_t k, bool swap) {
    std::vector<int>& got = answers[swap ? 1 : 0];
    if (got.empty()) got.assign(all.size(), kNotYet);
    if (got[k] == kNotYet) {
      const Case& c = all[k];
      const uint64_t r[4] = {c.r[swap ? 2 : 0], c.r[swap ? 3 : 1], c.r[swap ? 0 : 2],
                             c.r[swap ? 1 : 3]};
      got[k] = Evaluate(r, c.t, c.s, c.bound);
    }
    return got[k];
  };
  // Whether the step's condition is "t < s && |expect|" in every case
  // (the first array the index one when |swap|).
  auto check = [&](bool swap, const std::function<bool(const uint64_t*)>& expect) {
    for (size_t k = 0; k < all.size(); ++k) {
      const Case& c = all[k];
      const int got = answer(k, swap);
      if (got < 0 || (got == 1) != (c.t < c.s && c.bound && expect(c.r))) return false;
    }
    return true;
  };
  for (int h = 0; h < 96; ++h) {
    const bool swap = h & 1, key_max = h & 2, ks = h & 4, index_min = h & 8, is = h & 16;
    const int tie = h / 32;  // Tie
    // A float array is the key; keys of one signedness for floats.
    if ((float_key_ && (swap != (type_[0] != float_type_) || ks)) ||
        (tie != 0 && (index_min || is))) {
      continue;
    }
    auto less = [=](uint64_t a, uint64_t b) {
      return float_key_ ? AsFloat(a) < AsFloat(b) : Less(a, b, ks);
    };
    auto equal = [=](uint64_t a, uint64_t b) {
      return float_key_ ? AsFloat(a) == AsFloat(b) : a == b;
    };
    auto expect = [&](const uint64_t* r) {
      const bool wins = key_max ? less(r[0], r[1]) : less(r[1], r[0]);
      if (tie == 1) return wins;
      if (tie == 2) return wins || equal(r[1], r[0]);
      const bool first = index_min ? Less(r[3], r[2], is) : Less(r[2], r[3], is);
      return wins || (equal(r[1], r[0]) && first);
    };
    if (mixed || !check(swap, expect)) continue;
    if (swap) {
      std::swap(var_[0], var_[1]);
      std::swap(type_[0], type_[1]);
      std::swap(length_[0], length_[1]);
    }
    role_.clear();
    key_max_ = key_max;
    index_min_ = index_min;
    signed_[0] = ks;
    signed_[1] = is;
    tie_ = tie == 0 ? Tie::kIndex : tie == 1 ? Tie::kKeep : Tie::kTake;
    return Reason::kNone;
  }
  if (float_key_) {
    *why =
        "the step's float comparisons are not the ordered ones of `t < s && "
        "(v[t + s] > v[t] || (v[t + s] == v[t] && i[t + s] < i[t]))` (or <, "
        "or without the index), so a NaN orders otherwise: write them so";
    return Reason::kPairFloatKey;
  }
  *why =
      "the step's condition is not `t < s && (v[t + s] > v[t] || (v[t + s] == "
      "v[t] && i[t + s] < i[t]))` (or with <, or >, for min or the highest "
      "index; an extra bound only as `t + s < n`, n a push constant or "
      "workgroup-uniform): write it so";
  return Reason::kPairCondition;
}

bool PairTree::ConstValue(uint32_t id, uint64_t* out, int depth) const {
  IRContext* context = pass_->context();
  const Instruction* def = context->get_def_use_mgr()->GetDef(id);
  uint64_t x[4] = {0, 0, 0, 0};
  uint32_t width = 0;
  if (def == nullptr || depth > 8) return false;
  if (IntConstant(context, def, out, &width)) return *out = MaskTo(*out, 32), width == 32;
  if (def->opcode() == spv::Op::OpSpecConstant) {
    if (spec_id_ < 0 || SpecIdOf(context, id) != spec_id_ ||
        !IntSpecDefault(context, def, &x[0], &width) || width != 32) {
      return false;
    }
    return *out = spec_value_, true;
  }
  if (def->opcode() != spv::Op::OpSpecConstantOp) return false;
  // An operation of them (`BS / 2`): integer operands only.
  const IntOp* op = FindIntOp(spv::Op(def->GetSingleWordInOperand(0)));
  const uint32_t arity = def->NumInOperands() - 1;
  if (op == nullptr || op->arity != arity || arity > 4 || op->logical) return false;
  for (uint32_t i = 0; i < arity; ++i) {
    if (!ConstValue(def->GetSingleWordInOperand(i + 1), &x[i], depth + 1)) return false;
  }
  return FoldInt(*op, x, 32, 32, out);
}

bool PairTree::ReadSize() {
  IRContext* context = pass_->context();
  auto* def_use = context->get_def_use_mgr();
  uint32_t ids[3] = {0, 0, 0};  // LocalSizeId's or WorkgroupSize's
  for (Instruction& mode : context->module()->execution_modes()) {
    if (mode.GetSingleWordInOperand(0) != func_->result_id()) continue;
    const auto m = spv::ExecutionMode(mode.GetSingleWordInOperand(1));
    for (uint32_t k = 0; k < 3; ++k) {
      if (m == spv::ExecutionMode::LocalSize) size_[k] = mode.GetSingleWordInOperand(2 + k);
      if (m == spv::ExecutionMode::LocalSizeId) ids[k] = mode.GetSingleWordInOperand(2 + k);
    }
  }
  for (Instruction& inst : context->annotations()) {
    if (inst.opcode() == spv::Op::OpDecorate &&
        spv::Decoration(inst.GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn &&
        spv::BuiltIn(inst.GetSingleWordInOperand(2)) == spv::BuiltIn::WorkgroupSize) {
      // It overrides LocalSize: constants, or specialization constants.
      const Instruction* c = def_use->GetDef(inst.GetSingleWordInOperand(0));
      const bool composite = c->opcode() == spv::Op::OpConstantComposite ||
                             c->opcode() == spv::Op::OpSpecConstantComposite;
      for (uint32_t k = 0; k < 3; ++k) ids[k] = composite ? c->GetSingleWordInOperand(k) : 0;
      if (!composite) return false;
    }
  }
  for (uint32_t k = 0; k < 3 && ids[0] != 0; ++k) {
    uint64_t v = 0;
    size_[k] = IntConstantId(context, ids[k], &v) ? static_cast<uint32_t>(v) : 0;
  }
  if (size_[0] != 0 || ids[0] == 0 || size_[1] != 1 || size_[2] != 1) return size_[0] != 0;
  // x: one specialization constant. The value analysed: the default of the
  // kernel's own constants of its SpecId (glslang gives the size's own
  // constant the default 1), else the size's default.
  spec_id_ = SpecIdOf(context, ids[0]);
  uint64_t own = 0, value = 0;
  uint32_t width = 0;
  if (spec_id_ < 0 || !IntSpecDefault(context, def_use->GetDef(ids[0]), &own, &width) ||
      width != 32) {
    return false;
  }
  for (Instruction& inst : context->types_values()) {
    uint64_t v = 0;
    if (inst.opcode() != spv::Op::OpSpecConstant ||
        SpecIdOf(context, inst.result_id()) != spec_id_ ||
        !IntSpecDefault(context, &inst, &v, &width) || width != 32) {
      continue;
    }
    spec_values_.emplace_back(inst.result_id(), 0);
    if (inst.result_id() == ids[0]) continue;
    if (value != 0 && v != value) return false;  // defaults that differ
    value = v;
  }
  spec_value_ = value != 0 ? value : own;
  for (auto& sv : spec_values_) sv.second = spec_value_;
  if (spec_value_ == 0 || spec_value_ > 1024) return false;
  size_[0] = static_cast<uint32_t>(spec_value_);
  return true;
}

PairTree::Reason PairTree::CheckSize(std::string* why) {
  IRContext* context = pass_->context();
  const uint32_t* size = size_;
  if (size[0] == 0 || size[1] != 1 || size[2] != 1) {
    *why =
        "a pair tree needs a one-dimensional workgroup size, literal or one "
        "specialization constant of a default up to 1024 (layout(local_size_x = N) in, "
        "or local_size_x_id)";
    return Reason::kUnknownWorkgroupSize;
  }
  workgroup_ = size[0];
  for (int k = 0; k < 2; ++k) {
    const Instruction* var = context->get_def_use_mgr()->GetDef(var_[k]);
    const Instruction* ptr = context->get_def_use_mgr()->GetDef(var->type_id());
    const Instruction* array = context->get_def_use_mgr()->GetDef(ptr->GetSingleWordInOperand(1));
    const Instruction* elem =
        array->opcode() == spv::Op::OpTypeArray
            ? context->get_def_use_mgr()->GetDef(array->GetSingleWordInOperand(0))
            : nullptr;
    const Instruction* len =
        array->opcode() == spv::Op::OpTypeArray
            ? context->get_def_use_mgr()->GetDef(array->GetSingleWordInOperand(1))
            : nullptr;
    const bool is_float = elem != nullptr && elem->opcode() == spv::Op::OpTypeFloat && !float_key_;
    if (is_float) {
      float_key_ = true;
      float_type_ = elem->result_id();
    }
    if (elem == nullptr || (elem->opcode() != spv::Op::OpTypeInt && !is_float) ||
        elem->GetSingleWordInOperand(0) != 32 || len == nullptr ||
        !ConstValue(len->result_id(), &length_[k])) {
      *why =
          "the arrays' elements are not 32-bit integers (or 32-bit float "
          "keys), or their length is not a constant";
      return Reason::kUnsupportedType;
    }
    type_[k] = elem->result_id();
  }
  if (2 * half_ > workgroup_ || length_[0] < workgroup_ || length_[1] < workgroup_) {
    *why =
        "the tree covers more elements than there are invocations, or an "
        "array has fewer elements than invocations (the slots need one per "
        "subgroup): size both to the workgroup";
    return Reason::kTooFewSlots;
  }
  return Reason::kNone;
}

PairTree::Reason PairTree::FindInitAndReaders(std::string* why, Instruction** where) {
  IRContext* context = pass_->context();
  BasicBlock* block = context->get_instr_block(barrier_);
  for (auto it = BasicBlock::iterator(barrier_); it != block->begin();) {
    --it;
    const spv::Op op = it->opcode();
    if (op == spv::Op::OpControlBarrier || HasOtherEffect(op)) break;
    if (op != spv::Op::OpStore && op != spv::Op::OpLoad) continue;
    Instruction* root = RootVariable(context, it->GetSingleWordInOperand(0));
    const int k = root == nullptr                ? -1
                  : root->result_id() == var_[0] ? 0
                  : root->result_id() == var_[1] ? 1
                                                 : -1;
    if (k < 0) continue;
    if (op == spv::Op::OpLoad || init_[k] != nullptr) break;
    if (Role(it->GetSingleWordInOperand(0)) == 2 * k) init_[k] = &*it;
  }
  if (init_[0] == nullptr || init_[1] == nullptr) {
    *why =
        "each invocation must store its value and its index into its own "
        "elements (v[t], i[t]) right before the barrier";
    return Reason::kPairTreeShape;
  }
  spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(func_);
  std::unordered_set<const BasicBlock*> in_loop(loop_blocks_.begin(), loop_blocks_.end());
  for (spvtools::opt::Function& f : *context->module()) {
    for (BasicBlock& b : f) {
      for (Instruction& inst : b) {
        if (&inst == init_[0] || &inst == init_[1] || in_loop.count(&b)) continue;
        bool touches = false;
        inst.ForEachInId([&](const uint32_t* id) {
          Instruction* root = RootVariable(context, *id);
          if (root != nullptr && (root->result_id() == var_[0] || root->result_id() == var_[1]) &&
              inst.opcode() != spv::Op::OpAccessChain &&
              inst.opcode() != spv::Op::OpInBoundsAccessChain) {
            touches = true;
          }
        });
        if (!touches) continue;
        const Instruction* chain =
            inst.opcode() == spv::Op::OpLoad
                ? context->get_def_use_mgr()->GetDef(inst.GetSingleWordInOperand(0))
                : nullptr;
        const bool reader =
            chain != nullptr && &f == func_ && chain->opcode() == spv::Op::OpAccessChain &&
            chain->NumInOperands() == 2 &&
            IsIntConst(context, chain->GetSingleWordInOperand(1), 0) && dom->Dominates(merge_, &b);
        if (!reader) {
          *where = &inst;
          *why =
              "the arrays are accessed outside the tree other than by reading "
              "element 0 after it (read only the result, v[0] and i[0])";
          return Reason::kReadsPartialValue;
        }
        readers_[chain->GetSingleWordInOperand(0) == var_[0] ? 0 : 1].push_back(&inst);
      }
    }
  }
  if (readers_[0].empty() && readers_[1].empty()) {
    *why = "nothing reads the tree's result";
    return Reason::kNoReader;
  }
  return Reason::kNone;
}

PairTree::Reason PairTree::Analyze(std::string* why, Instruction** where) {
  *where = barrier_;
  if (!ReadSize()) {  // refused by CheckSize
    size_[0] = 0;
    spec_id_ = -1;
    spec_values_.clear();
  }
  Reason reason = FindLoop(why);
  if (reason == Reason::kNone) reason = CheckBody(why, where);
  shape_found_ = reason == Reason::kNone;
  if (reason == Reason::kNone) reason = CheckSize(why);
  if (reason == Reason::kNone) reason = CheckCondition(why);
  if (reason == Reason::kNone) reason = FindInitAndReaders(why, where);
  if (reason != Reason::kNone) return reason;
  // Values made in the removed code are not used after it.
  IRContext* context = pass_->context();
  std::unordered_set<const BasicBlock*> gone(loop_blocks_.begin(), loop_blocks_.end());
  std::unordered_set<const Instruction*> removed;
  for (BasicBlock* b : loop_blocks_) {
    for (Instruction& inst : *b) removed.insert(&inst);
  }
  BasicBlock* pre = context->get_instr_block(barrier_);
  for (auto it = BasicBlock::iterator(barrier_); it != pre->end(); ++it) removed.insert(&*it);
  for (const Instruction* inst : removed) {
    if (inst->result_id() == 0) continue;
    // A loop-carried copy is its value (Rewrite replaces it).
    if (inst->opcode() == spv::Op::OpPhi && TrivialPhi(context, inst) != 0) continue;
    bool escapes = false;
    context->get_def_use_mgr()->ForEachUser(inst, [&](Instruction* user) {
      if (!removed.count(user)) escapes = true;
    });
    if (escapes) {
      *where = const_cast<Instruction*>(inst);
      *why =
          "a value computed in the tree is used after it (recompute it after "
          "the tree)";
      return Reason::kValueEscapesTree;
    }
  }
  if (merge_->begin()->opcode() == spv::Op::OpPhi) {
    *why = "a value computed in the tree is used after it";
    return Reason::kValueEscapesTree;
  }
  // The kept original's side and the new code meet after the loop's merge,
  // which therefore must not start another loop's continue construct.
  for (BasicBlock& b : *func_) {
    const Instruction* m = b.GetLoopMergeInst();
    if (spec_id_ >= 0 && m != nullptr && m->GetSingleWordInOperand(1) == merge_->id()) {
      *why =
          "the tree's loop exits into an outer loop's continue block, where the "
          "original cannot stay beside the rewrite (put code after the tree)";
      return Reason::kUnsupportedControlFlow;
    }
  }
  if (float_key_ && half_ < 4 && !pass_->params_.always) {
    *why = "the tree has fewer than 4 barriers; the float pair form keeps 3";
    return Reason::kNotProfitable;
  }
  if (pass_->config().emit_hlsl) {
    *why =
        "the output is HLSL, and the pair tree's slots need SubgroupId and "
        "NumSubgroups, which HLSL does not have: emit SPIR-V or GLSL";
    return Reason::kNotExpressibleInHlsl;
  }
  return Reason::kNone;
}

std::string PairTree::Describe() const {
  uint32_t steps = 0;
  for (uint64_t s = half_; s > 0; s >>= 1) ++steps;
  const std::string ties = tie_ == Tie::kIndex ? std::string("ties go to the ") +
                                                     (index_min_ ? "lowest" : "highest") + " index"
                           : tie_ == Tie::kKeep ? "ties keep the element already there"
                                                : "ties take the other element";
  return std::string("an arg-") + (key_max_ ? "max" : "min") + " pair tree over " +
         pass_->NameOf(var_[0]) + " and " + pass_->NameOf(var_[1]) + " (" + std::to_string(steps) +
         " steps, " + std::to_string(steps + 1) + " barriers; " +
         (float_key_ ? "float keys, " : "") + ties +
         (bound_ != 0 ? "; elements from a uniform bound on take no part" : "") + ") becomes " +
         (float_key_ ? "a NaN test of " + std::to_string(steps + 1) +
                           " elements per invocation, one shared slot per subgroup "
                           "and 3 barriers"
                     : std::string("one shared slot per subgroup and one barrier")) +
         (Ranked() ? " (the slots hold the tree's priority too)" : "") +
         (spec_id_ >= 0 ? "; other workgroup sizes than constant " + std::to_string(spec_id_) +
                              " = " + std::to_string(spec_value_) + " keep the original"
                        : "");
}

// ---------------------------------------------------------------------------
// Rewrite.

uint32_t PairTree::EmitKeyIdentity(Emitter* e) {
  // The last pair of the order: the smallest value for max, the largest
  // for min.
  uint32_t bits =
      key_max_ ? (signed_[0] ? 0x80000000u : 0u) : (signed_[0] ? 0x7fffffffu : 0xffffffffu);
  if (float_key_) bits = key_max_ ? 0xff800000u : 0x7f800000u;  // -inf, +inf
  return e->Constant(type_[0], {bits});
}

uint32_t PairTree::EmitIndexIdentity(Emitter* e) {
  const uint32_t bits =
      index_min_ ? (signed_[1] ? 0x7fffffffu : 0xffffffffu) : (signed_[1] ? 0x80000000u : 0u);
  return e->Constant(type_[1], {bits});
}

uint32_t PairTree::EmitBetter(Emitter* e, const uint32_t a[3], const uint32_t b[3]) {
  const uint32_t bt = e->BoolType();
  const spv::Op vless = float_key_   ? spv::Op::OpFOrdLessThan
                        : signed_[0] ? spv::Op::OpSLessThan
                                     : spv::Op::OpULessThan;
  const spv::Op iless = signed_[1] ? spv::Op::OpSLessThan : spv::Op::OpULessThan;
  const spv::Op veq = float_key_ ? spv::Op::OpFOrdEqual : spv::Op::OpIEqual;
  const uint32_t wins =
      key_max_ ? e->EmitIds(vless, bt, {a[0], b[0]}) : e->EmitIds(vless, bt, {b[0], a[0]});
  const uint32_t equal = e->EmitIds(veq, bt, {a[0], b[0]});
  uint32_t tie_ok = 0;
  if (tie_ != Tie::kIndex) {
    tie_ok = e->EmitIds(spv::Op::OpULessThan, bt, {b[2], a[2]});
  } else {
    tie_ok = index_min_ ? e->EmitIds(iless, bt, {b[1], a[1]}) : e->EmitIds(iless, bt, {a[1], b[1]});
    if (Ranked()) {
      const uint32_t same = e->EmitIds(spv::Op::OpIEqual, bt, {a[1], b[1]});
      const uint32_t earlier = e->EmitIds(spv::Op::OpULessThan, bt, {b[2], a[2]});
      const uint32_t by_rank = e->EmitIds(spv::Op::OpLogicalAnd, bt, {same, earlier});
      tie_ok = e->EmitIds(spv::Op::OpLogicalOr, bt, {tie_ok, by_rank});
    }
  }
  const uint32_t tie = e->EmitIds(spv::Op::OpLogicalAnd, bt, {equal, tie_ok});
  return e->EmitIds(spv::Op::OpLogicalOr, bt, {wins, tie});
}

uint32_t PairTree::EmitRank(Emitter* e, uint32_t tid) {
  // Equal pairs: the tree keeps the one whose position comes first in
  // bit-reversed order (kTake: last).
  uint32_t bits = 0;
  for (uint64_t n = 2 * half_; n > 1; n >>= 1) ++bits;
  const uint32_t u = e->UIntType(32);
  const uint32_t reversed = e->EmitIds(spv::Op::OpBitReverse, u, {tid});
  const uint32_t rank = e->EmitIds(spv::Op::OpShiftRightLogical, u, {reversed, e->UInt(32 - bits)});
  if (tie_ != Tie::kTake) return rank;
  return e->EmitIds(spv::Op::OpISub, u, {e->UInt(static_cast<uint32_t>(2 * half_ - 1)), rank});
}

uint32_t PairTree::EmitNanDrops(Emitter* e, uint32_t tid, uint32_t x, uint32_t* v0, uint32_t* i0) {
  // Element k reaches the root unless an element k mod 2^j (j = 0 .. log2
  // N) is a NaN: that element's slot keeps its NaN and drops k's side.
  const uint32_t u = e->UIntType(32), bt = e->BoolType();
  const uint32_t p0 = e->EmitIds(spv::Op::OpAccessChain, ptr_[0], {var_[0], e->UInt(0)});
  *v0 = e->EmitIds(spv::Op::OpLoad, type_[0], {p0});
  const uint32_t q0 = e->EmitIds(spv::Op::OpAccessChain, ptr_[1], {var_[1], e->UInt(0)});
  *i0 = e->EmitIds(spv::Op::OpLoad, type_[1], {q0});
  uint32_t dead = e->EmitIds(spv::Op::OpIsNan, bt, {x});
  dead = e->EmitIds(spv::Op::OpLogicalOr, bt, {dead, e->EmitIds(spv::Op::OpIsNan, bt, {*v0})});
  for (uint64_t m = 1; 2 * m < 2 * half_; m *= 2) {
    const uint32_t k =
        e->EmitIds(spv::Op::OpBitwiseAnd, u, {tid, e->UInt(static_cast<uint32_t>(2 * m - 1))});
    const uint32_t p = e->EmitIds(spv::Op::OpAccessChain, ptr_[0], {var_[0], k});
    const uint32_t y = e->EmitIds(spv::Op::OpLoad, type_[0], {p});
    dead = e->EmitIds(spv::Op::OpLogicalOr, bt, {dead, e->EmitIds(spv::Op::OpIsNan, bt, {y})});
  }
  return dead;
}

bool PairTree::EmitSubgroupFirst(Emitter* e, const uint32_t x[3], uint32_t best[3]) {
  const uint32_t u = e->UIntType(32), bt = e->BoolType();
  spv::Op key_op =
      key_max_ ? (signed_[0] ? spv::Op::OpGroupNonUniformSMax : spv::Op::OpGroupNonUniformUMax)
               : (signed_[0] ? spv::Op::OpGroupNonUniformSMin : spv::Op::OpGroupNonUniformUMin);
  if (float_key_) {
    key_op = key_max_ ? spv::Op::OpGroupNonUniformFMax : spv::Op::OpGroupNonUniformFMin;
  }
  const spv::Op index_op =
      index_min_ ? (signed_[1] ? spv::Op::OpGroupNonUniformSMin : spv::Op::OpGroupNonUniformUMin)
                 : (signed_[1] ? spv::Op::OpGroupNonUniformSMax : spv::Op::OpGroupNonUniformUMax);
  // The best key, then (by the index) the first index among the lanes
  // holding it, then (ranked) the first rank among those.
  const uint32_t bv = e->Group(key_op, type_[0], kReduce, {x[0]});
  uint32_t holds =
      e->EmitIds(float_key_ ? spv::Op::OpFOrdEqual : spv::Op::OpIEqual, bt, {x[0], bv});
  best[0] = bv;
  best[1] = best[2] = 0;
  if (tie_ == Tie::kIndex) {
    const uint32_t ci =
        e->EmitIds(spv::Op::OpSelect, type_[1], {holds, x[1], EmitIndexIdentity(e)});
    best[1] = e->Group(index_op, type_[1], kReduce, {ci});
    if (!Ranked()) return e->ok();
    holds = e->EmitIds(spv::Op::OpLogicalAnd, bt,
                       {holds, e->EmitIds(spv::Op::OpIEqual, bt, {x[1], best[1]})});
  }
  const uint32_t last = e->UInt(0xffffffffu);
  const uint32_t cr = e->EmitIds(spv::Op::OpSelect, u, {holds, x[2], last});
  best[2] = e->Group(spv::Op::OpGroupNonUniformUMin, u, kReduce, {cr});
  // The one lane holding the first rank (or only lanes of equal bits)
  // gives its value's and index's bits.
  const uint32_t win = e->EmitIds(spv::Op::OpLogicalAnd, bt,
                                  {holds, e->EmitIds(spv::Op::OpIEqual, bt, {x[2], best[2]})});
  for (int k = 0; k < 2; ++k) {
    const bool is_uint = type_[k] == u;
    const uint32_t bits = is_uint ? x[k] : e->EmitIds(spv::Op::OpBitcast, u, {x[k]});
    const uint32_t mine = e->EmitIds(spv::Op::OpSelect, u, {win, bits, e->UInt(0)});
    const uint32_t got = e->Group(spv::Op::OpGroupNonUniformUMax, u, kReduce, {mine});
    best[k] = is_uint ? got : e->EmitIds(spv::Op::OpBitcast, type_[k], {got});
  }
  return e->ok();
}

bool PairTree::EmitFold(Emitter* e, uint32_t acc[2]) {
  const uint32_t u = e->UIntType(32), bt = e->BoolType();
  const uint32_t count_var = pass_->BuiltInVariable(spv::BuiltIn::NumSubgroups);
  const uint32_t size_var = pass_->BuiltInVariable(spv::BuiltIn::SubgroupSize);
  if (count_var == 0 || size_var == 0) return false;
  // The slots: NumSubgroups, one more where lavapipe rounds it down.
  uint32_t count = e->EmitIds(spv::Op::OpLoad, u, {count_var});
  if (workgroup_ % 128 != 0) {
    const uint32_t size = e->EmitIds(spv::Op::OpLoad, u, {size_var});
    const uint32_t covered = e->EmitIds(spv::Op::OpIMul, u, {count, size});
    const uint32_t short_by_one =
        e->EmitIds(spv::Op::OpULessThan, bt, {covered, e->UInt(static_cast<uint32_t>(workgroup_))});
    const uint32_t extra = e->EmitIds(spv::Op::OpSelect, u, {short_by_one, e->UInt(1), e->UInt(0)});
    count = e->EmitIds(spv::Op::OpIAdd, u, {count, extra});
  }
  const int n = Ranked() ? 3 : 2;
  const uint32_t identity[3] = {EmitKeyIdentity(e), EmitIndexIdentity(e), e->UInt(0xffffffffu)};
  const uint32_t types[3] = {type_[0], type_[1], u};
  Emitter::Loop l = e->PushLoop();
  uint32_t a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
  for (int k = 0; k < n; ++k) a[k] = e->LoopPhi(&l, types[k], identity[k]);
  const uint32_t slot = e->LoopPhi(&l, u, e->UInt(0));
  e->LoopWhile(&l, e->EmitIds(spv::Op::OpULessThan, bt, {slot, count}));
  for (int k = 0; k < n; ++k) {
    const uint32_t p = e->EmitIds(spv::Op::OpAccessChain, ptr_[k], {slots_var_[k], slot});
    b[k] = e->EmitIds(spv::Op::OpLoad, types[k], {p});
  }
  const uint32_t take = EmitBetter(e, a, b);
  std::vector<uint32_t> next;
  for (int k = 0; k < n; ++k) {
    next.push_back(e->EmitIds(spv::Op::OpSelect, types[k], {take, b[k], a[k]}));
  }
  next.push_back(e->EmitIds(spv::Op::OpIAdd, u, {slot, e->UInt(1)}));
  if (!e->PopLoop(&l, next)) return false;
  acc[0] = a[0];
  acc[1] = a[1];
  return e->ok();
}

uint32_t PairTree::DeclareRankSlots(Emitter* e) {
  IRContext* context = pass_->context();
  auto* types = context->get_type_mgr();
  spvtools::opt::analysis::Integer uint_type(32, false);
  const spvtools::opt::analysis::Type* u = types->GetRegisteredType(&uint_type);
  const uint32_t length = e->UInt(static_cast<uint32_t>(workgroup_));
  if (u == nullptr || length == 0) return 0;
  spvtools::opt::analysis::Array array_type(u, {length, {0u, static_cast<uint32_t>(workgroup_)}});
  const uint32_t array = types->GetTypeInstruction(&array_type);
  const uint32_t ptr =
      array == 0 ? 0 : types->FindPointerToType(array, spv::StorageClass::Workgroup);
  const uint32_t var = ptr == 0 ? 0 : context->TakeNextId();
  if (var == 0) return 0;
  context->AddGlobalValue(std::make_unique<Instruction>(
      context, spv::Op::OpVariable, ptr, var,
      std::vector<Operand>{{SPV_OPERAND_TYPE_STORAGE_CLASS,
                            {static_cast<uint32_t>(spv::StorageClass::Workgroup)}}}));
  context->AddDebug2Inst(std::make_unique<Instruction>(
      context, spv::Op::OpName, 0, 0,
      std::vector<Operand>{
          {SPV_OPERAND_TYPE_ID, {var}},
          {SPV_OPERAND_TYPE_LITERAL_STRING, spvtools::utils::MakeVector("pair_rank_slots")}}));
  // Before SPIR-V 1.4 the interface lists Input and Output variables only.
  if (context->module()->version() >= 0x00010400u) {
    pass_->AddToInterface(pass_->entry_point_, var);
  }
  return var;
}

void PairTree::EmitContribution(Emitter* e, uint32_t index_var, uint32_t x[3], uint32_t* v0,
                                uint32_t* i0) {
  const uint32_t u = e->UIntType(32), bt = e->BoolType();
  const uint32_t tid = e->EmitIds(spv::Op::OpLoad, u, {index_var});
  uint32_t in =
      e->EmitIds(spv::Op::OpULessThan, bt, {tid, e->UInt(static_cast<uint32_t>(2 * half_))});
  if (float_key_) {
    const uint32_t dead = EmitNanDrops(e, tid, x[0], v0, i0);
    in = e->EmitIds(spv::Op::OpLogicalAnd, bt, {in, e->EmitIds(spv::Op::OpLogicalNot, bt, {dead})});
  }
  if (bound_ != 0) {
    // Elements from n on never take part; element 0 always does (with
    // n = 0 the tree leaves it as it is, as with n = 1).
    uint32_t n = bound_;
    if (bound_load_ != nullptr) {
      // Loaded in the loop: loaded again here, the same value.
      const Instruction* chain =
          pass_->context()->get_def_use_mgr()->GetDef(bound_load_->GetSingleWordInOperand(0));
      std::vector<Operand> ops;
      for (uint32_t i = 0; i < chain->NumInOperands(); ++i) {
        ops.push_back({SPV_OPERAND_TYPE_ID, {chain->GetSingleWordInOperand(i)}});
      }
      const uint32_t ptr = e->Emit(spv::Op::OpAccessChain, chain->type_id(), ops);
      n = e->EmitIds(spv::Op::OpLoad, bound_load_->type_id(), {ptr});
    }
    const uint32_t below = e->EmitIds(spv::Op::OpULessThan, bt, {tid, n});
    const uint32_t first = e->EmitIds(spv::Op::OpIEqual, bt, {tid, e->UInt(0)});
    in = e->EmitIds(spv::Op::OpLogicalAnd, bt,
                    {in, e->EmitIds(spv::Op::OpLogicalOr, bt, {below, first})});
  }
  if (2 * half_ < workgroup_ || float_key_ || bound_ != 0) {
    // Invocations past the tree's N elements (or dropped) take no part.
    x[0] = e->EmitIds(spv::Op::OpSelect, type_[0], {in, x[0], EmitKeyIdentity(e)});
    x[1] = e->EmitIds(spv::Op::OpSelect, type_[1], {in, x[1], EmitIndexIdentity(e)});
  }
  if (Ranked()) {
    x[2] = e->EmitIds(spv::Op::OpSelect, u, {in, EmitRank(e, tid), e->UInt(0xffffffffu)});
  }
}

bool PairTree::Rewrite() {
  IRContext* context = pass_->context();
  std::vector<Instruction*> copies;
  header_->ForEachPhiInst([&](Instruction* phi) {
    if (TrivialPhi(context, phi) != 0) copies.push_back(phi);
  });
  for (Instruction* phi : copies) {
    context->ReplaceAllUsesWith(phi->result_id(), TrivialPhi(context, phi));
  }
  WorkgroupReducePass& pass = *pass_;
  context->AddCapability(spv::Capability::GroupNonUniform);
  context->AddCapability(spv::Capability::GroupNonUniformArithmetic);
  const uint32_t sg_var = pass.BuiltInVariable(spv::BuiltIn::SubgroupId);
  const uint32_t index_var = pass.BuiltInVariable(spv::BuiltIn::LocalInvocationIndex);
  if (sg_var == 0 || index_var == 0) return false;
  std::vector<Operand> barrier_ops;
  for (uint32_t i = 0; i < barrier_->NumInOperands(); ++i) {
    barrier_ops.push_back(barrier_->GetInOperand(i));
  }
  uint32_t x[3] = {init_[0]->GetSingleWordInOperand(1), init_[1]->GetSingleWordInOperand(1), 0};
  for (int k = 0; k < 2; ++k) {
    ptr_[k] = context->get_type_mgr()->FindPointerToType(type_[k], spv::StorageClass::Workgroup);
    slots_var_[k] = var_[k];
  }
  const bool keep = !spec_values_.empty();
  BasicBlock* pre = context->get_instr_block(barrier_);
  auto split = BasicBlock::iterator(barrier_);
  // Float keys keep S0 and B0: the NaN test reads other invocations' keys.
  // Else S0 goes, or, when the original stays, moves to its side.
  if (float_key_) {
    ++split;
  } else if (keep) {
    for (Instruction* store : init_) {
      store->RemoveFromList();
      barrier_->InsertBefore(std::unique_ptr<Instruction>(store));
    }
    split = BasicBlock::iterator(init_[0]);
  } else {
    context->KillInst(init_[0]);
    context->KillInst(init_[1]);
  }
  Emitter e(context, pre, split);
  BasicBlock* rest = e.SplitHere();
  if (rest == nullptr) return false;
  e.PlaceBlocksBefore(rest);
  const uint32_t u = e.UIntType(32), bt = e.BoolType();
  Emitter::If keep_if;
  if (keep) {
    const uint32_t fast = pass.EmitSpecValuesTest(spec_values_, e.Bool(true), &e);
    if (fast == 0 || ptr_[0] == 0 || ptr_[1] == 0) return false;
    keep_if = e.PushIf(fast, Emitter::Arms::kBoth, nullptr);
  }
  if (Ranked()) {
    slots_var_[2] = DeclareRankSlots(&e);
    ptr_[2] = context->get_type_mgr()->FindPointerToType(u, spv::StorageClass::Workgroup);
  }
  if (ptr_[0] == 0 || ptr_[1] == 0 || (Ranked() && (ptr_[2] == 0 || slots_var_[2] == 0))) {
    return false;
  }
  uint32_t v0 = 0, i0 = 0;
  EmitContribution(&e, index_var, x, &v0, &i0);
  uint32_t best[3];
  if (!EmitSubgroupFirst(&e, x, best)) return false;
  if (float_key_) e.EmitVoid(spv::Op::OpControlBarrier, barrier_ops);
  const uint32_t elect = e.Group(spv::Op::OpGroupNonUniformElect, bt, -1, {});
  Emitter::If write = e.PushIf(elect);
  const uint32_t sg = e.EmitIds(spv::Op::OpLoad, u, {sg_var});
  for (int k = 0; k < (Ranked() ? 3 : 2); ++k) {
    const uint32_t p = e.EmitIds(spv::Op::OpAccessChain, ptr_[k], {slots_var_[k], sg});
    e.EmitVoid(spv::Op::OpStore, {{SPV_OPERAND_TYPE_ID, {p}}, {SPV_OPERAND_TYPE_ID, {best[k]}}});
  }
  if (!e.PopIf(&write)) return false;
  e.EmitVoid(spv::Op::OpControlBarrier, barrier_ops);
  uint32_t result[2];
  if (!EmitFold(&e, result)) return false;
  if (float_key_) {
    // A NaN in element 0 stays there whatever the other elements hold.
    const uint32_t nan0 = e.EmitIds(spv::Op::OpIsNan, bt, {v0});
    result[0] = e.EmitIds(spv::Op::OpSelect, type_[0], {nan0, v0, result[0]});
    result[1] = e.EmitIds(spv::Op::OpSelect, type_[1], {nan0, i0, result[1]});
  }
  if (keep && !KeepOriginal(&e, &keep_if, rest, result)) return false;
  if (!keep) e.Branch(merge_->id());
  if (!e.ok()) return false;
  for (int k = 0; k < 2; ++k) {
    for (Instruction* reader : readers_[k]) {
      context->ReplaceAllUsesWith(reader->result_id(), result[k]);
      context->KillInst(reader);
    }
  }
  if (keep) return true;
  rest->KillAllInsts(true);
  for (BasicBlock* b : loop_blocks_) b->KillAllInsts(true);
  func_->RemoveEmptyBlocks();
  return true;
}

bool PairTree::KeepOriginal(Emitter* e, Emitter::If* keep, BasicBlock* rest, uint32_t result[2]) {
  // The loop's merge (no phis: Analyze) reads the original's result and
  // branches to the code after the tree, where both sides meet.
  IRContext* context = pass_->context();
  Emitter me(context, merge_, merge_->begin());
  BasicBlock* after = me.SplitHere();
  if (after == nullptr) return false;
  uint32_t original[2];
  for (int k = 0; k < 2; ++k) {
    const uint32_t p = me.EmitIds(spv::Op::OpAccessChain, ptr_[k], {var_[k], me.UInt(0)});
    original[k] = me.EmitIds(spv::Op::OpLoad, type_[k], {p});
  }
  me.Branch(after->id());
  if (!me.ok()) return false;
  keep->merge = after;
  e->ElseExisting(keep, rest, merge_);
  if (!e->PopIf(keep)) return false;
  for (int k = 0; k < 2; ++k) result[k] = e->IfPhi(*keep, type_[k], result[k], original[k]);
  return e->ok();
}

}  // namespace waveopt
