// workgroup-reduce: see the header for the rewrite; docs/design/
// workgroup-reduce.md for the legality and cost rules, remarks and options.
#include "passes/workgroup_reduce_pass.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <climits>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/barriers.h"
#include "analysis/ir_util.h"
#include "analysis/lane_layout.h"
#include "analysis/loops.h"
#include "analysis/workgroup_trace.h"
#include "passes/emitter.h"
#include "passes/workgroup_reduce_pass_impl.h"
#include "passes/workgroup_reduce_rows.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/ir_context.h"
#include "source/opt/loop_descriptor.h"
#include "source/opt/type_manager.h"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;
using spvtools::opt::Operand;
using Reason = WorkgroupReduceReason;

// The remark name of each WorkgroupReduceReason, in the enum's order.
constexpr const char* kReasonNames[] = {
    "",
    "NotInEntryPoint",
    "UnknownWorkgroupSize",
    "UnknownRowCount",
    "TooManyRows",
    "UnsupportedType",
    "FloatReassociation",
    "Unreached",
    "BranchOnArrayValue",
    "CallInTree",
    "IndexFromArray",
    "OutOfBounds",
    "TraceTooLong",
    "UnknownBranch",
    "UnknownIndex",
    "UnsupportedAccess",
    "UnsupportedControlFlow",
    "NonUniformBarriers",
    "RaceInTree",
    "ReadsPartialValue",
    "IncompleteTree",
    "NotATreeStep",
    "NoTreeSteps",
    "MixedOperations",
    "OtherWorkInTree",
    "ReaderInsideTree",
    "NoReader",
    "DependsOnConfiguration",
    "PartialElementWrite",
    "RowsDiffer",
    "ReaderSpansRows",
    "ValueEscapesTree",
    "TooFewSlots",
    "StoreAfterTree",
    "NotProfitable",
    "NotExpressibleInHlsl",
    "PairTreeShape",
    "PairFloatKey",
    "PairCondition",
};
static_assert(sizeof(kReasonNames) / sizeof(kReasonNames[0]) == static_cast<size_t>(Reason::kCount),
              "kReasonNames has one name per WorkgroupReduceReason");

constexpr int kReduce = static_cast<int>(spv::GroupOperation::Reduce);
constexpr int kExclusiveScan = static_cast<int>(spv::GroupOperation::ExclusiveScan);

// The largest specialization-constant workgroup size traced.
constexpr uint64_t kMaxTracedSize = 1024;
// Configurations a trace adds per configuration for the outcomes of
// uniform branches (2 + 4 + 8: three branches, each followed both ways).
constexpr size_t kMaxUniformOutcomes = 14;
// The largest subgroup size Vulkan allows: larger workgroups are never one
// subgroup.
constexpr uint64_t kMaxSubgroupSize = 128;
// The largest workgroup whose slots the RADV profile folds serially: 8
// slots at wave32.
constexpr uint64_t kMaxSerialFoldWorkgroup = 256;

bool IsFloatOp(spv::Op op, uint32_t ext) {
  if (op == spv::Op::OpExtInst) {
    return ext == GLSLstd450FMin || ext == GLSLstd450FMax || ext == GLSLstd450NMin ||
           ext == GLSLstd450NMax;
  }
  return op == spv::Op::OpFAdd || op == spv::Op::OpFMul;
}

// Min, max, and, or: combining a value with itself changes nothing, so an
// element may enter the result more than once.
bool IsIdempotent(spv::Op op, uint32_t ext) {
  return op == spv::Op::OpExtInst || op == spv::Op::OpBitwiseAnd || op == spv::Op::OpBitwiseOr;
}

// The subgroup reduction of a tree operation.
spv::Op GroupOp(spv::Op op, uint32_t ext) {
  switch (op) {
    case spv::Op::OpIAdd:
      return spv::Op::OpGroupNonUniformIAdd;
    case spv::Op::OpIMul:
      return spv::Op::OpGroupNonUniformIMul;
    case spv::Op::OpFAdd:
      return spv::Op::OpGroupNonUniformFAdd;
    case spv::Op::OpFMul:
      return spv::Op::OpGroupNonUniformFMul;
    case spv::Op::OpBitwiseAnd:
      return spv::Op::OpGroupNonUniformBitwiseAnd;
    case spv::Op::OpBitwiseOr:
      return spv::Op::OpGroupNonUniformBitwiseOr;
    case spv::Op::OpBitwiseXor:
      return spv::Op::OpGroupNonUniformBitwiseXor;
    default:
      break;
  }
  switch (ext) {
    case GLSLstd450UMin:
      return spv::Op::OpGroupNonUniformUMin;
    case GLSLstd450SMin:
      return spv::Op::OpGroupNonUniformSMin;
    case GLSLstd450UMax:
      return spv::Op::OpGroupNonUniformUMax;
    case GLSLstd450SMax:
      return spv::Op::OpGroupNonUniformSMax;
    case GLSLstd450FMin:
    case GLSLstd450NMin:
      return spv::Op::OpGroupNonUniformFMin;
    default:
      return spv::Op::OpGroupNonUniformFMax;
  }
}

// "add", "max", ... for remarks.
std::string OpName(spv::Op op, uint32_t ext) {
  switch (op) {
    case spv::Op::OpIAdd:
      return "integer add";
    case spv::Op::OpIMul:
      return "integer multiply";
    case spv::Op::OpFAdd:
      return "float add";
    case spv::Op::OpFMul:
      return "float multiply";
    case spv::Op::OpBitwiseAnd:
      return "and";
    case spv::Op::OpBitwiseOr:
      return "or";
    case spv::Op::OpBitwiseXor:
      return "xor";
    default:
      break;
  }
  switch (ext) {
    case GLSLstd450UMin:
      return "unsigned min";
    case GLSLstd450SMin:
      return "signed min";
    case GLSLstd450UMax:
      return "unsigned max";
    case GLSLstd450SMax:
      return "signed max";
    case GLSLstd450FMin:
    case GLSLstd450NMin:
      return "float min";
    default:
      return "float max";
  }
}

// "a x" or "an x".
std::string Article(const std::string& noun) {
  return (noun[0] == 'a' || noun[0] == 'i' || noun[0] == 'o' || noun[0] == 'u' || noun[0] == 'e'
              ? "an "
              : "a ") +
         noun;
}

// Whether |inst| stores a combination of two loads of its own array (the
// shape of a tree step); |*var| gets the array. |defs|: the module's
// definitions (Definitions).
bool IsCombineStoreOf(const Definitions& defs, const Instruction* inst, uint32_t* var) {
  if (inst->opcode() != spv::Op::OpStore) return false;
  Instruction* root = RootVariableOf(defs, inst->GetSingleWordInOperand(0));
  if (root == nullptr ||
      spv::StorageClass(root->GetSingleWordInOperand(0)) != spv::StorageClass::Workgroup) {
    return false;
  }
  const Instruction* value = defs(inst->GetSingleWordInOperand(1));
  if (value == nullptr) return false;
  std::vector<uint32_t> operands;
  const spv::Op op = value->opcode();
  if (op == spv::Op::OpLoad) {
    // A copy of another element (arg-max pairs, which move the winner's
    // index with its value): a candidate the analysis names.
    Instruction* r = RootVariableOf(defs, value->GetSingleWordInOperand(0));
    if (r != root) return false;
    *var = root->result_id();
    return true;
  }
  if (op == spv::Op::OpExtInst && value->NumInOperands() == 4 &&
      IsGlslMinMax(value->GetSingleWordInOperand(1))) {
    operands = {value->GetSingleWordInOperand(2), value->GetSingleWordInOperand(3)};
  } else if ((op == spv::Op::OpIAdd || op == spv::Op::OpIMul || op == spv::Op::OpFAdd ||
              op == spv::Op::OpFMul || op == spv::Op::OpBitwiseAnd || op == spv::Op::OpBitwiseOr ||
              op == spv::Op::OpBitwiseXor) &&
             value->NumInOperands() == 2) {
    operands = {value->GetSingleWordInOperand(0), value->GetSingleWordInOperand(1)};
  } else {
    return false;
  }
  for (uint32_t id : operands) {
    const Instruction* load = defs(id);
    if (load == nullptr || load->opcode() != spv::Op::OpLoad) return false;
    Instruction* r = RootVariableOf(defs, load->GetSingleWordInOperand(0));
    if (r != root) return false;
  }
  *var = root->result_id();
  return true;
}

// The same, with the context's def-use analysis.
bool IsCombineStore(IRContext* context, const Instruction* inst, uint32_t* var) {
  if (inst->opcode() != spv::Op::OpStore) return false;
  context->get_def_use_mgr();
  return IsCombineStoreOf(Definitions(context), inst, var);
}

// The operation a combine store (IsCombineStore) stores the result of;
// OpNop for a copy.
StepOp StepOpOf(IRContext* context, const Instruction* store) {
  const Instruction* value = context->get_def_use_mgr()->GetDef(store->GetSingleWordInOperand(1));
  if (value->opcode() == spv::Op::OpLoad) return {};
  if (value->opcode() == spv::Op::OpExtInst) {
    return {spv::Op::OpExtInst, value->GetSingleWordInOperand(1)};
  }
  return {value->opcode(), 0};
}

}  // namespace

bool HoldsWorkgroupTreeStep(IRContext* context, Function* func) {
  // The barrier first, then the step test with the definitions alone
  // (compile time: -O runs this on every function before any other pass,
  // and most have no barrier, or no step).
  bool barrier = false, step = false;
  func->WhileEachInst([&](Instruction* inst) {
    barrier = inst->opcode() == spv::Op::OpControlBarrier;
    return !barrier;
  });
  if (!barrier) return false;
  const Definitions defs(context);
  func->WhileEachInst([&](Instruction* inst) {
    uint32_t var = 0;
    step = IsCombineStoreOf(defs, inst, &var);
    return !step;
  });
  return step;
}

// ---------------------------------------------------------------------------
// The spine: from B0, the straight-line instructions and whole constructs
// every invocation runs in order (selection and loop constructs are one
// item each, up to their merge blocks). Positions order the events of a
// trace and delimit the region the rewrite replaces.

struct WorkgroupReducePass::Spine {
  struct Item {
    Instruction* inst = nullptr;   // a straight-line instruction
    BasicBlock* header = nullptr;  // or a construct
    BasicBlock* merge = nullptr;
  };
  std::vector<Item> items;
  std::unordered_map<const Instruction*, int> inst_item;
  std::unordered_map<uint32_t, int> block_item;

  // The item |inst| belongs to, or INT_MAX when it is past the spine.
  int Position(IRContext* context, const Instruction* inst) const {
    auto found = inst_item.find(inst);
    if (found != inst_item.end()) return found->second;
    BasicBlock* block = context->get_instr_block(const_cast<Instruction*>(inst));
    if (block == nullptr) return INT_MAX;
    auto b = block_item.find(block->id());
    return b == block_item.end() ? INT_MAX : b->second;
  }

  // Adds the construct of |header| up to |merge| (every block it dominates
  // that |merge| does not); |with_header| for loops, whose header runs
  // every iteration.
  void AddConstruct(IRContext* context, Function* func, BasicBlock* header, BasicBlock* merge,
                    bool with_header) {
    spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(func);
    const int index = static_cast<int>(items.size());
    items.push_back({nullptr, header, merge});
    inst_item[header->terminator()] = index;
    if (Instruction* m = header->GetMergeInst()) inst_item[m] = index;
    for (BasicBlock& block : *func) {
      if (!dom->Dominates(header, &block) || (merge != nullptr && dom->Dominates(merge, &block))) {
        continue;
      }
      if (&block == header && !with_header) continue;
      block_item[block.id()] = index;
    }
  }

  void Build(IRContext* context, Function* func, Instruction* start) {
    BasicBlock* block = context->get_instr_block(start);
    auto it = BasicBlock::iterator(start);
    for (int guard = 0; block != nullptr && guard < 100000; ++guard) {
      Instruction* merge = block->GetMergeInst();
      for (; it != block->end(); ++it) {
        if (&*it == merge || &*it == block->terminator()) break;
        inst_item[&*it] = static_cast<int>(items.size());
        items.push_back({&*it, nullptr, nullptr});
      }
      BasicBlock* next = nullptr;
      if (merge != nullptr && merge->opcode() == spv::Op::OpSelectionMerge) {
        next = context->get_instr_block(merge->GetSingleWordInOperand(0));
        AddConstruct(context, func, block, next, false);
      } else if (merge == nullptr && block->terminator()->opcode() == spv::Op::OpBranch) {
        BasicBlock* target =
            context->get_instr_block(block->terminator()->GetSingleWordInOperand(0));
        if (Instruction* lm = target->GetLoopMergeInst()) {
          next = context->get_instr_block(lm->GetSingleWordInOperand(0));
          AddConstruct(context, func, target, next, true);
        } else if (context->cfg()->preds(target->id()).size() == 1) {
          next = target;
        }
      }
      if (next == nullptr) return;
      spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(func);
      if (!dom->IsReachable(next)) return;
      block = next;
      it = block->begin();
    }
  }
};

// ---------------------------------------------------------------------------
// The analysis result.

struct WorkgroupReducePass::Tree {
  Function* function = nullptr;
  Instruction* var = nullptr;  // the array
  uint32_t elem_type = 0;
  RowLayout layout;  // rows and vector elements (workgroup_reduce_rows.h)
  // The readers of each row (tree->readers holds them all).
  std::vector<std::vector<Instruction*>> row_readers;
  // Each row's S0 (init_store is the first of them), when forwarded.
  std::vector<Instruction*> row_stores;
  Instruction* barrier = nullptr;     // B0
  Instruction* init_store = nullptr;  // S0, when its value is forwarded
  Spine spine;
  int end_item = -1;  // the region: spine items [0, end_item)
  spv::Op op = spv::Op::OpNop;
  uint32_t ext = 0;
  // What every step store of the candidate combines with, before any
  // trace (Candidates; OpNop: copies, several operations or arrays).
  StepOp step_op;
  std::vector<Instruction*> readers;  // program order
  // Every configuration's loads after the tree that no step combines: 1,
  // they read its result; 2, another value (stored after it); 3, each in
  // some configuration (a uniform branch decides).
  std::unordered_map<const Instruction*, int> load_kinds;
  // The invocations that access the array after the tree, in any
  // configuration.
  std::set<uint64_t> after_invocations;
  // A load reads the result in some configurations and a later value in
  // others: the rewrite keeps every load and stores each row's result
  // back into its result element, in the one invocation that reads after
  // the tree (|store_back_invocation|).
  bool store_back = false;
  uint64_t store_back_invocation = 0;
  int64_t result_element = 0;
  uint64_t contributors = 0;  // M; 0: every invocation in every configuration
  uint64_t min_workgroup = UINT64_MAX, max_workgroup = 0;
  uint64_t min_length = UINT64_MAX;  // array length
  bool slots_fit = true;             // every configuration's array holds a slot per subgroup
  uint32_t steps = 0;                // combining phases (largest)
  uint32_t barriers = 0;             // barriers the region executes
  bool store_after_tree = false;     // a store to the array before the next barrier
  // The specialization constant traced at powers of two (0: none); the
  // region runs only for the sizes traced, the original otherwise.
  uint32_t spec_constant = 0;
  enum class Form { kGeneric, kSingle, kRuntime, kSingleOrOriginal };
  Form form = Form::kGeneric;
  bool first = true;             // no configuration replayed yet
  uint32_t size[3] = {0, 0, 0};  // the workgroup size (the last traced)
  // Where the generic form folds the slots: null, right after their
  // barrier; else at the start of this block, which dominates every use
  // of the result (PlanSink).
  BasicBlock* sink = nullptr;
  uint64_t sink_reach = 0;  // invocations that may execute |sink|
  int join = -1;            // the fold_loops_ entry the fold joins
};

int64_t SpecIdOf(IRContext* context, uint32_t id) {
  const Instruction* def = context->get_def_use_mgr()->GetDef(id);
  if (def == nullptr || def->opcode() != spv::Op::OpSpecConstant) return -1;
  for (Instruction* dec : context->get_decoration_mgr()->GetDecorationsFor(id, false)) {
    if (dec->opcode() == spv::Op::OpDecorate &&
        spv::Decoration(dec->GetSingleWordInOperand(1)) == spv::Decoration::SpecId) {
      return dec->GetSingleWordInOperand(2);
    }
  }
  return -1;
}

namespace {

// The specialization constants |id| is computed from (through composites
// and OpSpecConstantOp), in the order met.
void SpecConstantsOf(IRContext* context, uint32_t id, std::vector<uint32_t>* out, int depth = 0) {
  const Instruction* def = context->get_def_use_mgr()->GetDef(id);
  if (def == nullptr || depth > 16) return;
  switch (def->opcode()) {
    case spv::Op::OpSpecConstant:
      if (std::find(out->begin(), out->end(), id) == out->end()) out->push_back(id);
      return;
    case spv::Op::OpSpecConstantComposite:
    case spv::Op::OpConstantComposite:
      for (uint32_t i = 0; i < def->NumInOperands(); ++i) {
        SpecConstantsOf(context, def->GetSingleWordInOperand(i), out, depth + 1);
      }
      return;
    case spv::Op::OpSpecConstantOp:
      for (uint32_t i = 1; i < def->NumInOperands(); ++i) {
        if (spvIsInIdType(def->GetInOperand(i).type)) {
          SpecConstantsOf(context, def->GetSingleWordInOperand(i), out, depth + 1);
        }
      }
      return;
    default:
      return;
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Parameters, Process, candidates.

bool WorkgroupReducePass::ParseParams(const std::string& text, Params* params, std::string* error) {
  std::vector<std::pair<std::string, std::string>> items;
  if (!SplitParams(text, &items, error)) return false;
  for (const auto& [key, value] : items) {
    if (key == "float-reassoc" && value.empty()) {
      params->float_reassoc = true;
    } else if (key == "always" && value.empty()) {
      params->always = true;
    } else if (key == "form" && (value == "generic" || value == "runtime")) {
      params->form = value == "generic" ? Params::FormParam::kGeneric : Params::FormParam::kRuntime;
    } else if (key == "fold" && (value == "serial" || value == "rank")) {
      params->fold = value == "rank" ? Params::FoldParam::kRank : Params::FoldParam::kSerial;
    } else if (key == "no-sink" && value.empty()) {
      params->no_sink = true;
    } else {
      *error = "unknown parameter '" + key + (value.empty() ? "" : "=" + value) +
               "' (expected float-reassoc, always, form=generic|runtime, "
               "fold=serial|rank, no-sink)";
      return false;
    }
  }
  return true;
}

WorkgroupReducePass::WorkgroupReducePass(PassConfig config) : WavePass(std::move(config)) {
  std::string ignored;
  ParseParams(this->config().params, &params_, &ignored);
}

WorkgroupReducePass::~WorkgroupReducePass() = default;

spvtools::opt::Pass::Status WorkgroupReducePass::Process() {
  handled_.clear();
  rewritten_steps_.clear();
  fold_loops_.clear();
  slot_barriers_.clear();
  bool any = false;
  // One tree per round: a rewrite splits blocks, so the next candidates are
  // analysed on the changed module with fresh analyses.
  for (int round = 0; round < 16; ++round) {
    bool changed = false;
    const Status status = Round(&changed);
    if (status == Status::Failure) return status;
    if (!changed) break;
    any = true;
    context()->InvalidateAnalysesExceptFor(spvtools::opt::IRContext::kAnalysisNone);
  }
  if (any) MergeBarriers();
  return any ? Status::SuccessWithChange : Status::SuccessWithoutChange;
}

void WorkgroupReducePass::Candidates(Function* func, std::vector<Instruction*>* barriers,
                                     std::vector<uint32_t>* vars, std::vector<StepOp>* ops) {
  // Analyses only once a barrier is seen, and the loop descriptor (a
  // dominator tree and the block of every instruction) only when |func|
  // has a store that combines elements of its own array, without which no
  // barrier starts a tree: on a small module, building them costs more
  // than the rest of the pass.
  auto has_barrier = [](const BasicBlock& b) {
    return std::any_of(b.begin(), b.end(), [](const Instruction& i) {
      return i.opcode() == spv::Op::OpControlBarrier;
    });
  };
  auto combines = [this, func]() {
    const Definitions defs(context());
    return !func->WhileEachInst([&defs](Instruction* inst) {
      uint32_t v = 0;
      return !IsCombineStoreOf(defs, inst, &v);
    });
  };
  spvtools::opt::LoopDescriptor* loops = nullptr;
  std::unordered_set<const Instruction*> inside;  // later barriers of a tree
  for (BasicBlock& block : *func) {
    if (!has_barrier(block)) continue;
    if (loops == nullptr) {
      if (!combines()) return;
      loops = context()->GetLoopDescriptor(func);
    }
    if ((*loops)[block.id()] != nullptr) continue;
    for (Instruction& inst : block) {
      if (inst.opcode() != spv::Op::OpControlBarrier || inside.count(&inst)) {
        continue;
      }
      Spine spine;
      spine.Build(context(), func, &inst);
      const SpineSteps steps = ScanSteps(func, spine);
      if (steps.var == 0) continue;
      barriers->push_back(&inst);
      vars->push_back(steps.var);
      ops->push_back(steps.op);
      // The barriers between its steps are part of the same tree.
      for (size_t i = 1; i <= steps.last && i < spine.items.size(); ++i) {
        if (spine.items[i].inst != nullptr) inside.insert(spine.items[i].inst);
      }
    }
  }
}

WorkgroupReducePass::SpineSteps WorkgroupReducePass::ScanSteps(Function* func, const Spine& spine) {
  // The first phase after the barrier: up to the next straight-line
  // barrier. The tree's steps go on while each phase stores a combination;
  // a phase without one ends it, and a later barrier over the same array is
  // a candidate of its own (analysed even when this one is refused).
  SpineSteps steps;
  bool phase_steps = false, one_op = true;
  StepOp step;
  auto visit = [&](const Instruction* store, size_t i) {
    uint32_t v = 0;
    if (!IsCombineStore(context(), store, &v) || rewritten_steps_.count(store->unique_id())) {
      return;
    }
    const StepOp op = StepOpOf(context(), store);
    one_op = one_op && (steps.var == 0 || v == steps.var) && op.op != spv::Op::OpNop &&
             (step.op == spv::Op::OpNop || (step.op == op.op && step.ext == op.ext));
    step = op;
    if (steps.var == 0 || v == steps.var) {
      steps.var = v;
      steps.last = i;
      phase_steps = true;
    }
  };
  for (size_t i = 1; i < spine.items.size(); ++i) {
    const Spine::Item& item = spine.items[i];
    if (item.inst != nullptr) {
      visit(item.inst, i);
      if (item.inst->opcode() == spv::Op::OpControlBarrier) {
        if (!phase_steps) break;
        phase_steps = false;
      }
      continue;
    }
    for (BasicBlock& b : *func) {
      auto it = spine.block_item.find(b.id());
      if (it == spine.block_item.end() || it->second != static_cast<int>(i)) continue;
      for (Instruction& in : b) visit(&in, i);
    }
  }
  steps.op = one_op ? step : StepOp();
  return steps;
}
// The applied remark's words for rows counted by specialization constants.
std::string SpecRowsText(const RowLayout& layout) {
  if (layout.spec_rows.empty()) return "";
  std::string text = "; other row counts than ";
  for (size_t k = 0; k < layout.spec_rows.size(); ++k) {
    text += (k == 0 ? "" : ", ") + std::string("constant ") +
            std::to_string(layout.spec_rows[k].spec_id) + " = " +
            std::to_string(layout.spec_rows[k].value);
  }
  return text + " keep the original";
}

// The applied remark's words for |tree|'s form and where its slots are
// folded (after PlanSink).
std::string WorkgroupReducePass::DescribeForm(const Tree& tree) {
  std::string form;
  switch (tree.form) {
    case Tree::Form::kGeneric:
      form = "one shared slot per subgroup and one barrier";
      break;
    case Tree::Form::kSingle:
      form = "one subgroup reduction, no shared memory";
      break;
    case Tree::Form::kRuntime:
      form =
          "one subgroup reduction when the workgroup is one subgroup "
          "(NumSubgroups == 1), else one shared slot per subgroup";
      break;
    case Tree::Form::kSingleOrOriginal:
      form =
          "one subgroup reduction when the workgroup is one subgroup "
          "(NumSubgroups == 1), else the original tree";
      break;
  }
  if (tree.sink != nullptr) {
    form += "; the slots are folded where the result is used (" + std::to_string(tree.sink_reach) +
            " invocation(s) reach it" +
            (tree.join >= 0 ? ", in the loop that folds an earlier tree's slots" : "") + ")";
  }
  return form;
}

void WorkgroupReducePass::RecordSteps(const Tree& tree) {
  // The steps of a rewritten tree stay in the module where the original is
  // kept (other workgroup sizes, other row counts): they start no tree of
  // the user's, so Candidates passes over them (else an earlier barrier
  // would front them as a candidate of its own and be refused).
  auto note = [this](Instruction* inst) {
    uint32_t var = 0;
    if (IsCombineStore(context(), inst, &var)) rewritten_steps_.insert(inst->unique_id());
  };
  for (int i = 0; i < tree.end_item && i < static_cast<int>(tree.spine.items.size()); ++i) {
    if (tree.spine.items[i].inst != nullptr) note(tree.spine.items[i].inst);
  }
  for (BasicBlock& block : *tree.function) {
    auto it = tree.spine.block_item.find(block.id());
    if (it == tree.spine.block_item.end() || it->second >= tree.end_item) continue;
    for (Instruction& inst : block) note(&inst);
  }
}

spvtools::opt::Pass::Status WorkgroupReducePass::Round(bool* changed) {
  std::string module_why;
  const std::string module_reason = ModuleRefusal(&module_why);
  for (Function& func : *get_module()) {
    std::vector<Instruction*> barriers;
    std::vector<uint32_t> vars;
    std::vector<StepOp> ops;
    Candidates(&func, &barriers, &vars, &ops);
    for (size_t i = 0; i < barriers.size(); ++i) {
      if (handled_.count(barriers[i]->unique_id())) continue;
      handled_.insert(barriers[i]->unique_id());
      Tree tree;
      tree.step_op = ops[i];
      std::string why;
      Instruction* where = barriers[i];
      if (!module_reason.empty()) {
        EmitRemark(RemarkKind::kMissed, module_reason, &func, where,
                   module_why + " [array " + NameOf(vars[i]) + "]");
        continue;
      }
      Reason reason = Analyze(&func, barriers[i], vars[i], &tree, &why, &where);
      if (reason == Reason::kUnreached) continue;  // the fallback of a rewrite
      if (reason == Reason::kBranchOnArrayValue || reason == Reason::kUnknownBranch) {
        // A (value, index) pair tree? (workgroup_reduce_pass_impl.h) A
        // uniform bound in its step is an unknown branch to the trace;
        // other trees keep that reason.
        PairTree pairs(this, &func, barriers[i]);
        std::string pair_why;
        Instruction* pair_where = where;
        const Reason pair_reason = pairs.Analyze(&pair_why, &pair_where);
        if (reason == Reason::kBranchOnArrayValue || pairs.ShapeFound()) {
          reason = pair_reason;
          why = pair_why;
          where = pair_where;
        }
        if (reason == Reason::kNone) {
          if (!Selected(&func, barriers[i])) continue;
          EmitRemark(RemarkKind::kApplied, "ReducedPairTree", &func, barriers[i], pairs.Describe());
          if (!pairs.Rewrite()) return Status::Failure;
          *changed = true;
          return Status::SuccessWithChange;
        }
      }
      if (reason != Reason::kNone) {
        EmitRemark(RemarkKind::kMissed, WorkgroupReduceReasonName(reason), &func, where,
                   why + " [array " + NameOf(vars[i]) + "]");
        continue;
      }
      if (!Selected(&func, barriers[i])) continue;
      PlanSink(&tree);
      const std::string form = DescribeForm(tree);
      EmitRemark(
          RemarkKind::kApplied, "ReducedTree", &func, barriers[i],
          Article(OpName(tree.op, tree.ext)) + " tree over " + NameOf(vars[i]) + " (" +
              std::to_string(tree.steps) + " steps, " + std::to_string(tree.barriers) +
              " barriers, " + std::to_string(tree.readers.size()) + " reader(s)" +
              (tree.layout.rows > 1 ? ", " + std::to_string(tree.layout.rows) + " rows" : "") +
              ") becomes " + form +
              (tree.store_back ? "; its result stored back for invocation " +
                                     std::to_string(tree.store_back_invocation) +
                                     ", whose later loads uniform branches decide"
                               : "") +
              (tree.spec_constant != 0 ? "; other workgroup sizes than powers of two up to "
                                         "1024 keep the original"
                                       : "") +
              SpecRowsText(tree.layout));
      RecordSteps(tree);
      if (!Rewrite(&tree)) return Status::Failure;
      *changed = true;
      return Status::SuccessWithChange;
    }
  }
  return Status::SuccessWithoutChange;
}

// ---------------------------------------------------------------------------
// Analysis.

namespace {

// The end of the region ending before spine item |end_item|: the
// instruction the block after it starts with (null when there is none).
Instruction* RegionEnd(IRContext* context, const WorkgroupReducePass::Spine& spine, int end_item);

}  // namespace

bool WorkgroupReducePass::Configs(WorkgroupTrace* trace, Instruction* barrier, uint32_t var,
                                  Tree* tree, std::vector<TraceConfig>* configs, std::string* why) {
  uint32_t size[3];
  if (trace->WorkgroupCount(TraceConfig(), size)) {
    configs->push_back(TraceConfig());
    return true;
  }
  // The specialization constants of the workgroup size.
  std::vector<uint32_t> specs;
  for (Instruction& inst : context()->annotations()) {
    if (inst.opcode() == spv::Op::OpDecorate &&
        spv::Decoration(inst.GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn &&
        spv::BuiltIn(inst.GetSingleWordInOperand(2)) == spv::BuiltIn::WorkgroupSize) {
      SpecConstantsOf(context(), inst.GetSingleWordInOperand(0), &specs);
    }
  }
  if (specs.empty()) {
    for (Instruction& mode : get_module()->execution_modes()) {
      if (spv::ExecutionMode(mode.GetSingleWordInOperand(1)) == spv::ExecutionMode::LocalSizeId) {
        for (uint32_t k = 0; k < 3; ++k) {
          SpecConstantsOf(context(), mode.GetSingleWordInOperand(2 + k), &specs);
        }
      }
    }
  }
  if (specs.size() != 1 || SpecIdOf(context(), specs[0]) < 0) {
    *why = "the workgroup size depends on " +
           std::string(specs.empty() ? "values the pass cannot evaluate"
                                     : "more than one specialization constant");
    return false;
  }
  (void)barrier;
  (void)var;
  tree->spec_constant = specs[0];
  const auto spec_id = static_cast<uint32_t>(SpecIdOf(context(), specs[0]));
  for (uint64_t n = 2; n <= kMaxTracedSize; n *= 2) {
    TraceConfig c;
    c.spec[spec_id] = n;
    if (trace->WorkgroupCount(c, size)) configs->push_back(c);
  }
  if (configs->empty()) {
    *why =
        "the workgroup size is not known for any power of two of its "
        "specialization constant";
    return false;
  }
  return true;
}

Instruction* WorkgroupReducePass::ForwardableStore(WorkgroupTrace* trace, Instruction* barrier,
                                                   uint32_t var,
                                                   const std::vector<TraceConfig>& configs) {
  BasicBlock* block = context()->get_instr_block(barrier);
  Instruction* store = nullptr;
  for (auto it = BasicBlock::iterator(barrier); it != block->begin();) {
    --it;
    const spv::Op op = it->opcode();
    if (op == spv::Op::OpStore) {
      Instruction* root = RootVariable(context(), it->GetSingleWordInOperand(0));
      if (root != nullptr && root->result_id() == var) store = &*it;
      if (store != nullptr || root == nullptr ||
          !IsPrivateClass(spv::StorageClass(root->GetSingleWordInOperand(0)))) {
        break;
      }
      continue;
    }
    if (op == spv::Op::OpLoad) {
      Instruction* root = RootVariable(context(), it->GetSingleWordInOperand(0));
      if (root != nullptr && root->result_id() == var) break;
      continue;
    }
    if (op == spv::Op::OpControlBarrier || op == spv::Op::OpMemoryBarrier ||
        op == spv::Op::OpFunctionCall || spvOpcodeIsAtomicOp(op) || op == spv::Op::OpPhi) {
      break;
    }
  }
  if (store == nullptr) return nullptr;
  const Instruction* chain = get_def_use_mgr()->GetDef(store->GetSingleWordInOperand(0));
  if (chain->opcode() != spv::Op::OpAccessChain &&
      chain->opcode() != spv::Op::OpInBoundsAccessChain) {
    return nullptr;
  }
  if (chain->NumInOperands() != 2) return nullptr;
  const uint32_t index = chain->GetSingleWordInOperand(1);
  for (const TraceConfig& c : configs) {
    uint32_t size[3];
    if (!trace->WorkgroupCount(c, size)) return nullptr;
    const uint64_t count = uint64_t{size[0]} * size[1] * size[2];
    for (uint64_t t = 0; t < count; ++t) {
      uint64_t v = 0;
      if (!trace->EvalFor(index, static_cast<uint32_t>(t), c, &v) || v != t) {
        return nullptr;
      }
    }
  }
  return store;
}

namespace {

// Multisets of original elements, each sorted, in a pool.
struct Pool {
  std::vector<std::vector<uint32_t>> sets;
  uint64_t total = 0;
  int32_t Add(std::vector<uint32_t> s) {
    total += s.size();
    sets.push_back(std::move(s));
    return static_cast<int32_t>(sets.size() - 1);
  }
  int32_t Merge(int32_t a, int32_t b) {
    std::vector<uint32_t> out;
    out.reserve(sets[a].size() + sets[b].size());
    std::merge(sets[a].begin(), sets[a].end(), sets[b].begin(), sets[b].end(),
               std::back_inserter(out));
    return Add(std::move(out));
  }
  // 0..m-1, each once (or at least once when |idempotent|): |*m| set.
  // Answered once per set and flag (compile time: every invocation's
  // readers ask about the same few sets, of up to a workgroup's elements).
  bool Complete(int32_t v, bool idempotent, uint64_t* m) {
    if (v < 0) return false;
    const uint64_t key = (static_cast<uint64_t>(v) << 1) | (idempotent ? 1 : 0);
    auto found = complete_.find(key);
    if (found == complete_.end()) {
      Answer a;
      a.scanned = Scan(sets[v], idempotent, &a.m);
      found = complete_.emplace(key, a).first;
    }
    if (!found->second.scanned) return false;
    *m = found->second.m;
    return found->second.m > 0;
  }

 private:
  struct Answer {
    bool scanned = false;  // no element out of order: |m| is the count
    uint64_t m = 0;
  };
  std::unordered_map<uint64_t, Answer> complete_;

  static bool Scan(const std::vector<uint32_t>& s, bool idempotent, uint64_t* m) {
    uint64_t next = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == next) {
        ++next;
      } else if (!(idempotent && i > 0 && s[i] == s[i - 1])) {
        return false;
      }
    }
    *m = next;
    return true;
  }
};

constexpr int32_t kOpaque = -1;

}  // namespace

namespace {

// Replays one configuration's trace phase by phase (the checks are listed
// in the pass doc, "How legality is decided"). Each element holds a pool
// entry: the multiset of original elements combined into it.
class PhaseReplay {
 public:
  using Tree = WorkgroupReducePass::Tree;
  using Spine = WorkgroupReducePass::Spine;
  PhaseReplay(IRContext* context, const std::vector<std::vector<TraceEvent>>& events,
              const Spine& spine, Tree* tree, uint64_t length)
      : context_(context),
        events_(events),
        spine_(spine),
        tree_(tree),
        length_(length),
        n_(events_.size()) {}

  // kNone (|tree| updated) or a missed remark's reason with |why| and
  // |where|.
  Reason Run(uint64_t workgroup, std::string* why, Instruction** where) {
    int last_item = -1;
    const bool ok = AlignBarriers() && Simulate() && CheckSteps(&last_item) && CheckRoot() &&
                    Classify(EndItem(last_item)) && Record(workgroup);
    if (!ok) {
      *why = why_;
      *where = where_;
    }
    return ok ? Reason::kNone : reason_;
  }

 private:
  bool Fail(Reason reason, const char* why, Instruction* where) {
    reason_ = reason;
    why_ = why;
    where_ = where;
    return false;
  }
  bool Bad(int64_t element) const {
    return element < 0 || static_cast<uint64_t>(element) >= length_;
  }

  // Every invocation runs the same barriers in the same order; |phase_|.
  bool AlignBarriers() {
    std::vector<const Instruction*> barriers0;
    for (const TraceEvent& e : events_[0]) {
      if (e.kind == TraceEvent::Kind::kBarrier) barriers0.push_back(e.inst);
    }
    phase_.assign(n_, {});
    for (size_t t = 0; t < n_; ++t) {
      uint32_t p = 0;
      for (const TraceEvent& e : events_[t]) {
        if (e.kind == TraceEvent::Kind::kBarrier) {
          if (p >= barriers0.size() || barriers0[p] != e.inst) {
            return Fail(Reason::kNonUniformBarriers, "invocations run different barriers", e.inst);
          }
          ++p;
        }
        phase_[t].push_back(p);
      }
      if (p != barriers0.size()) {
        return Fail(Reason::kNonUniformBarriers, "invocations run different numbers of barriers",
                    nullptr);
      }
    }
    phases_ = static_cast<uint32_t>(barriers0.size()) + 1;
    return true;
  }

  // Runs every phase (value_, step_, operand_, the step phases).
  bool Simulate() {
    state_.resize(length_);
    for (uint64_t e = 0; e < length_; ++e) {
      state_[e] = pool_.Add({static_cast<uint32_t>(e)});
    }
    value_.assign(n_, {});
    step_.assign(n_, {});
    operand_.assign(n_, {});
    for (size_t t = 0; t < n_; ++t) {
      value_[t].assign(events_[t].size(), kOpaque);
      step_[t].assign(events_[t].size(), false);
      operand_[t].assign(events_[t].size(), false);
    }
    cursor_.assign(n_, 0);
    for (uint32_t p = 0; p < phases_; ++p) {
      if (!Writers(p) || !SimulatePhase(p)) return false;
    }
    if (first_step_ == UINT32_MAX) {
      return Fail(Reason::kNoTreeSteps, "no invocation combines two elements of the array",
                  nullptr);
    }
    return true;
  }

  // The writer of each element written in phase |p|; two writers of one
  // element are a race.
  bool Writers(uint32_t p) {
    writer_.clear();
    for (size_t t = 0; t < n_; ++t) {
      for (size_t i = cursor_[t]; i < events_[t].size() && phase_[t][i] == p; ++i) {
        const TraceEvent& e = events_[t][i];
        if (e.kind != TraceEvent::Kind::kStore) continue;
        if (Bad(e.element)) {
          return Fail(Reason::kOutOfBounds, "an element past the end of the array is written",
                      e.inst);
        }
        auto [it, fresh] = writer_.emplace(e.element, t);
        if (!fresh && it->second != t) {
          return Fail(Reason::kRaceInTree, "two invocations write one element between two barriers",
                      e.inst);
        }
      }
    }
    return true;
  }

  bool SimulatePhase(uint32_t p) {
    std::vector<std::pair<int64_t, int32_t>> written;
    for (size_t t = 0; t < n_; ++t) {
      std::unordered_map<int64_t, int32_t> overlay;  // this invocation's writes
      size_t i = cursor_[t];
      for (; i < events_[t].size() && phase_[t][i] == p; ++i) {
        if (!Event(t, i, p, &overlay)) return false;
      }
      for (auto& [element, v] : overlay) written.emplace_back(element, v);
      cursor_[t] = i;
    }
    for (auto& [element, v] : written) state_[element] = v;
    return true;
  }

  // One load or store of invocation |t| in phase |p|.
  bool Event(size_t t, size_t i, uint32_t p, std::unordered_map<int64_t, int32_t>* overlay) {
    const TraceEvent& e = events_[t][i];
    if (e.kind == TraceEvent::Kind::kLoad) {
      if (Bad(e.element)) {
        return Fail(Reason::kOutOfBounds, "an element past the end of the array is read", e.inst);
      }
      auto w = writer_.find(e.element);
      if (w != writer_.end() && w->second != t) {
        return Fail(Reason::kRaceInTree,
                    "an invocation reads an element another writes between two "
                    "barriers",
                    e.inst);
      }
      auto o = overlay->find(e.element);
      value_[t][i] = o != overlay->end() ? o->second : state_[e.element];
      return true;
    }
    if (e.kind != TraceEvent::Kind::kStore) return true;
    int32_t v = kOpaque;
    if (e.value.kind == TraceStoreValue::Kind::kCombined) {
      const int32_t a = value_[t][e.value.a], b = value_[t][e.value.b];
      if (a != kOpaque && b != kOpaque) {
        if (tree_->op == spv::Op::OpNop) {
          tree_->op = spv::Op(e.value.op);
          tree_->ext = e.value.ext;
        } else if (tree_->op != spv::Op(e.value.op) || tree_->ext != e.value.ext) {
          return Fail(Reason::kMixedOperations,
                      "the tree combines elements with more than one operation", e.inst);
        }
        v = pool_.Merge(a, b);
        step_[t][i] = true;
        operand_[t][e.value.a] = operand_[t][e.value.b] = true;
        first_step_ = std::min(first_step_, p);
        last_step_ = std::max(last_step_, p);
      }
    }
    (*overlay)[e.element] = v;
    value_[t][i] = v;
    if (pool_.total > (uint64_t{1} << 24)) {
      return Fail(Reason::kTraceTooLong, "the replay of the tree grows too large", e.inst);
    }
    return true;
  }

  // While the tree runs every store is a step; |*last_item| gets the spine
  // item of the last step.
  bool CheckSteps(int* last_item) {
    for (size_t t = 0; t < n_; ++t) {
      for (size_t i = 0; i < events_[t].size(); ++i) {
        const TraceEvent& e = events_[t][i];
        if (e.kind == TraceEvent::Kind::kStore && phase_[t][i] >= first_step_ &&
            phase_[t][i] <= last_step_ && !step_[t][i]) {
          return Fail(Reason::kNotATreeStep,
                      "an element is written with a value that is not two "
                      "elements combined while the tree runs",
                      e.inst);
        }
        if (!step_[t][i]) continue;
        const int pos = Position(e.inst);
        if (pos == INT_MAX) {
          return Fail(Reason::kUnsupportedControlFlow,
                      "a step of the tree is not in the straight-line code after "
                      "the barrier",
                      e.inst);
        }
        *last_item = std::max(*last_item, pos);
      }
    }
    return true;
  }

  // The tree's root: the element its last step writes with the most
  // elements combined; its value must be every element 0..M-1.
  bool CheckRoot() {
    int32_t root = kOpaque;
    Instruction* root_store = nullptr;
    for (size_t t = 0; t < n_; ++t) {
      for (size_t i = 0; i < events_[t].size(); ++i) {
        if (!step_[t][i] || phase_[t][i] != last_step_) continue;
        if (root == kOpaque || pool_.sets[value_[t][i]].size() > pool_.sets[root].size()) {
          root = value_[t][i];
          root_store = events_[t][i].inst;
        }
      }
    }
    uint64_t m = 0;
    if (!pool_.Complete(root, IsIdempotent(tree_->op, tree_->ext), &m)) {
      return Fail(Reason::kIncompleteTree,
                  "the tree's result leaves elements out (its steps cover a power "
                  "of two: is its size one?), or counts some twice",
                  root_store);
    }
    return true;
  }

  // The region ends after the last step's item (and a barrier right after).
  int EndItem(int last_item) const {
    int end_item = last_item + 1;
    // Phis of the block after the last step's construct go with the region
    // (the region's end is a split point; ValueEscapesTree checks them).
    while (end_item < static_cast<int>(spine_.items.size()) &&
           spine_.items[end_item].inst != nullptr &&
           spine_.items[end_item].inst->opcode() == spv::Op::OpPhi) {
      ++end_item;
    }
    if (end_item < static_cast<int>(spine_.items.size()) &&
        spine_.items[end_item].inst != nullptr &&
        spine_.items[end_item].inst->opcode() == spv::Op::OpControlBarrier) {
      ++end_item;
    }
    return end_item;
  }

  // What happens in the region and the loads after it, invocation by
  // invocation: the readers (loads of the complete result), the region's
  // barriers, stores in the readers' phase.
  bool Classify(int end_item) {
    end_item_ = end_item;
    for (size_t t = 0; t < n_; ++t) {
      uint32_t region_barriers = 0;
      uint32_t end_phase = 0;
      bool past = false;
      for (size_t i = 0; i < events_[t].size(); ++i) {
        const TraceEvent& e = events_[t][i];
        const bool in_region = Position(e.inst) < end_item;
        if (!in_region && !past) {
          past = true;
          end_phase = phase_[t][i];
        }
        if (e.kind == TraceEvent::Kind::kBarrier) {
          if (in_region) ++region_barriers;
        } else if (in_region && (e.kind == TraceEvent::Kind::kMemoryWrite ||
                                 e.kind == TraceEvent::Kind::kSubgroupOp)) {
          return Fail(Reason::kOtherWorkInTree,
                      "the code between the tree's barriers does more than the "
                      "tree (it writes other memory or runs subgroup operations)",
                      e.inst);
        } else if (e.kind == TraceEvent::Kind::kStore) {
          if (past && phase_[t][i] == end_phase) store_after_tree_ = true;
          if (past) after_invocations_.insert(t);
        } else if (e.kind == TraceEvent::Kind::kLoad && !operand_[t][i]) {
          if (!Load(t, i, in_region)) return false;
          if (past) after_invocations_.insert(t);
        }
      }
      barriers_ = std::max(barriers_, region_barriers);
    }
    if (!have_m_) return Fail(Reason::kNoReader, "no load reads the tree's result", nullptr);
    return true;
  }

  // A load no step combines: of the complete result (a reader), of a value
  // stored after the tree, or of a partial value (refused).
  bool Load(size_t t, size_t i, bool in_region) {
    const TraceEvent& e = events_[t][i];
    uint64_t m = 0;
    const bool complete = pool_.Complete(value_[t][i], IsIdempotent(tree_->op, tree_->ext), &m) &&
                          phase_[t][i] >= last_step_;
    const int k = complete ? 1 : value_[t][i] == kOpaque ? 2 : 0;
    if (k == 0) {
      return Fail(Reason::kReadsPartialValue,
                  "a load reads an element holding a partial result of the tree "
                  "(or an element the tree leaves out)",
                  e.inst);
    }
    auto [it, fresh] = kind_.emplace(e.inst, k);
    if (!fresh && it->second != k) {
      return Fail(Reason::kReadsPartialValue,
                  "a load reads the tree's result in some executions and other "
                  "values in others",
                  e.inst);
    }
    if (k != 1) return true;
    if (in_region) {
      return Fail(Reason::kReaderInsideTree,
                  "the tree's result is read before the tree's last barrier", e.inst);
    }
    if (have_m_ && m != m_) {
      return Fail(Reason::kReadsPartialValue, "the loads after the tree read different results",
                  e.inst);
    }
    m_ = m;
    have_m_ = true;
    if (fresh) readers_.push_back(e.inst);
    tree_->result_element = e.element;
    return true;
  }

  // Records this configuration's facts in the tree; they must agree with
  // the other configurations'.
  bool Record(uint64_t workgroup) {
    if (m_ > workgroup) {
      return Fail(Reason::kIncompleteTree,
                  "the tree combines more elements than there are invocations", nullptr);
    }
    std::sort(readers_.begin(), readers_.end(),
              [](Instruction* a, Instruction* b) { return a->unique_id() < b->unique_id(); });
    const char* differs = "";
    if (!tree_->first && end_item_ != tree_->end_item) {
      differs = "the tree ends elsewhere for other workgroup sizes";
    } else if (m_ == workgroup && !tree_->first && tree_->contributors != 0) {
      differs = "the tree covers a different part of the workgroup for other sizes";
    } else if (m_ != workgroup &&
               ((!tree_->first && tree_->contributors != m_) || tree_->spec_constant != 0)) {
      differs = "the tree covers a part of the workgroup that changes with its size";
    }
    if (*differs != '\0') return Fail(Reason::kDependsOnConfiguration, differs, nullptr);
    tree_->end_item = end_item_;
    // The readers of every configuration (a uniform branch may decide
    // which loads run); a load that reads the result in one and another
    // value in another is marked (Tree::store_back).
    std::vector<Instruction*> all = tree_->readers;
    all.insert(all.end(), readers_.begin(), readers_.end());
    std::sort(all.begin(), all.end(),
              [](Instruction* a, Instruction* b) { return a->unique_id() < b->unique_id(); });
    all.erase(std::unique(all.begin(), all.end()), all.end());
    tree_->readers = all;
    for (const auto& [inst, k] : kind_) {
      auto [it, fresh] = tree_->load_kinds.emplace(inst, k);
      if (!fresh && it->second != k) it->second = 3;
    }
    tree_->after_invocations.insert(after_invocations_.begin(), after_invocations_.end());
    if (m_ != workgroup) tree_->contributors = m_;
    if (store_after_tree_) tree_->store_after_tree = true;
    tree_->steps = std::max(tree_->steps, last_step_ - first_step_ + 1);
    tree_->barriers = std::max(tree_->barriers, barriers_);
    tree_->first = false;
    return true;
  }

  IRContext* context_;
  const std::vector<std::vector<TraceEvent>>& events_;
  const Spine& spine_;
  // Spine positions of event instructions, most recent per slot (every
  // invocation's events name the same few instructions; the IR does not
  // change during a replay).
  struct PositionSlot {
    const Instruction* inst = nullptr;
    int pos = 0;
  };
  std::array<PositionSlot, 256> positions_{};

  int Position(const Instruction* inst) {
    PositionSlot& slot = positions_[(reinterpret_cast<uintptr_t>(inst) >> 4) & 255];
    if (slot.inst != inst) slot = {inst, spine_.Position(context_, inst)};
    return slot.pos;
  }
  Tree* tree_;
  const uint64_t length_;
  const size_t n_;
  Reason reason_ = Reason::kNone;
  std::string why_;
  Instruction* where_ = nullptr;
  uint32_t phases_ = 0;
  std::vector<std::vector<uint32_t>> phase_;  // per event
  Pool pool_;
  std::vector<int32_t> state_;                  // per element
  std::vector<std::vector<int32_t>> value_;     // per event: read or written
  std::vector<std::vector<bool>> step_;         // per event: a tree step
  std::vector<std::vector<bool>> operand_;      // per event: a step's operand
  std::vector<size_t> cursor_;                  // per invocation
  std::unordered_map<int64_t, size_t> writer_;  // this phase's
  uint32_t first_step_ = UINT32_MAX, last_step_ = 0;
  int end_item_ = -1;
  std::vector<Instruction*> readers_;
  std::unordered_map<const Instruction*, int> kind_;  // 1 reader, 2 other
  std::set<uint64_t> after_invocations_;
  uint64_t m_ = 0;
  bool have_m_ = false;
  uint32_t barriers_ = 0;
  bool store_after_tree_ = false;
};

}  // namespace

WorkgroupReducePass::Reason WorkgroupReducePass::Replay(const WorkgroupTrace& trace,
                                                        const Spine& spine, Tree* tree,
                                                        uint64_t workgroup, std::string* why,
                                                        Instruction** where) {
  if (!tree->layout.Plain()) return ReplayRows(trace, tree, workgroup, why, where);
  PhaseReplay replay(context(), trace.events(), spine, tree, tree->min_length);
  return replay.Run(workgroup, why, where);
}

WorkgroupReducePass::Reason WorkgroupReducePass::CheckOperation(Tree* tree, std::string* why) {
  const Instruction* type = get_def_use_mgr()->GetDef(tree->layout.scalar_type);
  const bool is_float = type->opcode() == spv::Op::OpTypeFloat;
  if (type->GetSingleWordInOperand(0) != 32) {
    *why =
        "the array's elements are not 32-bit (the subgroup operations of "
        "other widths need extended types)";
    return Reason::kUnsupportedType;
  }
  if (is_float != IsFloatOp(tree->op, tree->ext)) {
    *why = "the tree's operation does not match the element type";
    return Reason::kUnsupportedType;
  }
  if (is_float && !params_.float_reassoc && !config().float_reassoc) {
    *why = FloatReassociationText(tree->op, tree->ext);
    return Reason::kFloatReassociation;
  }
  return Reason::kNone;
}

std::string WorkgroupReducePass::FloatReassociationText(spv::Op op, uint32_t ext) {
  return Article(OpName(op, ext)) +
         " tree: a subgroup reduction groups the values differently (sums "
         "round differently, min/max may return the other zero or another "
         "NaN); --float-reassoc (or the pass's float-reassoc) allows it";
}

WorkgroupReducePass::Reason WorkgroupReducePass::RefuseFloatUntraced(
    WorkgroupTrace* trace, const std::vector<TraceConfig>& configs, Tree* tree, std::string* why) {
  // Every step combines 32-bit floats with one operation, so a traced tree
  // would end in CheckOperation's refusal: without the opt-in it is refused
  // untraced, whatever else the trace would have found (compile time: a
  // trace of every invocation is most of the pass's cost, and float trees
  // are the common case of ML kernels). A pair tree's steps are copies.
  const Instruction* type = get_def_use_mgr()->GetDef(tree->layout.scalar_type);
  if (params_.float_reassoc || config().float_reassoc || tree->step_op.op == spv::Op::OpNop ||
      type->opcode() != spv::Op::OpTypeFloat || type->GetSingleWordInOperand(0) != 32 ||
      !IsFloatOp(tree->step_op.op, tree->step_op.ext)) {
    return Reason::kNone;
  }
  const bool reached = std::any_of(configs.begin(), configs.end(), [&](const TraceConfig& c) {
    return trace->Reaches(tree->barrier, c);
  });
  if (!reached) return Reason::kUnreached;
  *why = FloatReassociationText(tree->step_op.op, tree->step_op.ext);
  return Reason::kFloatReassociation;
}

WorkgroupReducePass::Reason WorkgroupReducePass::ChooseForm(Tree* tree, std::string* why) {
  const uint32_t promised = config().subgroup_size;
  const bool single_proven =
      params_.form != Params::FormParam::kGeneric &&
      ((promised != 0 && promised >= tree->max_workgroup) ||
       (tree->max_workgroup <= 32 && config().Fact(&TargetFacts::waves_32_or_64)));
  if (single_proven) {
    tree->form = Tree::Form::kSingle;
    return Reason::kNone;
  }
  if (config().emit_hlsl) {
    *why =
        "the output is HLSL, and every form but the single-subgroup one "
        "(proven by --subgroup-size or --target=amd, not here) "
        "reads SubgroupId or NumSubgroups, which HLSL does not have";
    return Reason::kNotExpressibleInHlsl;
  }
  const bool generic_ok = !tree->store_after_tree && tree->slots_fit;
  const bool maybe_single = params_.form != Params::FormParam::kGeneric &&
                            tree->min_workgroup <= kMaxSubgroupSize &&
                            (promised == 0 || promised >= tree->min_workgroup);
  if (!generic_ok) {
    if (maybe_single) {
      tree->form = Tree::Form::kSingleOrOriginal;
      return Reason::kNone;
    }
    *why = tree->store_after_tree ? "the array is written again before the next barrier, where "
                                    "the generic form reads its slots"
                                  : "the array has fewer elements than the workgroup may have "
                                    "subgroups";
    return tree->store_after_tree ? Reason::kStoreAfterTree : Reason::kTooFewSlots;
  }
  // Cost rule (see the pass doc): the generic form keeps 1 barrier (3
  // without a forwarded store) of the tree's, and pays when it removes at
  // least one.
  const uint32_t kept = tree->init_store != nullptr ? 1 : 3;
  if (!params_.always && tree->barriers <= kept) {
    *why = "the tree has " + std::to_string(tree->barriers) +
           " barrier(s); the generic form keeps " + std::to_string(kept);
    return Reason::kNotProfitable;
  }
  tree->form = (params_.form == Params::FormParam::kRuntime ||
                (params_.form == Params::FormParam::kCostRule && tree->max_workgroup <= 64)) &&
                       maybe_single
                   ? Tree::Form::kRuntime
                   : Tree::Form::kGeneric;
  return Reason::kNone;
}

WorkgroupReducePass::Reason WorkgroupReducePass::Analyze(Function* func, Instruction* barrier,
                                                         uint32_t var, Tree* tree, std::string* why,
                                                         Instruction** where) {
  // The entry point whose function this is: GLCompute.
  entry_point_ = nullptr;
  for (Instruction& ep : get_module()->entry_points()) {
    if (ep.GetSingleWordInOperand(1) == func->result_id()) entry_point_ = &ep;
  }
  if (entry_point_ == nullptr || spv::ExecutionModel(entry_point_->GetSingleWordInOperand(0)) !=
                                     spv::ExecutionModel::GLCompute) {
    *why =
        "the tree is not in a compute entry point's function (calls are "
        "not followed): inline the function";
    return Reason::kNotInEntryPoint;
  }
  tree->function = func;
  tree->var = get_def_use_mgr()->GetDef(var);
  tree->barrier = barrier;
  Reason shape_reason = Reason::kNone;
  if (!ArrayRowLayout(context(), tree->var, &tree->layout, &shape_reason, why)) {
    return shape_reason;
  }
  tree->elem_type = tree->layout.elem_type;
  WorkgroupTrace trace(context(), func, var);
  std::vector<TraceConfig> configs;
  if (!Configs(&trace, barrier, var, tree, &configs, why)) {
    return Reason::kUnknownWorkgroupSize;
  }
  // Rows counted by specialization constants: traced (and rewritten) for
  // their defaults; EmitFastTest keeps the original for other values.
  for (TraceConfig& c : configs) {
    for (const RowLayout::SpecRow& r : tree->layout.spec_rows) c.spec[r.spec_id] = r.value;
  }
  Reason reason = RefuseFloatUntraced(&trace, configs, tree, why);
  if (reason != Reason::kNone) return reason;
  tree->spine.Build(context(), func, barrier);
  reason = TraceConfigs(&trace, configs, tree, why, where);
  if (reason != Reason::kNone) return reason;
  reason = PlanStoreBack(tree, why, where);
  if (reason != Reason::kNone) return reason;
  tree->init_store = ForwardableStore(&trace, barrier, var, configs);
  if (!tree->layout.Plain()) ForwardRowStores(&trace, configs, tree);
  reason = CheckOperation(tree, why);
  if (reason != Reason::kNone) return reason;
  if (tree->end_item >= static_cast<int>(tree->spine.items.size()) ||
      RegionEnd(context(), tree->spine, tree->end_item) == nullptr) {
    *why = "the code after the tree is not structured";
    return Reason::kUnsupportedControlFlow;
  }
  if (Instruction* escaping = ValueEscaping(*tree)) {
    *why = "a value computed in the tree is used after it";
    *where = escaping;
    return Reason::kValueEscapesTree;
  }
  return ChooseForm(tree, why);
}

// Runs the kernel from the tree's barrier under each configuration (each
// workgroup size) and replays the tree in the trace: the tree's sizes, its
// steps and readers, or the reason it is not one (kUnreached when no
// configuration reaches the barrier).
WorkgroupReducePass::Reason WorkgroupReducePass::TraceConfigs(
    WorkgroupTrace* trace, const std::vector<TraceConfig>& configs, Tree* tree, std::string* why,
    Instruction** where) {
  Instruction* barrier = tree->barrier;
  bool reached = false;
  // Each configuration, and each outcome of the uniform branches its
  // trace meets (WorkgroupTrace::PendingBranch), as a configuration of
  // its own.
  std::vector<TraceConfig> worlds(configs.begin(), configs.end());
  size_t assumed = 0;  // configurations added for uniform branches
  for (size_t w = 0; w < worlds.size(); ++w) {
    const TraceConfig c = worlds[w];
    if (!trace->Reaches(barrier, c)) continue;
    reached = true;
    uint32_t size[3];
    trace->WorkgroupCount(c, size);
    std::copy(size, size + 3, tree->size);
    const uint64_t count = uint64_t{size[0]} * size[1] * size[2];
    uint64_t length = 0;
    if (!trace->EvalFor(tree->layout.length_id, 0, c, &length) || length == 0) {
      *why = "the array's length is not known";
      return Reason::kUnknownWorkgroupSize;
    }
    tree->min_length = std::min(tree->min_length, length);
    // The generic form's slots: one element per subgroup, at most one
    // subgroup per invocation (or per promised subgroup size).
    const uint32_t promised = config().subgroup_size;
    const uint64_t slots = promised != 0 ? (count + promised - 1) / promised : count;
    if (slots > length) tree->slots_fit = false;
    tree->min_workgroup = std::min(tree->min_workgroup, count);
    tree->max_workgroup = std::max(tree->max_workgroup, count);
    std::string trace_reason;
    if (!trace->Run(barrier, c, &trace_reason, why, where)) {
      if (trace_reason == "UniformBranch" && assumed + 2 <= kMaxUniformOutcomes * configs.size()) {
        for (uint64_t outcome : {0, 1}) {
          TraceConfig next = c;
          next.branches[trace->PendingBranch()] = outcome;
          worlds.push_back(next);
        }
        assumed += 2;
        continue;
      }
      if (trace_reason == "UniformBranch") {
        *why =
            "branches around accesses to the array depend on more values the same for "
            "the whole workgroup (push constants, uniform buffers, the workgroup's id) "
            "than the pass follows both ways";
        return Reason::kUnknownBranch;
      }
      return WorkgroupReduceReasonFromTrace(trace_reason);
    }
    Reason reason = Reason::kNone;
    const uint64_t saved_length = tree->min_length;
    tree->min_length = length;
    reason = Replay(*trace, tree->spine, tree, count, why, where);
    tree->min_length = std::min(saved_length, length);
    if (reason != Reason::kNone) return reason;
    // The operation is known after the first configuration: a refusal for
    // it (a float tree without --float-reassoc, the common case of ML
    // kernels) needs no trace of the other sizes (compile time: the pass
    // doc).
    reason = CheckOperation(tree, why);
    if (reason != Reason::kNone) return reason;
  }
  return reached ? Reason::kNone : Reason::kUnreached;
}

// Loads that read the tree's result in some configurations and a value
// stored after it in others (ggml's mul_mat_vec: `if (flags & BIAS)
// tmp[0] += bias;` between the tree and its reader) cannot be replaced by
// the result: the rewrite keeps them and stores each row's result back
// into its result element, which is right when one invocation does every
// access after the tree (it then reads what it stored, in program order).
WorkgroupReducePass::Reason WorkgroupReducePass::PlanStoreBack(Tree* tree, std::string* why,
                                                               Instruction** where) {
  const Instruction* mixed = nullptr;
  for (const auto& [inst, k] : tree->load_kinds) {
    if (k == 3 && (mixed == nullptr || inst->unique_id() < mixed->unique_id())) mixed = inst;
  }
  if (mixed == nullptr) return Reason::kNone;
  *where = const_cast<Instruction*>(mixed);
  if (tree->after_invocations.size() != 1) {
    *why =
        "a load reads the tree's result in some executions and a value stored after it in "
        "others (uniform branches decide), and more than one invocation uses the array "
        "after the tree";
    return Reason::kReadsPartialValue;
  }
  if (tree->layout.components != 0) {
    *why =
        "a load reads the tree's result in some executions and a value stored after it in "
        "others (uniform branches decide), in an array of vectors";
    return Reason::kReadsPartialValue;
  }
  if (!params_.always && config().Fact(&TargetFacts::one_wave_barriers_free)) {
    *why =
        "the result would be stored back (a uniform branch decides which load reads it), "
        "which runs only where the workgroup is one subgroup, and there this target's "
        "driver drops the barriers itself (fact one-wave-barriers-free)";
    return Reason::kNotProfitable;
  }
  tree->store_back = true;
  tree->store_back_invocation = *tree->after_invocations.begin();
  // The stored result is a store after the tree: no slots there (the
  // generic form's fold may still read them).
  tree->store_after_tree = true;
  return Reason::kNone;
}

// A value made in the tree's region that is used after it (other than by
// the readers, which go); null when there is none.
Instruction* WorkgroupReducePass::ValueEscaping(const Tree& tree) {
  std::unordered_set<const Instruction*> readers(tree.readers.begin(), tree.readers.end());
  auto escapes = [&](Instruction* inst) {
    bool out = false;
    get_def_use_mgr()->ForEachUser(inst, [&](Instruction* user) {
      if (context()->get_instr_block(user) == nullptr || readers.count(user)) {
        return;
      }
      if (tree.spine.Position(context(), user) >= tree.end_item) out = true;
    });
    return out;
  };
  for (BasicBlock& block : *tree.function) {
    for (Instruction& inst : block) {
      if (inst.result_id() != 0 && tree.spine.Position(context(), &inst) < tree.end_item &&
          CopiedInto(tree, inst) == 0 && escapes(&inst)) {
        return &inst;
      }
    }
  }
  return nullptr;
}

// When |inst| is a phi of the region that only copies a value made before
// it (OnlyValueOfPhiWeb: the SSA rewrite's copies of tid through the
// tree's loop), that value; else 0. Its uses after the region take the
// value instead (ForwardCopies).
uint32_t WorkgroupReducePass::CopiedInto(const Tree& tree, const Instruction& inst) {
  if (inst.opcode() != spv::Op::OpPhi) return 0;
  const uint32_t only = OnlyValueOfPhiWeb(context(), &inst);
  if (only == 0) return 0;
  const Instruction* def = get_def_use_mgr()->GetDef(only);
  if (def == nullptr || tree.spine.Position(context(), def) < tree.end_item) return 0;
  // Not made after the region either (it would not reach the phi).
  BasicBlock* block = context()->get_instr_block(const_cast<Instruction*>(def));
  if (block != nullptr && !context()
                               ->GetDominatorAnalysis(tree.function)
                               ->Dominates(block, context()->get_instr_block(tree.barrier))) {
    return 0;
  }
  return only;
}

// The uses after the region of the phis CopiedInto finds take the value
// they copy: the region goes, or becomes an arm of an if.
void WorkgroupReducePass::ForwardCopies(const Tree& tree) {
  std::vector<std::pair<uint32_t, uint32_t>> copies;
  for (BasicBlock& block : *tree.function) {
    for (Instruction& inst : block) {
      if (tree.spine.Position(context(), &inst) >= tree.end_item) continue;
      if (const uint32_t only = CopiedInto(tree, inst)) copies.emplace_back(inst.result_id(), only);
    }
  }
  for (const auto& [phi, only] : copies) {
    context()->ReplaceAllUsesWithPredicate(phi, only, [&](Instruction* user) {
      return context()->get_instr_block(user) != nullptr &&
             tree.spine.Position(context(), user) >= tree.end_item;
    });
  }
}

// ---------------------------------------------------------------------------
// Rewrite.

struct WorkgroupReducePass::Emission {
  BasicBlock* pre = nullptr;          // ends where the region began
  BasicBlock* region = nullptr;       // the region's first block
  BasicBlock* region_last = nullptr;  // the region's block that leaves it
  BasicBlock* after = nullptr;        // where the region went on
  bool keep_region = false;           // the original stays behind a test
  uint32_t elem_ptr = 0;              // pointer to an element, Workgroup
};

uint32_t WorkgroupReducePass::BuiltInVariable(spv::BuiltIn builtin) {
  return BuiltInInput(builtin, entry_point_);
}

uint32_t WorkgroupReducePass::EmitCombine(const Tree& tree, Emitter* e, uint32_t a, uint32_t b) {
  if (tree.op == spv::Op::OpExtInst) {
    return e->GlslStd450(tree.ext, tree.elem_type, {a, b});
  }
  return e->EmitIds(tree.op, tree.elem_type, {a, b});
}

uint32_t WorkgroupReducePass::Identity(const Tree& tree, Emitter* e) {
  uint32_t bits = 0;
  switch (tree.op) {
    case spv::Op::OpIMul:
      bits = 1;
      break;
    case spv::Op::OpBitwiseAnd:
      bits = 0xffffffffu;
      break;
    case spv::Op::OpFAdd:
      bits = 0x80000000u;
      break;  // -0.0
    case spv::Op::OpFMul:
      bits = 0x3f800000u;
      break;  // 1.0
    case spv::Op::OpExtInst:
      switch (tree.ext) {
        case GLSLstd450UMin:
          bits = 0xffffffffu;
          break;
        case GLSLstd450SMin:
          bits = 0x7fffffffu;
          break;
        case GLSLstd450SMax:
          bits = 0x80000000u;
          break;
        case GLSLstd450FMin:
        case GLSLstd450NMin:
          bits = 0x7f800000u;
          break;  // +inf
        case GLSLstd450FMax:
        case GLSLstd450NMax:
          bits = 0xff800000u;
          break;  // -inf
        default:
          bits = 0;
          break;  // UMax
      }
      break;
    default:
      bits = 0;
      break;  // add, or, xor
  }
  return ElementConstant(e, tree.layout, bits);
}

uint32_t WorkgroupReducePass::WorkgroupCountValue(Emitter* e) {
  const uint32_t uint_type = e->UIntType(32);
  uint32_t dims[3] = {0, 0, 0};
  for (Instruction& inst : context()->annotations()) {
    if (inst.opcode() == spv::Op::OpDecorate &&
        spv::Decoration(inst.GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn &&
        spv::BuiltIn(inst.GetSingleWordInOperand(2)) == spv::BuiltIn::WorkgroupSize) {
      const uint32_t size = inst.GetSingleWordInOperand(0);
      for (uint32_t k = 0; k < 3; ++k) {
        dims[k] = e->Emit(spv::Op::OpCompositeExtract, uint_type,
                          {{SPV_OPERAND_TYPE_ID, {size}}, {SPV_OPERAND_TYPE_LITERAL_INTEGER, {k}}});
      }
    }
  }
  for (Instruction& mode : get_module()->execution_modes()) {
    if (dims[0] != 0 || mode.GetSingleWordInOperand(0) != tree_function_id_) continue;
    const auto kind = spv::ExecutionMode(mode.GetSingleWordInOperand(1));
    for (uint32_t k = 0; k < 3; ++k) {
      if (kind == spv::ExecutionMode::LocalSizeId) {
        dims[k] = mode.GetSingleWordInOperand(2 + k);
      } else if (kind == spv::ExecutionMode::LocalSize) {
        dims[k] = e->UInt(mode.GetSingleWordInOperand(2 + k));
      }
    }
  }
  if (dims[0] == 0) return 0;
  const uint32_t xy = e->EmitIds(spv::Op::OpIMul, uint_type, {dims[0], dims[1]});
  return e->EmitIds(spv::Op::OpIMul, uint_type, {xy, dims[2]});
}

uint32_t WorkgroupReducePass::SpecConstantValue(Emitter* e, uint32_t spec) {
  for (Instruction& inst : context()->annotations()) {
    if (inst.opcode() != spv::Op::OpDecorate ||
        spv::Decoration(inst.GetSingleWordInOperand(1)) != spv::Decoration::BuiltIn ||
        spv::BuiltIn(inst.GetSingleWordInOperand(2)) != spv::BuiltIn::WorkgroupSize) {
      continue;
    }
    Instruction* size = get_def_use_mgr()->GetDef(inst.GetSingleWordInOperand(0));
    if (size == nullptr || size->opcode() != spv::Op::OpSpecConstantComposite) continue;
    for (uint32_t k = 0; k < size->NumInOperands(); ++k) {
      if (size->GetSingleWordInOperand(k) != spec) continue;
      return e->Emit(
          spv::Op::OpCompositeExtract, get_def_use_mgr()->GetDef(spec)->type_id(),
          {{SPV_OPERAND_TYPE_ID, {size->result_id()}}, {SPV_OPERAND_TYPE_LITERAL_INTEGER, {k}}});
    }
  }
  return spec;
}

uint32_t WorkgroupReducePass::OneSubgroupTest(Emitter* e) {
  const uint32_t count_var = BuiltInVariable(spv::BuiltIn::NumSubgroups);
  const uint32_t size_var = BuiltInVariable(spv::BuiltIn::SubgroupSize);
  const uint32_t wg = WorkgroupCountValue(e);
  if (count_var == 0 || size_var == 0 || wg == 0) return 0;
  const uint32_t uint_type = e->UIntType(32);
  const uint32_t bool_type = e->BoolType();
  const uint32_t count = e->EmitIds(spv::Op::OpLoad, uint_type, {count_var});
  const uint32_t size = e->EmitIds(spv::Op::OpLoad, uint_type, {size_var});
  const uint32_t one = e->EmitIds(spv::Op::OpIEqual, bool_type, {count, e->UInt(1)});
  const uint32_t fits = e->EmitIds(spv::Op::OpUGreaterThanEqual, bool_type, {size, wg});
  return e->EmitIds(spv::Op::OpLogicalAnd, bool_type, {one, fits});
}

bool WorkgroupReducePass::SplitRegion(Tree* tree, Emission* em) {
  Instruction* first = tree->init_store != nullptr ? tree->init_store : tree->barrier;
  Instruction* end = RegionEnd(context(), tree->spine, tree->end_item);
  if (end == nullptr) return false;
  if (tree->init_store != nullptr) {
    HoistAboveStore(context(), tree->init_store, tree->barrier, tree->var->result_id());
  }
  em->pre = context()->get_instr_block(first);
  // |pre| stays open: Rewrite branches from it to the new code.
  Emitter pe(context(), em->pre, BasicBlock::iterator(first));
  em->region = pe.SplitHere();
  if (em->region == nullptr) return false;
  em->region_last = context()->get_instr_block(end);
  Emitter le(context(), em->region_last, BasicBlock::iterator(end));
  em->after = le.SplitHere();
  if (em->after == nullptr) return false;
  le.Branch(em->after->id());
  return le.ok();
}

namespace {

Instruction* RegionEnd(IRContext* context, const WorkgroupReducePass::Spine& spine, int end_item) {
  if (end_item < 0 || end_item >= static_cast<int>(spine.items.size())) {
    return nullptr;
  }
  const WorkgroupReducePass::Spine::Item& item = spine.items[end_item];
  if (item.inst != nullptr) return item.inst;
  if (Instruction* m = item.header->GetMergeInst()) {
    if (m->opcode() == spv::Op::OpSelectionMerge) return m;
  }
  // A loop: the branch into its header from the spine block before it.
  spvtools::opt::Loop* loop =
      (*context->GetLoopDescriptor(item.header->GetParent()))[item.header->id()];
  Instruction* entry = nullptr;
  for (uint32_t pred : context->cfg()->preds(item.header->id())) {
    if (loop != nullptr && loop->IsInsideLoop(pred)) continue;
    if (entry != nullptr) return nullptr;
    entry = context->get_instr_block(pred)->terminator();
  }
  return entry;
}

}  // namespace

bool WorkgroupReducePass::EmitContribution(Tree* tree, Emission* em, Emitter* e, uint32_t* x) {
  const uint32_t uint_type = e->UIntType(32);
  uint32_t tid = 0;
  if (tree->init_store != nullptr) {
    *x = tree->init_store->GetSingleWordInOperand(1);
  } else {
    // Each invocation's own element, once every invocation wrote it.
    std::vector<Operand> ops;
    for (uint32_t i = 0; i < tree->barrier->NumInOperands(); ++i) {
      ops.push_back(tree->barrier->GetInOperand(i));
    }
    e->EmitVoid(spv::Op::OpControlBarrier, ops);
    const uint32_t var = BuiltInVariable(spv::BuiltIn::LocalInvocationIndex);
    if (var == 0) return false;
    tid = e->EmitIds(spv::Op::OpLoad, uint_type, {var});
    const uint32_t p =
        e->EmitIds(spv::Op::OpAccessChain, em->elem_ptr, {tree->var->result_id(), tid});
    *x = e->EmitIds(spv::Op::OpLoad, tree->elem_type, {p});
  }
  if (tree->contributors != 0) {
    // Only invocations 0..M-1 take part.
    if (tid == 0) {
      const uint32_t var = BuiltInVariable(spv::BuiltIn::LocalInvocationIndex);
      if (var == 0) return false;
      tid = e->EmitIds(spv::Op::OpLoad, uint_type, {var});
    }
    const uint32_t bool_type = e->BoolType();
    const uint32_t in = e->EmitIds(spv::Op::OpULessThan, bool_type,
                                   {tid, e->UInt(static_cast<uint32_t>(tree->contributors))});
    *x = SelectElement(e, tree->layout, in, *x, Identity(*tree, e));
  }
  return e->ok();
}

uint32_t WorkgroupReducePass::SlotCount(const Tree& tree, Emitter* e, uint32_t size_var,
                                        uint32_t count_var) {
  const uint32_t uint_type = e->UIntType(32);
  const uint32_t reported = e->EmitIds(spv::Op::OpLoad, uint_type, {count_var});
  // Every implementation has at least ceil(invocations / SubgroupSize)
  // subgroups, but lavapipe reports NumSubgroups rounded down for workgroups
  // that are not a multiple of the subgroup size. A constant workgroup that
  // is a multiple of 128 is a multiple of every subgroup size (a power of
  // two up to 128); RADV counts its waves (ceil).
  const bool exact = (tree.spec_constant == 0 && tree.max_workgroup % kMaxSubgroupSize == 0) ||
                     config().Fact(&TargetFacts::waves_32_or_64);
  if (exact) return reported;
  const uint32_t wg = WorkgroupCountValue(e);
  if (wg == 0) return 0;
  const uint32_t size = e->EmitIds(spv::Op::OpLoad, uint_type, {size_var});
  const uint32_t covered = e->EmitIds(spv::Op::OpIMul, uint_type, {reported, size});
  const uint32_t short_by_one = e->EmitIds(spv::Op::OpULessThan, e->BoolType(), {covered, wg});
  const uint32_t extra =
      e->EmitIds(spv::Op::OpSelect, uint_type, {short_by_one, e->UInt(1), e->UInt(0)});
  return e->EmitIds(spv::Op::OpIAdd, uint_type, {reported, extra});
}

uint32_t WorkgroupReducePass::EmitSlotStep(Tree* tree, Emission* em, Emitter* e, uint32_t acc,
                                           uint32_t index) {
  const uint32_t p =
      e->EmitIds(spv::Op::OpAccessChain, em->elem_ptr, {tree->var->result_id(), index});
  const uint32_t y = e->EmitIds(spv::Op::OpLoad, tree->elem_type, {p});
  const uint32_t combined = EmitCombine(*tree, e, acc, y);
  // A copy, as when the loop's next value had an id reserved before it was
  // computed: the output stays the same (a later cleanup removes it).
  return e->EmitIds(spv::Op::OpCopyObject, tree->elem_type, {combined});
}

bool WorkgroupReducePass::EmitSlotLoop(Tree* tree, Emission* em, Emitter* e, bool rank,
                                       uint32_t* acc, FoldLoop* loop) {
  // for (i = start; i < slots; i += step) acc = acc OP tmp[i]. Serial:
  // start 0, step 1, in every invocation. Rank: each active lane (its rank
  // among them) takes every |active|-th slot, so partial subgroups read
  // every slot too.
  const uint32_t count_var = BuiltInVariable(spv::BuiltIn::NumSubgroups);
  const uint32_t size_var = BuiltInVariable(spv::BuiltIn::SubgroupSize);
  if (count_var == 0 || size_var == 0) return false;
  BasicBlock* from = e->block();
  const uint32_t uint_type = e->UIntType(32);
  // One emitting call per statement: the order of ids must not depend on
  // the compiler's order of evaluating arguments.
  uint32_t start = e->UInt(0);
  uint32_t step = e->UInt(1);
  if (rank) {
    // The rank and the count of the active lanes as sums of 1: ACO lowers
    // the exclusive sum to v_mbcnt (2 instructions) where a ballot's
    // exclusive bit count costs 11 at wave64 (see the pass doc).
    const uint32_t one = step;
    start = e->Group(spv::Op::OpGroupNonUniformIAdd, uint_type, kExclusiveScan, {one});
    step = e->Group(spv::Op::OpGroupNonUniformIAdd, uint_type, kReduce, {one});
  }
  const uint32_t count = SlotCount(*tree, e, size_var, count_var);
  if (count == 0) return false;
  const uint32_t identity = Identity(*tree, e);
  Emitter::Loop l = e->PushLoop();
  *acc = e->LoopPhi(&l, tree->elem_type, identity);
  const uint32_t i = e->LoopPhi(&l, uint_type, start);
  e->LoopWhile(&l, e->EmitIds(spv::Op::OpULessThan, e->BoolType(), {i, count}));
  const uint32_t acc_next = EmitSlotStep(tree, em, e, *acc, i);
  const uint32_t i_next = e->EmitIds(spv::Op::OpIAdd, uint_type, {i, step});
  if (!e->PopLoop(&l, {acc_next, i_next})) return false;
  if (loop != nullptr) {
    loop->from = from->id();
    loop->header = l.header->id();
    loop->body = l.body->id();
    loop->index = i;
    loop->rank = rank;
  }
  return true;
}

WorkgroupReducePass::FoldKind WorkgroupReducePass::ChooseFold(const Tree& tree) const {
  if (params_.fold != Params::FoldParam::kCostRule) {
    return params_.fold == Params::FoldParam::kRank ? FoldKind::kRank : FoldKind::kSerial;
  }
  // Folded where one invocation uses the result (hand's `if (tid == 0)`):
  // one loop in one subgroup, nothing for a rank or a second reduction to
  // share.
  if (tree.sink != nullptr && tree.sink_reach <= 1) return FoldKind::kSerial;
  // The serial fold runs NumSubgroups iterations in every subgroup: fewer
  // static instructions (no rank, no second reduction), but quadratic in
  // the slots. Subgroups of 32 or more lanes keep it short up to 256
  // invocations (at most 8 slots); on 8 and 16 lanes lavapipe runs it 3-11x
  // slower than the rank fold (see the pass doc's measurements). RADV's
  // waves are 32 or 64 lanes; elsewhere the subgroup size chooses, a test
  // every driver measured here folds at compile time (SubgroupSize is a
  // constant of the compiled variant on RADV, NVIDIA and lavapipe).
  if (tree.max_workgroup > kMaxSerialFoldWorkgroup) return FoldKind::kRank;
  if (config().Fact(&TargetFacts::waves_32_or_64)) return FoldKind::kSerial;
  if (config().Fact(&TargetFacts::slow_subgroup_loops)) return FoldKind::kRank;
  return FoldKind::kBySubgroupSize;
}

bool WorkgroupReducePass::EmitFold(Tree* tree, Emission* em, Emitter* e, uint32_t* total,
                                   FoldLoop* loop) {
  const spv::Op group = GroupOp(tree->op, tree->ext);
  const FoldKind kind = ChooseFold(*tree);
  if (kind != FoldKind::kBySubgroupSize) {
    const bool rank = kind == FoldKind::kRank;
    uint32_t acc = 0;
    if (!EmitSlotLoop(tree, em, e, rank, &acc, loop)) return false;
    *total = rank ? e->Group(group, tree->elem_type, kReduce, {acc}) : acc;
    return e->ok();
  }
  // SubgroupSize >= 32 ? serial : rank (one of them survives the driver's
  // constant folding).
  const uint32_t size_var = BuiltInVariable(spv::BuiltIn::SubgroupSize);
  if (size_var == 0) return false;
  const uint32_t size = e->EmitIds(spv::Op::OpLoad, e->UIntType(32), {size_var});
  const uint32_t wide =
      e->EmitIds(spv::Op::OpUGreaterThanEqual, e->BoolType(), {size, e->UInt(32)});
  uint32_t serial_acc = 0, rank_acc = 0;
  Emitter::If choice = e->PushIf(wide, Emitter::Arms::kBoth);
  if (!EmitSlotLoop(tree, em, e, false, &serial_acc, nullptr)) return false;
  e->PushElse(&choice);
  if (!EmitSlotLoop(tree, em, e, true, &rank_acc, nullptr)) return false;
  const uint32_t rank_total = e->Group(group, tree->elem_type, kReduce, {rank_acc});
  if (!e->PopIf(&choice)) return false;
  *total = e->IfPhi(choice, tree->elem_type, serial_acc, rank_total);
  return e->ok();
}

bool WorkgroupReducePass::EmitGeneric(Tree* tree, Emission* em, uint32_t x, Emitter* e,
                                      uint32_t* total) {
  // Each subgroup's reduction into its slot (the elected lane writes it),
  // one barrier, every subgroup reduces the slots.
  std::vector<Operand> barrier_ops;
  for (uint32_t i = 0; i < tree->barrier->NumInOperands(); ++i) {
    barrier_ops.push_back(tree->barrier->GetInOperand(i));
  }
  const spv::Op group = GroupOp(tree->op, tree->ext);
  const uint32_t r = e->Group(group, tree->elem_type, kReduce, {x});
  // Without a forwarded store every invocation read its own element first:
  // no slot may be written before they all have.
  if (tree->init_store == nullptr) e->EmitVoid(spv::Op::OpControlBarrier, barrier_ops);
  const uint32_t elect = e->Group(spv::Op::OpGroupNonUniformElect, e->BoolType(), -1, {});
  Emitter::If write = e->PushIf(elect);
  const uint32_t sg_var = BuiltInVariable(spv::BuiltIn::SubgroupId);
  if (sg_var == 0) return false;
  const uint32_t sg = e->EmitIds(spv::Op::OpLoad, e->UIntType(32), {sg_var});
  const uint32_t p = e->EmitIds(spv::Op::OpAccessChain, em->elem_ptr, {tree->var->result_id(), sg});
  e->EmitVoid(spv::Op::OpStore, {{SPV_OPERAND_TYPE_ID, {p}}, {SPV_OPERAND_TYPE_ID, {r}}});
  if (!e->PopIf(&write)) return false;
  e->EmitVoid(spv::Op::OpControlBarrier, barrier_ops);
  if (e->ok()) slot_barriers_.push_back({write.merge->tail()->unique_id(), tree->var->result_id()});
  if (!e->ok()) return false;
  if (tree->sink != nullptr) {
    // Folded at the sink (EmitSunkFold), where the result is used.
    *total = 0;
    return true;
  }
  // The serial fold reads every slot in every invocation (hand's loop over
  // NumSubgroups); the rank fold splits the slots among the active lanes
  // and reduces the partial folds (see the pass doc's cost rule).
  return EmitFold(tree, em, e, total, nullptr);
}

bool WorkgroupReducePass::EmitForms(Tree* tree, Emission* em, Emitter* e, uint32_t* result) {
  uint32_t x = 0;
  if (!EmitContribution(tree, em, e, &x)) return false;
  const spv::Op group = GroupOp(tree->op, tree->ext);
  switch (tree->form) {
    case Tree::Form::kSingle:
    case Tree::Form::kSingleOrOriginal:
      *result = e->Group(group, tree->elem_type, kReduce, {x});
      return e->ok();
    case Tree::Form::kGeneric:
      return EmitGeneric(tree, em, x, e, result);
    case Tree::Form::kRuntime:
      break;
  }
  // One subgroup: its reduction; else the generic form.
  const uint32_t one = OneSubgroupTest(e);
  if (one == 0) return false;
  Emitter::If single = e->PushIf(one, Emitter::Arms::kBoth);
  const uint32_t r1 = e->Group(group, tree->elem_type, kReduce, {x});
  e->PushElse(&single);
  uint32_t r2 = 0;
  if (!EmitGeneric(tree, em, x, e, &r2) || !e->PopIf(&single)) return false;
  *result = e->IfPhi(single, tree->elem_type, r1, r2);
  return e->ok();
}

bool WorkgroupReducePass::EmitStoreBack(const Tree& tree, const Emission& em,
                                        const std::vector<uint32_t>& results, Emitter* e) {
  const uint32_t var = BuiltInVariable(spv::BuiltIn::LocalInvocationIndex);
  if (var == 0) return false;
  const uint32_t u = e->UIntType(32);
  const uint32_t index = e->EmitIds(spv::Op::OpLoad, u, {var});
  const uint32_t mine =
      e->EmitIds(spv::Op::OpIEqual, e->BoolType(),
                 {index, e->UInt(static_cast<uint32_t>(tree.store_back_invocation))});
  Emitter::If guard = e->PushIf(mine);
  const uint32_t element = e->UInt(static_cast<uint32_t>(tree.result_element));
  for (size_t r = 0; r < results.size(); ++r) {
    const uint32_t p = tree.layout.Plain() ? e->EmitIds(spv::Op::OpAccessChain, em.elem_ptr,
                                                        {tree.var->result_id(), element})
                                           : RowElement(tree, em, e, r, element);
    e->EmitVoid(spv::Op::OpStore,
                {{SPV_OPERAND_TYPE_ID, {p}}, {SPV_OPERAND_TYPE_ID, {results[r]}}});
  }
  return e->PopIf(&guard) && e->ok();
}

bool WorkgroupReducePass::FinishRegion(Tree* tree, Emission* em, uint32_t result, Emitter* e,
                                       Emitter::If* keep) {
  uint32_t value = result;
  if (tree->store_back && !EmitStoreBack(*tree, *em, {result}, e)) return false;
  if (!em->keep_region) {
    e->Branch(em->after->id());
  } else {
    // The original's result, read where its last barrier left it.
    Instruction* term = em->region_last->terminator();
    Emitter re(context(), em->region_last, BasicBlock::iterator(term));
    const uint32_t p =
        re.EmitIds(spv::Op::OpAccessChain, em->elem_ptr,
                   {tree->var->result_id(), re.UInt(static_cast<uint32_t>(tree->result_element))});
    const uint32_t original = re.EmitIds(spv::Op::OpLoad, tree->elem_type, {p});
    e->ElseExisting(keep, em->region, em->region_last);
    if (!re.ok() || !e->PopIf(keep)) return false;
    value = e->IfPhi(*keep, tree->elem_type, result, original);
  }
  if (!e->ok()) return false;
  for (Instruction* reader : tree->store_back ? std::vector<Instruction*>() : tree->readers) {
    if (!ReplaceReader(context(), tree->layout, reader, value)) return false;
  }
  if (!em->keep_region) RemoveRegion(*tree, *em);
  return true;
}

void WorkgroupReducePass::RemoveRegion(const Tree& tree, const Emission& em) {
  // Every block from the region's first to its last.
  std::vector<BasicBlock*> stack = {em.region};
  std::unordered_set<uint32_t> seen;
  std::vector<BasicBlock*> dead;
  while (!stack.empty()) {
    BasicBlock* b = stack.back();
    stack.pop_back();
    if (b == em.after || !seen.insert(b->id()).second) continue;
    dead.push_back(b);
    b->ForEachSuccessorLabel(
        [&](uint32_t succ) { stack.push_back(context()->get_instr_block(succ)); });
  }
  for (BasicBlock* b : dead) b->KillAllInsts(true);
  tree.function->RemoveEmptyBlocks();
}

// ---------------------------------------------------------------------------
// Where the slots are folded (see the pass doc).

void WorkgroupReducePass::PlanSink(Tree* tree) {
  tree->sink = nullptr;
  tree->join = -1;
  if (params_.no_sink || tree->form != Tree::Form::kGeneric || tree->spec_constant != 0 ||
      !tree->layout.Plain() || tree->store_back) {
    return;
  }
  Instruction* end = RegionEnd(context(), tree->spine, tree->end_item);
  if (end == nullptr) return;
  BasicBlock* end_block = context()->get_instr_block(end);
  BasicBlock* target = UsesDominator(context(), tree->function, tree->readers);
  if (target == nullptr || target == end_block) return;
  spvtools::opt::DominatorAnalysis* dom = context()->GetDominatorAnalysis(tree->function);
  if (!dom->StrictlyDominates(end_block, target)) return;
  // Not into a loop (the fold would run every iteration), and the slots
  // must hold the subgroups' values until it runs.
  auto* loops = context()->GetLoopDescriptor(tree->function);
  if ((*loops)[target->id()] != (*loops)[end_block->id()]) return;
  if (MayWriteAfter(context(), end, tree->var->result_id())) return;
  tree->sink = target;
  tree->sink_reach = InvocationsReaching(*tree, target);
  if (ChooseFold(*tree) != FoldKind::kSerial) return;
  // A serial loop already there (an earlier tree's, its result used in the
  // same block) takes this tree's slots too when it runs after this tree.
  for (size_t k = 0; k < fold_loops_.size(); ++k) {
    const FoldLoop& loop = fold_loops_[k];
    if (loop.function != tree->function->result_id() || loop.cont != target->id() || loop.rank) {
      continue;
    }
    BasicBlock* from = context()->get_instr_block(loop.from);
    if (from != nullptr && dom->StrictlyDominates(end_block, from)) {
      tree->join = static_cast<int>(k);
    }
  }
}

uint64_t WorkgroupReducePass::InvocationsReaching(const Tree& tree, BasicBlock* block) {
  WorkgroupSize size;
  size.x = tree.size[0];
  size.y = tree.size[1];
  size.z = tree.size[2];
  if (size.Count() == 0) return UINT64_MAX;
  InvocationEvaluator eval(context(), tree.function, size, nullptr);
  LaneEnv env;
  env.probes = false;
  env.workgroup_unknown = true;  // the same in every workgroup
  uint64_t n = 0;
  for (uint32_t i = 0; i < size.Count(); ++i) {
    if (eval.Reaches(0, block, i, env).reach != Reach::kNo) ++n;
  }
  return n;
}

bool WorkgroupReducePass::EmitSunkFold(Tree* tree, Emission* em, uint32_t* total) {
  if (tree->join >= 0) {
    const FoldLoop loop = fold_loops_[static_cast<size_t>(tree->join)];
    return JoinFoldLoop(tree, em, loop, total);
  }
  // The sink's phis stay; the fold goes between them and the rest, which
  // moves to a new block after the loop.
  BasicBlock* target = tree->sink;
  auto it = target->begin();
  while (it != target->end() && it->opcode() == spv::Op::OpPhi) ++it;
  Emitter e(context(), target, it);
  BasicBlock* cont = e.SplitHere();
  if (cont == nullptr) return false;
  e.PlaceBlocksBefore(cont);
  FoldLoop loop;
  if (!EmitFold(tree, em, &e, total, &loop)) return false;
  e.Branch(cont->id());
  if (!e.ok()) return false;
  // A serial loop (no rank, no choice) may take a later tree's slots.
  if (loop.header != 0 && !loop.rank) {
    loop.function = tree->function->result_id();
    loop.cont = cont->id();
    fold_loops_.push_back(loop);
  }
  return true;
}

bool WorkgroupReducePass::JoinFoldLoop(Tree* tree, Emission* em, const FoldLoop& loop,
                                       uint32_t* total) {
  BasicBlock* from = context()->get_instr_block(loop.from);
  BasicBlock* header = context()->get_instr_block(loop.header);
  BasicBlock* body = context()->get_instr_block(loop.body);
  if (from == nullptr || header == nullptr || body == nullptr) return false;
  Emitter fe(context(), from, BasicBlock::iterator(from->terminator()));
  const uint32_t identity = Identity(*tree, &fe);
  Emitter he(context(), header, header->begin());
  const uint32_t acc = he.EmitIds(spv::Op::OpPhi, tree->elem_type, {identity, from->id()});
  Emitter be(context(), body, BasicBlock::iterator(body->terminator()));
  const uint32_t acc_next = EmitSlotStep(tree, em, &be, acc, loop.index);
  *total = acc;
  return fe.ok() && he.ok() && be.ok() && be.AddIncoming(acc, acc_next, body->id());
}

void WorkgroupReducePass::MergeBarriers() {
  if (params_.no_sink) return;
  for (const std::pair<uint32_t, uint32_t>& slot_barrier : slot_barriers_) {
    const uint32_t uid = slot_barrier.first;
    const uint32_t var = slot_barrier.second;
    Instruction* a = nullptr;
    Function* func = nullptr;
    for (Function& f : *get_module()) {
      f.ForEachInst([&](Instruction* inst) {
        if (inst->unique_id() == uid) {
          a = inst;
          func = &f;
        }
      });
    }
    if (a == nullptr) continue;
    Instruction* next = nullptr;
    if (!RedundantBarrier(context(), func, a, &next, nullptr)) continue;
    EmitRemark(RemarkKind::kApplied, "MergedBarrier", func, next != nullptr ? next : a,
               "the barrier after the slots of the tree over " + NameOf(var) +
                   " is left to the next one: nothing between them accesses "
                   "shared memory that is accessed before it");
    BasicBlock* join = context()->get_instr_block(a);
    context()->KillInst(a);
    if (MergeElections(join, var)) {
      func->RemoveEmptyBlocks();
      context()->InvalidateAnalysesExceptFor(spvtools::opt::IRContext::kAnalysisNone);
    }
  }
}

namespace {

// The elected branch ending in |join|: |*header| branches on an
// OpGroupNonUniformElect to |*write| (which only stores a slot) or |join|.
bool ElectedBranchInto(IRContext* context, BasicBlock* join, BasicBlock** header,
                       BasicBlock** write) {
  auto* def_use = context->get_def_use_mgr();
  for (uint32_t pred : context->cfg()->preds(join->id())) {
    BasicBlock* h = context->get_instr_block(pred);
    Instruction* merge = h->GetMergeInst();
    Instruction* term = h->terminator();
    if (merge == nullptr || merge->opcode() != spv::Op::OpSelectionMerge ||
        merge->GetSingleWordInOperand(0) != join->id() ||
        term->opcode() != spv::Op::OpBranchConditional ||
        term->GetSingleWordInOperand(2) != join->id()) {
      continue;
    }
    Instruction* cond = def_use->GetDef(term->GetSingleWordInOperand(0));
    if (cond == nullptr || cond->opcode() != spv::Op::OpGroupNonUniformElect) continue;
    BasicBlock* w = context->get_instr_block(term->GetSingleWordInOperand(1));
    if (w->terminator()->opcode() != spv::Op::OpBranch ||
        w->terminator()->GetSingleWordInOperand(0) != join->id()) {
      continue;
    }
    *header = h;
    *write = w;
    return true;
  }
  return false;
}

}  // namespace

bool WorkgroupReducePass::MergeElections(BasicBlock* join, uint32_t var) {
  BasicBlock* header = nullptr;
  BasicBlock* write = nullptr;
  if (!ElectedBranchInto(context(), join, &header, &write)) return false;
  // Straight-line blocks from |join| to the next elected branch.
  BasicBlock* block = join;
  for (int guard = 0; guard < 64; ++guard) {
    for (Instruction& inst : *block) {
      if (&inst == block->terminator() || &inst == block->GetMergeInst()) break;
      if (!StoreMayCross(context(), &inst, var)) return false;
    }
    Instruction* term = block->terminator();
    if (term->opcode() == spv::Op::OpBranch && block->GetMergeInst() == nullptr) {
      BasicBlock* next = context()->get_instr_block(term->GetSingleWordInOperand(0));
      if (context()->cfg()->preds(next->id()).size() != 1) return false;
      block = next;
      continue;
    }
    if (term->opcode() != spv::Op::OpBranchConditional) return false;
    Instruction* cond = get_def_use_mgr()->GetDef(term->GetSingleWordInOperand(0));
    if (cond == nullptr || cond->opcode() != spv::Op::OpGroupNonUniformElect ||
        block->GetMergeInst() == nullptr) {
      return false;
    }
    BasicBlock* next_write = context()->get_instr_block(term->GetSingleWordInOperand(1));
    // Both branches are in the same uniform control flow: the lanes elected
    // there belong to the same subgroups, and any one lane of a subgroup
    // may write its slot.
    std::vector<Instruction*> moved;
    for (Instruction& inst : *write) {
      if (&inst != write->terminator()) moved.push_back(&inst);
    }
    Instruction* at = &*next_write->begin();
    for (Instruction* inst : moved) {
      inst->RemoveFromList();
      at->InsertBefore(std::unique_ptr<Instruction>(inst));
      context()->set_instr_block(inst, next_write);
    }
    Instruction* elect = get_def_use_mgr()->GetDef(header->terminator()->GetSingleWordInOperand(0));
    context()->KillInst(header->GetMergeInst());
    Instruction* branch = header->terminator();
    branch->SetOpcode(spv::Op::OpBranch);
    branch->SetInOperands({{SPV_OPERAND_TYPE_ID, {join->id()}}});
    get_def_use_mgr()->AnalyzeInstUse(branch);
    write->KillAllInsts(true);
    if (get_def_use_mgr()->NumUses(elect) == 0) context()->KillInst(elect);
    return true;
  }
  return false;
}

// The region of |tree| split out for a rewrite (SplitRegion), with what
// both rewrites (one row, rows) need to know of it.
bool WorkgroupReducePass::PrepareEmission(Tree* tree, Emission* em) {
  tree_function_id_ = tree->function->result_id();
  ForwardCopies(*tree);
  em->keep_region = tree->spec_constant != 0 || !tree->layout.spec_rows.empty() ||
                    tree->form == Tree::Form::kSingleOrOriginal;
  em->elem_ptr =
      context()->get_type_mgr()->FindPointerToType(tree->elem_type, spv::StorageClass::Workgroup);
  return em->elem_ptr != 0 && SplitRegion(tree, em);
}

// Starts the new code in front of the region. When the original stays, the
// test in front of it: the region becomes the else arm of an if on it
// (|keep|), the new code its then arm; else a block of its own.
bool WorkgroupReducePass::OpenRewrite(Tree* tree, const Emission& em, Emitter* e,
                                      Emitter::If* keep) {
  e->PlaceBlocksBefore(em.region);
  if (em.keep_region) {
    const uint32_t fast = EmitFastTest(tree, e);
    if (fast == 0) return false;
    *keep = e->PushIf(fast, Emitter::Arms::kBoth, em.after);
    return true;
  }
  return e->BranchToNewBlock() != nullptr;
}

bool WorkgroupReducePass::Rewrite(Tree* tree) {
  context()->AddCapability(spv::Capability::GroupNonUniform);
  context()->AddCapability(spv::Capability::GroupNonUniformArithmetic);
  if (!tree->layout.Plain()) return RewriteRows(tree);
  Emission em;
  if (!PrepareEmission(tree, &em)) return false;
  Emitter e(context(), em.pre);
  Emitter::If keep;
  if (!OpenRewrite(tree, em, &e, &keep)) return false;
  uint32_t result = 0;
  if (!e.ok() || !EmitForms(tree, &em, &e, &result)) return false;
  if (tree->sink != nullptr && !EmitSunkFold(tree, &em, &result)) return false;
  return FinishRegion(tree, &em, result, &e, &keep);
}

uint32_t WorkgroupReducePass::EmitFastTest(const Tree* tree, Emitter* e) {
  const uint32_t bool_type = e->BoolType();
  uint32_t fast = e->Bool(true);
  if (tree->spec_constant != 0) {
    // A power of two from 2 to 1024: the sizes the pass traced.
    const uint32_t uint_type = e->UIntType(32);
    uint32_t s = SpecConstantValue(e, tree->spec_constant);
    const Instruction* t = get_def_use_mgr()->GetDef(get_def_use_mgr()->GetDef(s)->type_id());
    if (t->GetSingleWordInOperand(1) != 0) {
      s = e->EmitIds(spv::Op::OpBitcast, uint_type, {s});
    }
    const uint32_t low = e->EmitIds(spv::Op::OpBitwiseAnd, uint_type,
                                    {s, e->EmitIds(spv::Op::OpISub, uint_type, {s, e->UInt(1)})});
    const uint32_t pow2 = e->EmitIds(spv::Op::OpIEqual, bool_type, {low, e->UInt(0)});
    const uint32_t ge = e->EmitIds(spv::Op::OpUGreaterThanEqual, bool_type, {s, e->UInt(2)});
    const uint32_t le = e->EmitIds(spv::Op::OpULessThanEqual, bool_type,
                                   {s, e->UInt(static_cast<uint32_t>(kMaxTracedSize))});
    fast = e->EmitIds(spv::Op::OpLogicalAnd, bool_type,
                      {pow2, e->EmitIds(spv::Op::OpLogicalAnd, bool_type, {ge, le})});
  }
  // The row counts traced: the specialization constants' defaults.
  std::vector<std::pair<uint32_t, uint64_t>> rows;
  for (const RowLayout::SpecRow& r : tree->layout.spec_rows) rows.emplace_back(r.id, r.value);
  fast = EmitSpecValuesTest(rows, fast, e);
  if (tree->form == Tree::Form::kSingleOrOriginal) {
    const uint32_t one = OneSubgroupTest(e);
    if (one == 0) return 0;
    fast = e->EmitIds(spv::Op::OpLogicalAnd, bool_type, {fast, one});
  }
  return e->ok() ? fast : 0;
}

uint32_t WorkgroupReducePass::EmitSpecValuesTest(
    const std::vector<std::pair<uint32_t, uint64_t>>& specs, uint32_t fast, Emitter* e) {
  const uint32_t bool_type = e->BoolType();
  for (const auto& [id, v] : specs) {
    const uint32_t type = get_def_use_mgr()->GetDef(id)->type_id();
    const uint32_t value = e->Constant(type, {static_cast<uint32_t>(v)});
    const uint32_t operand = SpecConstantValue(e, id);  // gl_WorkGroupSize.x
    fast = e->EmitIds(spv::Op::OpLogicalAnd, bool_type,
                      {fast, e->EmitIds(spv::Op::OpIEqual, bool_type, {operand, value})});
  }
  return fast;
}

// ---------------------------------------------------------------------------
// Rows (workgroup_reduce_rows.h): arrays of arrays and vector elements.

namespace {

// Whether two rows' replays found the same tree.
bool SameTree(const WorkgroupReducePass::Tree& a, const WorkgroupReducePass::Tree& b) {
  return a.op == b.op && a.ext == b.ext && a.end_item == b.end_item &&
         a.contributors == b.contributors && a.steps == b.steps && a.barriers == b.barriers &&
         a.result_element == b.result_element;
}

// Every reader of row r reads row r in every invocation, or is a reader of
// every row it reads (a load in a loop over the rows, `t[c][r][0]`: its
// value is chosen by the row its indices give, DynamicRowReader); kNone
// or kReaderSpansRows.
Reason CheckReaderRows(IRContext* context, const RowLayout& layout,
                       const std::vector<std::vector<TraceEvent>>& events,
                       const std::vector<std::vector<Instruction*>>& readers, std::string* why,
                       Instruction** where) {
  std::unordered_map<const Instruction*, int64_t> row_of;
  std::unordered_map<const Instruction*, std::unordered_set<int64_t>> rows_of;
  for (size_t r = 0; r < readers.size(); ++r) {
    for (Instruction* reader : readers[r]) {
      rows_of[reader].insert(static_cast<int64_t>(r));
      if (!row_of.emplace(reader, static_cast<int64_t>(r)).second) row_of[reader] = -1;
    }
  }
  for (auto& [reader, row] : row_of) {
    const Instruction* chain =
        context->get_def_use_mgr()->GetDef(reader->GetSingleWordInOperand(0));
    if (row < 0 && chain->opcode() == spv::Op::OpAccessChain &&
        chain->NumInOperands() >= layout.outer.size() + 2) {
      row = -2;  // dynamic: every event's row must be one it reads the result of
    }
  }
  for (const std::vector<TraceEvent>& list : events) {
    for (const TraceEvent& e : list) {
      auto found = row_of.find(e.inst);
      if (e.kind != TraceEvent::Kind::kLoad || found == row_of.end() || found->second == e.row ||
          (found->second == -2 && rows_of[e.inst].count(e.row))) {
        continue;
      }
      *why =
          "a load of a row's result reads other rows in other invocations "
          "(or iterations): read each row's result with its own load";
      *where = e.inst;
      return Reason::kReaderSpansRows;
    }
  }
  return Reason::kNone;
}

}  // namespace

WorkgroupReducePass::Reason WorkgroupReducePass::ReplayRows(const WorkgroupTrace& trace, Tree* tree,
                                                            uint64_t workgroup, std::string* why,
                                                            Instruction** where) {
  // Each row starts from the facts of the configurations before (copies
  // without the spine, which the replays share).
  const Spine spine = std::move(tree->spine);
  tree->spine = Spine();
  const Tree before = *tree;
  const uint64_t rows = tree->layout.rows;
  std::vector<std::vector<Instruction*>> readers(rows);
  std::vector<std::vector<TraceEvent>> events;
  Tree first;
  Reason reason = Reason::kNone;
  std::unordered_map<const Instruction*, int> kinds = before.load_kinds;
  std::set<uint64_t> after = before.after_invocations;
  for (uint64_t r = 0; r < rows && reason == Reason::kNone; ++r) {
    Tree t = before;
    if (!before.first) t.readers = before.row_readers[r];
    if (!ProjectRow(trace.events(), static_cast<int64_t>(r), &events, why, where)) {
      reason = Reason::kPartialElementWrite;
      break;
    }
    PhaseReplay replay(context(), events, spine, &t, tree->min_length);
    reason = replay.Run(workgroup, why, where);
    if (reason != Reason::kNone && rows > 1) *why = "row " + std::to_string(r) + ": " + *why;
    if (reason == Reason::kNone && r > 0 && !SameTree(first, t)) {
      reason = Reason::kRowsDiffer;
      *why = "row " + std::to_string(r) +
             " is reduced by another tree than row 0 "
             "(other steps, operation, result element or end): one tree for every row";
      *where = nullptr;
    }
    if (r == 0) first = t;
    // A store after the tree in any row: no slots there (StoreAfterTree).
    first.store_after_tree = first.store_after_tree || t.store_after_tree;
    readers[r] = t.readers;
    for (const auto& [inst, k] : t.load_kinds) {
      auto [it, fresh] = kinds.emplace(inst, k);
      if (!fresh && it->second != k) it->second = 3;
    }
    after.insert(t.after_invocations.begin(), t.after_invocations.end());
  }
  if (reason == Reason::kNone) {
    reason = CheckReaderRows(context(), tree->layout, trace.events(), readers, why, where);
  }
  if (reason == Reason::kNone) {
    *tree = first;
    tree->load_kinds = std::move(kinds);
    tree->after_invocations = std::move(after);
    tree->row_readers = readers;
    tree->readers.clear();
    for (const std::vector<Instruction*>& list : readers) {
      tree->readers.insert(tree->readers.end(), list.begin(), list.end());
    }
    // A load that reads several rows (its row picked at run time) is one
    // reader.
    std::sort(tree->readers.begin(), tree->readers.end(),
              [](Instruction* a, Instruction* b) { return a->unique_id() < b->unique_id(); });
    tree->readers.erase(std::unique(tree->readers.begin(), tree->readers.end()),
                        tree->readers.end());
  }
  tree->spine = spine;
  return reason;
}

void WorkgroupReducePass::ForwardRowStores(WorkgroupTrace* trace,
                                           const std::vector<TraceConfig>& configs, Tree* tree) {
  // As ForwardableStore, for every row: walking back from B0 in its block,
  // one store per row of the invocation's own element, nothing in between
  // but private stores and code that touches no other memory.
  BasicBlock* block = context()->get_instr_block(tree->barrier);
  std::vector<Instruction*> stores(tree->layout.rows, nullptr);
  Instruction* first = nullptr;
  uint64_t found = 0;
  for (auto it = BasicBlock::iterator(tree->barrier);
       it != block->begin() && found < tree->layout.rows;) {
    --it;
    const spv::Op op = it->opcode();
    const bool load_or_store = op == spv::Op::OpLoad || op == spv::Op::OpStore;
    Instruction* root =
        load_or_store ? RootVariable(context(), it->GetSingleWordInOperand(0)) : nullptr;
    const bool to_array = root != nullptr && root == tree->var;
    if (op == spv::Op::OpLoad && !to_array) continue;
    if (op == spv::Op::OpStore && !to_array) {
      if (root == nullptr || !IsPrivateClass(spv::StorageClass(root->GetSingleWordInOperand(0)))) {
        return;
      }
      continue;
    }
    if (op == spv::Op::OpLoad || op == spv::Op::OpControlBarrier ||
        op == spv::Op::OpMemoryBarrier || op == spv::Op::OpFunctionCall ||
        spvOpcodeIsAtomicOp(op) || op == spv::Op::OpPhi) {
      return;
    }
    if (op != spv::Op::OpStore) continue;
    uint32_t index = 0;
    const int64_t row = ConstantRow(
        context(), tree->layout, get_def_use_mgr()->GetDef(it->GetSingleWordInOperand(0)), &index);
    if (row < 0 || stores[static_cast<size_t>(row)] != nullptr ||
        !IndexIsInvocation(trace, configs, index)) {
      return;
    }
    stores[static_cast<size_t>(row)] = &*it;
    first = &*it;
    ++found;
  }
  if (found < tree->layout.rows) return;
  tree->row_stores = stores;
  tree->init_store = first;
}

bool WorkgroupReducePass::IndexIsInvocation(WorkgroupTrace* trace,
                                            const std::vector<TraceConfig>& configs,
                                            uint32_t index) {
  for (const TraceConfig& c : configs) {
    uint32_t size[3];
    if (!trace->WorkgroupCount(c, size)) return false;
    const uint64_t count = uint64_t{size[0]} * size[1] * size[2];
    for (uint64_t t = 0; t < count; ++t) {
      uint64_t v = 0;
      if (!trace->EvalFor(index, static_cast<uint32_t>(t), c, &v) || v != t) return false;
    }
  }
  return true;
}

bool WorkgroupReducePass::ReplaceDynamicReader(const Tree& tree, Instruction* reader,
                                               const std::vector<uint64_t>& rows,
                                               const std::vector<uint32_t>& values,
                                               uint32_t taken) {
  // The row the reader's outer indices give (flattened, as the trace's),
  // and the result of that row: the last of |rows| unless another matches.
  const RowLayout& layout = tree.layout;
  const Instruction* chain = get_def_use_mgr()->GetDef(reader->GetSingleWordInOperand(0));
  Emitter e(context(), context()->get_instr_block(reader), BasicBlock::iterator(reader));
  const uint32_t u = e.UIntType(32), bt = e.BoolType();
  uint32_t row = 0;
  for (size_t k = 0; k < layout.outer.size(); ++k) {
    uint32_t index = chain->GetSingleWordInOperand(static_cast<uint32_t>(k + 1));
    const Instruction* type =
        get_def_use_mgr()->GetDef(get_def_use_mgr()->GetDef(index)->type_id());
    if (type->GetSingleWordInOperand(1) != 0) index = e.EmitIds(spv::Op::OpBitcast, u, {index});
    row = k == 0 ? index
                 : e.EmitIds(spv::Op::OpIAdd, u,
                             {e.EmitIds(spv::Op::OpIMul, u,
                                        {row, e.UInt(static_cast<uint32_t>(layout.outer[k]))}),
                              index});
  }
  uint32_t value = values[rows.back()];
  for (size_t i = rows.size() - 1; i-- > 0;) {
    const uint32_t is_row =
        e.EmitIds(spv::Op::OpIEqual, bt, {row, e.UInt(static_cast<uint32_t>(rows[i]))});
    value = e.EmitIds(spv::Op::OpSelect, tree.elem_type, {is_row, values[rows[i]], value});
  }
  if (taken != 0) {
    // The original kept: its element where it ran.
    uint32_t ptr = chain->result_id();
    if (chain->NumInOperands() != layout.outer.size() + 2) {
      // A component's chain: the whole element's.
      std::vector<Operand> ops;
      for (uint32_t i = 0; i < layout.outer.size() + 2; ++i) {
        ops.push_back({SPV_OPERAND_TYPE_ID, {chain->GetSingleWordInOperand(i)}});
      }
      ptr = e.Emit(spv::Op::OpAccessChain,
                   context()->get_type_mgr()->FindPointerToType(tree.elem_type,
                                                                spv::StorageClass::Workgroup),
                   ops);
    }
    const uint32_t original = e.EmitIds(spv::Op::OpLoad, tree.elem_type, {ptr});
    value = e.EmitIds(spv::Op::OpSelect, tree.elem_type, {taken, value, original});
  }
  return e.ok() && ReplaceReader(context(), layout, reader, value);
}

uint32_t WorkgroupReducePass::RowElement(const Tree& tree, const Emission& em, Emitter* e,
                                         uint64_t row, uint32_t index) {
  std::vector<uint32_t> ids = {tree.var->result_id()};
  for (uint32_t id : RowIndices(e, tree.layout, row)) ids.push_back(id);
  ids.push_back(index);
  return EmitIdList(e, spv::Op::OpAccessChain, em.elem_ptr, ids);
}

bool WorkgroupReducePass::RewriteRows(Tree* tree) {
  Emission em;
  if (!PrepareEmission(tree, &em)) return false;
  Emitter e(context(), em.pre);
  Emitter::If keep;
  if (!OpenRewrite(tree, em, &e, &keep)) return false;
  std::vector<uint32_t> results;
  if (!e.ok() || !EmitRowsForms(tree, &em, &e, &results)) return false;
  return FinishRows(tree, &em, results, &e, &keep);
}

bool WorkgroupReducePass::EmitRowsForms(Tree* tree, Emission* em, Emitter* e,
                                        std::vector<uint32_t>* results) {
  // The rows' forwarded values, or B0 and the invocation's element of
  // every row.
  const bool forwarded = !tree->row_stores.empty();
  if (!forwarded) {
    std::vector<Operand> barrier_ops;
    for (uint32_t i = 0; i < tree->barrier->NumInOperands(); ++i) {
      barrier_ops.push_back(tree->barrier->GetInOperand(i));
    }
    e->EmitVoid(spv::Op::OpControlBarrier, barrier_ops);
  }
  const uint32_t tid_var = BuiltInVariable(spv::BuiltIn::LocalInvocationIndex);
  if (tid_var == 0) return false;
  const uint32_t tid = e->EmitIds(spv::Op::OpLoad, e->UIntType(32), {tid_var});
  const spv::Op group = GroupOp(tree->op, tree->ext);
  std::vector<uint32_t> reduced(tree->layout.rows);
  for (uint64_t r = 0; r < tree->layout.rows; ++r) {
    uint32_t x = forwarded ? tree->row_stores[r]->GetSingleWordInOperand(1)
                           : e->EmitIds(spv::Op::OpLoad, tree->elem_type,
                                        {RowElement(*tree, *em, e, r, tid)});
    if (tree->contributors != 0) {
      const uint32_t in = e->EmitIds(spv::Op::OpULessThan, e->BoolType(),
                                     {tid, e->UInt(static_cast<uint32_t>(tree->contributors))});
      x = SelectElement(e, tree->layout, in, x, Identity(*tree, e));
    }
    reduced[r] = e->Group(group, tree->elem_type, kReduce, {x});
  }
  if (tree->form == Tree::Form::kSingle || tree->form == Tree::Form::kSingleOrOriginal) {
    *results = reduced;
    return e->ok();
  }
  if (tree->form == Tree::Form::kGeneric) {
    return EmitRowsGeneric(tree, em, e, reduced, results);
  }
  // One subgroup: its reductions; else the generic form.
  const uint32_t one = OneSubgroupTest(e);
  if (one == 0) return false;
  Emitter::If single = e->PushIf(one, Emitter::Arms::kBoth);
  e->PushElse(&single);
  std::vector<uint32_t> totals;
  if (!EmitRowsGeneric(tree, em, e, reduced, &totals) || !e->PopIf(&single)) return false;
  results->clear();
  for (uint64_t r = 0; r < tree->layout.rows; ++r) {
    results->push_back(e->IfPhi(single, tree->elem_type, reduced[r], totals[r]));
  }
  return e->ok();
}

bool WorkgroupReducePass::EmitRowsGeneric(Tree* tree, Emission* em, Emitter* e,
                                          const std::vector<uint32_t>& reduced,
                                          std::vector<uint32_t>* totals) {
  // Every invocation read its elements before any slot is written (no
  // read when the rows' stores are forwarded); one elected lane per
  // subgroup writes every row's slot; one barrier.
  std::vector<Operand> barrier_ops;
  for (uint32_t i = 0; i < tree->barrier->NumInOperands(); ++i) {
    barrier_ops.push_back(tree->barrier->GetInOperand(i));
  }
  if (tree->row_stores.empty()) e->EmitVoid(spv::Op::OpControlBarrier, barrier_ops);
  const uint32_t elect = e->Group(spv::Op::OpGroupNonUniformElect, e->BoolType(), -1, {});
  Emitter::If write = e->PushIf(elect);
  const uint32_t sg_var = BuiltInVariable(spv::BuiltIn::SubgroupId);
  if (sg_var == 0) return false;
  const uint32_t sg = e->EmitIds(spv::Op::OpLoad, e->UIntType(32), {sg_var});
  for (uint64_t r = 0; r < tree->layout.rows; ++r) {
    const uint32_t p = RowElement(*tree, *em, e, r, sg);
    e->EmitVoid(spv::Op::OpStore,
                {{SPV_OPERAND_TYPE_ID, {p}}, {SPV_OPERAND_TYPE_ID, {reduced[r]}}});
  }
  if (!e->PopIf(&write)) return false;
  e->EmitVoid(spv::Op::OpControlBarrier, barrier_ops);
  if (e->ok()) {
    slot_barriers_.push_back({write.merge->tail()->unique_id(), tree->var->result_id()});
  }
  return e->ok() && EmitRowsFold(tree, em, e, totals);
}

bool WorkgroupReducePass::EmitRowsFold(Tree* tree, Emission* em, Emitter* e,
                                       std::vector<uint32_t>* totals) {
  const spv::Op group = GroupOp(tree->op, tree->ext);
  const FoldKind kind = ChooseFold(*tree);
  auto finish = [&](bool rank, std::vector<uint32_t>* accs) {
    if (!rank) return;
    for (uint32_t& acc : *accs) acc = e->Group(group, tree->elem_type, kReduce, {acc});
  };
  if (kind != FoldKind::kBySubgroupSize) {
    const bool rank = kind == FoldKind::kRank;
    if (!EmitRowsSlotLoop(tree, em, e, rank, totals)) return false;
    finish(rank, totals);
    return e->ok();
  }
  // SubgroupSize >= 32 ? serial : rank (see EmitFold).
  const uint32_t size_var = BuiltInVariable(spv::BuiltIn::SubgroupSize);
  if (size_var == 0) return false;
  const uint32_t size = e->EmitIds(spv::Op::OpLoad, e->UIntType(32), {size_var});
  const uint32_t wide =
      e->EmitIds(spv::Op::OpUGreaterThanEqual, e->BoolType(), {size, e->UInt(32)});
  std::vector<uint32_t> serial, rank;
  Emitter::If choice = e->PushIf(wide, Emitter::Arms::kBoth);
  if (!EmitRowsSlotLoop(tree, em, e, false, &serial)) return false;
  e->PushElse(&choice);
  if (!EmitRowsSlotLoop(tree, em, e, true, &rank)) return false;
  finish(true, &rank);
  if (!e->PopIf(&choice)) return false;
  totals->clear();
  for (size_t r = 0; r < serial.size(); ++r) {
    totals->push_back(e->IfPhi(choice, tree->elem_type, serial[r], rank[r]));
  }
  return e->ok();
}

bool WorkgroupReducePass::EmitRowsSlotLoop(Tree* tree, Emission* em, Emitter* e, bool rank,
                                           std::vector<uint32_t>* accs) {
  const uint32_t count_var = BuiltInVariable(spv::BuiltIn::NumSubgroups);
  const uint32_t size_var = BuiltInVariable(spv::BuiltIn::SubgroupSize);
  if (count_var == 0 || size_var == 0) return false;
  const uint32_t uint_type = e->UIntType(32);
  uint32_t start = e->UInt(0);
  uint32_t step = e->UInt(1);
  if (rank) {
    const uint32_t one = step;
    start = e->Group(spv::Op::OpGroupNonUniformIAdd, uint_type, kExclusiveScan, {one});
    step = e->Group(spv::Op::OpGroupNonUniformIAdd, uint_type, kReduce, {one});
  }
  const uint32_t count = SlotCount(*tree, e, size_var, count_var);
  if (count == 0) return false;
  const uint32_t identity = Identity(*tree, e);
  const uint64_t rows = tree->layout.rows;
  Emitter::Loop l = e->PushLoop();
  accs->clear();
  for (uint64_t r = 0; r < rows; ++r) accs->push_back(e->LoopPhi(&l, tree->elem_type, identity));
  const uint32_t i = e->LoopPhi(&l, uint_type, start);
  e->LoopWhile(&l, e->EmitIds(spv::Op::OpULessThan, e->BoolType(), {i, count}));
  std::vector<uint32_t> next;
  for (uint64_t r = 0; r < rows; ++r) {
    const uint32_t p = RowElement(*tree, *em, e, r, i);
    const uint32_t y = e->EmitIds(spv::Op::OpLoad, tree->elem_type, {p});
    next.push_back(EmitCombine(*tree, e, (*accs)[r], y));
  }
  next.push_back(e->EmitIds(spv::Op::OpIAdd, uint_type, {i, step}));
  return e->PopLoop(&l, next);
}

bool WorkgroupReducePass::FinishRows(Tree* tree, Emission* em, const std::vector<uint32_t>& results,
                                     Emitter* e, Emitter::If* keep) {
  uint32_t taken = 0;  // with the original kept: whether the rewrite ran
  std::vector<uint32_t> values = results;
  if (tree->store_back && !EmitStoreBack(*tree, *em, results, e)) return false;
  if (!em->keep_region) {
    e->Branch(em->after->id());
  } else {
    // The original's results, read where its last barrier left them.
    Instruction* term = em->region_last->terminator();
    Emitter re(context(), em->region_last, BasicBlock::iterator(term));
    std::vector<uint32_t> originals;
    for (uint64_t r = 0; r < tree->layout.rows; ++r) {
      const uint32_t index = re.UInt(static_cast<uint32_t>(tree->result_element));
      originals.push_back(
          re.EmitIds(spv::Op::OpLoad, tree->elem_type, {RowElement(*tree, *em, &re, r, index)}));
    }
    e->ElseExisting(keep, em->region, em->region_last);
    if (!re.ok() || !e->PopIf(keep)) return false;
    for (size_t r = 0; r < values.size(); ++r) {
      values[r] = e->IfPhi(*keep, tree->elem_type, results[r], originals[r]);
    }
    // Readers in loops over rows read the array itself where the
    // original ran (its rows may be others than the rewrite's).
    taken = e->IfPhi(*keep, e->BoolType(), e->Bool(true), e->Bool(false));
  }
  if (!e->ok()) return false;
  std::map<Instruction*, std::vector<uint64_t>> rows_of;  // by reader
  for (size_t r = 0; r < values.size() && !tree->store_back; ++r) {
    for (Instruction* reader : tree->row_readers[r]) rows_of[reader].push_back(r);
  }
  for (size_t r = 0; r < values.size(); ++r) {
    for (Instruction* reader : tree->row_readers[r]) {
      const std::vector<uint64_t>& rows = rows_of[reader];
      if (rows.empty()) continue;  // replaced already
      // Where the original may run instead, a reader takes the element it
      // reads from the array there: with other values of the constants its
      // indices may pick another row than the one it read here (ggml's
      // loops over NUM_ROWS rows, 1 by default).
      if (rows.size() > 1 || taken != 0) {
        if (!ReplaceDynamicReader(*tree, reader, rows, values, taken)) return false;
        rows_of[reader].clear();
        continue;
      }
      rows_of[reader].clear();
      if (!ReplaceReader(context(), tree->layout, reader, values[r])) return false;
    }
  }
  if (!em->keep_region) RemoveRegion(*tree, *em);
  return true;
}

const char* WorkgroupReduceReasonName(WorkgroupReduceReason reason) {
  return kReasonNames[static_cast<size_t>(reason)];
}

WorkgroupReduceReason WorkgroupReduceReasonFromTrace(const std::string& name) {
  // "" (no name) is kNone, as before the enum.
  for (size_t k = 0; k < static_cast<size_t>(Reason::kCount); ++k) {
    if (name == kReasonNames[k]) return static_cast<Reason>(k);
  }
  // Every name WorkgroupTrace fails with is in the table.
  assert(false && "a WorkgroupTrace failure missing from kReasonNames");
  return Reason::kUnsupportedControlFlow;
}

}  // namespace waveopt
