// Small IR queries the analyses and the passes share, in one place: which
// extended-instruction set an OpExtInst uses, and the GLSL.std.450
// instructions the reduction passes treat alike.
#ifndef WAVEOPT_ANALYSIS_IR_UTIL_H_
#define WAVEOPT_ANALYSIS_IR_UTIL_H_

#include <cstdint>

#include "source/opt/ir_context.h"
#include "spirv/unified1/GLSL.std.450.h"

namespace waveopt {

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
