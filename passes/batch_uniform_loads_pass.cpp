// batch-uniform-loads: see the header for the rewrite; docs/passes/
// batch-uniform-loads.md for remarks and options.
#include "passes/batch_uniform_loads_pass.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>

#include "analysis/uniformity.h"
#include "lib/inline_loop_callees.h"
#include "passes/emitter.h"
#include "source/opt/cfg.h"
#include "source/opt/constants.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/ir_context.h"
#include "source/opt/loop_descriptor.h"
#include "source/opt/type_manager.h"
#include "source/spirv_constant.h"
#include "source/spirv_target_env.h"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::Loop;
using spvtools::opt::Operand;

constexpr int kReduce = static_cast<int>(spv::GroupOperation::Reduce);
constexpr int kExclusiveScan =
    static_cast<int>(spv::GroupOperation::ExclusiveScan);

bool IsComparison(spv::Op op) {
  switch (op) {
    case spv::Op::OpULessThan:
    case spv::Op::OpSLessThan:
    case spv::Op::OpULessThanEqual:
    case spv::Op::OpSLessThanEqual:
    case spv::Op::OpUGreaterThan:
    case spv::Op::OpSGreaterThan:
    case spv::Op::OpUGreaterThanEqual:
    case spv::Op::OpSGreaterThanEqual:
      return true;
    default:
      return false;
  }
}

bool IsSigned(spv::Op op) {
  return op == spv::Op::OpSLessThan || op == spv::Op::OpSLessThanEqual ||
         op == spv::Op::OpSGreaterThan || op == spv::Op::OpSGreaterThanEqual;
}

// Whether "a <op> b" holds for smaller a (a "less" comparison).
bool IsLess(spv::Op op) {
  return op == spv::Op::OpULessThan || op == spv::Op::OpSLessThan ||
         op == spv::Op::OpULessThanEqual || op == spv::Op::OpSLessThanEqual;
}

// Operations whose result the rewrite may recompute for another iteration.
bool IsRecomputable(spv::Op op) {
  switch (op) {
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
    case spv::Op::OpUDiv:  // recomputed only for iterations that run, where
    case spv::Op::OpUMod:  // the original computes the same division
    case spv::Op::OpCompositeExtract:
    case spv::Op::OpBitcast:
    case spv::Op::OpUConvert:
    case spv::Op::OpSConvert:
    case spv::Op::OpCopyObject:
      return true;
    default:
      return false;
  }
}

bool ConstantInt(const Instruction* inst, int64_t* value) {
  if (inst == nullptr || inst->opcode() != spv::Op::OpConstant) return false;
  uint32_t word = inst->GetSingleWordInOperand(0);
  *value = static_cast<int32_t>(word);
  return inst->NumInOperandWords() == 1;
}

// One shuffled piece of a loaded value: the indices that reach it from the
// loaded composite, its type, and how it travels (64-bit scalars as v2uint).
struct Leaf {
  std::vector<uint32_t> path;
  uint32_t type = 0;
  bool wide = false;  // a 64-bit scalar carried as two 32-bit halves
};

}  // namespace

bool BatchUniformLoadsPass::ParseParams(const std::string& text, Params* params,
                                        std::string* error) {
  std::vector<std::pair<std::string, std::string>> items;
  if (!SplitParams(text, &items, error)) return false;
  for (const auto& [key, value] : items) {
    if (key == "min-trip") {
      char* end = nullptr;
      unsigned long n = std::strtoul(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n > 1000000) {
        *error = "min-trip must be a number from 0 to 1000000";
        return false;
      }
      params->min_trip = static_cast<uint32_t>(n);
    } else {
      *error = "unknown parameter '" + key + "' (expected min-trip=N)";
      return false;
    }
  }
  return true;
}

BatchUniformLoadsPass::BatchUniformLoadsPass(PassConfig config)
    : WavePass(std::move(config)) {
  std::string ignored;
  ParseParams(this->config().params, &params_, &ignored);
}

namespace {

// The leaves of |type_id| (see Leaf); false when a leaf cannot be shuffled
// (8/16-bit, pointers, images, runtime arrays) or there are more than |cap|.
bool CollectLeaves(spvtools::opt::IRContext* context, uint32_t type_id,
                   std::vector<uint32_t>* path, std::vector<Leaf>* leaves,
                   size_t cap, std::string* why) {
  auto* def_use = context->get_def_use_mgr();
  Instruction* type = def_use->GetDef(type_id);
  if (leaves->size() > cap) {
    *why = "the loaded value has more than " + std::to_string(cap) +
           " scalar or vector parts";
    return false;
  }
  switch (type->opcode()) {
    case spv::Op::OpTypeBool:
      leaves->push_back({*path, type_id, false});
      return true;
    case spv::Op::OpTypeInt:
    case spv::Op::OpTypeFloat: {
      uint32_t width = type->GetSingleWordInOperand(0);
      if (width == 32) {
        leaves->push_back({*path, type_id, false});
        return true;
      }
      if (width == 64) {
        leaves->push_back({*path, type_id, true});
        return true;
      }
      *why = "an 8- or 16-bit member would need subgroup extended types";
      return false;
    }
    case spv::Op::OpTypeVector: {
      Instruction* comp = def_use->GetDef(type->GetSingleWordInOperand(0));
      if (comp->opcode() != spv::Op::OpTypeBool &&
          comp->GetSingleWordInOperand(0) == 32) {
        leaves->push_back({*path, type_id, false});
        return true;
      }
      for (uint32_t i = 0; i < type->GetSingleWordInOperand(1); ++i) {
        path->push_back(i);
        bool ok = CollectLeaves(context, type->GetSingleWordInOperand(0), path,
                                leaves, cap, why);
        path->pop_back();
        if (!ok) return false;
      }
      return true;
    }
    case spv::Op::OpTypeMatrix:
    case spv::Op::OpTypeArray:
    case spv::Op::OpTypeStruct: {
      std::vector<uint32_t> members;
      if (type->opcode() == spv::Op::OpTypeStruct) {
        for (uint32_t i = 0; i < type->NumInOperands(); ++i) {
          members.push_back(type->GetSingleWordInOperand(i));
        }
      } else {
        uint64_t count = type->GetSingleWordInOperand(1);
        if (type->opcode() == spv::Op::OpTypeArray) {
          Instruction* length = def_use->GetDef(type->GetSingleWordInOperand(1));
          if (length == nullptr || length->opcode() != spv::Op::OpConstant) {
            *why = "an array whose length is a specialization constant";
            return false;
          }
          count = length->GetSingleWordInOperand(0);
        }
        if (count > cap) {
          *why = "the loaded value has more than " + std::to_string(cap) +
                 " scalar or vector parts";
          return false;
        }
        members.assign(count, type->GetSingleWordInOperand(0));
      }
      for (uint32_t i = 0; i < members.size(); ++i) {
        path->push_back(i);
        bool ok = CollectLeaves(context, members[i], path, leaves, cap, why);
        path->pop_back();
        if (!ok) return false;
      }
      return true;
    }
    default:
      *why = "the loaded type cannot be moved between lanes";
      return false;
  }
}

}  // namespace

spvtools::opt::Pass::Status BatchUniformLoadsPass::Process() {
  // One loop per nest per round, innermost first; the rounds repeat on the
  // rewritten module (analyses rebuilt) while a nest still has a candidate
  // waiting, so one run batches every level of a nest.
  constexpr int kMaxRounds = 4;
  handled_headers_.clear();
  bool changed = false;
  for (int round = 0; round < kMaxRounds; ++round) {
    bool deferred = false;
    const Status status = ProcessRound(round + 1 == kMaxRounds, &deferred);
    if (status == Status::Failure) return status;
    if (status == Status::SuccessWithChange) changed = true;
    if (!deferred) break;
    context()->InvalidateAnalysesExceptFor(
        spvtools::opt::IRContext::kAnalysisNone);
  }
  return changed ? Status::SuccessWithChange : Status::SuccessWithoutChange;
}

spvtools::opt::Pass::Status BatchUniformLoadsPass::ProcessRound(
    bool last_round, bool* deferred) {
  loop_blocks_.clear();
  loop_writes_.clear();
  // Loops with an OpLoopMerge, in program order.
  std::vector<std::pair<Function*, Instruction*>> loop_merges;
  for (Function& func : *get_module()) {
    for (BasicBlock& block : func) {
      if (Instruction* merge = block.GetLoopMergeInst()) {
        loop_merges.emplace_back(&func, merge);
      }
    }
  }
  if (loop_merges.empty()) return Status::SuccessWithoutChange;

  std::string module_why;
  const std::string module_reason = ModuleRefusal(&module_why);

  UniformityAnalysis uniformity(context());
  struct Accepted {
    Plan plan;
    uint32_t depth;
    size_t order;
  };
  std::vector<Accepted> plans;
  for (size_t n = 0; n < loop_merges.size(); ++n) {
    auto [func, merge_inst] = loop_merges[n];
    BasicBlock* header = context()->get_instr_block(merge_inst);
    // Loops batched or reported in an earlier round, and the outer loops
    // the rewrite made, are done.
    if (handled_headers_.count(header->id())) continue;
    spvtools::opt::LoopDescriptor* loops = context()->GetLoopDescriptor(func);
    Loop* loop = (*loops)[header->id()];
    if (loop == nullptr) continue;
    Plan plan;
    std::string why;
    Instruction* where = merge_inst;
    std::string reason = Analyze(func, loop, uniformity, &plan, &why, &where);
    if (reason.empty() && !module_reason.empty()) {
      reason = module_reason;
      why = module_why;
    }
    if (reason == "NoCandidateLoads") continue;  // nothing to say
    if (!reason.empty()) {
      EmitRemark(RemarkKind::kMissed, reason, func, where, why);
      handled_headers_.insert(header->id());
      continue;
    }
    plans.push_back({plan, static_cast<uint32_t>(loop->GetDepth()), n});
  }

  // One loop per nest per run, innermost first (that is where loads repeat
  // most); the next run of the pass takes the next one.
  std::stable_sort(plans.begin(), plans.end(),
                   [](const Accepted& a, const Accepted& b) {
                     return a.depth > b.depth;
                   });
  std::vector<Accepted> chosen;
  for (Accepted& candidate : plans) {
    bool overlaps = false;
    for (const Accepted& c : chosen) {
      if (c.plan.function == candidate.plan.function &&
          (c.plan.loop->IsInsideLoop(candidate.plan.loop->GetHeaderBlock()) ||
           candidate.plan.loop->IsInsideLoop(c.plan.loop->GetHeaderBlock()))) {
        overlaps = true;
      }
    }
    Instruction* merge_inst = candidate.plan.loop->GetHeaderBlock()->GetLoopMergeInst();
    if (overlaps) {
      // Waits for the next round (the nest's inner loop is rewritten first).
      *deferred = true;
      if (last_round) {
        EmitRemark(RemarkKind::kMissed, "NestedLoopBatched",
                   candidate.plan.function, merge_inst,
                   "more nested levels than one run batches; run the pass "
                   "again to batch this one");
      }
      continue;
    }
    chosen.push_back(candidate);
  }
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](const Accepted& a, const Accepted& b) {
                     return a.order < b.order;
                   });
  if (chosen.empty()) return Status::SuccessWithoutChange;

  for (const Accepted& a : chosen) {
    const Plan& plan = a.plan;
    size_t leaves = 0;
    for (Instruction* load : plan.loads) {
      std::vector<Leaf> l;
      std::vector<uint32_t> path;
      std::string ignored;
      CollectLeaves(context(), load->type_id(), &path, &l, 256, &ignored);
      leaves += l.size();
    }
    EmitRemark(RemarkKind::kApplied, "BatchedLoads", plan.function,
               plan.loop->GetHeaderBlock()->GetLoopMergeInst(),
               std::to_string(plan.loads.size()) +
                   " uniform load(s) per iteration (" +
                   std::to_string(leaves) +
                   " shuffled part(s)) now load one element per lane per "
                   "batch; each iteration takes its element from the owning "
                   "lane");
  }
  for (const Accepted& a : chosen) {
    handled_headers_.insert(a.plan.loop->GetHeaderBlock()->id());
    uint32_t outer_header = 0;
    if (!Rewrite(a.plan, &outer_header)) return Status::Failure;
    handled_headers_.insert(outer_header);
  }
  return Status::SuccessWithChange;
}

bool BatchUniformLoadsPass::IsInvariantExpr(uint32_t id, Loop& loop,
                                            int depth) {
  if (depth > 16) return false;
  Instruction* inst = context()->get_def_use_mgr()->GetDef(id);
  if (inst == nullptr) return false;
  BasicBlock* block = context()->get_instr_block(inst);
  if (block == nullptr || !loop.IsInsideLoop(block)) return true;
  if (inst->opcode() == spv::Op::OpLoad) {
    std::string ignored;
    return IsInvariantExpr(inst->GetSingleWordInOperand(0), loop, depth + 1) &&
           MemoryHazard(loop, inst, &ignored).empty();
  }
  if (!IsRecomputable(inst->opcode())) return false;
  bool ok = true;
  inst->ForEachInId([&](const uint32_t* operand) {
    if (ok && !IsInvariantExpr(*operand, loop, depth + 1)) ok = false;
  });
  return ok;
}

bool BatchUniformLoadsPass::IsAddressOf(uint32_t id, Loop& loop, uint32_t iv,
                                        bool* uses_iv, int depth) {
  if (id == iv) {
    *uses_iv = true;
    return true;
  }
  if (depth > 16) return false;
  Instruction* inst = context()->get_def_use_mgr()->GetDef(id);
  if (inst == nullptr) return false;
  BasicBlock* block = context()->get_instr_block(inst);
  if (block == nullptr || !loop.IsInsideLoop(block)) return true;  // invariant
  if (inst->opcode() == spv::Op::OpLoad) {
    if (IsInvariantExpr(id, loop, depth)) return true;
    // A load the loop indexes, from memory the loop cannot change (an index
    // list: lights[index[first + i]]). Recomputed for another iteration it
    // reads what that iteration reads.
    std::string ignored;
    return IsAddressOf(inst->GetSingleWordInOperand(0), loop, iv, uses_iv,
                       depth + 1) &&
           MemoryHazard(loop, inst, &ignored).empty();
  }
  if (!IsRecomputable(inst->opcode())) return false;
  bool ok = true;
  inst->ForEachInId([&](const uint32_t* operand) {
    if (ok && !IsAddressOf(*operand, loop, iv, uses_iv, depth + 1)) ok = false;
  });
  return ok;
}

namespace {

// The OpVariable a pointer is derived from through access chains, or null.
Instruction* RootVariable(spvtools::opt::IRContext* context, uint32_t ptr) {
  auto* def_use = context->get_def_use_mgr();
  for (int depth = 0; depth < 32; ++depth) {
    Instruction* inst = def_use->GetDef(ptr);
    if (inst == nullptr) return nullptr;
    switch (inst->opcode()) {
      case spv::Op::OpVariable:
        return inst;
      case spv::Op::OpAccessChain:
      case spv::Op::OpInBoundsAccessChain:
      case spv::Op::OpPtrAccessChain:
      case spv::Op::OpCopyObject:
        ptr = inst->GetSingleWordInOperand(0);
        break;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

bool HasDecoration(spvtools::opt::IRContext* context, uint32_t id,
                   spv::Decoration decoration) {
  for (Instruction* dec :
       context->get_decoration_mgr()->GetDecorationsFor(id, false)) {
    if (dec->opcode() == spv::Op::OpDecorate &&
        spv::Decoration(dec->GetSingleWordInOperand(1)) == decoration) {
      return true;
    }
  }
  return false;
}

bool HasMemberDecoration(spvtools::opt::IRContext* context, uint32_t struct_id,
                         uint32_t member, spv::Decoration decoration) {
  for (Instruction* dec :
       context->get_decoration_mgr()->GetDecorationsFor(struct_id, false)) {
    if (dec->opcode() == spv::Op::OpMemberDecorate &&
        dec->GetSingleWordInOperand(1) == member &&
        spv::Decoration(dec->GetSingleWordInOperand(2)) == decoration) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string BatchUniformLoadsPass::MemoryHazard(Loop& loop,
                                                Instruction* load,
                                                std::string* why) {
  auto* def_use = context()->get_def_use_mgr();
  const uint32_t ptr = load->GetSingleWordInOperand(0);
  Instruction* root = RootVariable(context(), ptr);
  if (root == nullptr) {
    *why = "the loaded pointer does not come from a variable";
    return "UnknownMemory";
  }
  const auto storage = spv::StorageClass(root->GetSingleWordInOperand(0));
  // The block type and the member the chain enters first.
  Instruction* pointee = def_use->GetDef(
      def_use->GetDef(root->type_id())->GetSingleWordInOperand(1));
  int32_t member = -1;
  Instruction* chain = def_use->GetDef(ptr);
  while (chain != nullptr && chain->opcode() != spv::Op::OpVariable &&
         chain->GetSingleWordInOperand(0) != root->result_id()) {
    chain = def_use->GetDef(chain->GetSingleWordInOperand(0));
  }
  if (chain != nullptr && chain->opcode() != spv::Op::OpVariable &&
      chain->NumInOperands() > 1 &&
      pointee->opcode() == spv::Op::OpTypeStruct) {
    int64_t m = 0;
    if (ConstantInt(def_use->GetDef(chain->GetSingleWordInOperand(1)), &m)) {
      member = static_cast<int32_t>(m);
    }
  }
  auto decorated = [&](spv::Decoration d) {
    return HasDecoration(context(), root->result_id(), d) ||
           (pointee->opcode() == spv::Op::OpTypeStruct && member >= 0 &&
            HasMemberDecoration(context(), pointee->result_id(),
                                static_cast<uint32_t>(member), d));
  };
  if (decorated(spv::Decoration::Coherent) ||
      decorated(spv::Decoration::Volatile)) {
    *why = "the memory is Coherent or Volatile: other invocations may change "
           "it while the loop runs";
    return "CoherentOrVolatile";
  }
  if (load->NumInOperands() > 1 &&
      (load->GetSingleWordInOperand(1) &
       static_cast<uint32_t>(spv::MemoryAccessMask::Volatile))) {
    *why = "the load is Volatile";
    return "CoherentOrVolatile";
  }
  const bool buffer_block =
      storage == spv::StorageClass::Uniform &&
      HasDecoration(context(), pointee->result_id(), spv::Decoration::BufferBlock);
  const bool read_only =
      (storage == spv::StorageClass::Uniform && !buffer_block) ||
      storage == spv::StorageClass::PushConstant ||
      storage == spv::StorageClass::UniformConstant ||
      decorated(spv::Decoration::NonWritable);
  if (read_only) return "";

  // Writable memory: no write to this variable, no barrier, in the loop or
  // in anything it calls.
  const LoopWrites& writes = WritesOf(loop);
  if (writes.barrier) {
    *why = "a barrier in the loop lets other invocations write the memory "
           "between iterations";
    return "BarrierInLoop";
  }
  if (writes.unknown || writes.aliased || writes.roots.count(root->result_id()) ||
      (HasDecoration(context(), root->result_id(), spv::Decoration::Aliased) &&
       !writes.roots.empty())) {
    *why = "the loop writes the memory it loads from (or memory that may "
           "alias it)";
    return "LoopWritesMemory";
  }
  return "";
}

const std::vector<BasicBlock*>& BatchUniformLoadsPass::LoopBlocks(Loop& loop) {
  const uint32_t header = loop.GetHeaderBlock()->id();
  auto found = loop_blocks_.find(header);
  if (found != loop_blocks_.end()) return found->second;
  // One walk over the function fills every loop of it (linear in blocks
  // times nesting depth), in function order.
  Function* func = loop.GetHeaderBlock()->GetParent();
  spvtools::opt::LoopDescriptor* loops = context()->GetLoopDescriptor(func);
  for (BasicBlock& block : *func) {
    for (Loop* l = (*loops)[&block]; l != nullptr; l = l->GetParent()) {
      loop_blocks_[l->GetHeaderBlock()->id()].push_back(&block);
    }
  }
  return loop_blocks_[header];
}

const BatchUniformLoadsPass::LoopWrites& BatchUniformLoadsPass::WritesOf(
    Loop& loop) {
  const uint32_t header = loop.GetHeaderBlock()->id();
  auto found = loop_writes_.find(header);
  if (found != loop_writes_.end()) return found->second;
  LoopWrites& writes = loop_writes_[header];
  std::set<uint32_t> seen_functions;
  std::function<void(Instruction*)> visit = [&](Instruction* inst) {
    const spv::Op op = inst->opcode();
    if (op == spv::Op::OpControlBarrier || op == spv::Op::OpMemoryBarrier) {
      writes.barrier = true;
      return;
    }
    uint32_t written = 0;
    if (op == spv::Op::OpStore || op == spv::Op::OpCopyMemory ||
        op == spv::Op::OpCopyMemorySized ||
        (spvOpcodeIsAtomicOp(op) && op != spv::Op::OpAtomicLoad)) {
      written = inst->GetSingleWordInOperand(0);
    }
    if (written != 0) {
      Instruction* target = RootVariable(context(), written);
      if (target == nullptr) {
        writes.unknown = true;
      } else {
        writes.roots.insert(target->result_id());
        if (HasDecoration(context(), target->result_id(),
                          spv::Decoration::Aliased)) {
          writes.aliased = true;
        }
      }
    }
    if (op == spv::Op::OpFunctionCall) {
      uint32_t callee = inst->GetSingleWordInOperand(0);
      if (seen_functions.insert(callee).second) {
        if (Function* f = context()->GetFunction(callee)) {
          f->ForEachInst([&](Instruction* i) { visit(i); });
        }
      }
    }
  };
  for (BasicBlock* block : LoopBlocks(loop)) {
    block->ForEachInst([&](Instruction* inst) { visit(inst); });
  }
  return writes;
}

std::string BatchUniformLoadsPass::LoadsInCallee(Loop& loop, std::string* why,
                                                 Instruction** where) {
  // A function call in the loop whose callee loads buffer memory: the loads
  // the loop repeats may be there, out of the pass's sight (-O inlines only
  // small callees, lib/inline_loop_callees.h).
  for (BasicBlock* block : LoopBlocks(loop)) {
    for (Instruction& inst : *block) {
      if (inst.opcode() != spv::Op::OpFunctionCall) continue;
      Function* callee = context()->GetFunction(inst.GetSingleWordInOperand(0));
      if (callee == nullptr) continue;
      const bool loads = !callee->WhileEachInst([&](Instruction* callee_inst) {
        if (callee_inst->opcode() != spv::Op::OpLoad) return true;
        Instruction* root =
            RootVariable(context(), callee_inst->GetSingleWordInOperand(0));
        if (root == nullptr || root->opcode() != spv::Op::OpVariable) return true;
        const auto sc = spv::StorageClass(root->GetSingleWordInOperand(0));
        return sc == spv::StorageClass::Function ||
               sc == spv::StorageClass::Private || sc == spv::StorageClass::Input;
      });
      if (!loads) continue;
      *why = "the loop calls " + NameOf(callee->result_id()) +
             ", which loads memory: loads in a called function are not "
             "batched (-O inlines only functions of at most " +
             std::to_string(kInlineLoopCalleeMaxInstructions) +
             " instructions called in loops)";
      *where = &inst;
      return "LoadInCallee";
    }
  }
  return "NoCandidateLoads";
}

std::string BatchUniformLoadsPass::Analyze(Function* func, Loop* loop,
                                           const UniformityAnalysis& uniformity,
                                           Plan* plan, std::string* why,
                                           Instruction** where) {
  auto* def_use = context()->get_def_use_mgr();
  BasicBlock* header = loop->GetHeaderBlock();
  BasicBlock* merge = loop->GetMergeBlock();
  BasicBlock* latch = loop->GetLatchBlock();
  spvtools::opt::DominatorAnalysis* dom = context()->GetDominatorAnalysis(func);

  // Loads that depend on the loop: the pass has something to say only when
  // the loop loads from memory at all.
  bool any_memory_load = false;
  for (BasicBlock* loop_block : LoopBlocks(*loop)) {
    loop_block->ForEachInst([&](Instruction* inst) {
      if (inst->opcode() != spv::Op::OpLoad) return;
      Instruction* root = RootVariable(context(), inst->GetSingleWordInOperand(0));
      if (root == nullptr) return;
      auto sc = spv::StorageClass(root->GetSingleWordInOperand(0));
      if (sc != spv::StorageClass::Function && sc != spv::StorageClass::Private &&
          sc != spv::StorageClass::Input) {
        any_memory_load = true;
      }
    });
  }
  if (!any_memory_load) return LoadsInCallee(*loop, why, where);

  // One exit: a conditional branch to the merge block, nothing else leaves.
  BasicBlock* exit_block = nullptr;
  bool other_exit = false;
  for (BasicBlock* block : LoopBlocks(*loop)) {
    const Instruction* term = block->terminator();
    if (term->opcode() == spv::Op::OpReturn ||
        term->opcode() == spv::Op::OpReturnValue ||
        term->opcode() == spv::Op::OpKill ||
        term->opcode() == spv::Op::OpTerminateInvocation ||
        term->opcode() == spv::Op::OpUnreachable) {
      other_exit = true;
    }
    block->ForEachSuccessorLabel([&](const uint32_t succ) {
      if (loop->IsInsideLoop(succ)) return;
      if (succ == merge->id() && exit_block == nullptr) {
        exit_block = block;
      } else {
        other_exit = true;
      }
    });
  }
  if (other_exit || exit_block == nullptr) {
    *why = "the loop leaves other than through one exit test (a break, "
           "return or kill); the pass cannot tell which elements it reads";
    return "MultipleExits";
  }
  const Instruction* exit_term = exit_block->terminator();
  if (exit_term->opcode() != spv::Op::OpBranchConditional) {
    *why = "the loop's exit is not a conditional branch";
    return "UnsupportedLoopShape";
  }
  const uint32_t t = exit_term->GetSingleWordInOperand(1);
  const uint32_t f = exit_term->GetSingleWordInOperand(2);
  plan->continue_when_true = f == merge->id();
  BasicBlock* body = context()->get_instr_block(plan->continue_when_true ? t : f);
  if (exit_block != header &&
      !(header->terminator()->opcode() == spv::Op::OpBranch &&
        header->terminator()->GetSingleWordInOperand(0) == exit_block->id())) {
    *why = "the exit test is not at the top of the loop";
    return "UnsupportedLoopShape";
  }
  if (body == nullptr || body == latch || body == header ||
      context()->cfg()->preds(body->id()).size() != 1 ||
      !dom->Dominates(body, latch) ||
      body->id() == loop->GetContinueBlock()->id()) {
    *why = "the loop body does not start in one block that every iteration "
           "passes through";
    return "UnsupportedLoopShape";
  }

  plan->exit_block = exit_block;

  // Trip count: the same in every lane.
  const uint32_t cond_id = exit_term->GetSingleWordInOperand(0);
  if (uniformity.LoopExitLevel(header->id()) == Uniformity::kDivergent ||
      !uniformity.IsSubgroupUniform(cond_id)) {
    *why = "lanes may leave the loop at different iterations (the exit test "
           "is not subgroup-uniform)";
    *where = const_cast<Instruction*>(exit_term);
    return "LoopTripCountDivergent";
  }

  // Induction variable: a header phi stepped by a constant, compared with a
  // loop-invariant bound.
  Instruction* cmp = def_use->GetDef(cond_id);
  if (cmp == nullptr || !IsComparison(cmp->opcode())) {
    *why = "the exit test is not a <, <=, > or >= comparison of the "
           "induction variable; run --ssa-rewrite first (waveopt -O does)";
    return "InductionVariableNotFound";
  }
  Instruction* iv = nullptr;
  bool iv_left = true;
  for (uint32_t side = 0; side < 2 && iv == nullptr; ++side) {
    Instruction* operand = def_use->GetDef(cmp->GetSingleWordInOperand(side));
    if (operand != nullptr && operand->opcode() == spv::Op::OpPhi &&
        context()->get_instr_block(operand) == header &&
        IsInvariantExpr(cmp->GetSingleWordInOperand(1 - side), *loop, 0)) {
      iv = operand;
      iv_left = side == 0;
    }
  }
  if (iv == nullptr || iv->NumInOperands() != 4) {
    *why = "no induction variable compared with a loop-invariant bound; run "
           "--ssa-rewrite first (waveopt -O does)";
    return "InductionVariableNotFound";
  }
  const auto* iv_type = context()->get_type_mgr()->GetType(iv->type_id());
  if (iv_type == nullptr || iv_type->AsInteger() == nullptr ||
      iv_type->AsInteger()->width() != 32) {
    *why = "the induction variable is not a 32-bit integer";
    return "InductionVariableNotFound";
  }
  uint32_t next_id = 0;
  for (uint32_t i = 0; i < 4; i += 2) {
    if (iv->GetSingleWordInOperand(i + 1) == latch->id()) {
      next_id = iv->GetSingleWordInOperand(i);
    }
  }
  Instruction* next = def_use->GetDef(next_id);
  int64_t step = 0;
  if (next != nullptr && (next->opcode() == spv::Op::OpIAdd ||
                          next->opcode() == spv::Op::OpISub)) {
    int64_t c = 0;
    const uint32_t a = next->GetSingleWordInOperand(0);
    const uint32_t b = next->GetSingleWordInOperand(1);
    if (a == iv->result_id() && ConstantInt(def_use->GetDef(b), &c)) {
      step = next->opcode() == spv::Op::OpIAdd ? c : -c;
    } else if (next->opcode() == spv::Op::OpIAdd && b == iv->result_id() &&
               ConstantInt(def_use->GetDef(a), &c)) {
      step = c;
    }
  }
  // "iv < n" runs while iv grows; "n > iv" is the same test mirrored.
  const bool less = IsLess(cmp->opcode()) == iv_left;
  const bool runs_while_small = less == plan->continue_when_true;
  if (step == 0 || (step > 0) != runs_while_small || std::llabs(step) > 65536) {
    *why = "the induction variable does not move towards the loop bound by a "
           "constant step";
    return "InductionVariableNotFound";
  }

  // Known short trip count.
  int64_t init = 0, bound = 0;
  const uint32_t init_id = iv->GetSingleWordInOperand(0) == next_id
                               ? iv->GetSingleWordInOperand(2)
                               : iv->GetSingleWordInOperand(0);
  if (ConstantInt(def_use->GetDef(init_id), &init) &&
      ConstantInt(def_use->GetDef(cmp->GetSingleWordInOperand(iv_left ? 1 : 0)),
                  &bound)) {
    int64_t trips = step > 0 ? (bound - init + step - 1) / step
                             : (init - bound - step - 1) / -step;
    if (trips < static_cast<int64_t>(params_.min_trip)) {
      *why = "the loop runs " + std::to_string(std::max<int64_t>(trips, 0)) +
             " times, fewer than min-trip=" + std::to_string(params_.min_trip);
      return "ShortLoop";
    }
  }

  // The loads: in blocks the body dominates, address from the induction
  // variable and invariants, subgroup-uniform, memory the loop cannot change.
  std::string first_reason, first_why;
  Instruction* first_where = nullptr;
  for (BasicBlock* block : LoopBlocks(*loop)) {
    if (!dom->Dominates(body, block)) continue;
    for (Instruction& inst : *block) {
      if (inst.opcode() != spv::Op::OpLoad) continue;
      const uint32_t ptr = inst.GetSingleWordInOperand(0);
      Instruction* root = RootVariable(context(), ptr);
      if (root == nullptr) continue;
      auto sc = spv::StorageClass(root->GetSingleWordInOperand(0));
      if (sc == spv::StorageClass::Function || sc == spv::StorageClass::Private ||
          sc == spv::StorageClass::Input) {
        continue;
      }
      bool uses_iv = false;
      if (!IsAddressOf(ptr, *loop, iv->result_id(), &uses_iv, 0) || !uses_iv) {
        continue;  // not indexed by the loop (or not recomputable)
      }
      std::string reason, reason_why;
      std::vector<Leaf> leaves;
      std::vector<uint32_t> path;
      if (!uniformity.IsSubgroupUniform(ptr)) {
        reason = "DivergentAddress";
        reason_why = "the address differs between lanes";
      } else if (sc == spv::StorageClass::Image ||
                 sc == spv::StorageClass::UniformConstant) {
        reason = "UnknownMemory";
        reason_why = "loads of images or samplers are not batched";
      } else if (!CollectLeaves(context(), inst.type_id(), &path, &leaves, 64,
                                &reason_why)) {
        reason = "UnsupportedType";
      } else {
        reason = MemoryHazard(*loop, &inst, &reason_why);
      }
      if (!reason.empty()) {
        if (first_reason.empty()) {
          first_reason = reason;
          first_why = reason_why;
          first_where = &inst;
        }
        continue;
      }
      plan->loads.push_back(&inst);
    }
  }
  if (plan->loads.empty()) {
    if (first_reason.empty()) return LoadsInCallee(*loop, why, where);
    *why = first_why;
    *where = first_where;
    return first_reason;
  }
  plan->function = func;
  plan->loop = loop;
  plan->latch = latch;
  plan->body = body;
  plan->iv = iv;
  plan->step = step;
  plan->compare = cmp;
  plan->preheader = loop->GetPreHeaderBlock();
  if (plan->preheader == nullptr) {
    *why = "the loop has no single block that enters it";
    return "UnsupportedLoopShape";
  }
  return "";
}

uint32_t BatchUniformLoadsPass::CloneAt(
    uint32_t id, uint32_t iv, uint32_t replacement,
    const std::unordered_set<uint32_t>& in_loop, BasicBlock* block,
    std::unordered_map<uint32_t, uint32_t>* map) {
  if (id == iv) return replacement;
  auto found = map->find(id);
  if (found != map->end()) return found->second;
  Instruction* inst = context()->get_def_use_mgr()->GetDef(id);
  if (inst == nullptr) return 0;
  BasicBlock* def_block = context()->get_instr_block(inst);
  if (def_block == nullptr || !in_loop.count(def_block->id())) return id;
  std::vector<Operand> operands;
  for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
    Operand op = inst->GetInOperand(i);
    if (spvIsInIdType(op.type)) {
      uint32_t mapped = CloneAt(op.words[0], iv, replacement, in_loop, block, map);
      if (mapped == 0) return 0;
      op.words = {mapped};
    }
    operands.push_back(op);
  }
  Emitter e(context(), block);
  uint32_t result = e.Emit(inst->opcode(), inst->type_id(), operands);
  (*map)[id] = result;
  return result;
}

bool BatchUniformLoadsPass::Rewrite(const Plan& plan, uint32_t* outer_header) {
  auto* def_use = context()->get_def_use_mgr();
  const uint32_t iv = plan.iv->result_id();
  const uint32_t iv_type = plan.iv->type_id();
  const bool use_broadcast =
      get_module()->version() >= SPV_SPIRV_VERSION_WORD(1, 5);
  context()->AddCapability(spv::Capability::GroupNonUniformBallot);
  if (!use_broadcast) {
    context()->AddCapability(spv::Capability::GroupNonUniformShuffle);
  }

  // The leaves of every load, in order.
  struct LoadLeaves {
    Instruction* load;
    std::vector<Leaf> leaves;
  };
  std::vector<LoadLeaves> loads;
  std::vector<std::vector<Instruction*>> replaced;  // per distinct pointer
  for (Instruction* load : plan.loads) {
    bool seen = false;
    for (size_t i = 0; i < loads.size(); ++i) {
      if (loads[i].load->GetSingleWordInOperand(0) ==
              load->GetSingleWordInOperand(0) &&
          loads[i].load->type_id() == load->type_id()) {
        replaced[i].push_back(load);
        seen = true;
      }
    }
    if (seen) continue;
    replaced.push_back({load});
    LoadLeaves l{load, {}};
    std::vector<uint32_t> path;
    std::string ignored;
    CollectLeaves(context(), load->type_id(), &path, &l.leaves, 256, &ignored);
    loads.push_back(std::move(l));
  }

  // Preheader: who is in the loop, and each lane's rank among them.
  // Before the preheader's branch (and its merge instruction, if the
  // preheader heads a construct of its own).
  Instruction* pre_point = plan.preheader->GetMergeInst();
  if (pre_point == nullptr) pre_point = &*plan.preheader->tail();
  Emitter pre(context(), plan.preheader, BasicBlock::iterator(pre_point));
  const uint32_t uint_type = pre.UIntType(32);
  const uint32_t bool_type = pre.BoolType();
  const uint32_t v4uint = pre.UIntVectorType(4);
  const uint32_t ballot =
      pre.Group(spv::Op::OpGroupNonUniformBallot, v4uint, -1, {pre.Bool(true)});
  const uint32_t batch = pre.Group(spv::Op::OpGroupNonUniformBallotBitCount,
                                   uint_type, kReduce, {ballot});
  const uint32_t rank = pre.Group(spv::Op::OpGroupNonUniformBallotBitCount,
                                  uint_type, kExclusiveScan, {ballot});
  // When the lanes in the loop are consecutive (full subgroups, the partial
  // last one, a row), the owner of slot k is simply lane first + k.
  const uint32_t first_lane = pre.Group(spv::Op::OpGroupNonUniformBallotFindLSB,
                                        uint_type, -1, {ballot});
  const uint32_t last_lane = pre.Group(spv::Op::OpGroupNonUniformBallotFindMSB,
                                       uint_type, -1, {ballot});
  const uint32_t span = pre.EmitIds(
      spv::Op::OpIAdd, uint_type,
      {pre.EmitIds(spv::Op::OpISub, uint_type, {last_lane, first_lane}),
       pre.UInt(1)});
  const uint32_t consecutive =
      pre.EmitIds(spv::Op::OpIEqual, bool_type, {span, batch});
  if (!pre.ok()) return false;

  // Carried types: 64-bit scalars travel as v2uint.
  const uint32_t v2uint = pre.UIntVectorType(2);
  auto carry_type = [&](const Leaf& leaf) { return leaf.wide ? v2uint : leaf.type; };

  // The loop becomes the inner loop of a new outer loop over batches:
  //
  //   preheader → outer (phis: the loop's header phis at the start of a
  //   batch) → fill → [load] → fill_merge (this lane's element of the batch)
  //   → header (inner; k counts the batch's slots) ... body ... latch
  //   latch: k+1 < batch ? header : inner_merge
  //   exit test false → inner_merge
  //   inner_merge (the header phis' values, and whether the loop ended)
  //   → outer_latch: ended ? merge : outer
  //
  // Every new branch is subgroup-uniform: the exit test is, and k and the
  // batch size are the same in every lane of the loop.
  BasicBlock* header = plan.loop->GetHeaderBlock();
  BasicBlock* merge = plan.loop->GetMergeBlock();
  BasicBlock* exit_block = plan.exit_block;
  BasicBlock* latch = plan.latch;
  auto block_before = [&](BasicBlock* position) {
    return NewBlock(position, /*before=*/true);
  };
  BasicBlock* outer = block_before(header);
  if (outer != nullptr) *outer_header = outer->id();
  BasicBlock* fill = outer ? block_before(header) : nullptr;
  BasicBlock* load_block = fill ? block_before(header) : nullptr;
  BasicBlock* fill_merge = load_block ? block_before(header) : nullptr;
  BasicBlock* inner_merge = fill_merge ? block_before(merge) : nullptr;
  BasicBlock* outer_latch = inner_merge ? block_before(merge) : nullptr;
  if (outer_latch == nullptr) return false;

  // The loop's header phis, and their value from the latch.
  std::vector<Instruction*> header_phis;
  header->ForEachPhiInst([&](Instruction* phi) { header_phis.push_back(phi); });
  auto incoming_from = [](Instruction* phi, uint32_t block_id) -> uint32_t {
    for (uint32_t i = 0; i + 1 < phi->NumInOperands(); i += 2) {
      if (phi->GetSingleWordInOperand(i + 1) == block_id) {
        return phi->GetSingleWordInOperand(i);
      }
    }
    return 0;
  };

  // outer: one phi per header phi (its value when a batch starts).
  Emitter oe(context(), outer);
  std::vector<uint32_t> outer_phis, exit_phis;
  for (Instruction* phi : header_phis) {
    const uint32_t from_pre = incoming_from(phi, plan.preheader->id());
    const uint32_t at_exit = context()->TakeNextId();
    if (from_pre == 0 || at_exit == 0) return false;
    exit_phis.push_back(at_exit);
    outer_phis.push_back(oe.EmitIds(spv::Op::OpPhi, phi->type_id(),
                                    {from_pre, plan.preheader->id(), at_exit,
                                     outer_latch->id()}));
  }
  uint32_t outer_iv = 0;
  for (size_t i = 0; i < header_phis.size(); ++i) {
    if (header_phis[i] == plan.iv) outer_iv = outer_phis[i];
  }
  oe.LoopMerge(merge->id(), outer_latch->id());
  oe.Branch(fill->id());
  if (!oe.ok() || outer_iv == 0) return false;
  // Remarks about the outer loop (a later run) point at the original loop.
  outer->GetLoopMergeInst()->UpdateDebugInfoFrom(header->GetLoopMergeInst());

  // The preheader enters the outer loop; the inner loop starts each batch
  // from the outer phis, with k = 0.
  plan.preheader->ForEachSuccessorLabel([&](uint32_t* succ) {
    if (*succ == header->id()) *succ = outer->id();
  });
  def_use->AnalyzeInstUse(plan.preheader->terminator());
  for (size_t i = 0; i < header_phis.size(); ++i) {
    Instruction* phi = header_phis[i];
    for (uint32_t j = 0; j + 1 < phi->NumInOperands(); j += 2) {
      if (phi->GetSingleWordInOperand(j + 1) == plan.preheader->id()) {
        phi->SetInOperand(j, {outer_phis[i]});
        phi->SetInOperand(j + 1, {fill_merge->id()});
      }
    }
    def_use->AnalyzeInstUse(phi);
  }
  const uint32_t k_next = context()->TakeNextId();
  if (k_next == 0) return false;
  Emitter h(context(), header, header->begin());
  const uint32_t k = h.EmitIds(spv::Op::OpPhi, uint_type,
                               {h.UInt(0), fill_merge->id(), k_next, latch->id()});
  if (!h.ok()) return false;
  Instruction* inner_loop_merge = header->GetLoopMergeInst();
  inner_loop_merge->SetInOperand(0, {inner_merge->id()});
  def_use->AnalyzeInstUse(inner_loop_merge);
  Instruction* exit_term = exit_block->terminator();
  for (uint32_t j = 1; j <= 2; ++j) {
    if (exit_term->GetSingleWordInOperand(j) == merge->id()) {
      exit_term->SetInOperand(j, {inner_merge->id()});
    }
  }
  def_use->AnalyzeInstUse(exit_term);

  // fill: this lane's element is iteration iv + rank * step of the batch
  // that starts at iv, if that iteration runs (same exit test, and no
  // wrap-around).
  std::unordered_set<uint32_t> in_loop(plan.loop->GetBlocks().begin(),
                                       plan.loop->GetBlocks().end());
  Emitter fe(context(), fill);
  const auto* iv_int = context()->get_type_mgr()->GetType(iv_type)->AsInteger();
  uint32_t rank_iv = rank;
  if (iv_int->IsSigned()) rank_iv = fe.EmitIds(spv::Op::OpBitcast, iv_type, {rank});
  const uint32_t magnitude = static_cast<uint32_t>(std::llabs(plan.step));
  uint32_t step_id = fe.UInt(magnitude);
  if (iv_int->IsSigned()) step_id = fe.EmitIds(spv::Op::OpBitcast, iv_type, {step_id});
  const uint32_t offset = fe.EmitIds(spv::Op::OpIMul, iv_type, {rank_iv, step_id});
  const uint32_t iter = fe.EmitIds(
      plan.step > 0 ? spv::Op::OpIAdd : spv::Op::OpISub, iv_type, {outer_iv, offset});
  std::unordered_map<uint32_t, uint32_t> fill_map;
  uint32_t test = CloneAt(plan.compare->result_id(), iv, iter, in_loop, fill,
                          &fill_map);
  if (!plan.continue_when_true) {
    test = fe.EmitIds(spv::Op::OpLogicalNot, bool_type, {test});
  }
  const bool is_signed = IsSigned(plan.compare->opcode());
  const spv::Op no_wrap_op =
      plan.step > 0
          ? (is_signed ? spv::Op::OpSGreaterThanEqual : spv::Op::OpUGreaterThanEqual)
          : (is_signed ? spv::Op::OpSLessThanEqual : spv::Op::OpULessThanEqual);
  const uint32_t no_wrap = fe.EmitIds(no_wrap_op, bool_type, {iter, outer_iv});
  const uint32_t runs = fe.EmitIds(spv::Op::OpLogicalAnd, bool_type, {test, no_wrap});
  fe.SelectionMerge(fill_merge->id());
  fe.BranchConditional(runs, load_block->id(), fill_merge->id());
  if (!fe.ok() || test == 0) return false;

  // load: the lane's element of every batched load, split into leaves.
  std::unordered_map<uint32_t, uint32_t> load_map;
  std::vector<std::vector<uint32_t>> loaded(loads.size());
  for (size_t i = 0; i < loads.size(); ++i) {
    Instruction* load = loads[i].load;
    const uint32_t ptr = CloneAt(load->GetSingleWordInOperand(0), iv, iter,
                                 in_loop, load_block, &load_map);
    if (ptr == 0) return false;
    Emitter le(context(), load_block);
    std::vector<Operand> operands = {{SPV_OPERAND_TYPE_ID, {ptr}}};
    for (uint32_t j = 1; j < load->NumInOperands(); ++j) {
      operands.push_back(load->GetInOperand(j));
    }
    const uint32_t value = le.Emit(spv::Op::OpLoad, load->type_id(), operands);
    // The per-lane load keeps the original's source location.
    if (value != 0) def_use->GetDef(value)->UpdateDebugInfoFrom(load);
    for (const Leaf& leaf : loads[i].leaves) {
      uint32_t part = value;
      if (!leaf.path.empty()) {
        std::vector<Operand> ops = {{SPV_OPERAND_TYPE_ID, {value}}};
        for (uint32_t index : leaf.path) {
          ops.push_back({SPV_OPERAND_TYPE_LITERAL_INTEGER, {index}});
        }
        part = le.Emit(spv::Op::OpCompositeExtract, leaf.type, ops);
      }
      if (leaf.wide) part = le.EmitIds(spv::Op::OpBitcast, v2uint, {part});
      loaded[i].push_back(part);
    }
    if (!le.ok()) return false;
  }
  Emitter lb(context(), load_block);
  lb.Branch(fill_merge->id());

  // fill_merge: the new element, or nothing for lanes past the end; it
  // stays the same for the whole batch (the inner loop).
  Emitter fm(context(), fill_merge);
  std::vector<std::vector<uint32_t>> cache(loads.size());
  for (size_t i = 0; i < loads.size(); ++i) {
    for (size_t j = 0; j < loads[i].leaves.size(); ++j) {
      const uint32_t type = carry_type(loads[i].leaves[j]);
      cache[i].push_back(fm.EmitIds(
          spv::Op::OpPhi, type,
          {loaded[i][j], load_block->id(), fm.Null(type), fill->id()}));
    }
  }
  fm.Branch(header->id());
  if (!lb.ok() || !fm.ok()) return false;

  // inner_merge: the header phis as the inner loop left them: from the exit
  // test, the current ones (the loop ends); from the latch, the next
  // iteration's (the batch is done, the loop goes on).
  Emitter im(context(), inner_merge);
  for (size_t i = 0; i < header_phis.size(); ++i) {
    const uint32_t from_latch = incoming_from(header_phis[i], latch->id());
    if (from_latch == 0) return false;
    im.EmitIds(spv::Op::OpPhi, header_phis[i]->type_id(),
               {header_phis[i]->result_id(), exit_block->id(), from_latch,
                latch->id()},
               exit_phis[i]);
  }
  const uint32_t ended = im.EmitIds(
      spv::Op::OpPhi, bool_type,
      {im.Bool(true), exit_block->id(), im.Bool(false), latch->id()});
  im.Branch(outer_latch->id());
  Emitter ol(context(), outer_latch);
  ol.BranchConditional(ended, merge->id(), outer->id());
  if (!im.ok() || !ol.ok()) return false;
  // The merge block's phis came from the exit test's block; now the outer
  // latch is its only predecessor (the values still dominate it).
  merge->ForEachPhiInst([&](Instruction* phi) {
    for (uint32_t j = 1; j < phi->NumInOperands(); j += 2) {
      if (phi->GetSingleWordInOperand(j) == exit_block->id()) {
        phi->SetInOperand(j, {outer_latch->id()});
      }
    }
    def_use->AnalyzeInstUse(phi);
  });

  // The latch leaves the inner loop once the batch's slots are used.
  Instruction* back_edge = latch->terminator();
  {
    Emitter le(context(), latch, BasicBlock::iterator(back_edge));
    const uint32_t more = le.EmitIds(spv::Op::OpULessThan, bool_type, {k_next, batch});
    if (!le.ok()) return false;
    back_edge->SetOpcode(spv::Op::OpBranchConditional);
    back_edge->SetInOperands({{SPV_OPERAND_TYPE_ID, {more}},
                              {SPV_OPERAND_TYPE_ID, {header->id()}},
                              {SPV_OPERAND_TYPE_ID, {inner_merge->id()}}});
    def_use->AnalyzeInstUse(back_edge);
  }

  // Body: the batch element of this iteration at the top, from the lane of
  // rank k.
  BasicBlock* body = plan.body;
  auto first = body->begin();
  while (first != body->end() && first->opcode() == spv::Op::OpPhi) ++first;
  const uint32_t rest_id = context()->TakeNextId();
  if (rest_id == 0) return false;
  BasicBlock* rest = body->SplitBasicBlock(context(), rest_id, first);
  Emitter te(context(), body);
  std::vector<std::vector<uint32_t>> taken(loads.size());
  // The owner of slot k: first + k for consecutive lanes, else the lane
  // whose rank is k (a ballot per iteration).
  BasicBlock* slow = NewBlock(body);
  BasicBlock* own = slow ? NewBlock(slow) : nullptr;
  if (own == nullptr) return false;
  const uint32_t fast_owner =
      te.EmitIds(spv::Op::OpIAdd, uint_type, {first_lane, k});
  te.SelectionMerge(own->id());
  te.BranchConditional(consecutive, own->id(), slow->id());
  Emitter se(context(), slow);
  const uint32_t is_owner = se.EmitIds(spv::Op::OpIEqual, bool_type, {rank, k});
  const uint32_t owner_ballot =
      se.Group(spv::Op::OpGroupNonUniformBallot, v4uint, -1, {is_owner});
  const uint32_t slow_owner = se.Group(spv::Op::OpGroupNonUniformBallotFindLSB,
                                       uint_type, -1, {owner_ballot});
  se.Branch(own->id());
  if (!te.ok() || !se.ok()) return false;
  te = Emitter(context(), own);
  const uint32_t owner = te.EmitIds(
      spv::Op::OpPhi, uint_type, {fast_owner, body->id(), slow_owner, slow->id()});
  for (size_t i = 0; i < loads.size(); ++i) {
    for (size_t j = 0; j < loads[i].leaves.size(); ++j) {
      const Leaf& leaf = loads[i].leaves[j];
      uint32_t v = te.Group(use_broadcast ? spv::Op::OpGroupNonUniformBroadcast
                                          : spv::Op::OpGroupNonUniformShuffle,
                            carry_type(leaf), -1, {cache[i][j], owner});
      if (leaf.wide) v = te.EmitIds(spv::Op::OpBitcast, leaf.type, {v});
      taken[i].push_back(v);
    }
  }
  te.EmitIds(spv::Op::OpIAdd, uint_type, {k, te.UInt(1)}, k_next);

  // Rebuild each loaded value from its leaves.
  std::vector<uint32_t> rebuilt(loads.size(), 0);
  for (size_t i = 0; i < loads.size(); ++i) {
    size_t next_leaf = 0;
    std::vector<uint32_t> path;
    std::function<uint32_t(uint32_t)> build = [&](uint32_t type_id) -> uint32_t {
      if (next_leaf < loads[i].leaves.size() &&
          loads[i].leaves[next_leaf].path == path) {
        return taken[i][next_leaf++];
      }
      Instruction* type = def_use->GetDef(type_id);
      std::vector<uint32_t> members;
      if (type->opcode() == spv::Op::OpTypeStruct) {
        for (uint32_t m = 0; m < type->NumInOperands(); ++m) {
          members.push_back(type->GetSingleWordInOperand(m));
        }
      } else if (type->opcode() == spv::Op::OpTypeArray) {
        members.assign(def_use->GetDef(type->GetSingleWordInOperand(1))
                           ->GetSingleWordInOperand(0),
                       type->GetSingleWordInOperand(0));
      } else {  // vector or matrix
        members.assign(type->GetSingleWordInOperand(1),
                       type->GetSingleWordInOperand(0));
      }
      std::vector<Operand> parts;
      for (uint32_t m = 0; m < members.size(); ++m) {
        path.push_back(m);
        uint32_t part = build(members[m]);
        path.pop_back();
        if (part == 0) return 0;
        parts.push_back({SPV_OPERAND_TYPE_ID, {part}});
      }
      return te.Emit(spv::Op::OpCompositeConstruct, type_id, parts);
    };
    rebuilt[i] = build(loads[i].load->type_id());
    if (rebuilt[i] == 0) return false;
  }
  te.Branch(rest->id());
  if (!te.ok()) return false;

  for (size_t i = 0; i < loads.size(); ++i) {
    for (Instruction* load : replaced[i]) {
      context()->ReplaceAllUsesWith(load->result_id(), rebuilt[i]);
      context()->KillInst(load);
    }
  }
  return true;
}

}  // namespace waveopt
