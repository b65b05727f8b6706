#include "tools/waverun/coverage.h"

#include <spirv-tools/libspirv.h>
#include <spirv/unified1/spirv.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waverun {
namespace {

struct ParsedInst {
  uint32_t word = 0;
  uint32_t opcode = 0;
  uint32_t result = 0;
  uint32_t block = 0;  // label of the enclosing block (0 outside functions)
  bool in_function = false;
  std::vector<uint32_t> id_operands;
};

struct ParsedModule {
  bool ok = false;
  uint32_t bound = 0;
  std::vector<ParsedInst> insts;
  std::unordered_map<uint32_t, uint32_t> opcode_of;  // result id -> opcode
};

struct ParseState {
  const uint32_t* base = nullptr;
  ParsedModule* module = nullptr;
  bool in_function = false;
  uint32_t block = 0;
};

spv_result_t OnInstruction(void* user, const spv_parsed_instruction_t* in) {
  ParseState* st = static_cast<ParseState*>(user);
  ParsedInst p;
  p.word = static_cast<uint32_t>(in->words - st->base);
  p.opcode = in->opcode;
  p.result = in->result_id;
  if (in->opcode == SpvOpFunction) st->in_function = true;
  if (in->opcode == SpvOpLabel) st->block = in->result_id;
  p.in_function = st->in_function;
  p.block = st->in_function ? st->block : 0;
  if (in->opcode == SpvOpFunctionEnd) {
    st->in_function = false;
    st->block = 0;
  }
  for (uint16_t k = 0; k < in->num_operands; ++k) {
    const spv_parsed_operand_t& o = in->operands[k];
    if (o.type == SPV_OPERAND_TYPE_ID || o.type == SPV_OPERAND_TYPE_TYPE_ID ||
        o.type == SPV_OPERAND_TYPE_SCOPE_ID || o.type == SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID) {
      p.id_operands.push_back(in->words[o.offset]);
    }
  }
  if (p.result) st->module->opcode_of[p.result] = p.opcode;
  st->module->insts.push_back(std::move(p));
  return SPV_SUCCESS;
}

ParsedModule Parse(const std::vector<uint32_t>& words) {
  ParsedModule m;
  if (words.size() < 5) return m;
  m.bound = words[3];
  spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
  ParseState st;
  st.base = words.data();
  st.module = &m;
  spv_diagnostic diag = nullptr;
  m.ok = spvBinaryParse(ctx, &st, words.data(), words.size(), nullptr, OnInstruction, &diag) ==
         SPV_SUCCESS;
  spvDiagnosticDestroy(diag);
  spvContextDestroy(ctx);
  return m;
}

bool Counted(uint32_t opcode) {
  switch (opcode) {
    case SpvOpFunction:
    case SpvOpFunctionParameter:
    case SpvOpFunctionEnd:
    case SpvOpLabel:
    case SpvOpSelectionMerge:
    case SpvOpLoopMerge:
    case SpvOpLine:
    case SpvOpNoLine:
    case SpvOpNop:
      return false;
    default:
      return true;
  }
}

std::vector<uint32_t> Added(const ParsedModule& base, const ParsedModule& b) {
  auto is_new = [&](uint32_t id) {
    if (id >= base.bound) return true;
    auto it = base.opcode_of.find(id);
    if (it == base.opcode_of.end()) return true;
    auto jt = b.opcode_of.find(id);
    return jt != b.opcode_of.end() && jt->second != it->second;
  };
  std::vector<uint32_t> out;
  for (const ParsedInst& p : b.insts) {
    if (!p.in_function || !Counted(p.opcode)) continue;
    bool added;
    if (p.result) {
      added = is_new(p.result);
    } else {
      added = is_new(p.block);
      for (uint32_t id : p.id_operands) added = added || is_new(id);
    }
    if (added) out.push_back(p.word);
  }
  return out;
}

}  // namespace

std::vector<uint32_t> AddedInstructions(const std::vector<uint32_t>& a,
                                        const std::vector<uint32_t>& b) {
  ParsedModule pa = Parse(a), pb = Parse(b);
  if (!pa.ok || !pb.ok) return {};
  std::vector<uint32_t> best = Added(pa, pb);
  if (best.empty()) return best;
  // The module as -O prepares it before its passes run.
  waveopt::Options options;
  options.validate_input = false;
  options.validate_output = false;
  for (const std::string& flag : waveopt::PrepareFlags()) {
    waveopt::PipelineStep step;
    step.kind = waveopt::PipelineStep::Kind::kSpirvOpt;
    step.name = flag;
    options.pipeline.push_back(step);
  }
  waveopt::Result result;
  if (waveopt::Optimize(a, options, &result) && !result.words.empty()) {
    ParsedModule prepared = Parse(result.words);
    if (prepared.ok) {
      std::vector<uint32_t> other = Added(prepared, pb);
      if (other.size() < best.size()) best = std::move(other);
    }
  }
  return best;
}

Coverage MeasureCoverage(const std::vector<uint32_t>& added,
                         const std::vector<waveopt::sim::InstructionCount>& counts) {
  Coverage c;
  c.added = added.size();
  std::unordered_set<uint32_t> set(added.begin(), added.end());
  for (const waveopt::sim::InstructionCount& ic : counts) {
    if (!set.count(ic.word) || ic.subgroups == 0) continue;
    ++c.executed;
    c.subgroups += ic.subgroups;
    c.lanes += ic.lanes;
  }
  return c;
}

}  // namespace waverun
