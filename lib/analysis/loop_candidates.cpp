// waveopt::PrintLoopCandidates (waveopt --print-loop-candidates): the loops
// batch-uniform-loads is meant for, found without the pass's own matching
// code, so that a count of them over real shaders checks the pass.
//
// A candidate is a structured loop (SPIRV-Tools' LoopDescriptor) whose exits
// are all subgroup-uniform (UniformityAnalysis::LoopExitLevel) with a read of
// buffer or image memory (OpLoad from StorageBuffer, Uniform or
// PhysicalStorageBuffer memory; OpImageFetch, OpImageRead, explicit-LOD
// samples and gathers) whose address operands are all subgroup-uniform and
// change every iteration: they depend, through values computed in the loop,
// on a phi of the loop's header. A read counts for the innermost loop
// around it whose header phis its address depends on; deeper loops whose
// phis it does not depend on do not matter.
//
// Output, one line per loop in function order:
//   loop %12 in main [file:line]: candidate (2 reads)
//   loop %40 in main [file:line]: not a candidate: exits divergent
//   loop %55 in main [file:line]: not a candidate: no uniform read that changes
#include <functional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "analysis/uniformity.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"
#include "source/opt/loop_descriptor.h"
#include "waveopt/analysis.h"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;
using spvtools::opt::Loop;

bool IsImageReadOp(spv::Op op) {
  switch (op) {
    case spv::Op::OpImageFetch:
    case spv::Op::OpImageRead:
    case spv::Op::OpImageSparseFetch:
    case spv::Op::OpImageSparseRead:
    case spv::Op::OpImageSampleExplicitLod:
    case spv::Op::OpImageSampleDrefExplicitLod:
    case spv::Op::OpImageSparseSampleExplicitLod:
    case spv::Op::OpImageGather:
    case spv::Op::OpImageDrefGather:
      return true;
    default:
      return false;
  }
}

// The ids that say where |inst| reads, or empty when it reads no buffer or
// image memory.
std::vector<uint32_t> ReadAddress(IRContext* ctx, const Instruction* inst) {
  if (IsImageReadOp(inst->opcode())) {
    std::vector<uint32_t> ids;
    inst->ForEachInId([&](const uint32_t* id) { ids.push_back(*id); });
    return ids;
  }
  if (inst->opcode() != spv::Op::OpLoad) return {};
  const uint32_t ptr = inst->GetSingleWordInOperand(0);
  const Instruction* def = ctx->get_def_use_mgr()->GetDef(ptr);
  const Instruction* type = def ? ctx->get_def_use_mgr()->GetDef(def->type_id()) : nullptr;
  if (type == nullptr || type->opcode() != spv::Op::OpTypePointer) return {};
  switch (spv::StorageClass(type->GetSingleWordInOperand(0))) {
    case spv::StorageClass::StorageBuffer:
    case spv::StorageClass::Uniform:
    case spv::StorageClass::PhysicalStorageBuffer:
      return {ptr};
    default:
      return {};
  }
}

}  // namespace

bool PrintLoopCandidates(const std::vector<uint32_t>& words, spv_target_env env, std::string* out,
                         std::string* error) {
  std::string first_message;
  auto consumer = [&first_message](spv_message_level_t, const char*, const spv_position_t&,
                                   const char* message) {
    if (first_message.empty()) first_message = message;
  };
  std::unique_ptr<IRContext> context =
      spvtools::BuildModule(env, consumer, words.data(), words.size());
  if (!context) {
    *error =
        "cannot load the module" + (first_message.empty() ? std::string() : ": " + first_message);
    return false;
  }
  IRContext* ctx = context.get();
  UniformityAnalysis uniformity(ctx);
  auto* def_use = ctx->get_def_use_mgr();
  std::unordered_map<uint32_t, std::string> names;
  for (auto& inst : ctx->module()->debugs2()) {
    if (inst.opcode() == spv::Op::OpName) {
      names.emplace(inst.GetSingleWordInOperand(0), inst.GetInOperand(1).AsString());
    }
  }
  std::unordered_map<uint32_t, std::string> strings;
  for (auto& inst : ctx->module()->debugs1()) {
    if (inst.opcode() == spv::Op::OpString) {
      strings.emplace(inst.result_id(), inst.GetInOperand(0).AsString());
    }
  }
  std::ostringstream text;
  for (Function& func : *ctx->module()) {
    spvtools::opt::LoopDescriptor* loops = ctx->GetLoopDescriptor(&func);
    // Reads per loop (by header), attributed to the innermost loop whose
    // header phis the address depends on.
    std::unordered_map<uint32_t, int> reads;
    for (BasicBlock& block : func) {
      Loop* innermost = (*loops)[&block];
      if (innermost == nullptr) continue;
      for (Instruction& inst : block) {
        const std::vector<uint32_t> address = ReadAddress(ctx, &inst);
        if (address.empty()) continue;
        bool uniform = true;
        for (uint32_t id : address) {
          if (!uniformity.IsSubgroupUniform(id)) uniform = false;
        }
        if (!uniform) continue;
        for (Loop* loop = innermost; loop != nullptr; loop = loop->GetParent()) {
          // Does the address depend on a phi of this loop's header, through
          // values computed inside the loop?
          const uint32_t header = loop->GetHeaderBlock()->id();
          std::unordered_set<uint32_t> seen;
          std::vector<uint32_t> stack(address.begin(), address.end());
          bool depends = false;
          while (!stack.empty() && !depends) {
            const uint32_t id = stack.back();
            stack.pop_back();
            if (!seen.insert(id).second) continue;
            Instruction* def = def_use->GetDef(id);
            BasicBlock* b = def ? ctx->get_instr_block(def) : nullptr;
            if (b == nullptr || !loop->IsInsideLoop(b)) continue;
            if (def->opcode() == spv::Op::OpPhi && b->id() == header) {
              depends = true;
              break;
            }
            def->ForEachInId([&](const uint32_t* op) { stack.push_back(*op); });
          }
          if (depends) {
            ++reads[header];
            break;
          }
        }
      }
    }
    std::string fname = names.count(func.result_id()) ? names[func.result_id()]
                                                      : "%" + std::to_string(func.result_id());
    for (BasicBlock& block : func) {
      Instruction* merge = block.GetLoopMergeInst();
      if (merge == nullptr) continue;
      Loop* loop = (*loops)[block.id()];
      if (loop == nullptr || loop->GetHeaderBlock() != &block) continue;
      text << "loop %" << block.id() << " in " << fname;
      for (const Instruction& line : merge->dbg_line_insts()) {
        if (line.opcode() == spv::Op::OpLine) {
          const uint32_t file = line.GetSingleWordInOperand(0);
          text << " " << (strings.count(file) ? strings[file] : "?") << ":"
               << line.GetSingleWordInOperand(1);
          break;
        }
      }
      const int n = reads.count(block.id()) ? reads[block.id()] : 0;
      if (uniformity.LoopExitLevel(block.id()) == Uniformity::kDivergent) {
        text << ": not a candidate: exits divergent";
        if (n > 0) text << " (" << n << " uniform reads that change)";
        text << "\n";
      } else if (n == 0) {
        text << ": not a candidate: no uniform read that changes\n";
      } else {
        text << ": candidate (" << n << " read" << (n == 1 ? "" : "s") << ")\n";
      }
    }
  }
  *out = text.str();
  (void)def_use;
  return true;
}

}  // namespace waveopt
