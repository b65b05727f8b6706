#include "passes/emitter.h"

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "analysis/ir_util.h"
#include "lib/support/check.h"
#include "source/opt/constants.h"
#include "source/opt/type_manager.h"
#include "source/util/string_utils.h"
#include "spirv/unified1/GLSL.std.450.h"

namespace waveopt {

using spvtools::opt::Instruction;
using spvtools::opt::Operand;

uint32_t Emitter::Emit(spv::Op opcode, uint32_t type, const std::vector<Operand>& operands,
                       uint32_t result) {
  if (!ok_) return 0;
  if (type != 0 && result == 0) {
    result = context_->TakeNextId();
    if (result == 0) {
      ok_ = false;
      return 0;
    }
  }
  for (const Operand& op : operands) {
    if (spvIsIdType(op.type) && (op.words.empty() || op.words[0] == 0)) {
      ok_ = false;  // an operand that failed to materialise
      return 0;
    }
  }
  auto inst = std::make_unique<Instruction>(context_, opcode, type, result, operands);
  Instruction* raw = &*where_.InsertBefore(std::move(inst));
  context_->get_def_use_mgr()->AnalyzeInstDefUse(raw);
  context_->set_instr_block(raw, block_);
  return result;
}

uint32_t Emitter::EmitIds(spv::Op opcode, uint32_t type, std::initializer_list<uint32_t> ids,
                          uint32_t result) {
  std::vector<Operand> operands;
  for (uint32_t id : ids) operands.push_back({SPV_OPERAND_TYPE_ID, {id}});
  return Emit(opcode, type, operands, result);
}

void Emitter::EmitVoid(spv::Op opcode, const std::vector<Operand>& operands) {
  if (!ok_) return;
  for (const Operand& op : operands) {
    if (spvIsIdType(op.type) && (op.words.empty() || op.words[0] == 0)) {
      ok_ = false;
      return;
    }
  }
  auto inst = std::make_unique<Instruction>(context_, opcode, 0, 0, operands);
  Instruction* raw = &*where_.InsertBefore(std::move(inst));
  context_->get_def_use_mgr()->AnalyzeInstDefUse(raw);
  context_->set_instr_block(raw, block_);
}

uint32_t Emitter::Group(spv::Op opcode, uint32_t type, int group_op,
                        std::initializer_list<uint32_t> ids) {
  std::vector<Operand> operands = {{SPV_OPERAND_TYPE_SCOPE_ID, {SubgroupScope()}}};
  if (group_op >= 0) {
    operands.push_back({SPV_OPERAND_TYPE_GROUP_OPERATION, {static_cast<uint32_t>(group_op)}});
  }
  for (uint32_t id : ids) operands.push_back({SPV_OPERAND_TYPE_ID, {id}});
  return Emit(opcode, type, operands);
}

uint32_t Emitter::GlslStd450(uint32_t instruction, uint32_t type,
                             std::initializer_list<uint32_t> ids) {
  if (!ok_) return 0;
  uint32_t set = GlslStd450Import(context_->module());
  if (set == 0) {
    set = Check(context_->TakeNextId());
    if (set == 0) return 0;
    context_->AddExtInstImport(std::make_unique<Instruction>(
        context_, spv::Op::OpExtInstImport, 0, set,
        std::vector<Operand>{
            {SPV_OPERAND_TYPE_LITERAL_STRING, spvtools::utils::MakeVector("GLSL.std.450")}}));
  }
  std::vector<Operand> operands = {{SPV_OPERAND_TYPE_ID, {set}},
                                   {SPV_OPERAND_TYPE_EXTENSION_INSTRUCTION_NUMBER, {instruction}}};
  for (uint32_t id : ids) operands.push_back({SPV_OPERAND_TYPE_ID, {id}});
  return Emit(spv::Op::OpExtInst, type, operands);
}

// %lsb = FindILsb %v4uint %ballot          (0xFFFFFFFF for a zero word)
// %r   = word k's bit + 32k of the lowest non-zero word, by selects from the top
uint32_t Emitter::BallotLowestBit(uint32_t ballot, uint32_t max_lanes) {
  const uint32_t uint_type = UIntType(32);
  const uint32_t bool_type = BoolType();
  const uint32_t lsb = GlslStd450(GLSLstd450FindILsb, UIntVectorType(4), {ballot});
  const uint32_t words = max_lanes == 0 ? 4 : std::min<uint32_t>(4, (max_lanes + 31) / 32);
  uint32_t result = 0;
  for (uint32_t k = words; k-- > 0;) {
    const uint32_t bit =
        Emit(spv::Op::OpCompositeExtract, uint_type,
             {{SPV_OPERAND_TYPE_ID, {lsb}}, {SPV_OPERAND_TYPE_LITERAL_INTEGER, {k}}});
    const uint32_t lane = k == 0 ? bit : EmitIds(spv::Op::OpIAdd, uint_type, {bit, UInt(32 * k)});
    if (result == 0) {
      result = lane;
      continue;
    }
    const uint32_t found = EmitIds(spv::Op::OpINotEqual, bool_type, {bit, UInt(0xFFFFFFFFu)});
    result = EmitIds(spv::Op::OpSelect, uint_type, {found, lane, result});
  }
  return ok_ ? result : 0;
}

void Emitter::MoveTo(spvtools::opt::BasicBlock* block) {
  block_ = block;
  where_ = block->end();
}

spvtools::opt::BasicBlock* Emitter::NewBlock() {
  if (!ok_) return nullptr;
  const uint32_t id = Check(context_->TakeNextId());
  if (id == 0) return nullptr;
  auto block = std::make_unique<spvtools::opt::BasicBlock>(std::make_unique<Instruction>(
      context_, spv::Op::OpLabel, 0, id, std::initializer_list<Operand>{}));
  spvtools::opt::Function* function = block_->GetParent();
  spvtools::opt::BasicBlock* raw = nullptr;
  if (place_before_ != nullptr) {
    raw = function->InsertBasicBlockBefore(std::move(block), place_before_);
  } else {
    raw = function->InsertBasicBlockAfter(std::move(block), last_made_ ? last_made_ : block_);
    last_made_ = raw;
  }
  context_->get_def_use_mgr()->AnalyzeInstDefUse(raw->GetLabelInst());
  context_->set_instr_block(raw->GetLabelInst(), raw);
  return raw;
}

spvtools::opt::BasicBlock* Emitter::EnterNewBlock() {
  spvtools::opt::BasicBlock* block = NewBlock();
  if (block != nullptr) MoveTo(block);
  return block;
}

spvtools::opt::BasicBlock* Emitter::SplitHere() {
  const uint32_t id = ok_ ? Check(context_->TakeNextId()) : 0;
  if (id == 0) return nullptr;
  spvtools::opt::BasicBlock* rest = block_->SplitBasicBlock(context_, id, where_);
  where_ = block_->end();
  return rest;
}

spvtools::opt::BasicBlock::iterator Emitter::AfterPhis(spvtools::opt::BasicBlock* block) {
  auto it = block->begin();
  while (it != block->end() && it->opcode() == spv::Op::OpPhi) ++it;
  return it;
}

void Emitter::EmitVoidAt(spvtools::opt::BasicBlock* block, spv::Op opcode,
                         const std::vector<Operand>& operands) {
  spvtools::opt::BasicBlock* saved_block = block_;
  const spvtools::opt::BasicBlock::iterator saved_where = where_;
  MoveTo(block);
  EmitVoid(opcode, operands);
  block_ = saved_block;
  where_ = saved_where;
}

Emitter::If Emitter::PushIf(uint32_t cond, Arms arms, spvtools::opt::BasicBlock* merge) {
  If s;
  s.header = block_;
  s.cond = cond;
  s.arms = arms;
  s.merge = merge;
  if (cond == 0) ok_ = false;
  spvtools::opt::BasicBlock* first = EnterNewBlock();
  (arms == Arms::kElse ? s.else_block : s.then_block) = first;
  return s;
}

void Emitter::PushElse(If* s) {
  // The then arm's branch waits for the merge (PopIf may make it).
  s->then_end = block_;
  s->else_block = EnterNewBlock();
}

void Emitter::ElseExisting(If* s, spvtools::opt::BasicBlock* first,
                           spvtools::opt::BasicBlock* last) {
  s->else_block = first;
  s->else_end = last;
  s->else_existing = true;
}

bool Emitter::PopIf(If* s) {
  if (!ok_) return false;
  WAVEOPT_ASSERT(s->header != nullptr && (s->then_block || s->else_block),
                 "PopIf closes an if PushIf or WrapInIf opened");
  if (s->else_existing) {
    s->then_end = block_;
  } else {
    (s->arms == Arms::kThen ? s->then_end : s->else_end) = block_;
  }
  if (s->merge == nullptr) s->merge = NewBlock();
  if (s->merge == nullptr) return false;
  const uint32_t merge = s->merge->id();
  if (s->arms == Arms::kBoth && !s->else_existing) {
    EmitVoidAt(s->then_end, spv::Op::OpBranch, {{SPV_OPERAND_TYPE_ID, {merge}}});
  }
  Branch(merge);
  EmitVoidAt(s->header, spv::Op::OpSelectionMerge,
             {{SPV_OPERAND_TYPE_ID, {merge}},
              {SPV_OPERAND_TYPE_SELECTION_CONTROL,
               {static_cast<uint32_t>(spv::SelectionControlMask::MaskNone)}}});
  const uint32_t on_true = s->then_block ? s->then_block->id() : merge;
  const uint32_t on_false = s->else_block ? s->else_block->id() : merge;
  EmitVoidAt(s->header, spv::Op::OpBranchConditional,
             {{SPV_OPERAND_TYPE_ID, {s->cond}},
              {SPV_OPERAND_TYPE_ID, {on_true}},
              {SPV_OPERAND_TYPE_ID, {on_false}}});
  block_ = s->merge;
  where_ = AfterPhis(s->merge);
  return ok_;
}

uint32_t Emitter::IfPhi(const If& s, uint32_t type, uint32_t then_value, uint32_t else_value) {
  if (!ok_) return 0;
  const uint32_t from_then = (s.then_end ? s.then_end : s.header)->id();
  const uint32_t from_else = (s.else_end ? s.else_end : s.header)->id();
  spvtools::opt::BasicBlock* saved_block = block_;
  const spvtools::opt::BasicBlock::iterator saved_where = where_;
  block_ = s.merge;
  where_ = AfterPhis(s.merge);
  const uint32_t phi =
      EmitIds(spv::Op::OpPhi, type, {then_value, from_then, else_value, from_else});
  block_ = saved_block;
  where_ = saved_where;
  return phi;
}

Emitter::If Emitter::WrapInIf(Instruction* first, Instruction* last, uint32_t cond, Arms arm) {
  If s;
  s.header = context_->get_instr_block(first);
  s.cond = cond;
  s.arms = arm;
  const uint32_t guarded_id = ok_ ? Check(context_->TakeNextId()) : 0;
  const uint32_t merge_id = guarded_id ? Check(context_->TakeNextId()) : 0;
  if (merge_id == 0) return s;
  spvtools::opt::BasicBlock* guarded =
      s.header->SplitBasicBlock(context_, guarded_id, spvtools::opt::BasicBlock::iterator(first));
  s.merge =
      guarded->SplitBasicBlock(context_, merge_id, ++spvtools::opt::BasicBlock::iterator(last));
  (arm == Arms::kElse ? s.else_block : s.then_block) = guarded;
  MoveTo(guarded);
  PopIf(&s);
  return s;
}

spvtools::opt::BasicBlock* Emitter::SplitLoopHeader() {
  spvtools::opt::BasicBlock* header = block_;
  Instruction* loop_merge = header->GetLoopMergeInst();
  if (!ok_ || loop_merge == nullptr) return ok_ ? header : nullptr;
  const uint32_t id = Check(context_->TakeNextId());
  if (id == 0) return nullptr;
  const bool at_end = where_ == header->end();
  spvtools::opt::BasicBlock* body = header->SplitBasicBlock(context_, id, AfterPhis(header));
  loop_merge->RemoveFromList();
  header->AddInstruction(std::unique_ptr<Instruction>(loop_merge));
  context_->set_instr_block(loop_merge, header);
  EmitVoidAt(header, spv::Op::OpBranch, {{SPV_OPERAND_TYPE_ID, {body->id()}}});
  block_ = body;
  if (at_end) where_ = body->end();
  return ok_ ? body : nullptr;
}

Emitter::Loop Emitter::PushLoop(spvtools::opt::BasicBlock* merge) {
  Loop loop;
  loop.pre = block_;
  loop.merge = merge;
  loop.header = NewBlock();
  if (loop.header == nullptr) return loop;
  Branch(loop.header->id());
  MoveTo(loop.header);
  return loop;
}

Emitter::Loop Emitter::PushLoopInstead(uint32_t target, spvtools::opt::BasicBlock* merge) {
  Loop loop;
  loop.pre = block_;
  loop.merge = merge;
  loop.header = NewBlock();
  if (loop.header == nullptr) return loop;
  const uint32_t header = loop.header->id();
  block_->ForEachSuccessorLabel([&](uint32_t* succ) {
    if (*succ == target) *succ = header;
  });
  context_->get_def_use_mgr()->AnalyzeInstUse(block_->terminator());
  MoveTo(loop.header);
  return loop;
}

uint32_t Emitter::LoopPhi(Loop* loop, uint32_t type, uint32_t init) {
  const uint32_t phi = EmitIds(spv::Op::OpPhi, type, {init, loop->pre->id()});
  if (phi != 0) loop->phis.push_back(context_->get_def_use_mgr()->GetDef(phi));
  return phi;
}

void Emitter::LoopWhile(Loop* loop, uint32_t cond) {
  if (!ok_) return;
  loop->cond = cond;
  loop->body = EnterNewBlock();
}

bool Emitter::PopLoop(Loop* loop, const std::vector<uint32_t>& next, uint32_t exit) {
  WAVEOPT_ASSERT(next.size() == loop->phis.size(), "PopLoop takes one back-edge value per LoopPhi");
  if (!ok_ || next.size() != loop->phis.size()) return ok_ = false;
  spvtools::opt::BasicBlock* cont = block_;
  if (exit != 0) {
    cont = NewBlock();
    if (cont == nullptr) return false;
    Branch(cont->id());
  }
  if (loop->merge == nullptr) loop->merge = NewBlock();
  if (loop->merge == nullptr) return false;
  loop->cont = cont;
  MoveTo(cont);
  if (exit != 0) {
    BranchConditional(exit, loop->merge->id(), loop->header->id());
  } else {
    Branch(loop->header->id());
  }
  for (size_t k = 0; k < next.size(); ++k) {
    if (!AddIncoming(loop->phis[k]->result_id(), next[k], cont->id())) return false;
  }
  MoveTo(loop->header);
  LoopMerge(loop->merge->id(), cont->id());
  if (loop->cond != 0) {
    BranchConditional(loop->cond, loop->body->id(), loop->merge->id());
  } else {
    Branch(loop->body->id());
  }
  block_ = loop->merge;
  where_ = AfterPhis(loop->merge);
  return ok_;
}

spvtools::opt::BasicBlock* Emitter::ThroughExisting(spvtools::opt::BasicBlock* entry) {
  if (!ok_) return nullptr;
  Branch(entry->id());
  return EnterNewBlock();
}

spvtools::opt::BasicBlock* Emitter::BranchToNewBlock() {
  spvtools::opt::BasicBlock* block = NewBlock();
  if (block == nullptr) return nullptr;
  Branch(block->id());
  MoveTo(block);
  return ok_ ? block : nullptr;
}

spvtools::opt::BasicBlock* Emitter::SplitEdges(
    spvtools::opt::BasicBlock* target, const std::vector<spvtools::opt::BasicBlock*>& from) {
  spvtools::opt::BasicBlock* saved_place = place_before_;
  place_before_ = target;
  spvtools::opt::BasicBlock* block = EnterNewBlock();
  place_before_ = saved_place;
  if (block == nullptr) return nullptr;
  auto* def_use = context_->get_def_use_mgr();
  std::unordered_set<uint32_t> from_ids;
  for (spvtools::opt::BasicBlock* pred : from) {
    from_ids.insert(pred->id());
    pred->ForEachSuccessorLabel([&](uint32_t* succ) {
      if (*succ == target->id()) *succ = block->id();
    });
    def_use->AnalyzeInstUse(pred->terminator());
  }
  std::vector<Instruction*> phis;
  target->ForEachPhiInst([&](Instruction* phi) { phis.push_back(phi); });
  for (Instruction* phi : phis) {
    std::vector<Operand> moved, kept;
    for (uint32_t i = 0; i + 1 < phi->NumInOperands(); i += 2) {
      auto& to = from_ids.count(phi->GetSingleWordInOperand(i + 1)) ? moved : kept;
      to.push_back(phi->GetInOperand(i));
      to.push_back(phi->GetInOperand(i + 1));
    }
    const uint32_t value =
        moved.size() == 2 ? moved[0].words[0] : Emit(spv::Op::OpPhi, phi->type_id(), moved);
    kept.push_back({SPV_OPERAND_TYPE_ID, {value}});
    kept.push_back({SPV_OPERAND_TYPE_ID, {block->id()}});
    phi->SetInOperands(std::move(kept));
    def_use->AnalyzeInstUse(phi);
  }
  Branch(target->id());
  where_ = block->tail();
  return ok_ ? block : nullptr;
}

bool Emitter::AddIncoming(uint32_t phi, uint32_t value, uint32_t pred) {
  Instruction* inst = context_->get_def_use_mgr()->GetDef(phi);
  WAVEOPT_ASSERT(inst == nullptr || inst->opcode() == spv::Op::OpPhi, "AddIncoming adds to a phi");
  if (!ok_ || value == 0 || inst == nullptr) return ok_ = false;
  inst->AddOperand({SPV_OPERAND_TYPE_ID, {value}});
  inst->AddOperand({SPV_OPERAND_TYPE_ID, {pred}});
  context_->get_def_use_mgr()->AnalyzeInstUse(inst);
  return true;
}

void Emitter::Branch(uint32_t target) {
  EmitVoid(spv::Op::OpBranch, {{SPV_OPERAND_TYPE_ID, {target}}});
}

void Emitter::SelectionMerge(uint32_t merge) {
  EmitVoid(spv::Op::OpSelectionMerge,
           {{SPV_OPERAND_TYPE_ID, {merge}},
            {SPV_OPERAND_TYPE_SELECTION_CONTROL,
             {static_cast<uint32_t>(spv::SelectionControlMask::MaskNone)}}});
}

void Emitter::LoopMerge(uint32_t merge, uint32_t continue_target) {
  EmitVoid(spv::Op::OpLoopMerge, {{SPV_OPERAND_TYPE_ID, {merge}},
                                  {SPV_OPERAND_TYPE_ID, {continue_target}},
                                  {SPV_OPERAND_TYPE_LOOP_CONTROL,
                                   {static_cast<uint32_t>(spv::LoopControlMask::MaskNone)}}});
}

void Emitter::BranchConditional(uint32_t cond, uint32_t on_true, uint32_t on_false) {
  EmitVoid(spv::Op::OpBranchConditional, {{SPV_OPERAND_TYPE_ID, {cond}},
                                          {SPV_OPERAND_TYPE_ID, {on_true}},
                                          {SPV_OPERAND_TYPE_ID, {on_false}}});
}

// SPIRV-Tools 2023.1's type and constant managers dereference a null pointer
// when ids run out half way through making a type or a constant (e.g.
// GetUIntVectorTypeId with no uint type yet, GetUIntConstId): they are only
// asked when there is room for everything one such request may create.
bool Emitter::ManagerRoom() {
  constexpr uint32_t kRoom = 4;
  if (ok_ && context_->module()->IdBound() + kRoom > context_->max_id_bound()) {
    ok_ = false;
  }
  return ok_;
}

uint32_t Emitter::UInt(uint32_t value) {
  if (!ManagerRoom()) return 0;
  return Check(context_->get_constant_mgr()->GetUIntConstId(value));
}

uint32_t Emitter::Bool(bool value) {
  if (!ManagerRoom()) return 0;
  spvtools::opt::analysis::Bool bool_type;
  const spvtools::opt::analysis::Type* type =
      context_->get_type_mgr()->GetRegisteredType(&bool_type);
  const spvtools::opt::analysis::Constant* c =
      context_->get_constant_mgr()->GetConstant(type, {value ? 1u : 0u});
  Instruction* inst = context_->get_constant_mgr()->GetDefiningInstruction(c);
  return Check(inst ? inst->result_id() : 0);
}

uint32_t Emitter::Zero(uint32_t int_type) {
  if (!ManagerRoom()) return 0;
  const spvtools::opt::analysis::Type* type = context_->get_type_mgr()->GetType(int_type);
  const spvtools::opt::analysis::Integer* as_int = type ? type->AsInteger() : nullptr;
  if (as_int == nullptr) return Check(0);
  std::vector<uint32_t> words(as_int->width() == 64 ? 2 : 1, 0u);
  const spvtools::opt::analysis::Constant* c =
      context_->get_constant_mgr()->GetConstant(type, words);
  Instruction* inst = context_->get_constant_mgr()->GetDefiningInstruction(c, int_type);
  return Check(inst ? inst->result_id() : 0);
}

uint32_t Emitter::Null(uint32_t type_id) {
  if (!ManagerRoom()) return 0;
  const spvtools::opt::analysis::Type* type = context_->get_type_mgr()->GetType(type_id);
  if (type == nullptr) return Check(0);
  const spvtools::opt::analysis::Constant* c = context_->get_constant_mgr()->GetConstant(type, {});
  Instruction* inst = context_->get_constant_mgr()->GetDefiningInstruction(c, type_id);
  return Check(inst ? inst->result_id() : 0);
}

uint32_t Emitter::Constant(uint32_t type_id, const std::vector<uint32_t>& words) {
  if (!ok_) return 0;
  const spvtools::opt::analysis::Type* type = context_->get_type_mgr()->GetType(type_id);
  if (type == nullptr) return Check(0);
  const spvtools::opt::analysis::Constant* c =
      context_->get_constant_mgr()->GetConstant(type, words);
  Instruction* inst = context_->get_constant_mgr()->GetDefiningInstruction(c, type_id);
  return Check(inst ? inst->result_id() : 0);
}

uint32_t Emitter::BoolType() {
  if (!ManagerRoom()) return 0;
  return Check(context_->get_type_mgr()->GetBoolTypeId());
}

uint32_t Emitter::UIntType(uint32_t width) {
  if (!ManagerRoom()) return 0;
  spvtools::opt::analysis::Integer type(width, false);
  return Check(context_->get_type_mgr()->GetTypeInstruction(&type));
}

uint32_t Emitter::IntType(uint32_t width, bool is_signed) {
  if (!ManagerRoom()) return 0;
  spvtools::opt::analysis::Integer type(width, is_signed);
  return Check(context_->get_type_mgr()->GetTypeInstruction(&type));
}

uint32_t Emitter::VectorType(uint32_t component, uint32_t count) {
  if (count == 1) return component;
  if (!ManagerRoom()) return 0;
  const spvtools::opt::analysis::Type* c = context_->get_type_mgr()->GetType(component);
  if (c == nullptr) return Check(0);
  spvtools::opt::analysis::Vector type(c, count);
  return Check(context_->get_type_mgr()->GetTypeInstruction(&type));
}

uint32_t Emitter::UIntVectorType(uint32_t count) {
  if (!ManagerRoom()) return 0;
  return Check(context_->get_type_mgr()->GetUIntVectorTypeId(count));
}

}  // namespace waveopt
