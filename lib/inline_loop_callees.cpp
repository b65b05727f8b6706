#include "lib/inline_loop_callees.h"

#include <unordered_set>
#include <vector>

#include "passes/workgroup_reduce_pass.h"
#include "source/opt/inline_pass.h"
#include "source/opt/ir_context.h"
#include "source/opt/merge_return_pass.h"
#include "source/opt/struct_cfg_analysis.h"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;

class InlineLoopCalleesPass : public spvtools::opt::InlinePass {
 public:
  const char* name() const override { return "waveopt-inline-loop-callees"; }

  Status Process() override {
    InitializeInline();
    FindTreeHolders();
    Status status = Status::SuccessWithoutChange;
    if (HolderReturnsEarly()) {
      // spirv-opt's inliner takes a function with an early return only
      // after merge-return (one return at its end); run where needed only.
      spvtools::opt::MergeReturnPass merge;
      merge.SetMessageConsumer(consumer());
      status = merge.Run(context());
      if (status == Status::Failure) return status;
      InitializeInline();
    }
    spvtools::opt::IRContext::ProcessFunction each = [&](Function* func) {
      status = spvtools::opt::CombineStatus(status, InlineIn(func));
      return false;
    };
    context()->ProcessReachableCallTree(each);
    return status;
  }

 private:
  // The functions that hold a workgroup reduction tree's step and a
  // barrier (HoldsWorkgroupTreeStep), and the functions that call them.
  void FindTreeHolders() {
    for (Function& func : *get_module()) {
      if (HoldsWorkgroupTreeStep(context(), &func)) tree_holders_.insert(func.result_id());
    }
    for (bool grew = !tree_holders_.empty(); grew;) {
      grew = false;
      for (Function& func : *get_module()) {
        if (tree_holders_.count(func.result_id())) continue;
        const bool calls = !func.WhileEachInst([this](Instruction* inst) {
          return inst->opcode() != spv::Op::OpFunctionCall ||
                 !tree_holders_.count(inst->GetSingleWordInOperand(0));
        });
        if (calls) grew = tree_holders_.insert(func.result_id()).second;
      }
    }
  }

  // Whether a tree holder that is called returns early (an entry point's
  // own early return needs no merge-return: it is not inlined).
  bool HolderReturnsEarly() {
    bool found = false;
    get_module()->ForEachInst([this, &found](Instruction* inst) {
      if (inst->opcode() != spv::Op::OpFunctionCall) return;
      const uint32_t callee = inst->GetSingleWordInOperand(0);
      found = found || (tree_holders_.count(callee) && early_return_funcs_.count(callee));
    });
    return found;
  }

  // Whether the call |call| in block |block| is inlined.
  bool Selected(const Instruction& call, uint32_t block,
                const std::unordered_set<uint32_t>& in_loop) {
    if (call.opcode() != spv::Op::OpFunctionCall) return false;
    const uint32_t callee = call.GetSingleWordInOperand(0);
    return tree_holders_.count(callee) || (in_loop.count(block) && IsSmall(callee));
  }

  bool IsSmall(uint32_t function_id) {
    Function* callee = context()->GetFunction(function_id);
    if (callee == nullptr) return false;
    uint32_t count = 0;
    callee->WhileEachInst(
        [&count](Instruction*) { return ++count <= kInlineLoopCalleeMaxInstructions; });
    return count <= kInlineLoopCalleeMaxInstructions;
  }

  // Inlines, in |func|, the calls to small functions made in blocks inside
  // a loop and the calls to tree holders (and, as they are inlined in turn,
  // the calls they make that are selected too).
  Status InlineIn(Function* func) {
    // Blocks inside a loop, from the structured control flow before any
    // change to |func|; the blocks an inlined call adds are inside it too.
    std::unordered_set<uint32_t> in_loop;
    spvtools::opt::StructuredCFGAnalysis* structure = context()->GetStructuredCFGAnalysis();
    for (BasicBlock& block : *func) {
      if (structure->ContainingLoop(block.id()) != 0) in_loop.insert(block.id());
    }
    if (in_loop.empty() && tree_holders_.empty()) return Status::SuccessWithoutChange;
    bool modified = false;
    for (auto bi = func->begin(); bi != func->end(); ++bi) {
      for (auto ii = bi->begin(); ii != bi->end();) {
        if (!Selected(*ii, bi->id(), in_loop) || !IsInlinableFunctionCall(&*ii)) {
          ++ii;
          continue;
        }
        std::vector<std::unique_ptr<BasicBlock>> new_blocks;
        std::vector<std::unique_ptr<Instruction>> new_vars;
        if (!GenInlineCode(&new_blocks, &new_vars, ii, bi)) {
          return Status::Failure;
        }
        if (new_blocks.size() > 1) UpdateSucceedingPhis(new_blocks);
        const bool loop = in_loop.count(bi->id()) != 0;
        bi = bi.Erase();
        for (auto& block : new_blocks) {
          block->SetParent(func);
          if (loop) in_loop.insert(block->id());
        }
        bi = bi.InsertBefore(&new_blocks);
        if (!new_vars.empty()) {
          func->begin()->begin().InsertBefore(std::move(new_vars));
        }
        ii = bi->begin();  // the inlined code may make selected calls too
        modified = true;
      }
    }
    return modified ? Status::SuccessWithChange : Status::SuccessWithoutChange;
  }

  std::unordered_set<uint32_t> tree_holders_;
};

}  // namespace

std::unique_ptr<spvtools::opt::Pass> MakeInlineLoopCalleesPass() {
  return std::make_unique<InlineLoopCalleesPass>();
}

}  // namespace waveopt
