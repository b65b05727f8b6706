// workgroup-reduce over rows: see the header; docs/design/workgroup-reduce.md
// ("Rows and vector elements") for the legality argument.
#include "passes/workgroup_reduce_rows.h"

#include <memory>

#include "analysis/ir_util.h"
#include "analysis/loops.h"
#include "source/opt/constants.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/ir_context.h"

namespace waveopt {

using spvtools::opt::Instruction;
using spvtools::opt::IRContext;

namespace {

using Reason = WorkgroupReduceReason;

bool Refuse(Reason* reason, std::string* why, Reason r, const std::string& w) {
  *reason = r;
  *why = w;
  return false;
}

}  // namespace

namespace {

// Whether |id| is a 32-bit OpSpecConstant with a SpecId and a nonzero
// default; appends it to |rows| when it is (once per constant).
bool SpecRowDefault(IRContext* context, uint32_t id, std::vector<RowLayout::SpecRow>* rows) {
  const Instruction* def = context->get_def_use_mgr()->GetDef(id);
  if (def == nullptr || def->opcode() != spv::Op::OpSpecConstant || def->NumInOperands() != 1) {
    return false;
  }
  int64_t spec_id = -1;
  for (Instruction* dec : context->get_decoration_mgr()->GetDecorationsFor(id, false)) {
    if (dec->opcode() == spv::Op::OpDecorate &&
        spv::Decoration(dec->GetSingleWordInOperand(1)) == spv::Decoration::SpecId) {
      spec_id = dec->GetSingleWordInOperand(2);
    }
  }
  const uint64_t value = def->GetSingleWordInOperand(0);
  if (spec_id < 0 || value == 0 || value > kMaxTreeRows) return false;
  for (const RowLayout::SpecRow& r : *rows) {
    if (r.id == id) return rows->push_back(r), true;
  }
  rows->push_back({id, static_cast<uint32_t>(spec_id), value});
  return true;
}

}  // namespace

bool ArrayRowLayout(IRContext* context, const Instruction* var, RowLayout* layout,
                    WorkgroupReduceReason* reason, std::string* why) {
  auto* def_use = context->get_def_use_mgr();
  const Instruction* ptr = def_use->GetDef(var->type_id());
  const Instruction* type = def_use->GetDef(ptr->GetSingleWordInOperand(1));
  std::vector<uint32_t> lengths;
  while (type != nullptr && type->opcode() == spv::Op::OpTypeArray) {
    lengths.push_back(type->GetSingleWordInOperand(1));
    type = def_use->GetDef(type->GetSingleWordInOperand(0));
  }
  if (lengths.empty() || type == nullptr) {
    return Refuse(reason, why, Reason::kUnsupportedType, "the shared variable is not an array");
  }
  layout->elem_type = type->result_id();
  const Instruction* scalar = type;
  if (type->opcode() == spv::Op::OpTypeVector) {
    layout->components = type->GetSingleWordInOperand(1);
    scalar = def_use->GetDef(type->GetSingleWordInOperand(0));
  }
  if (scalar->opcode() != spv::Op::OpTypeInt && scalar->opcode() != spv::Op::OpTypeFloat) {
    return Refuse(reason, why, Reason::kUnsupportedType,
                  "the array's elements are not scalars or vectors (structures, "
                  "matrices): one array per member");
  }
  layout->scalar_type = scalar->result_id();
  layout->length_id = lengths.back();
  layout->outer.clear();
  layout->rows = 1;
  layout->spec_rows.clear();
  for (size_t k = 0; k + 1 < lengths.size(); ++k) {
    uint64_t n = 0;
    if (SpecRowDefault(context, lengths[k], &layout->spec_rows)) {
      n = layout->spec_rows.back().value;
    } else if (!IntConstantId(context, lengths[k], &n) || n == 0) {
      return Refuse(reason, why, Reason::kUnknownRowCount,
                    "an outer length of the array is neither a constant nor "
                    "one specialization constant of a nonzero default: give "
                    "it one");
    }
    layout->outer.push_back(n);
    layout->rows *= n;
    if (layout->rows > kMaxTreeRows) {
      return Refuse(reason, why, Reason::kTooManyRows,
                    "the array has more than " + std::to_string(kMaxTreeRows) +
                        " rows (the outer levels' lengths multiplied): reduce "
                        "fewer rows per tree");
    }
  }
  return true;
}

bool ProjectRow(const std::vector<std::vector<TraceEvent>>& events, int64_t row,
                std::vector<std::vector<TraceEvent>>* out, std::string* why, Instruction** where) {
  out->assign(events.size(), {});
  for (size_t t = 0; t < events.size(); ++t) {
    const std::vector<TraceEvent>& in = events[t];
    std::vector<int64_t> index(in.size(), -1);  // in the projection
    for (size_t i = 0; i < in.size(); ++i) {
      TraceEvent e = in[i];
      const bool access = e.kind == TraceEvent::Kind::kLoad || e.kind == TraceEvent::Kind::kStore;
      if (access && e.row != row) continue;
      if (e.kind == TraceEvent::Kind::kStore) {
        if (e.component >= 0) {
          *why =
              "one component of a vector element is written (vector "
              "elements are reduced whole): write whole elements";
          *where = e.inst;
          return false;
        }
        TraceStoreValue& v = e.value;
        auto whole = [&](uint32_t k) { return index[k] >= 0 && in[k].component < 0; };
        const bool ok = v.kind == TraceStoreValue::Kind::kOther ||
                        (whole(v.a) && (v.kind == TraceStoreValue::Kind::kCopy || whole(v.b)));
        if (!ok) {
          v.kind = TraceStoreValue::Kind::kOther;
          v.id = e.inst->GetSingleWordInOperand(1);
        } else if (v.kind != TraceStoreValue::Kind::kOther) {
          v.a = static_cast<uint32_t>(index[v.a]);
          if (v.kind == TraceStoreValue::Kind::kCombined) {
            v.b = static_cast<uint32_t>(index[v.b]);
          }
        }
      }
      index[i] = static_cast<int64_t>((*out)[t].size());
      (*out)[t].push_back(e);
    }
  }
  return true;
}

uint32_t EmitIdList(Emitter* e, spv::Op opcode, uint32_t type, const std::vector<uint32_t>& ids) {
  std::vector<spvtools::opt::Operand> operands;
  for (uint32_t id : ids) operands.push_back({SPV_OPERAND_TYPE_ID, {id}});
  return e->Emit(opcode, type, operands);
}

uint32_t ElementConstant(Emitter* e, const RowLayout& layout, uint32_t bits) {
  const uint32_t scalar = e->Constant(layout.scalar_type, {bits});
  if (layout.components == 0) return scalar;
  return e->Constant(layout.elem_type, std::vector<uint32_t>(layout.components, scalar));
}

uint32_t SelectElement(Emitter* e, const RowLayout& layout, uint32_t cond, uint32_t a, uint32_t b) {
  if (layout.components != 0) {
    // A vector's select takes a vector condition (before SPIR-V 1.4).
    const uint32_t type = e->VectorType(e->BoolType(), layout.components);
    cond = EmitIdList(e, spv::Op::OpCompositeConstruct, type,
                      std::vector<uint32_t>(layout.components, cond));
  }
  return e->EmitIds(spv::Op::OpSelect, layout.elem_type, {cond, a, b});
}

std::vector<uint32_t> RowIndices(Emitter* e, const RowLayout& layout, uint64_t row) {
  std::vector<uint32_t> indices(layout.outer.size());
  for (size_t k = layout.outer.size(); k-- > 0;) {
    indices[k] = e->UInt(static_cast<uint32_t>(row % layout.outer[k]));
    row /= layout.outer[k];
  }
  return indices;
}

bool ReplaceReader(IRContext* context, const RowLayout& layout, Instruction* reader,
                   uint32_t value) {
  uint32_t replacement = value;
  if (reader->type_id() != layout.elem_type) {
    // One component: the access chain's last index.
    const Instruction* chain =
        context->get_def_use_mgr()->GetDef(reader->GetSingleWordInOperand(0));
    const uint32_t component = chain->GetSingleWordInOperand(chain->NumInOperands() - 1);
    Emitter e(context, context->get_instr_block(reader),
              spvtools::opt::BasicBlock::iterator(reader));
    uint64_t k = 0;
    if (IntConstantId(context, component, &k)) {
      replacement = e.Emit(spv::Op::OpCompositeExtract, reader->type_id(),
                           {{SPV_OPERAND_TYPE_ID, {value}},
                            {SPV_OPERAND_TYPE_LITERAL_INTEGER, {static_cast<uint32_t>(k)}}});
    } else {
      replacement =
          e.EmitIds(spv::Op::OpVectorExtractDynamic, reader->type_id(), {value, component});
    }
    if (!e.ok()) return false;
  }
  context->ReplaceAllUsesWith(reader->result_id(), replacement);
  context->KillInst(reader);
  return true;
}

void HoistAboveStore(IRContext* context, Instruction* store, Instruction* barrier, uint32_t var) {
  std::vector<Instruction*> between;
  for (Instruction* inst = store->NextNode(); inst != nullptr && inst != barrier;
       inst = inst->NextNode()) {
    if (inst->opcode() == spv::Op::OpStore) {
      Instruction* root = RootVariable(context, inst->GetSingleWordInOperand(0));
      if (root != nullptr && root->result_id() == var) continue;
    }
    between.push_back(inst);
  }
  for (Instruction* inst : between) {
    inst->RemoveFromList();
    store->InsertBefore(std::unique_ptr<Instruction>(inst));
  }
}

int64_t ConstantRow(IRContext* context, const RowLayout& layout, const Instruction* chain,
                    uint32_t* index) {
  if (chain == nullptr ||
      (chain->opcode() != spv::Op::OpAccessChain &&
       chain->opcode() != spv::Op::OpInBoundsAccessChain) ||
      chain->NumInOperands() != layout.outer.size() + 2) {
    return -1;
  }
  uint64_t row = 0;
  for (size_t k = 0; k < layout.outer.size(); ++k) {
    uint64_t i = 0;
    if (!IntConstantId(context, chain->GetSingleWordInOperand(static_cast<uint32_t>(k + 1)), &i) ||
        i >= layout.outer[k]) {
      return -1;
    }
    row = row * layout.outer[k] + i;
  }
  *index = chain->GetSingleWordInOperand(chain->NumInOperands() - 1);
  return static_cast<int64_t>(row);
}

}  // namespace waveopt
