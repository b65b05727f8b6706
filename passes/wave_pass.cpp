#include "passes/wave_pass.h"

#include "source/opt/function.h"
#include "source/opt/ir_context.h"

namespace waveopt {

bool SplitParams(const std::string& params,
                 std::vector<std::pair<std::string, std::string>>* out,
                 std::string* error) {
  out->clear();
  size_t start = 0;
  while (start <= params.size()) {
    size_t comma = params.find(',', start);
    if (comma == std::string::npos) comma = params.size();
    std::string item = params.substr(start, comma - start);
    if (!item.empty()) {
      size_t eq = item.find('=');
      std::string key = item.substr(0, eq);
      std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
      if (key.empty()) {
        *error = "empty parameter name in '" + params + "'";
        return false;
      }
      out->emplace_back(key, value);
    }
    start = comma + 1;
  }
  return true;
}

std::string WavePass::NameOf(uint32_t id) {
  for (auto& entry : context()->GetNames(id)) {
    return entry.second->GetInOperand(1).AsString();
  }
  return "%" + std::to_string(id);
}

void WavePass::EmitRemark(RemarkKind kind, const std::string& name,
                          const spvtools::opt::Function* func,
                          const spvtools::opt::Instruction* inst,
                          const std::string& message) {
  Remark remark;
  remark.kind = kind;
  remark.pass = this->name();
  remark.name = name;
  if (func != nullptr) remark.function = NameOf(func->result_id());
  remark.message = message;
  if (inst != nullptr) {
    const spvtools::opt::Instruction* line = inst->dbg_line_inst();
    if (line != nullptr && line->opcode() == spv::Op::OpLine) {
      uint32_t file_id = line->GetSingleWordInOperand(0);
      auto* file = context()->get_def_use_mgr()->GetDef(file_id);
      if (file != nullptr && file->opcode() == spv::Op::OpString) {
        remark.file = file->GetInOperand(0).AsString();
      }
      remark.line = line->GetSingleWordInOperand(1);
      remark.column = line->GetSingleWordInOperand(2);
    } else if (line != nullptr && line->IsDebugLineInst()) {
      // NonSemantic.Shader.DebugInfo.100 DebugLine: Source, LineStart, ...
      uint32_t source_id = line->GetSingleWordInOperand(2);
      auto* source = context()->get_def_use_mgr()->GetDef(source_id);
      if (source != nullptr && source->NumInOperands() > 2) {
        auto* file = context()->get_def_use_mgr()->GetDef(
            source->GetSingleWordInOperand(2));
        if (file != nullptr && file->opcode() == spv::Op::OpString) {
          remark.file = file->GetInOperand(0).AsString();
        }
      }
      auto* line_const = context()->get_def_use_mgr()->GetDef(
          line->GetSingleWordInOperand(3));
      if (line_const != nullptr &&
          line_const->opcode() == spv::Op::OpConstant) {
        remark.line = line_const->GetSingleWordInOperand(0);
      }
    }
  }
  if (config_.remarks) {
    config_.remarks->Emit(remark);
  } else if (consumer()) {
    std::string text = FormatRemark(remark);
    consumer()(SPV_MSG_INFO, "", {remark.line, remark.column, 0},
               text.c_str());
  }
}

}  // namespace waveopt
