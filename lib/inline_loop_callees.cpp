#include "lib/inline_loop_callees.h"

#include <unordered_set>
#include <vector>

#include "source/opt/inline_pass.h"
#include "source/opt/ir_context.h"
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
    Status status = Status::SuccessWithoutChange;
    spvtools::opt::IRContext::ProcessFunction each = [&](Function* func) {
      status = spvtools::opt::CombineStatus(status, InlineIn(func));
      return false;
    };
    context()->ProcessReachableCallTree(each);
    return status;
  }

 private:
  bool IsSmall(uint32_t function_id) {
    Function* callee = context()->GetFunction(function_id);
    if (callee == nullptr) return false;
    uint32_t count = 0;
    callee->WhileEachInst(
        [&count](Instruction*) { return ++count <= kInlineLoopCalleeMaxInstructions; });
    return count <= kInlineLoopCalleeMaxInstructions;
  }

  // Inlines, in |func|, the calls to small functions made in blocks inside
  // a loop (and, as they are inlined in turn, the small calls they make).
  Status InlineIn(Function* func) {
    // Blocks inside a loop, from the structured control flow before any
    // change to |func|; the blocks an inlined call adds are inside it too.
    std::unordered_set<uint32_t> in_loop;
    spvtools::opt::StructuredCFGAnalysis* structure = context()->GetStructuredCFGAnalysis();
    for (BasicBlock& block : *func) {
      if (structure->ContainingLoop(block.id()) != 0) in_loop.insert(block.id());
    }
    if (in_loop.empty()) return Status::SuccessWithoutChange;
    bool modified = false;
    for (auto bi = func->begin(); bi != func->end(); ++bi) {
      if (!in_loop.count(bi->id())) continue;
      for (auto ii = bi->begin(); ii != bi->end();) {
        if (ii->opcode() != spv::Op::OpFunctionCall || !IsSmall(ii->GetSingleWordInOperand(0)) ||
            !IsInlinableFunctionCall(&*ii)) {
          ++ii;
          continue;
        }
        std::vector<std::unique_ptr<BasicBlock>> new_blocks;
        std::vector<std::unique_ptr<Instruction>> new_vars;
        if (!GenInlineCode(&new_blocks, &new_vars, ii, bi)) {
          return Status::Failure;
        }
        if (new_blocks.size() > 1) UpdateSucceedingPhis(new_blocks);
        bi = bi.Erase();
        for (auto& block : new_blocks) {
          block->SetParent(func);
          in_loop.insert(block->id());
        }
        bi = bi.InsertBefore(&new_blocks);
        if (!new_vars.empty()) {
          func->begin()->begin().InsertBefore(std::move(new_vars));
        }
        ii = bi->begin();  // the inlined code may call small functions too
        modified = true;
      }
    }
    return modified ? Status::SuccessWithChange : Status::SuccessWithoutChange;
  }
};

}  // namespace

std::unique_ptr<spvtools::opt::Pass> MakeInlineLoopCalleesPass() {
  return std::make_unique<InlineLoopCalleesPass>();
}

}  // namespace waveopt
