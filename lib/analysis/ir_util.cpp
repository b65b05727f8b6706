// Small IR queries shared by the analyses and the passes: see ir_util.h.
#include "analysis/ir_util.h"

#include <unordered_set>
#include <vector>

namespace waveopt {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;

namespace {

// The literal words of |inst| (an OpConstant or OpSpecConstant of a
// numeric scalar type |type|) as one value, and the type's width.
bool ScalarWords(const Instruction* inst, const Instruction* type, uint64_t* bits,
                 uint32_t* width) {
  if (type == nullptr ||
      (type->opcode() != spv::Op::OpTypeInt && type->opcode() != spv::Op::OpTypeFloat)) {
    return false;
  }
  if (width != nullptr) *width = type->GetSingleWordInOperand(0);
  if (inst->opcode() == spv::Op::OpConstantNull) {
    *bits = 0;
    return true;
  }
  *bits = inst->GetSingleWordInOperand(0);
  if (inst->NumInOperandWords() > 1) {
    *bits |= static_cast<uint64_t>(inst->GetSingleWordInOperand(1)) << 32;
  }
  return true;
}

const Instruction* TypeOf(IRContext* context, const Instruction* inst) {
  return context->get_def_use_mgr()->GetDef(inst->type_id());
}

}  // namespace

bool ScalarConstant(IRContext* context, const Instruction* inst, uint64_t* bits, uint32_t* width) {
  if (inst == nullptr ||
      (inst->opcode() != spv::Op::OpConstant && inst->opcode() != spv::Op::OpConstantNull)) {
    return false;
  }
  return ScalarWords(inst, TypeOf(context, inst), bits, width);
}

bool IntConstant(IRContext* context, const Instruction* inst, uint64_t* value, uint32_t* width) {
  if (inst == nullptr) return false;
  const Instruction* type = TypeOf(context, inst);
  if (type == nullptr || type->opcode() != spv::Op::OpTypeInt) return false;
  return ScalarConstant(context, inst, value, width);
}

bool IntSpecDefault(IRContext* context, const Instruction* inst, uint64_t* value, uint32_t* width) {
  if (inst == nullptr || inst->opcode() != spv::Op::OpSpecConstant) return false;
  const Instruction* type = TypeOf(context, inst);
  if (type == nullptr || type->opcode() != spv::Op::OpTypeInt) return false;
  return ScalarWords(inst, type, value, width);
}

bool IntConstantId(IRContext* context, uint32_t id, uint64_t* value, uint32_t* width) {
  return IntConstant(context, context->get_def_use_mgr()->GetDef(id), value, width);
}

uint32_t OnlyValueOfPhiWeb(IRContext* context, const Instruction* phi, size_t limit) {
  auto* defs = context->get_def_use_mgr();
  std::vector<const Instruction*> work = {phi};
  std::unordered_set<uint32_t> seen = {phi->result_id()};
  uint32_t only = 0;
  while (!work.empty()) {
    const Instruction* p = work.back();
    work.pop_back();
    for (uint32_t i = 0; i + 1 < p->NumInOperands(); i += 2) {
      const uint32_t in = p->GetSingleWordInOperand(i);
      if (seen.count(in)) continue;
      const Instruction* d = defs->GetDef(in);
      if (d != nullptr && d->opcode() == spv::Op::OpPhi) {
        if (seen.size() >= limit) return 0;
        seen.insert(in);
        work.push_back(d);
        continue;
      }
      if (only != 0 && in != only) return 0;
      only = in;
    }
  }
  return only;
}

namespace {

// Whether the workgroup of |func|'s entry point is one invocation high and
// deep (LocalSize, or a WorkgroupSize composite, with y = z = 1).
bool OneRowWorkgroup(IRContext* context, const Function* func) {
  auto one = [&](uint32_t id) {
    uint64_t v = 0;
    return IntConstantId(context, id, &v) && v == 1;
  };
  for (Instruction& a : context->annotations()) {
    if (a.opcode() == spv::Op::OpDecorate &&
        spv::Decoration(a.GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn &&
        spv::BuiltIn(a.GetSingleWordInOperand(2)) == spv::BuiltIn::WorkgroupSize) {
      const Instruction* c = context->get_def_use_mgr()->GetDef(a.GetSingleWordInOperand(0));
      return c != nullptr && c->NumInOperands() == 3 && one(c->GetSingleWordInOperand(1)) &&
             one(c->GetSingleWordInOperand(2));
    }
  }
  for (Instruction& mode : context->module()->execution_modes()) {
    if (mode.GetSingleWordInOperand(0) == func->result_id() &&
        spv::ExecutionMode(mode.GetSingleWordInOperand(1)) == spv::ExecutionMode::LocalSize) {
      return mode.GetSingleWordInOperand(3) == 1 && mode.GetSingleWordInOperand(4) == 1;
    }
  }
  return false;
}

// Whether |id| is the invocation's index in a way RunsInOneInvocation
// takes (through copies and phi webs).
bool IsOneInvocationIndex(IRContext* context, const Function* func, uint32_t id) {
  const Instruction* def = context->get_def_use_mgr()->GetDef(id);
  for (int k = 0; def != nullptr && k < 8; ++k) {
    if (def->opcode() == spv::Op::OpPhi) {
      const uint32_t only = OnlyValueOfPhiWeb(context, def);
      def = only != 0 ? context->get_def_use_mgr()->GetDef(only) : nullptr;
    } else if (def->opcode() == spv::Op::OpCopyObject || def->opcode() == spv::Op::OpBitcast) {
      def = context->get_def_use_mgr()->GetDef(def->GetSingleWordInOperand(0));
    } else {
      break;
    }
  }
  if (def == nullptr) return false;
  if (def->opcode() == spv::Op::OpLoad) {
    const uint32_t ptr = def->GetSingleWordInOperand(0);
    const spv::BuiltIn b = BuiltInOf(context, ptr);
    if (b == spv::BuiltIn::LocalInvocationIndex || b == spv::BuiltIn::SubgroupLocalInvocationId) {
      return true;
    }
    // gl_LocalInvocationID.x loaded through a chain to its component 0.
    const Instruction* chain = context->get_def_use_mgr()->GetDef(ptr);
    uint64_t component = 1;
    return chain != nullptr && chain->opcode() == spv::Op::OpAccessChain &&
           chain->NumInOperands() == 2 &&
           BuiltInOf(context, chain->GetSingleWordInOperand(0)) ==
               spv::BuiltIn::LocalInvocationId &&
           IntConstantId(context, chain->GetSingleWordInOperand(1), &component) && component == 0 &&
           OneRowWorkgroup(context, func);
  }
  if (def->opcode() == spv::Op::OpCompositeExtract && def->NumInOperands() == 2 &&
      def->GetSingleWordInOperand(1) == 0) {
    const Instruction* v = context->get_def_use_mgr()->GetDef(def->GetSingleWordInOperand(0));
    return v != nullptr && v->opcode() == spv::Op::OpLoad &&
           BuiltInOf(context, v->GetSingleWordInOperand(0)) == spv::BuiltIn::LocalInvocationId &&
           OneRowWorkgroup(context, func);
  }
  return false;
}

}  // namespace

bool RunsInOneInvocation(IRContext* context, Function* func, BasicBlock* block) {
  spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(func);
  for (BasicBlock* b = dom->ImmediateDominator(block); b != nullptr;
       b = dom->ImmediateDominator(b)) {
    const Instruction* term = b->terminator();
    if (term->opcode() != spv::Op::OpBranchConditional) continue;
    const uint32_t then_id = term->GetSingleWordInOperand(1);
    if (then_id == term->GetSingleWordInOperand(2)) continue;
    BasicBlock* then_block = context->get_instr_block(then_id);
    if (context->cfg()->preds(then_id).size() != 1 || !dom->Dominates(then_block, block)) continue;
    const Instruction* cond = context->get_def_use_mgr()->GetDef(term->GetSingleWordInOperand(0));
    if (cond == nullptr || cond->opcode() != spv::Op::OpIEqual) continue;
    for (int k = 0; k < 2; ++k) {
      uint64_t c = 0;
      if (IntConstantId(context, cond->GetSingleWordInOperand(1 - k), &c) &&
          IsOneInvocationIndex(context, func, cond->GetSingleWordInOperand(k))) {
        return true;
      }
    }
  }
  return false;
}

spv::BuiltIn BuiltInOf(IRContext* context, uint32_t id) {
  for (Instruction* dec : context->get_decoration_mgr()->GetDecorationsFor(id, false)) {
    if (dec->opcode() == spv::Op::OpDecorate &&
        spv::Decoration(dec->GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn) {
      return spv::BuiltIn(dec->GetSingleWordInOperand(2));
    }
  }
  return spv::BuiltIn::Max;
}

uint32_t FindBuiltInInput(IRContext* context, spv::BuiltIn builtin) {
  for (Instruction& inst : context->types_values()) {
    if (inst.opcode() == spv::Op::OpVariable &&
        spv::StorageClass(inst.GetSingleWordInOperand(0)) == spv::StorageClass::Input &&
        BuiltInOf(context, inst.result_id()) == builtin) {
      return inst.result_id();
    }
  }
  return 0;
}

bool IsSubgroupCapability(spv::Capability c) {
  switch (c) {
    case spv::Capability::GroupNonUniform:
    case spv::Capability::GroupNonUniformVote:
    case spv::Capability::GroupNonUniformArithmetic:
    case spv::Capability::GroupNonUniformBallot:
    case spv::Capability::GroupNonUniformShuffle:
    case spv::Capability::GroupNonUniformShuffleRelative:
    case spv::Capability::GroupNonUniformClustered:
    case spv::Capability::GroupNonUniformQuad:
    case spv::Capability::GroupNonUniformRotateKHR:
    case spv::Capability::GroupNonUniformPartitionedNV:
      return true;
    default:
      return false;
  }
}

Definitions::Definitions(IRContext* context) {
  if (context->AreAnalysesValid(IRContext::kAnalysisDefUse)) {
    def_use_ = context->get_def_use_mgr();
    return;
  }
  table_.assign(context->module()->IdBound(), nullptr);
  context->module()->ForEachInst([this](Instruction* inst) {
    const uint32_t id = inst->result_id();
    if (id != 0 && id < table_.size()) table_[id] = inst;
  });
}

}  // namespace waveopt
