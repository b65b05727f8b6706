// workgroup-reduce on (value, index) pairs: see workgroup_reduce_pairs.h
// for the rewrite, docs/design/workgroup-reduce.md ("Pairs") for why it is
// exact.
#include "passes/workgroup_reduce_pairs.h"

#include <functional>
#include <unordered_set>

#include "analysis/int_eval.h"
#include "analysis/loops.h"
#include "passes/emitter.h"
#include "passes/workgroup_reduce_pass.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/ir_context.h"
#include "source/opt/type_manager.h"

namespace waveopt {

using spvtools::opt::BasicBlock;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;
using spvtools::opt::Operand;

namespace {

constexpr int kReduce = static_cast<int>(spv::GroupOperation::Reduce);

// The BuiltIn decoration of variable |id|, or Max.
spv::BuiltIn BuiltInOf(IRContext* context, uint32_t id) {
  for (Instruction* dec : context->get_decoration_mgr()->GetDecorationsFor(id, false)) {
    if (dec->opcode() == spv::Op::OpDecorate &&
        spv::Decoration(dec->GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn) {
      return spv::BuiltIn(dec->GetSingleWordInOperand(2));
    }
  }
  return spv::BuiltIn::Max;
}

bool IsIntConst(IRContext* context, uint32_t id, uint64_t value) {
  uint64_t v = 0;
  const Instruction* def = context->get_def_use_mgr()->GetDef(id);
  return def != nullptr && IntConstant(context, def, &v) && v == value;
}

// Whether |op| accesses memory other than by a plain load or store, or
// has another effect an invocation's neighbours can see.
bool HasOtherEffect(spv::Op op) {
  return spvOpcodeIsAtomicOp(op) || op == spv::Op::OpMemoryBarrier ||
         op == spv::Op::OpImageWrite || op == spv::Op::OpCopyMemory ||
         op == spv::Op::OpCopyMemorySized || op == spv::Op::OpFunctionCall ||
         op == spv::Op::OpKill || op == spv::Op::OpTerminateInvocation ||
         op == spv::Op::OpReturn || op == spv::Op::OpReturnValue ||
         op == spv::Op::OpUnreachable || op == spv::Op::OpEmitVertex ||
         spvOpcodeIsNonUniformGroupOperation(op);
}

bool Less(uint64_t a, uint64_t b, bool is_signed) {
  if (is_signed) return SignExtend(a, 32) < SignExtend(b, 32);
  return MaskTo(a, 32) < MaskTo(b, 32);
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
    if (op == spv::Op::OpCompositeExtract && def->NumInOperands() == 2 &&
        def->GetSingleWordInOperand(1) == 0) {
      const Instruction* load = context->get_def_use_mgr()->GetDef(def->GetSingleWordInOperand(0));
      return load != nullptr && load->opcode() == spv::Op::OpLoad &&
             BuiltInOf(context, load->GetSingleWordInOperand(0)) ==
                 spv::BuiltIn::LocalInvocationId;
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
  if (chain == nullptr || (chain->opcode() != spv::Op::OpAccessChain &&
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
  if ((IsT(a) && b == s_) || (IsT(b) && a == s_)) return array * 2 + 1;
  return -1;
}

std::string PairTree::FindLoop(std::string* why) {
  IRContext* context = pass_->context();
  const std::string shape =
      "the steps are not one loop right after the barrier, `for (uint s = N / 2; "
      "s > 0; s >>= 1) { if (t < s && ...) {...} barrier(); }` (write them so)";
  BasicBlock* block = context->get_instr_block(barrier_);
  Instruction* term = block->terminator();
  if (term->opcode() != spv::Op::OpBranch) return *why = shape, "PairTreeShape";
  header_ = context->get_instr_block(term->GetSingleWordInOperand(0));
  Instruction* loop_merge = header_->GetLoopMergeInst();
  if (loop_merge == nullptr) return *why = shape, "PairTreeShape";
  merge_ = context->get_instr_block(loop_merge->GetSingleWordInOperand(0));
  // One phi, s: N / 2 from before the loop, s >> 1 along the back edge.
  int phis = 0;
  header_->ForEachPhiInst([&](Instruction* phi) {
    ++phis;
    s_ = phi->result_id();
  });
  if (phis != 1) return *why = shape, "PairTreeShape";
  const Instruction* phi = context->get_def_use_mgr()->GetDef(s_);
  if (phi->NumInOperands() != 4) return *why = shape, "PairTreeShape";
  // (value, block) twice: the value from before the loop first or second.
  const int from = phi->GetSingleWordInOperand(1) == block->id()   ? 0
                   : phi->GetSingleWordInOperand(3) == block->id() ? 2
                                                                   : -1;
  if (from < 0) return *why = shape, "PairTreeShape";
  const Instruction* init = context->get_def_use_mgr()->GetDef(phi->GetSingleWordInOperand(from));
  const Instruction* next = context->get_def_use_mgr()->GetDef(phi->GetSingleWordInOperand(from ^ 2));
  uint64_t half = 0;
  if (init == nullptr || !IntConstant(context, init, &half) || half == 0 ||
      (half & (half - 1)) != 0 || half > 512 || next == nullptr ||
      next->NumInOperands() != 2 || next->GetSingleWordInOperand(0) != s_) {
    return *why = shape, "PairTreeShape";
  }
  const spv::Op nop = next->opcode();
  const uint32_t amount = next->GetSingleWordInOperand(1);
  const bool halves =
      ((nop == spv::Op::OpShiftRightLogical || nop == spv::Op::OpShiftRightArithmetic) &&
       IsIntConst(context, amount, 1)) ||
      ((nop == spv::Op::OpUDiv || nop == spv::Op::OpSDiv) && IsIntConst(context, amount, 2));
  if (!halves) return *why = shape, "PairTreeShape";
  half_ = half;
  // The exit test s > 0 (or s != 0), in the header or the block after it.
  test_ = header_;
  if (test_->terminator()->opcode() == spv::Op::OpBranch) {
    test_ = context->get_instr_block(test_->terminator()->GetSingleWordInOperand(0));
  }
  Instruction* br = test_->terminator();
  if (br->opcode() != spv::Op::OpBranchConditional ||
      br->GetSingleWordInOperand(2) != merge_->id()) {
    return *why = shape, "PairTreeShape";
  }
  const Instruction* cond = context->get_def_use_mgr()->GetDef(br->GetSingleWordInOperand(0));
  const spv::Op cop = cond->opcode();
  if ((cop != spv::Op::OpUGreaterThan && cop != spv::Op::OpSGreaterThan &&
       cop != spv::Op::OpINotEqual) ||
      cond->GetSingleWordInOperand(0) != s_ ||
      !IsIntConst(context, cond->GetSingleWordInOperand(1), 0)) {
    return *why = shape, "PairTreeShape";
  }
  body_ = context->get_instr_block(br->GetSingleWordInOperand(1));
  // The loop's blocks: those the header dominates and the merge does not.
  spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(func_);
  for (BasicBlock& b : *func_) {
    if (dom->Dominates(header_, &b) && !dom->Dominates(merge_, &b)) {
      loop_blocks_.push_back(&b);
    }
  }
  return "";
}

std::string PairTree::CheckBody(std::string* why, Instruction** where) {
  IRContext* context = pass_->context();
  spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(func_);
  std::vector<Instruction*> stores, loads;
  Instruction* step_barrier = nullptr;
  const uint32_t latch = header_->GetLoopMergeInst()->GetSingleWordInOperand(1);
  for (BasicBlock* b : loop_blocks_) {
    bool leaves = false;
    b->ForEachSuccessorLabel([&](uint32_t succ) {
      if ((succ == merge_->id() && b != test_) ||
          (succ == header_->id() && b->id() != latch)) {
        leaves = true;
      }
    });
    for (Instruction& inst : *b) {
      const spv::Op op = inst.opcode();
      if ((op == spv::Op::OpLoopMerge && b != header_) || leaves) {
        *where = &inst;
        *why = "the step has a loop, a break or a continue in it (write it as "
               "one if and one barrier)";
        return "PairTreeShape";
      }
      if (op == spv::Op::OpControlBarrier) {
        if (step_barrier != nullptr) {
          *where = &inst;
          *why = "a step has more than one barrier (keep one, after the if)";
          return "PairTreeShape";
        }
        step_barrier = &inst;
        continue;
      }
      if (HasOtherEffect(op)) {
        *where = &inst;
        *why = "the code between the tree's barriers does more than the tree "
               "(move that work before or after it)";
        return "OtherWorkInTree";
      }
      if (op != spv::Op::OpLoad && op != spv::Op::OpStore) continue;
      Instruction* root = RootVariable(context, inst.GetSingleWordInOperand(0));
      const spv::StorageClass sc =
          root == nullptr ? spv::StorageClass::Max
                          : spv::StorageClass(root->GetSingleWordInOperand(0));
      if (op == spv::Op::OpStore && sc != spv::StorageClass::Workgroup) {
        if (sc == spv::StorageClass::Function) continue;
        *where = &inst;
        *why = "the code between the tree's barriers writes other memory (move "
               "that work before or after the tree)";
        return "OtherWorkInTree";
      }
      if (sc == spv::StorageClass::Workgroup) {
        (op == spv::Op::OpStore ? stores : loads).push_back(&inst);
      }
    }
  }
  if (step_barrier == nullptr) {
    *why = "a step has no barrier (the original races: add one after the if)";
    return "RaceInTree";
  }
  barrier_block_ = context->get_instr_block(step_barrier);
  if (!dom->Dominates(barrier_block_->id(), latch)) {
    *where = step_barrier;
    *why = "the step's barrier does not run in every step (put it after the if)";
    return "NonUniformBarriers";
  }
  const std::string pair_why =
      "a step must copy both elements t + s of two shared arrays of scalars "
      "into elements t (`v[t] = v[t + s]; i[t] = i[t + s];`) in one block, "
      "and only those";
  if (stores.size() != 2) return *why = pair_why, "PairTreeShape";
  store_block_ = context->get_instr_block(stores[0]);
  for (int k = 0; k < 2; ++k) {
    var_[k] = RootVariable(context, stores[k]->GetSingleWordInOperand(0))->result_id();
  }
  if (var_[0] == var_[1] || context->get_instr_block(stores[1]) != store_block_) {
    return *why = pair_why, "PairTreeShape";
  }
  for (int k = 0; k < 2; ++k) {
    const Instruction* value =
        context->get_def_use_mgr()->GetDef(stores[k]->GetSingleWordInOperand(1));
    if (Role(stores[k]->GetSingleWordInOperand(0)) != 2 * k ||
        value->opcode() != spv::Op::OpLoad ||
        Role(value->GetSingleWordInOperand(0)) != 2 * k + 1) {
      *where = stores[k];
      return *why = pair_why, "PairTreeShape";
    }
  }
  for (Instruction* inst : loads) {
    const uint32_t root = RootVariable(context, inst->GetSingleWordInOperand(0))->result_id();
    if (root != var_[0] && root != var_[1]) continue;
    if (Role(inst->GetSingleWordInOperand(0)) < 0) {
      *where = inst;
      *why = "a step reads an element other than t and t + s of the arrays";
      return "PairTreeShape";
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
      return "PairTreeShape";
    }
  }
  if (store_block_ == barrier_block_ || dom->Dominates(barrier_block_, store_block_)) {
    return *why = pair_why, "PairTreeShape";
  }
  return "";
}

int PairTree::Evaluate(const uint64_t roles[4], uint64_t t, uint64_t s) const {
  IRContext* context = pass_->context();
  auto* def_use = context->get_def_use_mgr();
  std::unordered_map<uint32_t, uint64_t> val;
  // The value of |id| (an integer or boolean); false when unknown.
  std::function<bool(uint32_t, uint64_t*, int)> get = [&](uint32_t id, uint64_t* out,
                                                          int depth) {
    auto found = val.find(id);
    if (found != val.end()) return *out = found->second, true;
    if (depth > 32) return false;
    if (id == s_) return *out = s, true;
    if (IsT(id)) return *out = t, true;
    const Instruction* def = def_use->GetDef(id);
    if (def == nullptr) return false;
    uint64_t c = 0;
    if (def->opcode() == spv::Op::OpConstantTrue) return *out = 1, true;
    if (def->opcode() == spv::Op::OpConstantFalse) return *out = 0, true;
    if (IntConstant(context, def, &c)) return *out = MaskTo(c, 32), true;
    if (def->opcode() == spv::Op::OpLoad) {
      const int role = Role(def->GetSingleWordInOperand(0));
      if (role < 0) return false;
      return *out = roles[role], true;
    }
    if (def->opcode() == spv::Op::OpPhi) return false;  // set on entry
    const Instruction* type = def_use->GetDef(def->type_id());
    if (type == nullptr) return false;
    const uint32_t width = type->opcode() == spv::Op::OpTypeBool ? 1
                           : type->opcode() == spv::Op::OpTypeInt
                               ? type->GetSingleWordInOperand(0)
                               : 0;
    if (width != 1 && width != 32) return false;
    uint64_t x[4] = {0, 0, 0, 0};
    if (def->opcode() == spv::Op::OpSelect || def->opcode() == spv::Op::OpCopyObject) {
      for (uint32_t i = 0; i < def->NumInOperands(); ++i) {
        if (!get(def->GetSingleWordInOperand(i), &x[i], depth + 1)) return false;
      }
      *out = def->opcode() == spv::Op::OpCopyObject ? x[0] : (x[0] & 1) ? x[1] : x[2];
      val[id] = *out;
      return true;
    }
    const IntOp* op = FindIntOp(def->opcode());
    if (op == nullptr || def->NumInOperands() != op->arity) return false;
    for (uint32_t i = 0; i < op->arity; ++i) {
      if (!get(def->GetSingleWordInOperand(i), &x[i], depth + 1)) return false;
    }
    const uint32_t operand_width = op->logical ? 1 : 32;
    if (!FoldInt(*op, x, operand_width, width, out)) return false;
    val[id] = *out;
    return true;
  };
  BasicBlock* block = body_;
  BasicBlock* pred = nullptr;
  for (int guard = 0; guard < 64; ++guard) {
    if (block == store_block_) return 1;
    if (block == barrier_block_) return 0;
    bool ok = true;
    block->ForEachPhiInst([&](Instruction* phi) {
      uint64_t v = 0;
      for (uint32_t i = 0; ok && i + 1 < phi->NumInOperands(); i += 2) {
        if (pred != nullptr && phi->GetSingleWordInOperand(i + 1) == pred->id()) {
          ok = get(phi->GetSingleWordInOperand(i), &v, 0);
          val[phi->result_id()] = v;
          return;
        }
      }
      ok = false;
    });
    if (!ok) return -1;
    Instruction* term = block->terminator();
    uint32_t target = 0;
    if (term->opcode() == spv::Op::OpBranch) {
      target = term->GetSingleWordInOperand(0);
    } else if (term->opcode() == spv::Op::OpBranchConditional) {
      uint64_t c = 0;
      if (!get(term->GetSingleWordInOperand(0), &c, 0)) return -1;
      target = term->GetSingleWordInOperand((c & 1) ? 1 : 2);
    } else {
      return -1;
    }
    pred = block;
    block = context->get_instr_block(target);
    if (block == nullptr || block == header_ || block == merge_) return -1;
  }
  return -1;
}

std::string PairTree::CheckCondition(std::string* why) {
  // Orderings of two values: equal, and either larger, in both readings.
  static const uint64_t kValues[3] = {0xffffffffu, 0, 1};
  struct Case {
    uint64_t t, s;
    int k;  // the four values, base 3: v[t], v[t + s], i[t], i[t + s]
  };
  auto cases_for = [](uint64_t s_from, uint64_t s_to, uint64_t t_end) {
    std::vector<Case> out;
    for (uint64_t s = s_from; s >= s_to && s > 0; s >>= 1) {
      for (uint64_t t = 0; t < t_end; ++t) {
        for (int k = 0; k < 81; ++k) out.push_back({t, s, k});
      }
    }
    return out;
  };
  // A few to choose the hypothesis, then every t and s the tree runs.
  const std::vector<Case> few = cases_for(2, 1, 3);
  const std::vector<Case> all = cases_for(half_, 1, workgroup_);
  // Whether the step's condition is "t < s && |expect|" in every case
  // (the first array the index one when |swap|).
  auto check = [&](const std::vector<Case>& cases, bool swap,
                   const std::function<bool(const uint64_t*)>& expect) {
    for (const Case& c : cases) {
      const uint64_t key_first[4] = {kValues[c.k % 3], kValues[c.k / 3 % 3],
                                     kValues[c.k / 9 % 3], kValues[c.k / 27]};
      uint64_t r[4] = {key_first[0], key_first[1], key_first[2], key_first[3]};
      if (swap) r[0] = key_first[2], r[1] = key_first[3], r[2] = key_first[0], r[3] = key_first[1];
      const int got = Evaluate(r, c.t, c.s);
      if (got < 0 || (got == 1) != (c.t < c.s && expect(key_first))) return false;
    }
    return true;
  };
  auto matches = [&](bool swap, const std::function<bool(const uint64_t*)>& expect) {
    return check(few, swap, expect) && check(all, swap, expect);
  };
  for (int h = 0; h < 32; ++h) {
    const bool swap = h & 1, key_max = h & 2, index_min = h & 4, ks = h & 8, is = h & 16;
    auto better = [=](uint64_t a, uint64_t b) { return key_max ? Less(b, a, ks) : Less(a, b, ks); };
    auto first = [=](uint64_t a, uint64_t b) { return index_min ? Less(a, b, is) : Less(b, a, is); };
    if (matches(swap, [&](const uint64_t* r) {
          return better(r[1], r[0]) || (r[1] == r[0] && first(r[3], r[2]));
        })) {
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
      return "";
    }
  }
  for (int h = 0; h < 16; ++h) {
    const bool swap = h & 1, key_max = h & 2, ks = h & 4, or_equal = h & 8;
    auto better = [=](uint64_t a, uint64_t b) { return key_max ? Less(b, a, ks) : Less(a, b, ks); };
    if (matches(swap, [&](const uint64_t* r) {
          return better(r[1], r[0]) || (or_equal && r[1] == r[0]);
        })) {
      *why = std::string("among equal values the step ") +
             (or_equal ? "takes the other element" : "keeps the element already there") +
             ", so which index wins depends on the tree's shape; break ties by "
             "the index: `|| (v[t + s] == v[t] && i[t + s] < i[t])`";
      return "PairTieOrder";
    }
  }
  *why = "the step's condition is not `t < s && (v[t + s] > v[t] || (v[t + s] == "
         "v[t] && i[t + s] < i[t]))` (or with <, or >, for min or the highest "
         "index): write it so";
  return "PairCondition";
}

std::string PairTree::CheckSize(std::string* why) {
  IRContext* context = pass_->context();
  uint32_t size[3] = {0, 0, 0};
  for (Instruction& mode : context->module()->execution_modes()) {
    if (mode.GetSingleWordInOperand(0) == func_->result_id() &&
        spv::ExecutionMode(mode.GetSingleWordInOperand(1)) == spv::ExecutionMode::LocalSize) {
      for (uint32_t k = 0; k < 3; ++k) size[k] = mode.GetSingleWordInOperand(2 + k);
    }
  }
  for (Instruction& inst : context->annotations()) {
    if (inst.opcode() == spv::Op::OpDecorate &&
        spv::Decoration(inst.GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn &&
        spv::BuiltIn(inst.GetSingleWordInOperand(2)) == spv::BuiltIn::WorkgroupSize) {
      // It overrides LocalSize: constants, or a specialization constant.
      const Instruction* c = context->get_def_use_mgr()->GetDef(inst.GetSingleWordInOperand(0));
      for (uint32_t k = 0; k < 3; ++k) {
        uint64_t v = 0;
        const Instruction* d = c->opcode() == spv::Op::OpConstantComposite
            ? context->get_def_use_mgr()->GetDef(c->GetSingleWordInOperand(k)) : nullptr;
        size[k] = d != nullptr && IntConstant(context, d, &v) ? static_cast<uint32_t>(v) : 0;
      }
    }
  }
  if (size[0] == 0 || size[1] != 1 || size[2] != 1) {
    *why = "a pair tree needs a literal one-dimensional workgroup size "
           "(layout(local_size_x = N) in)";
    return "UnknownWorkgroupSize";
  }
  workgroup_ = size[0];
  for (int k = 0; k < 2; ++k) {
    const Instruction* var = context->get_def_use_mgr()->GetDef(var_[k]);
    const Instruction* ptr = context->get_def_use_mgr()->GetDef(var->type_id());
    const Instruction* array = context->get_def_use_mgr()->GetDef(ptr->GetSingleWordInOperand(1));
    const Instruction* elem = array->opcode() == spv::Op::OpTypeArray
        ? context->get_def_use_mgr()->GetDef(array->GetSingleWordInOperand(0)) : nullptr;
    const Instruction* len = array->opcode() == spv::Op::OpTypeArray
        ? context->get_def_use_mgr()->GetDef(array->GetSingleWordInOperand(1)) : nullptr;
    if (elem == nullptr || elem->opcode() == spv::Op::OpTypeFloat) {
      *why = "the keys are floats: a NaN neither wins nor loses a comparison, so "
             "the elements it stops depend on the tree's shape; compare integer "
             "keys (floatBitsToInt(x) ^ ((floatBitsToInt(x) >> 31) & 0x7fffffff) "
             "orders every float)";
      return "PairFloatKey";
    }
    if (elem->opcode() != spv::Op::OpTypeInt || elem->GetSingleWordInOperand(0) != 32 ||
        len == nullptr || !IntConstant(context, len, &length_[k])) {
      *why = "the arrays' elements are not 32-bit integers, or their length is "
             "not a constant";
      return "UnsupportedType";
    }
    type_[k] = elem->result_id();
  }
  if (2 * half_ > workgroup_ || length_[0] < workgroup_ || length_[1] < workgroup_) {
    *why = "the tree covers more elements than there are invocations, or an "
           "array has fewer elements than invocations (the slots need one per "
           "subgroup): size both to the workgroup";
    return "TooFewSlots";
  }
  return "";
}

std::string PairTree::FindInitAndReaders(std::string* why, Instruction** where) {
  IRContext* context = pass_->context();
  BasicBlock* block = context->get_instr_block(barrier_);
  for (auto it = BasicBlock::iterator(barrier_); it != block->begin();) {
    --it;
    const spv::Op op = it->opcode();
    if (op == spv::Op::OpControlBarrier || HasOtherEffect(op)) break;
    if (op != spv::Op::OpStore && op != spv::Op::OpLoad) continue;
    Instruction* root = RootVariable(context, it->GetSingleWordInOperand(0));
    const int k = root == nullptr ? -1 : root->result_id() == var_[0] ? 0
                                       : root->result_id() == var_[1] ? 1 : -1;
    if (k < 0) continue;
    if (op == spv::Op::OpLoad || init_[k] != nullptr) break;
    if (Role(it->GetSingleWordInOperand(0)) == 2 * k) init_[k] = &*it;
  }
  if (init_[0] == nullptr || init_[1] == nullptr) {
    *why = "each invocation must store its value and its index into its own "
           "elements (v[t], i[t]) right before the barrier";
    return "PairTreeShape";
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
        const Instruction* chain = inst.opcode() == spv::Op::OpLoad
            ? context->get_def_use_mgr()->GetDef(inst.GetSingleWordInOperand(0)) : nullptr;
        const bool reader = chain != nullptr && &f == func_ &&
                            chain->opcode() == spv::Op::OpAccessChain &&
                            chain->NumInOperands() == 2 &&
                            IsIntConst(context, chain->GetSingleWordInOperand(1), 0) &&
                            dom->Dominates(merge_, &b);
        if (!reader) {
          *where = &inst;
          *why = "the arrays are accessed outside the tree other than by reading "
                 "element 0 after it (read only the result, v[0] and i[0])";
          return "ReadsPartialValue";
        }
        readers_[chain->GetSingleWordInOperand(0) == var_[0] ? 0 : 1].push_back(&inst);
      }
    }
  }
  if (readers_[0].empty() && readers_[1].empty()) {
    *why = "nothing reads the tree's result";
    return "NoReader";
  }
  return "";
}

std::string PairTree::Analyze(std::string* why, Instruction** where) {
  *where = barrier_;
  std::string reason = FindLoop(why);
  if (reason.empty()) reason = CheckBody(why, where);
  if (reason.empty()) reason = CheckSize(why);
  if (reason.empty()) reason = CheckCondition(why);
  if (reason.empty()) reason = FindInitAndReaders(why, where);
  if (!reason.empty()) return reason;
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
    bool escapes = false;
    context->get_def_use_mgr()->ForEachUser(inst, [&](Instruction* user) {
      if (!removed.count(user)) escapes = true;
    });
    if (escapes) {
      *where = const_cast<Instruction*>(inst);
      *why = "a value computed in the tree is used after it (recompute it after "
             "the tree)";
      return "ValueEscapesTree";
    }
  }
  if (merge_->begin()->opcode() == spv::Op::OpPhi) {
    *why = "a value computed in the tree is used after it";
    return "ValueEscapesTree";
  }
  if (pass_->config().emit_hlsl) {
    *why = "the output is HLSL, and the pair tree's slots need SubgroupId and "
           "NumSubgroups, which HLSL does not have: emit SPIR-V or GLSL";
    return "NotExpressibleInHlsl";
  }
  return "";
}

std::string PairTree::Describe() const {
  uint32_t steps = 0;
  for (uint64_t s = half_; s > 0; s >>= 1) ++steps;
  return std::string("an arg-") + (key_max_ ? "max" : "min") + " pair tree over " +
         pass_->NameOf(var_[0]) + " and " + pass_->NameOf(var_[1]) + " (" +
         std::to_string(steps) + " steps, " + std::to_string(steps + 1) +
         " barriers; ties go to the " + (index_min_ ? "lowest" : "highest") +
         " index) becomes one shared slot pair per subgroup and one barrier";
}

// ---------------------------------------------------------------------------
// Rewrite.

uint32_t PairTree::EmitKeyIdentity(Emitter* e) {
  // The last pair of the order: the smallest value for max, the largest
  // for min.
  const uint32_t bits = key_max_ ? (signed_[0] ? 0x80000000u : 0u)
                                 : (signed_[0] ? 0x7fffffffu : 0xffffffffu);
  return e->Constant(type_[0], {bits});
}

uint32_t PairTree::EmitIndexIdentity(Emitter* e) {
  const uint32_t bits = index_min_ ? (signed_[1] ? 0x7fffffffu : 0xffffffffu)
                                   : (signed_[1] ? 0x80000000u : 0u);
  return e->Constant(type_[1], {bits});
}

bool PairTree::EmitBetter(Emitter* e, uint32_t va, uint32_t ia, uint32_t vb,
                          uint32_t ib, uint32_t* better) {
  // (vb, ib) strictly before (va, ia): the step's own comparison.
  const uint32_t b = e->BoolType();
  const spv::Op vless = signed_[0] ? spv::Op::OpSLessThan : spv::Op::OpULessThan;
  const spv::Op iless = signed_[1] ? spv::Op::OpSLessThan : spv::Op::OpULessThan;
  const uint32_t wins = key_max_ ? e->EmitIds(vless, b, {va, vb}) : e->EmitIds(vless, b, {vb, va});
  const uint32_t equal = e->EmitIds(spv::Op::OpIEqual, b, {va, vb});
  const uint32_t first = index_min_ ? e->EmitIds(iless, b, {ib, ia}) : e->EmitIds(iless, b, {ia, ib});
  const uint32_t tie = e->EmitIds(spv::Op::OpLogicalAnd, b, {equal, first});
  *better = e->EmitIds(spv::Op::OpLogicalOr, b, {wins, tie});
  return e->ok();
}

bool PairTree::Rewrite() {
  IRContext* context = pass_->context();
  WorkgroupReducePass& pass = *pass_;
  context->AddCapability(spv::Capability::GroupNonUniform);
  context->AddCapability(spv::Capability::GroupNonUniformArithmetic);
  if (pass.params_.mutate == "pair-tie-flip") index_min_ = !index_min_;
  uint32_t ptr[2];
  for (int k = 0; k < 2; ++k) {
    ptr[k] = context->get_type_mgr()->FindPointerToType(type_[k], spv::StorageClass::Workgroup);
    if (ptr[k] == 0) return false;
  }
  const uint32_t sg_var = pass.BuiltInVariable(spv::BuiltIn::SubgroupId, "gl_SubgroupID");
  const uint32_t count_var = pass.BuiltInVariable(spv::BuiltIn::NumSubgroups, "gl_NumSubgroups");
  const uint32_t size_var = pass.BuiltInVariable(spv::BuiltIn::SubgroupSize, "gl_SubgroupSize");
  const uint32_t index_var = pass.BuiltInVariable(spv::BuiltIn::LocalInvocationIndex,
                                                  "gl_LocalInvocationIndex");
  if (sg_var == 0 || count_var == 0 || size_var == 0 || index_var == 0) return false;
  std::vector<Operand> barrier_ops;
  for (uint32_t i = 0; i < barrier_->NumInOperands(); ++i) {
    barrier_ops.push_back(barrier_->GetInOperand(i));
  }
  uint32_t x[2] = {init_[0]->GetSingleWordInOperand(1), init_[1]->GetSingleWordInOperand(1)};
  context->KillInst(init_[0]);
  context->KillInst(init_[1]);
  BasicBlock* pre = context->get_instr_block(barrier_);
  const uint32_t rest_id = context->TakeNextId();
  if (rest_id == 0) return false;
  BasicBlock* rest = pre->SplitBasicBlock(context, rest_id, BasicBlock::iterator(barrier_));
  Emitter e(context, pre);
  e.PlaceBlocksBefore(rest);
  const uint32_t uint_type = e.UIntType(32), bool_type = e.BoolType();
  const uint32_t key_id = EmitKeyIdentity(&e), index_id = EmitIndexIdentity(&e);
  if (2 * half_ < workgroup_) {
    // Invocations past the tree's N elements take no part.
    const uint32_t tid = e.EmitIds(spv::Op::OpLoad, uint_type, {index_var});
    const uint32_t in = e.EmitIds(spv::Op::OpULessThan, bool_type,
                                  {tid, e.UInt(static_cast<uint32_t>(2 * half_))});
    x[0] = e.EmitIds(spv::Op::OpSelect, type_[0], {in, x[0], key_id});
    x[1] = e.EmitIds(spv::Op::OpSelect, type_[1], {in, x[1], index_id});
  }
  // The subgroup's first pair: its best value, then the first index of
  // the lanes holding it.
  const spv::Op key_op = key_max_ ? (signed_[0] ? spv::Op::OpGroupNonUniformSMax
                                                : spv::Op::OpGroupNonUniformUMax)
                                  : (signed_[0] ? spv::Op::OpGroupNonUniformSMin
                                                : spv::Op::OpGroupNonUniformUMin);
  const spv::Op index_op = index_min_ ? (signed_[1] ? spv::Op::OpGroupNonUniformSMin
                                                    : spv::Op::OpGroupNonUniformUMin)
                                      : (signed_[1] ? spv::Op::OpGroupNonUniformSMax
                                                    : spv::Op::OpGroupNonUniformUMax);
  const uint32_t bv = e.Group(key_op, type_[0], kReduce, {x[0]});
  const uint32_t holds = e.EmitIds(spv::Op::OpIEqual, bool_type, {x[0], bv});
  const uint32_t ci = e.EmitIds(spv::Op::OpSelect, type_[1], {holds, x[1], index_id});
  const uint32_t bi = e.Group(index_op, type_[1], kReduce, {ci});
  const uint32_t elect = e.Group(spv::Op::OpGroupNonUniformElect, bool_type, -1, {});
  Emitter::If write = e.PushIf(elect);
  const uint32_t sg = e.EmitIds(spv::Op::OpLoad, uint_type, {sg_var});
  const uint32_t best[2] = {bv, bi};
  for (int k = 0; k < 2; ++k) {
    const uint32_t p = e.EmitIds(spv::Op::OpAccessChain, ptr[k], {var_[k], sg});
    e.EmitVoid(spv::Op::OpStore, {{SPV_OPERAND_TYPE_ID, {p}}, {SPV_OPERAND_TYPE_ID, {best[k]}}});
  }
  if (!e.PopIf(&write)) return false;
  e.EmitVoid(spv::Op::OpControlBarrier, barrier_ops);
  // The slots: NumSubgroups, one more where lavapipe rounds it down.
  uint32_t count = e.EmitIds(spv::Op::OpLoad, uint_type, {count_var});
  if (workgroup_ % 128 != 0) {
    const uint32_t size = e.EmitIds(spv::Op::OpLoad, uint_type, {size_var});
    const uint32_t covered = e.EmitIds(spv::Op::OpIMul, uint_type, {count, size});
    const uint32_t short_by_one = e.EmitIds(
        spv::Op::OpULessThan, bool_type, {covered, e.UInt(static_cast<uint32_t>(workgroup_))});
    const uint32_t extra =
        e.EmitIds(spv::Op::OpSelect, uint_type, {short_by_one, e.UInt(1), e.UInt(0)});
    count = e.EmitIds(spv::Op::OpIAdd, uint_type, {count, extra});
  }
  Emitter::Loop l = e.PushLoop();
  const uint32_t acc_v = e.LoopPhi(&l, type_[0], key_id);
  const uint32_t acc_i = e.LoopPhi(&l, type_[1], index_id);
  const uint32_t slot = e.LoopPhi(&l, uint_type, e.UInt(0));
  e.LoopWhile(&l, e.EmitIds(spv::Op::OpULessThan, bool_type, {slot, count}));
  uint32_t got[2];
  for (int k = 0; k < 2; ++k) {
    const uint32_t p = e.EmitIds(spv::Op::OpAccessChain, ptr[k], {var_[k], slot});
    got[k] = e.EmitIds(spv::Op::OpLoad, type_[k], {p});
  }
  uint32_t take = 0;
  if (!EmitBetter(&e, acc_v, acc_i, got[0], got[1], &take)) return false;
  const uint32_t next_v = e.EmitIds(spv::Op::OpSelect, type_[0], {take, got[0], acc_v});
  const uint32_t next_i = e.EmitIds(spv::Op::OpSelect, type_[1], {take, got[1], acc_i});
  const uint32_t next_slot = e.EmitIds(spv::Op::OpIAdd, uint_type, {slot, e.UInt(1)});
  if (!e.PopLoop(&l, {next_v, next_i, next_slot})) return false;
  e.Branch(merge_->id());
  if (!e.ok()) return false;
  const uint32_t result[2] = {acc_v, acc_i};
  for (int k = 0; k < 2; ++k) {
    for (Instruction* reader : readers_[k]) {
      context->ReplaceAllUsesWith(reader->result_id(), result[k]);
      context->KillInst(reader);
    }
  }
  rest->KillAllInsts(true);
  for (BasicBlock* b : loop_blocks_) b->KillAllInsts(true);
  func_->RemoveEmptyBlocks();
  return true;
}

}  // namespace waveopt
