// Loop analyses shared by the passes: see loops.h for the contracts.
#include "analysis/loops.h"

#include "analysis/int_eval.h"
#include "analysis/ir_util.h"
#include "analysis/memory_effects.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>

#include "source/opt/cfg.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/ir_context.h"
#include "source/opt/loop_descriptor.h"

namespace waveopt {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;
using spvtools::opt::Loop;
using spvtools::opt::Operand;

namespace {

// GLSL.std.450 instructions that read or write memory or depend on
// fragment interpolation; every other one is a pure function of its
// operands.
bool IsImpureGlslExt(uint32_t number) {
  return number == 35 /* Modf */ || number == 51 /* Frexp */ ||
         (number >= 76 && number <= 78) /* InterpolateAt* */;
}

// The integer type |type_id| is: its width and signedness; false for
// other types.
bool IntType(IRContext* context, uint32_t type_id, uint32_t* width, bool* is_signed) {
  const Instruction* type = context->get_def_use_mgr()->GetDef(type_id);
  if (type == nullptr || type->opcode() != spv::Op::OpTypeInt) return false;
  *width = type->GetSingleWordInOperand(0);
  *is_signed = type->GetSingleWordInOperand(1) != 0;
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------
// Small facts.

bool CompareInts(spv::Op op, uint64_t a, uint64_t b, uint32_t width, bool* known) {
  return CompareIntsWith(FindIntOp(op), a, b, width, known);
}

// CompareInts() with |op|'s table entry (FindIntOp) looked up already.
bool CompareIntsWith(const IntOp* entry, uint64_t a, uint64_t b, uint32_t width, bool* known) {
  *known = entry != nullptr && entry->result == IntResult::kBool && !entry->logical;
  const uint64_t x[2] = {a, b};
  uint64_t r = 0;
  return *known && FoldInt(*entry, x, width, 1, &r) && r != 0;
}

Instruction* RootVariable(IRContext* context, uint32_t ptr) {
  auto* def_use = context->get_def_use_mgr();
  return RootVariableOf([def_use](uint32_t id) { return def_use->GetDef(id); }, ptr);
}

Instruction* ImageVariable(IRContext* context, uint32_t image) {
  auto* def_use = context->get_def_use_mgr();
  for (int depth = 0; depth < 16; ++depth) {
    Instruction* inst = def_use->GetDef(image);
    if (inst == nullptr) return nullptr;
    switch (inst->opcode()) {
      case spv::Op::OpLoad:
        return RootVariable(context, inst->GetSingleWordInOperand(0));
      case spv::Op::OpSampledImage:
      case spv::Op::OpImage:
      case spv::Op::OpCopyObject:
        image = inst->GetSingleWordInOperand(0);
        break;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

spv::StorageClass PointerClass(IRContext* context, uint32_t ptr) {
  auto* def_use = context->get_def_use_mgr();
  Instruction* inst = def_use->GetDef(ptr);
  if (inst == nullptr) return spv::StorageClass::Max;
  Instruction* type = def_use->GetDef(inst->type_id());
  if (type == nullptr || type->opcode() != spv::Op::OpTypePointer) {
    return spv::StorageClass::Max;
  }
  return spv::StorageClass(type->GetSingleWordInOperand(0));
}

bool IsPrivateClass(spv::StorageClass sc) {
  return sc == spv::StorageClass::Function || sc == spv::StorageClass::Private ||
         sc == spv::StorageClass::Input || sc == spv::StorageClass::Output;
}

bool IsImageRead(spv::Op op) {
  switch (op) {
    case spv::Op::OpImageFetch:
    case spv::Op::OpImageRead:
    case spv::Op::OpImageSampleExplicitLod:
    case spv::Op::OpImageSampleDrefExplicitLod:
    case spv::Op::OpImageGather:
    case spv::Op::OpImageDrefGather:
      return true;
    default:
      return false;
  }
}

bool HasDecoration(IRContext* context, uint32_t id, spv::Decoration decoration) {
  for (Instruction* dec : context->get_decoration_mgr()->GetDecorationsFor(id, false)) {
    if (dec->opcode() == spv::Op::OpDecorate &&
        spv::Decoration(dec->GetSingleWordInOperand(1)) == decoration) {
      return true;
    }
  }
  return false;
}

bool HasMemberDecoration(IRContext* context, uint32_t struct_id, uint32_t member,
                         spv::Decoration decoration) {
  for (Instruction* dec : context->get_decoration_mgr()->GetDecorationsFor(struct_id, false)) {
    if (dec->opcode() == spv::Op::OpMemberDecorate && dec->GetSingleWordInOperand(1) == member &&
        spv::Decoration(dec->GetSingleWordInOperand(2)) == decoration) {
      return true;
    }
  }
  return false;
}

bool IsRecomputable(IRContext* context, const Instruction* inst) {
  switch (inst->opcode()) {
    case spv::Op::OpAccessChain:
    case spv::Op::OpInBoundsAccessChain:
    case spv::Op::OpPtrAccessChain:
    case spv::Op::OpIAdd:
    case spv::Op::OpISub:
    case spv::Op::OpIMul:
    case spv::Op::OpShiftLeftLogical:
    case spv::Op::OpShiftRightLogical:
    case spv::Op::OpShiftRightArithmetic:
    case spv::Op::OpBitwiseAnd:
    case spv::Op::OpBitwiseOr:
    case spv::Op::OpBitwiseXor:
    case spv::Op::OpNot:
    case spv::Op::OpSNegate:
    case spv::Op::OpUDiv:
    case spv::Op::OpSDiv:
    case spv::Op::OpUMod:
    case spv::Op::OpSMod:
    case spv::Op::OpSRem:
    case spv::Op::OpBitFieldUExtract:
    case spv::Op::OpBitFieldSExtract:
    case spv::Op::OpBitFieldInsert:
    case spv::Op::OpCompositeExtract:
    case spv::Op::OpCompositeConstruct:
    case spv::Op::OpCompositeInsert:
    case spv::Op::OpVectorShuffle:
    case spv::Op::OpVectorExtractDynamic:
    case spv::Op::OpBitcast:
    case spv::Op::OpUConvert:
    case spv::Op::OpSConvert:
    case spv::Op::OpConvertUToF:
    case spv::Op::OpConvertSToF:
    case spv::Op::OpConvertFToU:
    case spv::Op::OpConvertFToS:
    case spv::Op::OpFConvert:
    case spv::Op::OpConvertUToPtr:
    case spv::Op::OpFAdd:
    case spv::Op::OpFSub:
    case spv::Op::OpFMul:
    case spv::Op::OpFDiv:
    case spv::Op::OpFNegate:
    case spv::Op::OpVectorTimesScalar:
    case spv::Op::OpCopyObject:
    case spv::Op::OpSelect:
    case spv::Op::OpIEqual:
    case spv::Op::OpINotEqual:
    case spv::Op::OpULessThan:
    case spv::Op::OpSLessThan:
    case spv::Op::OpULessThanEqual:
    case spv::Op::OpSLessThanEqual:
    case spv::Op::OpUGreaterThan:
    case spv::Op::OpSGreaterThan:
    case spv::Op::OpUGreaterThanEqual:
    case spv::Op::OpSGreaterThanEqual:
    case spv::Op::OpLogicalAnd:
    case spv::Op::OpLogicalOr:
    case spv::Op::OpLogicalNot:
    case spv::Op::OpLogicalEqual:
    case spv::Op::OpLogicalNotEqual:
    case spv::Op::OpAny:
    case spv::Op::OpAll:
    case spv::Op::OpSampledImage:
    case spv::Op::OpImage:
      return true;
    case spv::Op::OpExtInst:
      return IsGlslStd450(context, inst) && !IsImpureGlslExt(inst->GetSingleWordInOperand(1));
    default:
      return false;
  }
}

uint32_t LookThroughPhis(IRContext* context, uint32_t id) {
  auto* def_use = context->get_def_use_mgr();
  for (int depth = 0; depth < 16; ++depth) {
    Instruction* inst = def_use->GetDef(id);
    if (inst == nullptr || inst->opcode() != spv::Op::OpPhi) return id;
    // The values it takes, each looked through the phis of one value that
    // lead back to it.
    uint32_t same = 0;
    for (uint32_t i = 0; i + 1 < inst->NumInOperands(); i += 2) {
      uint32_t v = inst->GetSingleWordInOperand(i);
      for (int d = 0; d < 16 && v != id; ++d) {
        Instruction* vi = def_use->GetDef(v);
        if (vi == nullptr || vi->opcode() != spv::Op::OpPhi) break;
        uint32_t only = 0;
        bool one = true;
        for (uint32_t k = 0; k + 1 < vi->NumInOperands(); k += 2) {
          const uint32_t w = vi->GetSingleWordInOperand(k);
          if (w == v) continue;
          if (only != 0 && w != only) one = false;
          only = w;
        }
        if (!one || only == 0) break;
        v = only;
      }
      if (v == id) continue;
      if (same != 0 && v != same) return id;
      same = v;
    }
    if (same == 0) return id;
    id = same;
  }
  return id;
}

namespace {

void AffineOfImpl(IRContext* context, uint32_t id, uint32_t* base, uint64_t* offset, int depth) {
  auto* def_use = context->get_def_use_mgr();
  Instruction* inst = def_use->GetDef(id);
  *base = id;
  *offset = 0;
  if (inst != nullptr && inst->opcode() == spv::Op::OpPhi) {
    const uint32_t value = LookThroughPhis(context, id);
    if (value != id) {
      AffineOfImpl(context, value, base, offset, depth + 1);
      return;
    }
  }
  if (inst == nullptr || depth > 16) return;
  uint64_t c = 0;
  switch (inst->opcode()) {
    case spv::Op::OpIAdd: {
      const uint32_t a = inst->GetSingleWordInOperand(0);
      const uint32_t b = inst->GetSingleWordInOperand(1);
      if (IntConstant(context, def_use->GetDef(b), &c)) {
        AffineOfImpl(context, a, base, offset, depth + 1);
        *offset += c;
      } else if (IntConstant(context, def_use->GetDef(a), &c)) {
        AffineOfImpl(context, b, base, offset, depth + 1);
        *offset += c;
      }
      return;
    }
    case spv::Op::OpISub:
      if (IntConstant(context, def_use->GetDef(inst->GetSingleWordInOperand(1)), &c)) {
        AffineOfImpl(context, inst->GetSingleWordInOperand(0), base, offset, depth + 1);
        *offset -= c;
      }
      return;
    case spv::Op::OpBitcast:
    case spv::Op::OpCopyObject: {
      const Instruction* from = def_use->GetDef(inst->GetSingleWordInOperand(0));
      const Instruction* t1 = def_use->GetDef(inst->type_id());
      const Instruction* t0 = from ? def_use->GetDef(from->type_id()) : nullptr;
      if (t0 && t1 && t0->opcode() == spv::Op::OpTypeInt && t1->opcode() == spv::Op::OpTypeInt &&
          t0->GetSingleWordInOperand(0) == t1->GetSingleWordInOperand(0)) {
        AffineOfImpl(context, inst->GetSingleWordInOperand(0), base, offset, depth + 1);
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace

void AffineOf(IRContext* context, uint32_t id, uint32_t* base, uint64_t* offset) {
  AffineOfImpl(context, id, base, offset, 0);
}

// ---------------------------------------------------------------------------
// Inductions.

uint64_t Induction::Next(uint64_t value) const {
  // OpIAdd's and OpIMul's folds, without the table (compile time: trip
  // counts step counters up to 65,536 times).
  if (kind == Kind::kAdd) return MaskTo(MaskTo(value, width) + step, width);
  if (kind == Kind::kMul) return MaskTo(MaskTo(value, width) * step, width);
  const spv::Op op = kind == Kind::kAdd                 ? spv::Op::OpIAdd
                     : kind == Kind::kMul               ? spv::Op::OpIMul
                     : kind == Kind::kShiftLeft         ? spv::Op::OpShiftLeftLogical
                     : kind == Kind::kShiftRightLogical ? spv::Op::OpShiftRightLogical
                                                        : spv::Op::OpShiftRightArithmetic;
  // StepOf makes no shift by the width or more (undefined: 0 here).
  const uint64_t x[2] = {MaskTo(value, width), step};
  uint64_t next = 0;
  FoldInt(*FindIntOp(op), x, width, width, &next);
  return next;
}

uint32_t Induction::id() const {
  return phi != nullptr ? phi->result_id() : variable != nullptr ? variable->result_id() : 0;
}

namespace {

// How |next| steps |current| (an id of the same integer type, |width|
// bits): |current| +/- a constant through additions, subtractions and
// bitcasts, or |current| * c, << c, >> c (and unsigned / 2^c, which is
// >> c). False when it is none of them, or the step changes nothing.
bool StepOf(IRContext* context, uint32_t next, uint32_t current, uint32_t width, Induction* iv) {
  auto* def_use = context->get_def_use_mgr();
  uint32_t base = 0;
  uint64_t offset = 0;
  AffineOf(context, next, &base, &offset);
  offset = MaskTo(offset, width);
  if (base == current) {
    if (offset == 0) return false;
    iv->kind = Induction::Kind::kAdd;
    iv->step = offset;
    return true;
  }
  // A product or shift: |base| is it (AffineOf looked through bitcasts).
  const Instruction* inst = def_use->GetDef(base);
  if (inst == nullptr || offset != 0 || inst->NumInOperands() != 2) {
    return false;
  }
  auto is_current = [&](uint32_t id) {
    uint32_t b = 0;
    uint64_t o = 0;
    AffineOf(context, id, &b, &o);
    return b == current && MaskTo(o, width) == 0;
  };
  const uint32_t a = inst->GetSingleWordInOperand(0);
  const uint32_t b = inst->GetSingleWordInOperand(1);
  uint64_t c = 0;
  switch (inst->opcode()) {
    case spv::Op::OpIMul:
      if (is_current(a) && IntConstant(context, def_use->GetDef(b), &c)) {
      } else if (is_current(b) && IntConstant(context, def_use->GetDef(a), &c)) {
      } else {
        return false;
      }
      c = MaskTo(c, width);
      if (c == 1) return false;
      iv->kind = Induction::Kind::kMul;
      iv->step = c;
      return true;
    case spv::Op::OpShiftLeftLogical:
    case spv::Op::OpShiftRightLogical:
    case spv::Op::OpShiftRightArithmetic:
      if (!is_current(a) || !IntConstant(context, def_use->GetDef(b), &c) || c == 0 || c >= width) {
        return false;
      }
      iv->kind = inst->opcode() == spv::Op::OpShiftLeftLogical ? Induction::Kind::kShiftLeft
                 : inst->opcode() == spv::Op::OpShiftRightLogical
                     ? Induction::Kind::kShiftRightLogical
                     : Induction::Kind::kShiftRightArithmetic;
      iv->step = c;
      return true;
    case spv::Op::OpUDiv:
      // A division by a power of two of an unsigned value is a shift.
      if (!is_current(a) || !IntConstant(context, def_use->GetDef(b), &c)) {
        return false;
      }
      c = MaskTo(c, width);
      if (c < 2 || (c & (c - 1)) != 0) return false;
      iv->kind = Induction::Kind::kShiftRightLogical;
      iv->step = 0;
      while ((uint64_t{1} << iv->step) != c) ++iv->step;
      return true;
    default:
      return false;
  }
}

}  // namespace

bool LoopAnalysis::PhiInduction(const BasicBlock* latch, Instruction* phi, Induction* iv) {
  uint32_t width = 0;
  bool is_signed = false;
  if (!IntType(context_, phi->type_id(), &width, &is_signed)) return false;
  if (width != 32 && width != 64) return false;
  uint32_t next = 0;
  for (uint32_t i = 0; i + 1 < phi->NumInOperands(); i += 2) {
    if (phi->GetSingleWordInOperand(i + 1) == latch->id()) {
      next = phi->GetSingleWordInOperand(i);
    }
  }
  iv->phi = phi;
  iv->width = width;
  return StepOf(context_, next, phi->result_id(), width, iv);
}

std::vector<Induction> LoopAnalysis::Inductions(const LoopShape& shape) {
  return Inductions(shape.header, shape.latch);
}

std::vector<Induction> LoopAnalysis::Inductions(BasicBlock* header, BasicBlock* latch) {
  std::vector<Induction> ivs;
  if (latch == nullptr) return ivs;
  header->ForEachPhiInst([&](Instruction* phi) {
    Induction iv;
    if (PhiInduction(latch, phi, &iv)) ivs.push_back(iv);
  });
  return ivs;
}

bool LoopAnalysis::StartValue(const BasicBlock* latch, const Induction& iv, uint64_t* start) {
  if (iv.phi == nullptr) return false;
  auto* def_use = context_->get_def_use_mgr();
  uint64_t value = 0;
  bool have = false;
  for (uint32_t k = 0; k + 1 < iv.phi->NumInOperands(); k += 2) {
    if (iv.phi->GetSingleWordInOperand(k + 1) == latch->id()) continue;
    uint64_t v = 0;
    if (!IntConstant(context_, def_use->GetDef(iv.phi->GetSingleWordInOperand(k)), &v) ||
        (have && v != value)) {
      return false;
    }
    value = v;
    have = true;
  }
  *start = value;
  return have;
}

bool LoopAnalysis::MemoryInduction(Loop* loop, Instruction* load, Induction* iv, uint64_t* start) {
  auto* def_use = context_->get_def_use_mgr();
  if (load == nullptr || load->opcode() != spv::Op::OpLoad) return false;
  Instruction* var = def_use->GetDef(load->GetSingleWordInOperand(0));
  if (var == nullptr || var->opcode() != spv::Op::OpVariable ||
      var->GetSingleWordInOperand(0) != static_cast<uint32_t>(spv::StorageClass::Function) ||
      var->NumInOperands() != 1) {
    return false;
  }
  uint32_t width = 0;
  bool is_signed = false;
  if (!IntType(context_, load->type_id(), &width, &is_signed) || (width != 32 && width != 64)) {
    return false;
  }
  iv->variable = var;
  iv->width = width;
  // One store before the loop (a constant) and one in it (a load of the
  // variable stepped); otherwise only loads, names and decorations.
  int stores_in = 0, stores_out = 0;
  bool other = false;
  def_use->ForEachUse(var, [&](Instruction* user, uint32_t operand_index) {
    const spv::Op op = user->opcode();
    if (op == spv::Op::OpLoad || op == spv::Op::OpName || op == spv::Op::OpDecorate) {
      return;
    }
    if (op != spv::Op::OpStore || operand_index != 0) {
      other = true;
      return;
    }
    const uint32_t value = user->GetSingleWordInOperand(1);
    if (!loop->IsInsideLoop(user)) {
      ++stores_out;
      other |= !IntConstant(context_, def_use->GetDef(value), start);
      return;
    }
    ++stores_in;
    Instruction* next = def_use->GetDef(value);
    bool stepped = false;
    for (uint32_t i = 0; next != nullptr && i < next->NumInOperands() && i < 2 && !stepped; ++i) {
      Instruction* o = def_use->GetDef(next->GetSingleWordInOperand(i));
      stepped = o != nullptr && o->opcode() == spv::Op::OpLoad &&
                o->GetSingleWordInOperand(0) == var->result_id() &&
                StepOf(context_, value, o->result_id(), width, iv);
    }
    other |= !stepped;
  });
  return !other && stores_in == 1 && stores_out == 1;
}

size_t LoopAnalysis::CounterIndex(uint32_t id, const std::vector<Induction>& ivs) {
  const Instruction* inst = context_->get_def_use_mgr()->GetDef(id);
  for (size_t i = 0; i < ivs.size(); ++i) {
    if (ivs[i].phi != nullptr && ivs[i].phi->result_id() == id) return i;
    if (ivs[i].variable != nullptr && inst != nullptr && inst->opcode() == spv::Op::OpLoad &&
        inst->GetSingleWordInOperand(0) == ivs[i].variable->result_id()) {
      return i;
    }
  }
  return ivs.size();
}

// ---------------------------------------------------------------------------
// Exits and trip counts.

BasicBlock* LoopAnalysis::SingleExitBlock(Function* func, Loop* loop) {
  if (loop == nullptr || loop->GetMergeBlock() == nullptr) return nullptr;
  const uint32_t merge = loop->GetMergeBlock()->id();
  BasicBlock* exit_block = nullptr;
  for (BasicBlock& bb : *func) {
    if (!loop->IsInsideLoop(&bb)) continue;
    const Instruction* term = bb.terminator();
    const spv::Op op = term->opcode();
    if (op != spv::Op::OpBranch && op != spv::Op::OpBranchConditional && op != spv::Op::OpSwitch) {
      return nullptr;  // returns, kills inside the loop
    }
    bool leaves = false, bad = false;
    bb.ForEachSuccessorLabel([&](const uint32_t succ) {
      if (loop->IsInsideLoop(succ)) return;
      leaves = true;
      if (succ != merge || op != spv::Op::OpBranchConditional) bad = true;
    });
    if (bad || (leaves && exit_block != nullptr)) return nullptr;
    if (leaves) exit_block = &bb;
  }
  return exit_block;
}

bool LoopAnalysis::AsExitTest(uint32_t cond, bool negate, const std::vector<Induction>& ivs,
                              ExitTest* test) {
  auto* def_use = context_->get_def_use_mgr();
  Instruction* c = def_use->GetDef(cond);
  while (c != nullptr && c->opcode() == spv::Op::OpLogicalNot) {
    negate = !negate;
    c = def_use->GetDef(c->GetSingleWordInOperand(0));
  }
  bool known = false;
  if (c != nullptr && c->NumInOperands() == 2) CompareInts(c->opcode(), 0, 0, 32, &known);
  if (!known) return false;
  for (uint32_t side = 0; side < 2; ++side) {
    uint32_t base = 0;
    uint64_t offset = 0;
    AffineOf(context_, c->GetSingleWordInOperand(side), &base, &offset);
    const size_t iv = CounterIndex(base, ivs);
    if (iv == ivs.size()) continue;
    Instruction* other = def_use->GetDef(c->GetSingleWordInOperand(1 - side));
    uint64_t bound = 0;
    bool is_max = false;
    if (!IntConstant(context_, other, &bound)) {
      // min(x, C) on the bound side of "i < bound": at most C.
      if (other != nullptr && other->opcode() == spv::Op::OpExtInst &&
          other->NumInOperands() == 4 &&
          (other->GetSingleWordInOperand(1) == 38 /* UMin */ ||
           other->GetSingleWordInOperand(1) == 39 /* SMin */)) {
        for (uint32_t k = 2; k < 4 && !is_max; ++k) {
          if (IntConstant(context_, def_use->GetDef(other->GetSingleWordInOperand(k)), &bound)) {
            is_max = true;
          }
        }
      }
      // Only where the loop goes on while the counter stays below it.
      const bool less =
          c->opcode() == spv::Op::OpULessThan || c->opcode() == spv::Op::OpSLessThan ||
          c->opcode() == spv::Op::OpULessThanEqual || c->opcode() == spv::Op::OpSLessThanEqual;
      if (!is_max || !less || side != 0 || !negate) continue;
    }
    test->op = c->opcode();
    test->counter_left = side == 0;
    test->counter = iv;
    test->offset = offset;
    test->bound = bound;
    test->bound_is_max = is_max;
    test->negate = negate;
    return true;
  }
  return false;
}

int64_t LoopAnalysis::SimulateTrips(const std::vector<Induction>& ivs,
                                    const std::vector<uint64_t>& starts,
                                    const std::vector<ExitTest>& tests,
                                    const std::vector<bool>& before_point,
                                    int64_t max_iteration) const {
  std::vector<uint64_t> value = starts;
  std::vector<const IntOp*> compare;  // each test's, looked up once
  for (const ExitTest& t : tests) compare.push_back(FindIntOp(t.op));
  for (int64_t j = 0; j <= max_iteration; ++j) {
    // In chain order: the exits' blocks dominate each other.
    for (size_t k = 0; k < tests.size(); ++k) {
      const ExitTest& t = tests[k];
      const Induction& iv = ivs[t.counter];
      const uint64_t v = value[t.counter] + t.offset;
      bool known = false;
      bool fires = t.counter_left ? CompareIntsWith(compare[k], v, t.bound, iv.width, &known)
                                  : CompareIntsWith(compare[k], t.bound, v, iv.width, &known);
      if (t.negate) fires = !fires;
      if (fires) return before_point[t.exit] ? j : j + 1;
    }
    for (size_t i = 0; i < ivs.size(); ++i) value[i] = ivs[i].Next(value[i]);
  }
  return -1;
}

TripCount LoopAnalysis::CountTrips(const LoopShape& shape, const std::vector<Induction>& ivs,
                                   const LoopExits& exits, const std::vector<size_t>& before) {
  TripCount result;
  // The exits that compare a counter with a constant, run from a constant
  // start.
  std::vector<ExitTest> tests;
  bool all_simple = !exits.unpredictable;
  for (size_t e = 0; e < exits.predictable.size(); ++e) {
    ExitTest test;
    if (AsExitTest(exits.predictable[e].cond, !exits.predictable[e].fires_when_true, ivs, &test)) {
      test.exit = e;
      tests.push_back(test);
      if (test.bound_is_max) all_simple = false;
    } else {
      all_simple = false;
    }
  }
  std::vector<uint64_t> starts(ivs.size(), 0);
  std::vector<bool> start_known(ivs.size(), false);
  for (size_t i = 0; i < ivs.size(); ++i) {
    start_known[i] = StartValue(shape.latch, ivs[i], &starts[i]);
  }
  if (tests.empty()) return result;
  for (const ExitTest& t : tests) {
    if (!start_known[t.counter]) return result;
  }
  std::vector<bool> before_point(exits.predictable.size(), false);
  for (size_t e : before) before_point[e] = true;
  // Up to 2^16 iterations (loops of constant bounds; anything longer counts
  // as long).
  const int64_t count = SimulateTrips(ivs, starts, tests, before_point, 65535);
  if (count >= 0) {
    result.at_most = count;
    if (all_simple) result.exact = count;
  }
  return result;
}

int64_t LoopAnalysis::SingleExitTripCount(Function* func, Loop* loop, int64_t max_trips) {
  auto* def_use = context_->get_def_use_mgr();
  BasicBlock* exit_block = SingleExitBlock(func, loop);
  BasicBlock* latch = loop == nullptr ? nullptr : loop->GetLatchBlock();
  if (exit_block == nullptr || latch == nullptr) return -1;
  const Instruction* branch = exit_block->terminator();
  const uint32_t cond = branch->GetSingleWordInOperand(0);
  const bool continue_on_true = loop->IsInsideLoop(branch->GetSingleWordInOperand(1));
  // The counters: header phis, and the variables of the loads the test
  // reads (memory form).
  std::vector<Induction> ivs = Inductions(loop->GetHeaderBlock(), latch);
  std::vector<uint64_t> starts(ivs.size(), 0);
  std::vector<bool> known(ivs.size(), false);
  for (size_t i = 0; i < ivs.size(); ++i) {
    known[i] = StartValue(latch, ivs[i], &starts[i]);
  }
  Instruction* cmp = def_use->GetDef(cond);
  for (uint32_t side = 0; cmp != nullptr && side < 2 && side < cmp->NumInOperands(); ++side) {
    uint32_t base = 0;
    uint64_t offset = 0;
    AffineOf(context_, cmp->GetSingleWordInOperand(side), &base, &offset);
    Induction iv;
    uint64_t start = 0;
    if (CounterIndex(base, ivs) == ivs.size() &&
        MemoryInduction(loop, def_use->GetDef(base), &iv, &start)) {
      ivs.push_back(iv);
      starts.push_back(start);
      known.push_back(true);
    }
  }
  ExitTest test;
  if (!AsExitTest(cond, continue_on_true, ivs, &test) || test.bound_is_max ||
      !known[test.counter]) {
    return -1;
  }
  // A test in the back-edge block runs after the body; anywhere else the
  // body runs once less than the test.
  const bool test_after_body = exit_block == latch && exit_block != loop->GetHeaderBlock();
  return SimulateTrips(ivs, starts, {test}, {!test_after_body}, max_trips);
}

LoopExits LoopAnalysis::Exits(const LoopShape& shape, const std::vector<Induction>& ivs) {
  LoopExits out;
  spvtools::opt::DominatorAnalysis* dom = context_->GetDominatorAnalysis(shape.function);
  // A block "reaches the latch" when the iteration can still go on from
  // it; an edge from such a block to one that cannot is a way out.
  std::unordered_set<uint32_t> reaching;
  std::vector<uint32_t> stack = {shape.latch->id()};
  while (!stack.empty()) {
    const uint32_t id = stack.back();
    stack.pop_back();
    if (!reaching.insert(id).second || id == shape.header->id()) continue;
    for (uint32_t pred : context_->cfg()->preds(id)) {
      if (shape.block_ids.count(pred)) stack.push_back(pred);
    }
  }
  auto leaves = [&](uint32_t succ) {
    return succ == shape.merge->id() || (shape.block_ids.count(succ) && !reaching.count(succ));
  };
  std::vector<BasicBlock*> exit_blocks;  // every block a way out starts from
  for (BasicBlock* block : shape.blocks) {
    if (!reaching.count(block->id())) continue;
    bool out_edge = false;
    block->ForEachSuccessorLabel([&](const uint32_t succ) {
      if (leaves(succ)) out_edge = true;
    });
    if (out_edge) exit_blocks.push_back(block);
  }
  for (BasicBlock* block : shape.blocks) {
    if (!shape.dominate_latch.count(block->id())) continue;
    bool before_all = true;
    for (BasicBlock* e : exit_blocks) {
      if (!dom->Dominates(block, e)) before_all = false;
    }
    if (before_all) out.prefix.insert(block->id());
  }
  for (BasicBlock* block : exit_blocks) {
    Instruction* term = block->terminator();
    bool predictable =
        shape.dominate_latch.count(block->id()) && term->opcode() == spv::Op::OpBranchConditional;
    LoopExit exit;
    if (predictable) {
      const bool t = leaves(term->GetSingleWordInOperand(1));
      const bool f = leaves(term->GetSingleWordInOperand(2));
      exit.from = block;
      exit.cond = term->GetSingleWordInOperand(0);
      exit.fires_when_true = t;
      predictable = t != f;
    }
    // The condition from the induction variables and invariants only.
    if (predictable) predictable = IsPredictable(exit.cond, shape, ivs, &out.prefix);
    if (predictable) {
      out.predictable.push_back(exit);
    } else if (!out.unpredictable) {
      out.unpredictable = true;
      out.unpredictable_where = term;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Blocks, writes, shape.

void LoopAnalysis::Clear() {
  blocks_.clear();
  writes_.clear();
}

const std::vector<BasicBlock*>& LoopAnalysis::Blocks(Loop& loop) {
  const uint32_t header = loop.GetHeaderBlock()->id();
  auto found = blocks_.find(header);
  if (found != blocks_.end()) return found->second;
  // One walk over the function fills every loop of it (linear in blocks
  // times nesting depth), in function order.
  Function* func = loop.GetHeaderBlock()->GetParent();
  spvtools::opt::LoopDescriptor* loops = context_->GetLoopDescriptor(func);
  for (BasicBlock& block : *func) {
    for (Loop* l = (*loops)[&block]; l != nullptr; l = l->GetParent()) {
      blocks_[l->GetHeaderBlock()->id()].push_back(&block);
    }
  }
  return blocks_[header];
}

const LoopWrites& LoopAnalysis::Writes(Loop& loop) {
  const uint32_t header = loop.GetHeaderBlock()->id();
  auto found = writes_.find(header);
  if (found != writes_.end()) return found->second;
  LoopWrites& writes = writes_[header];
  std::set<uint32_t> seen_functions;
  auto note = [&](Instruction* target, spv::StorageClass sc) {
    if (target == nullptr) {
      if (IsPrivateClass(sc)) {
        writes.unknown_private = true;  // through a pointer parameter
        return;
      }
      if (sc == spv::StorageClass::PhysicalStorageBuffer) {
        writes.physical = true;
      } else {
        writes.unknown = true;
      }
      writes.buffers = true;
      return;
    }
    writes.roots.insert(target->result_id());
    const auto root_sc = spv::StorageClass(target->GetSingleWordInOperand(0));
    if (root_sc == spv::StorageClass::StorageBuffer || root_sc == spv::StorageClass::Uniform) {
      writes.buffers = true;
    }
    if (HasDecoration(context_, target->result_id(), spv::Decoration::Aliased)) {
      writes.aliased = true;
    }
  };
  std::function<void(Instruction*)> visit = [&](Instruction* inst) {
    const spv::Op op = inst->opcode();
    switch (MemoryEffectOf(context_, inst)) {
      case MemoryEffect::kBarrier:
        writes.barrier = true;
        return;
      case MemoryEffect::kUnknown:
        if (writes.unknown_inst == nullptr) writes.unknown_inst = inst;
        return;
      case MemoryEffect::kWrite: {
        const int operand = WrittenOperand(context_, inst);
        if (op == spv::Op::OpImageWrite) {
          note(ImageVariable(context_, inst->GetSingleWordInOperand(0)),
               spv::StorageClass::UniformConstant);
        } else if (operand < 0) {
          note(nullptr, spv::StorageClass::StorageBuffer);  // no operand names it
        } else {
          const uint32_t written = inst->GetSingleWordInOperand(static_cast<uint32_t>(operand));
          note(RootVariable(context_, written), PointerClass(context_, written));
        }
        return;
      }
      default:
        break;
    }
    if (op == spv::Op::OpFunctionCall) {
      uint32_t callee = inst->GetSingleWordInOperand(0);
      if (seen_functions.insert(callee).second) {
        if (Function* f = context_->GetFunction(callee)) {
          f->ForEachInst([&](Instruction* i) { visit(i); });
        }
      }
    }
  };
  for (BasicBlock* block : Blocks(loop)) {
    block->ForEachInst([&](Instruction* inst) { visit(inst); });
  }
  return writes;
}

namespace {

// The header's predecessors split into the back-edge block and the entries
// (by id); false with |why| when the loop has not exactly one back edge,
// no entry, or an unreachable one.
bool FindLatchAndEntries(IRContext* context, LoopShape* shape, std::string* why) {
  spvtools::opt::CFG* cfg = context->cfg();
  spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(shape->function);
  for (uint32_t pred : cfg->preds(shape->header->id())) {
    BasicBlock* p = cfg->block(pred);
    if (!dom->IsReachable(pred)) continue;
    if (shape->block_ids.count(pred)) {
      if (shape->latch != nullptr) {
        *why = "the loop has two back edges";
        return false;
      }
      shape->latch = p;
    } else {
      shape->entries.push_back(p);
    }
  }
  if (shape->latch == nullptr || shape->entries.empty()) {
    *why = "the loop has no back edge or no entry";
    return false;
  }
  std::sort(shape->entries.begin(), shape->entries.end(),
            [&](BasicBlock* a, BasicBlock* b) { return a->id() < b->id(); });
  for (uint32_t pred : cfg->preds(shape->header->id())) {
    if (!dom->IsReachable(pred)) {
      *why = "an unreachable block enters the loop";
      return false;
    }
  }
  return true;
}

// Every way out goes to the merge block (or returns); the merge block is
// entered from the loop only. Fills |shape->exit_sources|.
bool CheckWaysOut(IRContext* context, LoopShape* shape, std::string* why) {
  const BasicBlock* merge = shape->merge;
  for (BasicBlock* block : shape->blocks) {
    bool to_merge = false;
    bool other = false;
    block->ForEachSuccessorLabel([&](const uint32_t succ) {
      if (succ == merge->id()) {
        to_merge = true;
      } else if (!shape->block_ids.count(succ)) {
        other = true;
      }
    });
    if (other) {
      *why = "a branch leaves the loop to a block other than its merge block";
      return false;
    }
    if (to_merge) shape->exit_sources.push_back(block);
    if (block != shape->header) {
      if (Instruction* m = block->GetMergeInst()) {
        if (m->GetSingleWordInOperand(0) == merge->id()) {
          *why = "a construct inside the loop names the loop's merge block as its own";
          return false;
        }
      }
    }
  }
  spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(shape->function);
  for (uint32_t pred : context->cfg()->preds(merge->id())) {
    if (!shape->block_ids.count(pred) && dom->IsReachable(pred)) {
      *why = "the merge block is also entered from outside the loop";
      return false;
    }
  }
  return true;
}

// The back edge: an unconditional branch, or a conditional one whose other
// side leaves the loop (do-while); the back-edge block heads no construct.
bool CheckBackEdge(LoopShape* shape, std::string* why, Instruction** where) {
  Instruction* back = shape->latch->terminator();
  if (back->opcode() == spv::Op::OpBranchConditional) {
    const uint32_t t = back->GetSingleWordInOperand(1);
    const uint32_t f = back->GetSingleWordInOperand(2);
    const uint32_t h = shape->header->id(), m = shape->merge->id();
    if (!((t == h && f == m) || (f == h && t == m))) {
      *where = back;
      *why = "the back-edge block branches elsewhere than the header and the merge block";
      return false;
    }
  } else if (back->opcode() != spv::Op::OpBranch) {
    *where = back;
    *why = "the back-edge block does not end in a branch";
    return false;
  }
  if (shape->latch != shape->header && shape->latch->GetMergeInst() != nullptr) {
    *why = "the back-edge block heads a construct";
    return false;
  }
  return true;
}

// The preheader: a block that enters only the loop; else the merge
// instructions outside the loop that name the header (a rewrite adding a
// preheader moves them).
bool FindPreheader(LoopShape* shape, std::string* why) {
  if (shape->entries.size() == 1 &&
      shape->entries[0]->terminator()->opcode() == spv::Op::OpBranch) {
    shape->preheader = shape->entries[0];
    return true;
  }
  for (BasicBlock& block : *shape->function) {
    Instruction* m = block.GetMergeInst();
    if (m == nullptr || shape->block_ids.count(block.id())) continue;
    if (m->GetSingleWordInOperand(0) == shape->header->id()) {
      shape->merges_naming_header.push_back(m);
    }
    if (m->opcode() == spv::Op::OpLoopMerge &&
        m->GetSingleWordInOperand(1) == shape->header->id()) {
      *why = "the loop's header is another loop's continue target";
      return false;
    }
  }
  return true;
}

}  // namespace

bool LoopAnalysis::Shape(Function* func, Loop* loop, LoopShape* shape, std::string* why,
                         Instruction** where) {
  shape->function = func;
  shape->loop = loop;
  shape->header = loop->GetHeaderBlock();
  shape->merge = loop->GetMergeBlock();
  shape->blocks = Blocks(*loop);
  for (BasicBlock* b : shape->blocks) shape->block_ids.insert(b->id());
  if (shape->merge == nullptr || shape->block_ids.count(shape->merge->id())) {
    *why = "the loop has no merge block outside it";
    return false;
  }
  if (!FindLatchAndEntries(context_, shape, why) || !CheckWaysOut(context_, shape, why) ||
      !CheckBackEdge(shape, why, where) || !FindPreheader(shape, why)) {
    return false;
  }
  spvtools::opt::DominatorAnalysis* dom = context_->GetDominatorAnalysis(func);
  for (BasicBlock* block : shape->blocks) {
    if (dom->Dominates(block, shape->latch)) {
      shape->dominate_latch.insert(block->id());
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Memory and invariance.

const char* LoadHazardName(LoadHazard hazard) {
  switch (hazard) {
    case LoadHazard::kNone:
      return "";
    case LoadHazard::kUnknownMemory:
      return "UnknownMemory";
    case LoadHazard::kCoherentOrVolatile:
      return "CoherentOrVolatile";
    case LoadHazard::kLoopWritesMemory:
      return "LoopWritesMemory";
    case LoadHazard::kBarrierInLoop:
      return "BarrierInLoop";
    case LoadHazard::kUnknownInstruction:
      return "UnknownInstruction";
  }
  return "";
}

namespace {

// The member of the block struct |pointee| that the chain from |root| to
// |ptr| enters first, or -1.
int32_t FirstMember(IRContext* context, uint32_t ptr, const Instruction* root,
                    const Instruction* pointee) {
  auto* def_use = context->get_def_use_mgr();
  Instruction* chain = def_use->GetDef(ptr);
  while (chain != nullptr && chain->opcode() != spv::Op::OpVariable &&
         chain->GetSingleWordInOperand(0) != root->result_id()) {
    chain = def_use->GetDef(chain->GetSingleWordInOperand(0));
  }
  if (chain != nullptr && chain->opcode() != spv::Op::OpVariable && chain->NumInOperands() > 1 &&
      pointee != nullptr && pointee->opcode() == spv::Op::OpTypeStruct) {
    uint64_t m = 0;
    if (IntConstant(context, def_use->GetDef(chain->GetSingleWordInOperand(1)), &m)) {
      return static_cast<int32_t>(m);
    }
  }
  return -1;
}

// Hazards of a load through a pointer with no root variable: a
// PhysicalStorageBuffer pointer (buffer device address) may point into any
// buffer, so the loop must write no buffer memory at all.
LoadHazard RootlessHazard(IRContext* context, uint32_t ptr, const LoopWrites& writes,
                          std::string* why) {
  if (PointerClass(context, ptr) != spv::StorageClass::PhysicalStorageBuffer) {
    *why = "the loaded pointer does not come from a variable";
    return LoadHazard::kUnknownMemory;
  }
  if (writes.barrier) {
    *why =
        "a barrier in the loop lets other invocations write the memory "
        "between iterations";
    return LoadHazard::kBarrierInLoop;
  }
  if (writes.buffers || writes.unknown || writes.physical) {
    *why =
        "the loop writes buffer memory, which the buffer device address "
        "may point into";
    return LoadHazard::kLoopWritesMemory;
  }
  return LoadHazard::kNone;
}

}  // namespace

LoadHazard LoopAnalysis::Hazard(const LoopShape& shape, Instruction* load, std::string* why) {
  auto* def_use = context_->get_def_use_mgr();
  const bool image = IsImageRead(load->opcode());
  Instruction* root = nullptr;
  uint32_t ptr = 0;
  if (image) {
    root = ImageVariable(context_, load->GetSingleWordInOperand(0));
    if (root == nullptr) {
      *why = "the image does not come from a variable";
      return LoadHazard::kUnknownMemory;
    }
  } else {
    ptr = load->GetSingleWordInOperand(0);
    root = RootVariable(context_, ptr);
  }
  const LoopWrites& writes = Writes(*shape.loop);
  if (writes.unknown_inst != nullptr) {
    *why = std::string("the loop (or a function it calls) contains Op") +
           spvOpcodeString(writes.unknown_inst->opcode()) +
           ", whose effect on memory waveopt does not know";
    return LoadHazard::kUnknownInstruction;
  }

  // Memory operands: Volatile, or (Vulkan memory model) a load made visible
  // to other invocations, reads what they write meanwhile.
  if (!image && load->NumInOperands() > 1) {
    const uint32_t mask = load->GetSingleWordInOperand(1);
    if (mask & (static_cast<uint32_t>(spv::MemoryAccessMask::Volatile) |
                static_cast<uint32_t>(spv::MemoryAccessMask::MakePointerVisible) |
                static_cast<uint32_t>(spv::MemoryAccessMask::NonPrivatePointer))) {
      *why = "the load is Volatile or made visible to other invocations";
      return LoadHazard::kCoherentOrVolatile;
    }
  }
  if (root != nullptr && IsPrivateClass(spv::StorageClass(root->GetSingleWordInOperand(0)))) {
    // A local: only the loop's own stores change it.
    if (writes.unknown || writes.unknown_private || writes.roots.count(root->result_id())) {
      *why = "the loop writes the variable it loads from";
      return LoadHazard::kLoopWritesMemory;
    }
    return LoadHazard::kNone;
  }
  if (root == nullptr) return RootlessHazard(context_, ptr, writes, why);
  const auto storage = spv::StorageClass(root->GetSingleWordInOperand(0));
  // The block type and the member the chain enters first.
  Instruction* pointee =
      def_use->GetDef(def_use->GetDef(root->type_id())->GetSingleWordInOperand(1));
  while (pointee != nullptr && (pointee->opcode() == spv::Op::OpTypeArray ||
                                pointee->opcode() == spv::Op::OpTypeRuntimeArray)) {
    pointee = def_use->GetDef(pointee->GetSingleWordInOperand(0));  // arrays of descriptors
  }
  const int32_t member = image ? -1 : FirstMember(context_, ptr, root, pointee);
  auto decorated = [&](spv::Decoration d) {
    return HasDecoration(context_, root->result_id(), d) ||
           (pointee != nullptr && pointee->opcode() == spv::Op::OpTypeStruct && member >= 0 &&
            HasMemberDecoration(context_, pointee->result_id(), static_cast<uint32_t>(member), d));
  };
  if (decorated(spv::Decoration::Coherent) || decorated(spv::Decoration::Volatile)) {
    *why =
        "the memory is Coherent or Volatile: other invocations may change "
        "it while the loop runs";
    return LoadHazard::kCoherentOrVolatile;
  }
  bool read_only = false;
  if (image) {
    // Sampled images and texel buffers cannot be written by shaders.
    Instruction* image_type = pointee;
    read_only = decorated(spv::Decoration::NonWritable) ||
                (image_type != nullptr && ((image_type->opcode() == spv::Op::OpTypeImage &&
                                            image_type->GetSingleWordInOperand(5) == 1) ||
                                           image_type->opcode() == spv::Op::OpTypeSampledImage));
  } else {
    const bool buffer_block =
        storage == spv::StorageClass::Uniform && pointee != nullptr &&
        HasDecoration(context_, pointee->result_id(), spv::Decoration::BufferBlock);
    read_only = (storage == spv::StorageClass::Uniform && !buffer_block) ||
                storage == spv::StorageClass::PushConstant ||
                storage == spv::StorageClass::UniformConstant ||
                decorated(spv::Decoration::NonWritable);
  }
  if (read_only) return LoadHazard::kNone;

  // Writable memory: no write to this variable, no barrier, in the loop or
  // in anything it calls.
  if (writes.barrier) {
    *why =
        "a barrier in the loop lets other invocations write the memory "
        "between iterations";
    return LoadHazard::kBarrierInLoop;
  }
  const bool buffer_memory =
      storage == spv::StorageClass::StorageBuffer || storage == spv::StorageClass::Uniform;
  if (writes.unknown || writes.aliased || writes.roots.count(root->result_id()) ||
      (buffer_memory && writes.physical) ||
      (HasDecoration(context_, root->result_id(), spv::Decoration::Aliased) &&
       !writes.roots.empty())) {
    *why =
        "the loop writes the memory it loads from (or memory that may "
        "alias it)";
    return LoadHazard::kLoopWritesMemory;
  }
  return LoadHazard::kNone;
}

bool LoopAnalysis::IsInvariant(uint32_t id, const LoopShape& shape,
                               const std::unordered_set<uint32_t>* prefix, int depth) {
  if (depth > 24) return false;
  id = LookThroughPhis(context_, id);
  Instruction* inst = context_->get_def_use_mgr()->GetDef(id);
  if (inst == nullptr) return false;
  BasicBlock* block = context_->get_instr_block(inst);
  if (block == nullptr || !shape.block_ids.count(block->id())) return true;
  if (inst->opcode() == spv::Op::OpLoad) {
    const uint32_t ptr = inst->GetSingleWordInOperand(0);
    const spv::StorageClass sc = PointerClass(context_, ptr);
    if (sc == spv::StorageClass::UniformConstant) {
      // A descriptor (image, sampler, buffer handle): the same every time.
      return IsInvariant(ptr, shape, prefix, depth + 1);
    }
    if (sc == spv::StorageClass::Max) return false;
    if (sc == spv::StorageClass::Input) {
      return IsInvariant(ptr, shape, prefix, depth + 1);
    }
    if (!IsPrivateClass(sc) && prefix != nullptr && !prefix->count(block->id())) {
      return false;
    }
    std::string ignored;
    return IsInvariant(ptr, shape, prefix, depth + 1) &&
           Hazard(shape, inst, &ignored) == LoadHazard::kNone;
  }
  if (!IsRecomputable(context_, inst)) return false;
  bool ok = true;
  inst->ForEachInId([&](const uint32_t* operand) {
    if (ok && !IsInvariant(*operand, shape, prefix, depth + 1)) ok = false;
  });
  return ok;
}

bool LoopAnalysis::IsPredictable(uint32_t id, const LoopShape& shape,
                                 const std::vector<Induction>& ivs,
                                 const std::unordered_set<uint32_t>* prefix, int depth) {
  for (const Induction& iv : ivs) {
    if (iv.id() == id) return true;
  }
  if (depth > 24) return false;
  id = LookThroughPhis(context_, id);
  Instruction* inst = context_->get_def_use_mgr()->GetDef(id);
  if (inst == nullptr) return false;
  BasicBlock* b = context_->get_instr_block(inst);
  if (b == nullptr || !shape.block_ids.count(b->id())) return true;
  if (inst->opcode() == spv::Op::OpLoad) {
    return IsInvariant(id, shape, prefix, 0);
  }
  if (!IsRecomputable(context_, inst)) return false;
  bool ok = true;
  inst->ForEachInId([&](const uint32_t* op) {
    if (ok && !IsPredictable(*op, shape, ivs, prefix, depth + 1)) ok = false;
  });
  return ok;
}

bool LoopAnalysis::IsAddressOf(uint32_t id, const LoopShape& shape,
                               const std::vector<Induction>& ivs, bool allow_loads, bool* uses_iv,
                               bool* indexed_load, int depth) {
  auto is_iv = [&](uint32_t v) {
    for (const Induction& iv : ivs) {
      if (iv.id() == v) return true;
    }
    return false;
  };
  if (is_iv(id)) {
    *uses_iv = true;
    return true;
  }
  id = LookThroughPhis(context_, id);
  if (is_iv(id)) {
    *uses_iv = true;
    return true;
  }
  if (depth > 24) return false;
  Instruction* inst = context_->get_def_use_mgr()->GetDef(id);
  if (inst == nullptr) return false;
  BasicBlock* block = context_->get_instr_block(inst);
  if (block == nullptr || !shape.block_ids.count(block->id())) return true;
  if (inst->opcode() == spv::Op::OpLoad) {
    if (IsInvariant(id, shape, nullptr, depth)) return true;
    if (!allow_loads) return false;
    // A load the loop indexes, from memory the loop cannot change (an index
    // list: lights[index[first + i]]). Recomputed for another iteration it
    // reads what that iteration reads.
    const uint32_t ptr = inst->GetSingleWordInOperand(0);
    const spv::StorageClass sc = PointerClass(context_, ptr);
    if (IsPrivateClass(sc) || sc == spv::StorageClass::Max) return false;
    std::string ignored;
    bool inner_uses = false;
    if (!IsAddressOf(ptr, shape, ivs, allow_loads, &inner_uses, indexed_load, depth + 1) ||
        Hazard(shape, inst, &ignored) != LoadHazard::kNone) {
      return false;
    }
    if (inner_uses) {
      *uses_iv = true;
      *indexed_load = true;
    }
    return true;
  }
  if (!IsRecomputable(context_, inst)) return false;
  bool ok = true;
  inst->ForEachInId([&](const uint32_t* operand) {
    if (ok && !IsAddressOf(*operand, shape, ivs, allow_loads, uses_iv, indexed_load, depth + 1)) {
      ok = false;
    }
  });
  return ok;
}

// ---------------------------------------------------------------------------
// Recomputation.

uint32_t LoopAnalysis::CloneAt(uint32_t id, const LoopShape& shape, BasicBlock* block,
                               std::unordered_map<uint32_t, uint32_t>* map) {
  auto* def_use = context_->get_def_use_mgr();
  Instruction* inst = def_use->GetDef(id);
  if (inst == nullptr) return 0;
  // A sampled image is used in the block that makes it (a SPIR-V rule).
  const bool sampled_image = inst->opcode() == spv::Op::OpSampledImage;
  auto found = map->find(id);
  if (found != map->end()) {
    if (!sampled_image || context_->get_instr_block(def_use->GetDef(found->second)) == block) {
      return found->second;
    }
  }
  BasicBlock* def_block = context_->get_instr_block(inst);
  if (!sampled_image && (def_block == nullptr || !shape.block_ids.count(def_block->id()))) {
    return id;
  }
  if (inst->opcode() == spv::Op::OpPhi) {
    const uint32_t value = LookThroughPhis(context_, id);
    if (value == id) return 0;  // an induction phi not mapped
    const uint32_t clone = CloneAt(value, shape, block, map);
    if (clone != 0) (*map)[id] = clone;
    return clone;
  }
  std::vector<Operand> operands;
  for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
    Operand op = inst->GetInOperand(i);
    if (spvIsInIdType(op.type)) {
      uint32_t mapped = CloneAt(op.words[0], shape, block, map);
      if (mapped == 0) return 0;
      op.words = {mapped};
    }
    operands.push_back(op);
  }
  const uint32_t result = context_->TakeNextId();
  if (result == 0) return 0;
  auto clone =
      std::make_unique<Instruction>(context_, inst->opcode(), inst->type_id(), result, operands);
  Instruction* raw = &*block->end().InsertBefore(std::move(clone));
  def_use->AnalyzeInstDefUse(raw);
  context_->set_instr_block(raw, block);
  raw->UpdateDebugInfoFrom(inst);
  (*map)[id] = result;
  return result;
}

}  // namespace waveopt
