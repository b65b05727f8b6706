#define SPV_ENABLE_UTILITY_CODE  // spv::HasResultAndType, spv::OpToString
#include "passes/wave_pass.h"

#include <memory>

#include "analysis/ir_util.h"
#include "source/opt/function.h"
#include "source/opt/ir_context.h"
#include "source/spirv_constant.h"
#include "source/spirv_target_env.h"
#include "source/util/string_utils.h"

namespace waveopt {

bool SplitParams(const std::string& params, std::vector<std::pair<std::string, std::string>>* out,
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

std::string WavePass::ModuleRefusal(std::string* why) {
  const uint32_t version = get_module()->version();
  if (context()->get_feature_mgr()->HasCapability(spv::Capability::Kernel)) {
    *why = "OpenCL kernels are not supported; only Shader modules";
    return "KernelModule";
  }
  if (config_.target_env == SPV_ENV_VULKAN_1_0 ||
      spvVersionForTargetEnv(config_.target_env) < SPV_SPIRV_VERSION_WORD(1, 3)) {
    *why = "the target " + TargetEnvName(config_.target_env) +
           " has no subgroup operations; they need Vulkan 1.1 or SPIR-V 1.3";
    return "TargetLacksSubgroupOps";
  }
  if (version < SPV_SPIRV_VERSION_WORD(1, 3)) {
    *why = "the module is SPIR-V " + std::to_string((version >> 16) & 0xff) + "." +
           std::to_string((version >> 8) & 0xff) +
           ", and subgroup operations need SPIR-V 1.3, which the target " +
           TargetEnvName(config_.target_env) +
           " allows: raise the module's version (waveopt::RegisterPass and "
           "Optimize() do)";
    return "ModuleVersionLacksSubgroupOps";
  }
  if (config_.subgroup_size == 1) {
    *why =
        "--subgroup-size=1 promises one lane per subgroup: nothing to "
        "gain from subgroup operations";
    return "SubgroupSizeOne";
  }
  return "";
}

std::string WavePass::NameOf(uint32_t id) {
  for (auto& entry : context()->GetNames(id)) {
    return entry.second->GetInOperand(1).AsString();
  }
  return "%" + std::to_string(InputId(id));
}

// A site marker (lib/site_markers.h): an OpLine whose file is no OpString.
bool WavePass::IsSiteMarker(const spvtools::opt::Instruction* line) {
  if (line == nullptr || line->opcode() != spv::Op::OpLine) return false;
  auto* file = context()->get_def_use_mgr()->GetDef(line->GetSingleWordInOperand(0));
  return file == nullptr || file->opcode() != spv::Op::OpString;
}

uint32_t WavePass::InputId(uint32_t id) {
  const spvtools::opt::Instruction* def = context()->get_def_use_mgr()->GetDef(id);
  if (def == nullptr || def->dbg_line_insts().empty()) return id;
  const spvtools::opt::Instruction* line = &def->dbg_line_insts().back();
  if (!IsSiteMarker(line) || line->GetSingleWordInOperand(2) != 0) return id;
  return line->GetSingleWordInOperand(1);
}

// The OpLine or DebugLine of |inst|; when it has none (a loop's merge
// instruction, a label), that of the first instruction after it in its
// function that has one: the remark lands on the line where the construct's
// code starts instead of on none.
const spvtools::opt::Instruction* WavePass::NearestLine(const spvtools::opt::Function* func,
                                                        const spvtools::opt::Instruction* inst) {
  const auto has_line = [](const spvtools::opt::Instruction& i) {
    const spvtools::opt::Instruction* line = i.dbg_line_inst();
    return line != nullptr && (line->opcode() == spv::Op::OpLine || line->IsDebugLineInst());
  };
  if (has_line(*inst)) return inst->dbg_line_inst();
  auto* block = context()->get_instr_block(const_cast<spvtools::opt::Instruction*>(inst));
  if (func == nullptr || block == nullptr) return nullptr;
  bool after = false;
  for (const spvtools::opt::BasicBlock& b : *func) {
    if (&b == block) after = true;
    if (!after) continue;
    bool past = &b != block || inst->opcode() == spv::Op::OpLabel;
    for (const spvtools::opt::Instruction& i : b) {
      if (past && has_line(i)) return i.dbg_line_inst();
      if (&i == inst) past = true;
    }
  }
  return nullptr;
}

void WavePass::LocateRemark(const spvtools::opt::Instruction* line, Remark* remark) {
  if (IsSiteMarker(line)) {
    remark->site_id = line->GetSingleWordInOperand(1);
    remark->site_offset = line->GetSingleWordInOperand(2);
  } else if (line != nullptr && line->opcode() == spv::Op::OpLine) {
    uint32_t file_id = line->GetSingleWordInOperand(0);
    auto* file = context()->get_def_use_mgr()->GetDef(file_id);
    if (file != nullptr && file->opcode() == spv::Op::OpString) {
      remark->file = file->GetInOperand(0).AsString();
    }
    remark->line = line->GetSingleWordInOperand(1);
    remark->column = line->GetSingleWordInOperand(2);
  } else if (line != nullptr && line->IsDebugLineInst()) {
    // NonSemantic.Shader.DebugInfo.100 DebugLine: Source, LineStart, ...
    uint32_t source_id = line->GetSingleWordInOperand(2);
    auto* source = context()->get_def_use_mgr()->GetDef(source_id);
    if (source != nullptr && source->NumInOperands() > 2) {
      auto* file = context()->get_def_use_mgr()->GetDef(source->GetSingleWordInOperand(2));
      if (file != nullptr && file->opcode() == spv::Op::OpString) {
        remark->file = file->GetInOperand(0).AsString();
      }
    }
    auto* line_const = context()->get_def_use_mgr()->GetDef(line->GetSingleWordInOperand(3));
    if (line_const != nullptr && line_const->opcode() == spv::Op::OpConstant) {
      remark->line = line_const->GetSingleWordInOperand(0);
    }
  }
}

bool WavePass::InSelection(const spvtools::opt::Function* func,
                           const spvtools::opt::Instruction* inst) {
  const OnlyRewrite& only = config_.only_rewrite;
  if (!only.active()) return true;
  if (only.pass != name()) return false;
  Remark at;
  if (inst != nullptr) LocateRemark(NearestLine(func, inst), &at);
  if (only.site_id != 0) return at.line == 0 && at.site_id == only.site_id;
  return at.line == only.line && (only.file.empty() || at.file == only.file);
}

bool WavePass::Selected(const spvtools::opt::Function* func,
                        const spvtools::opt::Instruction* inst) {
  if (InSelection(func, inst)) return true;
  const OnlyRewrite& only = config_.only_rewrite;
  EmitRemark(RemarkKind::kMissed, "NotSelected", func, inst,
             "--only-rewrite=" + FormatOnlyRewrite(only) + " selects another " +
                 (only.pass == name() ? "site" : "pass's site"));
  return false;
}

void WavePass::EmitRemark(RemarkKind kind, const std::string& name,
                          const spvtools::opt::Function* func,
                          const spvtools::opt::Instruction* inst, const std::string& message) {
  Remark remark;
  remark.kind = kind;
  remark.pass = this->name();
  remark.name = name;
  if (func != nullptr) remark.function = NameOf(func->result_id());
  remark.message = message;
  if (inst != nullptr) {
    const spvtools::opt::Instruction* line = NearestLine(func, inst);
    LocateRemark(line, &remark);
    remark.site_opcode = spv::OpToString(inst->opcode());
    remark.site_own = !inst->dbg_line_insts().empty() && line == inst->dbg_line_inst();
    remark.site_renamed = inst->result_id() != 0 && inst->result_id() != remark.site_id;
  }
  if (config_.remarks) {
    config_.remarks->Emit(remark);
  } else if (consumer()) {
    std::string text = FormatRemark(remark);
    consumer()(SPV_MSG_INFO, "", {remark.line, remark.column, 0}, text.c_str());
  }
}

namespace {

// How GLSL declares the built-ins the passes read: name and type.
struct BuiltInDecl {
  spv::BuiltIn builtin;
  const char* name;
  bool vector;  // a uvec3, else a 32-bit uint
};
constexpr BuiltInDecl kBuiltInDecls[] = {
    {spv::BuiltIn::LocalInvocationIndex, "gl_LocalInvocationIndex", false},
    {spv::BuiltIn::LocalInvocationId, "gl_LocalInvocationID", true},
    {spv::BuiltIn::WorkgroupId, "gl_WorkGroupID", true},
    {spv::BuiltIn::GlobalInvocationId, "gl_GlobalInvocationID", true},
    {spv::BuiltIn::NumWorkgroups, "gl_NumWorkGroups", true},
    {spv::BuiltIn::SubgroupSize, "gl_SubgroupSize", false},
    {spv::BuiltIn::SubgroupLocalInvocationId, "gl_SubgroupInvocationID", false},
    {spv::BuiltIn::SubgroupId, "gl_SubgroupID", false},
    {spv::BuiltIn::NumSubgroups, "gl_NumSubgroups", false},
};

const BuiltInDecl* FindDecl(spv::BuiltIn builtin) {
  for (const BuiltInDecl& d : kBuiltInDecls) {
    if (d.builtin == builtin) return &d;
  }
  return nullptr;
}

bool HasFragmentEntry(spvtools::opt::Module* module) {
  for (spvtools::opt::Instruction& entry : module->entry_points()) {
    if (spv::ExecutionModel(entry.GetSingleWordInOperand(0)) == spv::ExecutionModel::Fragment) {
      return true;
    }
  }
  return false;
}

}  // namespace

uint32_t WavePass::BuiltInInput(spv::BuiltIn builtin, spvtools::opt::Instruction* entry) {
  const BuiltInDecl* decl = FindDecl(builtin);
  const uint32_t var = FindBuiltInInput(context(), builtin);
  if (var == 0) return DeclareBuiltInInput(builtin, entry);
  auto* defs = get_def_use_mgr();
  const spvtools::opt::Instruction* ptr = defs->GetDef(defs->GetDef(var)->type_id());
  const spvtools::opt::Instruction* pointee = defs->GetDef(ptr->GetSingleWordInOperand(1));
  const spv::Op want = decl != nullptr && decl->vector ? spv::Op::OpTypeVector : spv::Op::OpTypeInt;
  if (pointee->opcode() != want) return 0;
  AddToInterfaces(entry, var);
  return var;
}

uint32_t WavePass::DeclareBuiltInInput(spv::BuiltIn builtin, spvtools::opt::Instruction* entry) {
  using spvtools::opt::Instruction;
  using spvtools::opt::Operand;
  const BuiltInDecl* decl = FindDecl(builtin);
  if (decl == nullptr) return 0;
  // SPIRV-Tools' type manager dereferences null when ids run out while it
  // declares a type: keep the same room the Emitter keeps.
  if (context()->module()->IdBound() + 4 > context()->max_id_bound()) return 0;
  auto* types = context()->get_type_mgr();
  const uint32_t pointee = decl->vector ? types->GetUIntVectorTypeId(3) : types->GetUIntTypeId();
  if (pointee == 0) return 0;
  const uint32_t ptr = types->FindPointerToType(pointee, spv::StorageClass::Input);
  if (ptr == 0) return 0;
  const uint32_t var = context()->TakeNextId();
  if (var == 0) return 0;
  context()->AddGlobalValue(std::make_unique<Instruction>(
      context(), spv::Op::OpVariable, ptr, var,
      std::vector<Operand>{
          {SPV_OPERAND_TYPE_STORAGE_CLASS, {static_cast<uint32_t>(spv::StorageClass::Input)}}}));
  auto* decorations = context()->get_decoration_mgr();
  decorations->AddDecorationVal(var, static_cast<uint32_t>(spv::Decoration::BuiltIn),
                                static_cast<uint32_t>(builtin));
  // Vulkan's VUID-StandaloneSpirv-Flat-04744: an integer input of a
  // fragment shader is Flat, built-ins included.
  if (HasFragmentEntry(get_module())) {
    decorations->AddDecoration(var, static_cast<uint32_t>(spv::Decoration::Flat));
  }
  context()->AddDebug2Inst(std::make_unique<Instruction>(
      context(), spv::Op::OpName, 0, 0,
      std::vector<Operand>{
          {SPV_OPERAND_TYPE_ID, {var}},
          {SPV_OPERAND_TYPE_LITERAL_STRING, spvtools::utils::MakeVector(decl->name)}}));
  AddToInterfaces(entry, var);
  return var;
}

void WavePass::AddToInterfaces(spvtools::opt::Instruction* entry, uint32_t var) {
  if (entry != nullptr) {
    AddToInterface(entry, var);
    return;
  }
  for (spvtools::opt::Instruction& e : get_module()->entry_points()) {
    AddToInterface(&e, var);
  }
}

void WavePass::AddToInterface(spvtools::opt::Instruction* entry, uint32_t var) {
  for (uint32_t i = 3; i < entry->NumInOperands(); ++i) {
    if (entry->GetSingleWordInOperand(i) == var) return;
  }
  entry->AddOperand({SPV_OPERAND_TYPE_ID, {var}});
  get_def_use_mgr()->AnalyzeInstUse(entry);
}

}  // namespace waveopt
