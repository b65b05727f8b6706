// Small IR queries the analyses and the passes share, in one place: integer
// constants, built-in variables, subgroup capabilities, which
// extended-instruction set an OpExtInst uses, and the GLSL.std.450
// instructions the reduction passes treat alike. (Declaring a built-in
// variable is WavePass::DeclareBuiltInInput: it changes the module.)
#ifndef WAVEOPT_ANALYSIS_IR_UTIL_H_
#define WAVEOPT_ANALYSIS_IR_UTIL_H_

#include <cstdint>
#include <vector>

#include "source/opt/ir_context.h"
#include "spirv/unified1/GLSL.std.450.h"

namespace waveopt {

// A scalar OpConstant (or OpConstantNull) of an integer or float type: its
// bits (both words of a 64-bit one; a 16-bit one as it is stored) and its
// width. Specialization constants, booleans and composites are not. The
// one constant reader of the analyses and the passes; IntConstant and
// IntSpecDefault are it for integers only.
bool ScalarConstant(spvtools::opt::IRContext* context, const spvtools::opt::Instruction* inst,
                    uint64_t* bits, uint32_t* width = nullptr);
// Same for integer types only: the value of an integer constant.
bool IntConstant(spvtools::opt::IRContext* context, const spvtools::opt::Instruction* inst,
                 uint64_t* value, uint32_t* width = nullptr);
// Same, for the definition of |id|.
bool IntConstantId(spvtools::opt::IRContext* context, uint32_t id, uint64_t* value,
                   uint32_t* width = nullptr);
// The default value of an integer OpSpecConstant (what it is unless the
// pipeline specializes it) and its width.
bool IntSpecDefault(spvtools::opt::IRContext* context, const spvtools::opt::Instruction* inst,
                    uint64_t* value, uint32_t* width = nullptr);

// The definitions of a module's ids, for questions that follow
// definitions only: the context's def-use analysis when it is built, else
// one walk over the module (compile time: the def-use analysis, with every
// use, costs several times that walk to build, and a pass that finds
// nothing to do in a module never needs it).
class Definitions {
 public:
  explicit Definitions(spvtools::opt::IRContext* context);
  spvtools::opt::Instruction* operator()(uint32_t id) const {
    if (def_use_ != nullptr) return def_use_->GetDef(id);
    return id < table_.size() ? table_[id] : nullptr;
  }

 private:
  spvtools::opt::analysis::DefUseManager* def_use_ = nullptr;
  std::vector<spvtools::opt::Instruction*> table_;
};

// The BuiltIn decoration of |id| (a variable or a structure member's
// owner), or spv::BuiltIn::Max when it has none.
spv::BuiltIn BuiltInOf(spvtools::opt::IRContext* context, uint32_t id);
// The module's first module-scope Input variable decorated BuiltIn
// |builtin|, or 0.
uint32_t FindBuiltInInput(spvtools::opt::IRContext* context, spv::BuiltIn builtin);

// The one value other than phis that flows into |phi| through phis (its
// incoming values, and theirs when they are phis): |phi| always equals it
// (a redundant phi web, as the SSA rewrite leaves copies of a value carried
// through loops). 0 when there are several, or more than |limit| phis.
uint32_t OnlyValueOfPhiWeb(spvtools::opt::IRContext* context, const spvtools::opt::Instruction* phi,
                           size_t limit = 64);

// Whether |block| of |func| runs in at most one invocation of each
// subgroup: a branch that dominates it (through its then block, entered
// only from the branch) tests that the invocation's LocalInvocationIndex,
// SubgroupLocalInvocationId, or LocalInvocationId.x in a workgroup one
// invocation high and deep, equals a constant (`if (tid == 0)`).
bool RunsInOneInvocation(spvtools::opt::IRContext* context, spvtools::opt::Function* func,
                         spvtools::opt::BasicBlock* block);

// Whether |c| is one of the subgroup capabilities of SPIR-V 1.3 and its
// extensions (GroupNonUniform*): what needs SPIR-V 1.3 or
// SPV_KHR_shader_subgroup_* to be used.
bool IsSubgroupCapability(spv::Capability c);

// The id of |module|'s GLSL.std.450 import; 0 when it has none.
inline uint32_t GlslStd450Import(spvtools::opt::Module* module) {
  for (spvtools::opt::Instruction& import : module->ext_inst_imports()) {
    if (import.GetInOperand(0).AsString() == "GLSL.std.450") {
      return import.result_id();
    }
  }
  return 0;
}

// Whether the OpExtInst |inst| is a GLSL.std.450 instruction.
inline bool IsGlslStd450(spvtools::opt::IRContext* context,
                         const spvtools::opt::Instruction* inst) {
  const spvtools::opt::Instruction* set =
      context->get_def_use_mgr()->GetDef(inst->GetSingleWordInOperand(0));
  return set != nullptr && set->opcode() == spv::Op::OpExtInstImport &&
         set->GetInOperand(0).AsString() == "GLSL.std.450";
}

// Whether GLSL.std.450 instruction |ext| is a min or a max (F, U, S, N).
inline bool IsGlslMinMax(uint32_t ext) {
  switch (ext) {
    case GLSLstd450FMin:
    case GLSLstd450UMin:
    case GLSLstd450SMin:
    case GLSLstd450FMax:
    case GLSLstd450UMax:
    case GLSLstd450SMax:
    case GLSLstd450NMin:
    case GLSLstd450NMax:
      return true;
    default:
      return false;
  }
}

}  // namespace waveopt

#endif  // WAVEOPT_ANALYSIS_IR_UTIL_H_
