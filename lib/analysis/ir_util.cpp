// Small IR queries shared by the analyses and the passes: see ir_util.h.
#include "analysis/ir_util.h"

#include <unordered_set>
#include <vector>

namespace waveopt {

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

}  // namespace waveopt
