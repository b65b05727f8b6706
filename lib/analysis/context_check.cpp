// The analysis contract's check: see context_check.h.
#include "analysis/context_check.h"

#include <algorithm>
#include <vector>

#include "source/opt/cfg.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/def_use_manager.h"
#include "source/opt/feature_manager.h"

namespace waveopt {

using spvtools::opt::BasicBlock;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;

namespace {

bool Valid(IRContext* context, IRContext::Analysis a) { return context->AreAnalysesValid(a); }

// Every (id, definition) and every use, as SPIRV-Tools compares them.
bool DefUseAgrees(IRContext* context) {
  spvtools::opt::analysis::DefUseManager fresh(context->module());
  const auto* held = context->get_def_use_mgr();
  bool same = true;
  context->module()->ForEachInst([&](Instruction* inst) {
    if (!same) return;
    if (inst->result_id() != 0 && held->GetDef(inst->result_id()) != inst) {
      same = false;
      return;
    }
    std::vector<Instruction*> a, b;
    if (inst->result_id() != 0) {
      held->ForEachUser(inst, [&a](Instruction* u) { a.push_back(u); });
      fresh.ForEachUser(inst, [&b](Instruction* u) { b.push_back(u); });
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      same = a == b;
    }
  });
  return same;
}

bool InstrToBlockAgrees(IRContext* context) {
  for (auto& function : *context->module()) {
    for (BasicBlock& block : function) {
      if (!block.WhileEachInst(
              [&](Instruction* inst) { return context->get_instr_block(inst) == &block; })) {
        return false;
      }
    }
  }
  return true;
}

std::vector<uint32_t> Sorted(std::vector<uint32_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

bool CfgAgrees(IRContext* context) {
  spvtools::opt::CFG fresh(context->module());
  spvtools::opt::CFG* held = context->cfg();
  for (auto& function : *context->module()) {
    for (BasicBlock& block : function) {
      const uint32_t id = block.id();
      if (held->block(id) != &block || Sorted(held->preds(id)) != Sorted(fresh.preds(id))) {
        return false;
      }
    }
  }
  return true;
}

bool IdToFunctionAgrees(IRContext* context) {
  for (auto& function : *context->module()) {
    if (context->GetFunction(function.result_id()) != &function) return false;
  }
  return true;
}

}  // namespace

bool AnalysesAgree(IRContext* context, std::string* what) {
  struct Check {
    IRContext::Analysis analysis;
    const char* name;
    bool (*agrees)(IRContext*);
  };
  static const Check kChecks[] = {
      {IRContext::kAnalysisDefUse, "def-use", DefUseAgrees},
      {IRContext::kAnalysisInstrToBlockMapping, "instruction-to-block", InstrToBlockAgrees},
      {IRContext::kAnalysisCFG, "CFG", CfgAgrees},
      {IRContext::kAnalysisIdToFuncMapping, "id-to-function", IdToFunctionAgrees},
  };
  for (const Check& c : kChecks) {
    if (Valid(context, c.analysis) && !c.agrees(context)) {
      *what = c.name;
      return false;
    }
  }
  if (Valid(context, IRContext::kAnalysisDecorations)) {
    spvtools::opt::analysis::DecorationManager fresh(context->module());
    if (*context->get_decoration_mgr() != fresh) {
      *what = "decorations";
      return false;
    }
  }
  return true;
}

}  // namespace waveopt
