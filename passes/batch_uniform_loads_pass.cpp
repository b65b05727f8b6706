// batch-uniform-loads: see the header for the rewrite; docs/design/
// batch-uniform-loads.md for the legality and cost rules, remarks and
// options. The loop facts (shape, inductions, exits, trip counts, what the
// loop writes, invariance) come from lib/analysis/loops.h.
#include "passes/batch_uniform_loads_pass.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <memory>
#include <utility>

#include "analysis/ir_util.h"
#include "analysis/loops.h"
#include "analysis/memory_effects.h"
#include "analysis/uniformity.h"
#include "lib/inline_loop_callees.h"
#include "passes/emitter.h"
#include "source/opt/cfg.h"
#include "source/opt/constants.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/ir_context.h"
#include "source/opt/loop_descriptor.h"
#include "source/opt/register_pressure.h"
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
constexpr int kExclusiveScan = static_cast<int>(spv::GroupOperation::ExclusiveScan);

// Whether |inst| reads buffer, workgroup or image memory (what the pass
// batches; the loads of private variables and of descriptors are not).
bool IsMemoryRead(spvtools::opt::IRContext* context, const Instruction* inst) {
  if (IsImageRead(inst->opcode())) return true;
  if (inst->opcode() != spv::Op::OpLoad) return false;
  const spv::StorageClass sc = PointerClass(context, inst->GetSingleWordInOperand(0));
  if (sc == spv::StorageClass::Max || IsPrivateClass(sc)) return false;
  if (sc == spv::StorageClass::UniformConstant) return false;  // descriptors
  // Workgroup memory (a uniform read is one broadcast LDS access) and push
  // constants (scalar registers) cost too little to batch.
  if (sc == spv::StorageClass::Workgroup || sc == spv::StorageClass::PushConstant) {
    return false;
  }
  return true;
}

// The ids an image read depends on besides its result type: the image, the
// coordinate, the Dref or component, and the image operands' ids.
std::vector<uint32_t> ImageReadOperands(const Instruction* inst) {
  std::vector<uint32_t> ids;
  inst->ForEachInId([&](const uint32_t* id) { ids.push_back(*id); });
  return ids;
}

// 32-bit words in a value of |type_id| (for the cost and liveness rules).
uint32_t ComponentsOf(spvtools::opt::IRContext* context, uint32_t type_id, int depth = 0) {
  if (depth > 8) return 0;
  Instruction* type = context->get_def_use_mgr()->GetDef(type_id);
  if (type == nullptr) return 0;
  switch (type->opcode()) {
    case spv::Op::OpTypeInt:
    case spv::Op::OpTypeFloat:
      return type->GetSingleWordInOperand(0) == 64 ? 2 : 1;
    case spv::Op::OpTypeVector:
    case spv::Op::OpTypeMatrix:
      return type->GetSingleWordInOperand(1) *
             ComponentsOf(context, type->GetSingleWordInOperand(0), depth + 1);
    case spv::Op::OpTypeArray: {
      uint64_t n = 0;
      Instruction* length = context->get_def_use_mgr()->GetDef(type->GetSingleWordInOperand(1));
      if (!IntConstant(context, length, &n)) n = 1;
      return static_cast<uint32_t>(std::min<uint64_t>(n, 1024)) *
             ComponentsOf(context, type->GetSingleWordInOperand(0), depth + 1);
    }
    case spv::Op::OpTypeStruct: {
      uint32_t n = 0;
      for (uint32_t i = 0; i < type->NumInOperands(); ++i) {
        n += ComponentsOf(context, type->GetSingleWordInOperand(i), depth + 1);
      }
      return n;
    }
    default:
      return 0;  // bools (lane masks), pointers, images: no vector registers
  }
}

// 32-bit words of the 8- and 16-bit parts of |type_id| (ComponentsOf
// leaves them out), rounded up.
uint32_t SmallWordsOf(spvtools::opt::IRContext* context, uint32_t type_id, int depth = 0) {
  if (depth > 8) return 0;
  Instruction* type = context->get_def_use_mgr()->GetDef(type_id);
  if (type == nullptr) return 0;
  switch (type->opcode()) {
    case spv::Op::OpTypeInt:
    case spv::Op::OpTypeFloat:
      return type->GetSingleWordInOperand(0) < 32 ? 1 : 0;
    case spv::Op::OpTypeVector: {
      Instruction* comp = context->get_def_use_mgr()->GetDef(type->GetSingleWordInOperand(0));
      if (comp->opcode() == spv::Op::OpTypeBool) return 0;
      const uint32_t width = comp->GetSingleWordInOperand(0);
      return width < 32 ? (width * type->GetSingleWordInOperand(1) + 31) / 32 : 0;
    }
    case spv::Op::OpTypeArray:
    case spv::Op::OpTypeMatrix: {
      uint64_t n = type->opcode() == spv::Op::OpTypeMatrix ? type->GetSingleWordInOperand(1) : 1;
      if (type->opcode() == spv::Op::OpTypeArray &&
          !IntConstant(context, context->get_def_use_mgr()->GetDef(type->GetSingleWordInOperand(1)),
                       &n)) {
        n = 1;
      }
      return static_cast<uint32_t>(std::min<uint64_t>(n, 1024)) *
             SmallWordsOf(context, type->GetSingleWordInOperand(0), depth + 1);
    }
    case spv::Op::OpTypeStruct: {
      uint32_t n = 0;
      for (uint32_t i = 0; i < type->NumInOperands(); ++i) {
        n += SmallWordsOf(context, type->GetSingleWordInOperand(i), depth + 1);
      }
      return n;
    }
    default:
      return 0;
  }
}

// |value| (built by OpCompositeConstruct, down to the parts whose types
// already match) as a value of the logically matching |type|, constructed
// with |e|; |value| itself when its type is |type|; 0 when it is not built
// that way.
uint32_t RebuildAs(spvtools::opt::IRContext* context, Emitter* e, uint32_t value, uint32_t type) {
  auto* def_use = context->get_def_use_mgr();
  Instruction* def = def_use->GetDef(value);
  if (def == nullptr) return 0;
  if (def->type_id() == type) return value;
  Instruction* to = def_use->GetDef(type);
  if (def->opcode() != spv::Op::OpCompositeConstruct || to == nullptr ||
      (to->opcode() != spv::Op::OpTypeStruct && to->opcode() != spv::Op::OpTypeArray)) {
    return 0;
  }
  std::vector<spvtools::opt::Operand> parts;
  for (uint32_t i = 0; i < def->NumInOperands(); ++i) {
    const uint32_t member = to->opcode() == spv::Op::OpTypeStruct ? to->GetSingleWordInOperand(i)
                                                                  : to->GetSingleWordInOperand(0);
    const uint32_t part = RebuildAs(context, e, def->GetSingleWordInOperand(i), member);
    if (part == 0) return 0;
    parts.push_back({SPV_OPERAND_TYPE_ID, {part}});
  }
  return e->Emit(spv::Op::OpCompositeConstruct, type, parts);
}

// Extracts of a part of |composite| that OpCompositeConstruct put together
// (the rebuilt struct of a batched load) read the part itself, and rebuilds
// left without users go. SPIRV-Cross's HLSL assigns a struct rebuilt in the
// loop header as "s = { a, b };", which HLSL allows only in a declaration;
// the extracts cost nothing either way.
void ForwardExtracts(spvtools::opt::IRContext* context, uint32_t composite) {
  auto* def_use = context->get_def_use_mgr();
  // A copy into a struct of another layout (OpCopyLogical: glslang's copy of
  // a buffer's struct into a local one from SPIR-V 1.4) is built from the
  // same parts, so that its own extracts forward as well.
  std::vector<Instruction*> copies;
  def_use->ForEachUser(composite, [&](Instruction* user) {
    if (user->opcode() == spv::Op::OpCopyLogical) copies.push_back(user);
  });
  for (Instruction* copy : copies) {
    Emitter e(context, context->get_instr_block(copy), BasicBlock::iterator(copy));
    const uint32_t rebuilt = RebuildAs(context, &e, composite, copy->type_id());
    if (rebuilt == 0 || !e.ok()) continue;
    context->ReplaceAllUsesWith(copy->result_id(), rebuilt);
    context->KillInst(copy);
    ForwardExtracts(context, rebuilt);
  }
  std::vector<Instruction*> extracts;
  def_use->ForEachUser(composite, [&](Instruction* user) {
    if (user->opcode() == spv::Op::OpCompositeExtract &&
        user->GetSingleWordInOperand(0) == composite) {
      extracts.push_back(user);
    }
  });
  for (Instruction* extract : extracts) {
    uint32_t value = composite;
    uint32_t k = 1;
    for (; k < extract->NumInOperands(); ++k) {
      Instruction* def = def_use->GetDef(value);
      Instruction* type = def ? def_use->GetDef(def->type_id()) : nullptr;
      // Struct and array constructs have one operand per member; a vector
      // construct may concatenate vectors, so its operands are not indexed
      // by component.
      if (def == nullptr || def->opcode() != spv::Op::OpCompositeConstruct || type == nullptr ||
          (type->opcode() != spv::Op::OpTypeStruct && type->opcode() != spv::Op::OpTypeArray)) {
        break;
      }
      value = def->GetSingleWordInOperand(extract->GetSingleWordInOperand(k));
    }
    if (k < extract->NumInOperands()) continue;
    context->ReplaceAllUsesWith(extract->result_id(), value);
    context->KillInst(extract);
  }
  // Constructs nobody reads any more, from the outermost in.
  std::vector<uint32_t> work = {composite};
  while (!work.empty()) {
    Instruction* def = def_use->GetDef(work.back());
    work.pop_back();
    if (def == nullptr || def->opcode() != spv::Op::OpCompositeConstruct ||
        def_use->NumUsers(def) != 0) {
      continue;
    }
    def->ForEachInId([&work](const uint32_t* id) { work.push_back(*id); });
    context->KillInst(def);
  }
}

// 64-bit scalars and vectors of 8-, 16- or 64-bit components travel as
// 32-bit words, through bitcasts SPIRV-Cross can write in GLSL (each step
// one it names: packUint2x32, doubleBitsToUint64, packFloat2x16,
// packInt2x16, packUint2x16, pack32, and their inverses): a 64-bit value
// through uint64 and uvec2, a 16-bit vector two components per word, an
// 8-bit one four. A whole f16vec4 -> uvec2 bitcast has no GLSL spelling.
struct WordShape {
  uint32_t comp_type = 0;  // the component (scalar) type
  uint32_t width = 32;     // its width
  uint32_t count = 1;      // components
  bool is_float = false, is_signed = false;
};

WordShape ShapeOf(spvtools::opt::IRContext* context, uint32_t type_id) {
  auto* def_use = context->get_def_use_mgr();
  WordShape w;
  Instruction* type = def_use->GetDef(type_id);
  w.comp_type = type_id;
  if (type->opcode() == spv::Op::OpTypeVector) {
    w.count = type->GetSingleWordInOperand(1);
    w.comp_type = type->GetSingleWordInOperand(0);
    type = def_use->GetDef(w.comp_type);
  }
  w.width = type->GetSingleWordInOperand(0);
  w.is_float = type->opcode() == spv::Op::OpTypeFloat;
  w.is_signed = !w.is_float && type->GetSingleWordInOperand(1) != 0;
  return w;
}

// Components [first, first + n) of |value| (a vector of |shape|).
uint32_t Slice(Emitter& e, spvtools::opt::IRContext* context, uint32_t value,
               const WordShape& shape, uint32_t first, uint32_t n) {
  if (n == shape.count) return value;
  if (n == 1) {
    return e.Emit(spv::Op::OpCompositeExtract, shape.comp_type,
                  {{SPV_OPERAND_TYPE_ID, {value}}, {SPV_OPERAND_TYPE_LITERAL_INTEGER, {first}}});
  }
  std::vector<Operand> ops = {{SPV_OPERAND_TYPE_ID, {value}}, {SPV_OPERAND_TYPE_ID, {value}}};
  for (uint32_t i = 0; i < n; ++i) ops.push_back({SPV_OPERAND_TYPE_LITERAL_INTEGER, {first + i}});
  return e.Emit(spv::Op::OpVectorShuffle, e.VectorType(shape.comp_type, n), ops);
}

// |value| of |type_id| as |words| 32-bit words (a uint, or a uvecN).
uint32_t ToWords(Emitter& e, spvtools::opt::IRContext* context, uint32_t value, uint32_t type_id,
                 uint32_t words) {
  const WordShape shape = ShapeOf(context, type_id);
  const uint32_t uint_type = e.UIntType(32);
  const uint32_t v2 = e.UIntVectorType(2);
  std::vector<uint32_t> parts;  // uints or uvec2s
  if (shape.width == 64) {
    const uint32_t u64 = e.IntType(64, false);
    for (uint32_t i = 0; i < shape.count; ++i) {
      uint32_t c = Slice(e, context, value, shape, i, 1);
      if (shape.is_float || shape.is_signed) c = e.EmitIds(spv::Op::OpBitcast, u64, {c});
      parts.push_back(e.EmitIds(spv::Op::OpBitcast, v2, {c}));
    }
  } else {
    const uint32_t per_word = 32 / shape.width;
    const uint32_t word_type = shape.is_signed ? e.IntType(32, true) : uint_type;
    for (uint32_t i = 0; i < shape.count; i += per_word) {
      uint32_t w =
          e.EmitIds(spv::Op::OpBitcast, word_type, {Slice(e, context, value, shape, i, per_word)});
      if (shape.is_signed) w = e.EmitIds(spv::Op::OpBitcast, uint_type, {w});
      parts.push_back(w);
    }
  }
  if (parts.size() == 1) return parts[0];
  std::vector<Operand> ops;
  for (uint32_t p : parts) ops.push_back({SPV_OPERAND_TYPE_ID, {p}});
  return e.Emit(spv::Op::OpCompositeConstruct, e.UIntVectorType(words), ops);
}

// The inverse of ToWords.
uint32_t FromWords(Emitter& e, spvtools::opt::IRContext* context, uint32_t words_value,
                   uint32_t type_id, uint32_t words) {
  const WordShape shape = ShapeOf(context, type_id);
  const uint32_t uint_type = e.UIntType(32);
  auto word = [&](uint32_t first, uint32_t n) -> uint32_t {  // n = 1 or 2 words
    if (words == n) return words_value;
    if (n == 1) {
      return e.Emit(
          spv::Op::OpCompositeExtract, uint_type,
          {{SPV_OPERAND_TYPE_ID, {words_value}}, {SPV_OPERAND_TYPE_LITERAL_INTEGER, {first}}});
    }
    return e.Emit(spv::Op::OpVectorShuffle, e.UIntVectorType(2),
                  {{SPV_OPERAND_TYPE_ID, {words_value}},
                   {SPV_OPERAND_TYPE_ID, {words_value}},
                   {SPV_OPERAND_TYPE_LITERAL_INTEGER, {first}},
                   {SPV_OPERAND_TYPE_LITERAL_INTEGER, {first + 1}}});
  };
  std::vector<uint32_t> parts;
  if (shape.width == 64) {
    const uint32_t u64 = e.IntType(64, false);
    for (uint32_t i = 0; i < shape.count; ++i) {
      uint32_t c = e.EmitIds(spv::Op::OpBitcast, u64, {word(2 * i, 2)});
      if (shape.is_float || shape.is_signed)
        c = e.EmitIds(spv::Op::OpBitcast, shape.comp_type, {c});
      parts.push_back(c);
    }
  } else {
    const uint32_t per_word = 32 / shape.width;
    const uint32_t piece_type = e.VectorType(shape.comp_type, per_word);
    const uint32_t int_type = shape.is_signed ? e.IntType(32, true) : 0;
    for (uint32_t i = 0; i < words; ++i) {
      uint32_t w = word(i, 1);
      if (shape.is_signed) w = e.EmitIds(spv::Op::OpBitcast, int_type, {w});
      parts.push_back(e.EmitIds(spv::Op::OpBitcast, piece_type, {w}));
    }
  }
  if (parts.size() == 1) return parts[0];
  std::vector<Operand> ops;
  for (uint32_t p : parts) ops.push_back({SPV_OPERAND_TYPE_ID, {p}});
  return e.Emit(spv::Op::OpCompositeConstruct, type_id, ops);
}

}  // namespace

bool BatchUniformLoadsPass::ParseParams(const std::string& text, Params* params,
                                        std::string* error) {
  std::vector<std::pair<std::string, std::string>> items;
  if (!SplitParams(text, &items, error)) return false;
  for (const auto& [key, value] : items) {
    uint32_t* target = nullptr;
    if (key == "min-trip") {
      target = &params->min_trip;
    } else if (key == "max-components") {
      target = &params->max_components;
    } else if (key == "max-live") {
      target = &params->max_live;
    } else if (key == "driver-unroll") {
      target = &params->driver_unroll;
    } else if (key == "read") {
      using ReadParam = Params::ReadParam;
      static const std::pair<const char*, ReadParam> kReads[] = {
          {"shuffle", ReadParam::kShuffle},
          {"broadcast", ReadParam::kBroadcast},
          {"shuffle-or-broadcast", ReadParam::kShuffleOrBroadcast},
          {"shuffle-or-first", ReadParam::kShuffleOrFirst},
      };
      const std::string& name = value;  // C++17: a lambda cannot capture a binding
      const auto* it = std::find_if(std::begin(kReads), std::end(kReads),
                                    [&name](const auto& r) { return name == r.first; });
      if (it == std::end(kReads)) {
        *error = "read must be shuffle, broadcast, shuffle-or-broadcast or shuffle-or-first";
        return false;
      }
      params->read = it->second;
      continue;
    } else if (key == "always") {
      if (!value.empty()) {
        *error = "always takes no value";
        return false;
      }
      params->always = true;
      continue;
    } else {
      *error = "unknown parameter '" + key +
               "' (expected min-trip=N, max-components=N, max-live=N, "
               "driver-unroll=N, read=FORM or always)";
      return false;
    }
    char* end = nullptr;
    unsigned long n = std::strtoul(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || n > 1000000) {
      *error = key + " must be a number from 0 to 1000000";
      return false;
    }
    *target = static_cast<uint32_t>(n);
  }
  return true;
}

BatchUniformLoadsPass::BatchUniformLoadsPass(PassConfig config) : WavePass(std::move(config)) {
  std::string ignored;
  ParseParams(this->config().params, &params_, &ignored);
}

std::string BatchUniformLoadsPass::LoopTag(const Loop& loop) {
  const spvtools::opt::BasicBlock* header = loop.GetHeaderBlock();
  const Instruction* label = header->GetLabelInst();
  if (!label->dbg_line_insts().empty() && IsSiteMarker(&label->dbg_line_insts().back())) {
    return " [loop %" + std::to_string(InputId(header->id())) + "]";  // the input's own label
  }
  Remark at;
  LocateRemark(NearestLine(header->GetParent(), label), &at);
  if (at.site_id != 0) return " [loop near %" + std::to_string(at.site_id) + "]";
  if (at.line != 0) return " [loop at line " + std::to_string(at.line) + "]";
  return " [loop %" + std::to_string(header->id()) + "]";  // no line, no marker: the module's id
}

namespace {

// The leaves of |type_id| (see Leaf); false when a leaf cannot be shuffled
// (8/16-bit, pointers, images, runtime arrays) or there are more than |cap|.
bool CollectLeaves(spvtools::opt::IRContext* context, uint32_t type_id, std::vector<uint32_t>* path,
                   std::vector<BatchUniformLoadsPass::Leaf>* leaves, size_t cap, std::string* why) {
  auto* def_use = context->get_def_use_mgr();
  Instruction* type = def_use->GetDef(type_id);
  if (leaves->size() > cap) {
    *why = "the loaded value has more than " + std::to_string(cap) + " scalar or vector parts";
    return false;
  }
  using Carry = BatchUniformLoadsPass::Leaf::Carry;
  // 8- and 16-bit values travel in 32-bit registers; converting them needs
  // the arithmetic capability for their type (not only 16-bit storage).
  auto small_ok = [&](const Instruction* scalar) {
    const uint32_t width = scalar->GetSingleWordInOperand(0);
    auto* features = context->get_feature_mgr();
    if (scalar->opcode() == spv::Op::OpTypeFloat) {
      return width == 16 && features->HasCapability(spv::Capability::Float16);
    }
    return (width == 16 && features->HasCapability(spv::Capability::Int16)) ||
           (width == 8 && features->HasCapability(spv::Capability::Int8));
  };
  auto small_why = [&]() {
    *why =
        "an 8- or 16-bit member in a module without the arithmetic "
        "capability for it (only storage of it)";
    return false;
  };
  switch (type->opcode()) {
    case spv::Op::OpTypeBool:
      leaves->push_back({*path, type_id, Carry::kAsIs, 1});
      return true;
    case spv::Op::OpTypeInt:
    case spv::Op::OpTypeFloat: {
      uint32_t width = type->GetSingleWordInOperand(0);
      if (width == 32) {
        leaves->push_back({*path, type_id, Carry::kAsIs, 1});
        return true;
      }
      if (width == 64) {
        leaves->push_back({*path, type_id, Carry::kBits, 2});
        return true;
      }
      if (!small_ok(type)) return small_why();
      const Carry carry = type->opcode() == spv::Op::OpTypeFloat ? Carry::kFloat
                          : type->GetSingleWordInOperand(1) != 0 ? Carry::kSInt
                                                                 : Carry::kUInt;
      leaves->push_back({*path, type_id, carry, 1});
      return true;
    }
    case spv::Op::OpTypeVector: {
      Instruction* comp = def_use->GetDef(type->GetSingleWordInOperand(0));
      const uint32_t n = type->GetSingleWordInOperand(1);
      const uint32_t width =
          comp->opcode() == spv::Op::OpTypeBool ? 32 : comp->GetSingleWordInOperand(0);
      if (width == 32) {
        leaves->push_back({*path, type_id, Carry::kAsIs, n});
        return true;
      }
      // Whole 32-bit words of smaller parts, or pairs of 64-bit ones.
      if (width == 64 || ((width * n) % 32 == 0 && small_ok(comp))) {
        leaves->push_back({*path, type_id, Carry::kBits, width * n / 32});
        return true;
      }
      for (uint32_t i = 0; i < n; ++i) {
        path->push_back(i);
        bool ok = CollectLeaves(context, type->GetSingleWordInOperand(0), path, leaves, cap, why);
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
          *why =
              "the loaded value has more than " + std::to_string(cap) + " scalar or vector parts";
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
    first_round_ = round == 0;
    const Status status = ProcessRound(round + 1 == kMaxRounds, &deferred);
    if (status == Status::Failure) return status;
    if (status == Status::SuccessWithChange) changed = true;
    if (!deferred) break;
    context()->InvalidateAnalysesExceptFor(spvtools::opt::IRContext::kAnalysisNone);
  }
  return changed ? Status::SuccessWithChange : Status::SuccessWithoutChange;
}

std::vector<BatchUniformLoadsPass::Accepted> BatchUniformLoadsPass::OnePerNest(
    std::vector<Accepted> plans, bool last_round, bool* deferred) {
  std::stable_sort(plans.begin(), plans.end(),
                   [](const Accepted& a, const Accepted& b) { return a.depth > b.depth; });
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
        EmitRemark(RemarkKind::kMissed, "NestedLoopBatched", candidate.plan.function, merge_inst,
                   "more nested levels than one run batches; run the pass "
                   "again to batch this one" +
                       LoopTag(*candidate.plan.loop));
      }
      continue;
    }
    chosen.push_back(candidate);
  }
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](const Accepted& a, const Accepted& b) { return a.order < b.order; });
  return chosen;
}

spvtools::opt::Pass::Status BatchUniformLoadsPass::ProcessRound(bool last_round, bool* deferred) {
  loops_ = std::make_unique<LoopAnalysis>(context());
  module_writes_.reset();
  function_live_.clear();
  caller_live_.clear();
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
  std::string module_reason = ModuleRefusal(&module_why);

  // The first round's module is the one the pass was given: the
  // uniformity the pipeline kept for it, if any.
  std::unique_ptr<UniformityAnalysis> own;
  const UniformityAnalysis& uniformity =
      UniformityOf(context(), first_round_ ? config().uniformity.get() : nullptr, &own);
  std::vector<Accepted> plans;
  for (size_t n = 0; n < loop_merges.size(); ++n) {
    auto [func, merge_inst] = loop_merges[n];
    BasicBlock* header = context()->get_instr_block(merge_inst);
    // Loops batched or reported in an earlier round, and the outer loops
    // the rewrite made, are done.
    if (handled_headers_.count(header->id())) continue;
    spvtools::opt::LoopDescriptor* loops = context()->GetLoopDescriptor(func);
    Loop* loop = (*loops)[header->id()];
    if (loop == nullptr || loop->GetHeaderBlock() != header) continue;
    Plan plan;
    std::string why;
    Instruction* where = merge_inst;
    std::string reason = Analyze(func, loop, uniformity, &plan, &why, &where);
    if (!plan.batched.empty() && ReportsLiveEstimate(plan.cost)) {
      uint32_t words = 0;
      for (const Batched& b : plan.batched) {
        for (const Leaf& leaf : b.leaves) words += leaf.components;
      }
      EmitRemark(
          RemarkKind::kAnalysis, "LiveEstimate", func, merge_inst,
          "about " + std::to_string(plan.live) + " values per lane live in the loop" +
              (plan.caller_live == 0 ? std::string()
                                     : " (" + std::to_string(plan.caller_live) +
                                           " of them held across the calls to its function)") +
              ", " + std::to_string(plan.function_live) +
              " at the kernel's busiest point; the batch holds " + std::to_string(words) +
              LoopTag(*loop));
    }
    if (reason.empty() && !module_reason.empty()) {
      reason = module_reason;
      why = module_why;
    }
    if (plan.no_candidates) continue;  // nothing to say
    if (!reason.empty()) {
      EmitRemark(RemarkKind::kMissed, reason, func, where, why + LoopTag(*loop));
      handled_headers_.insert(header->id());
      continue;
    }
    // The applied remark's site: the loop's merge instruction.
    if (!Selected(func, merge_inst)) {
      handled_headers_.insert(header->id());
      continue;
    }
    plans.push_back({plan, static_cast<uint32_t>(loop->GetDepth()), n});
  }

  // One loop per nest per round, innermost first (that is where loads
  // repeat most); the next round takes the next one.
  std::vector<Accepted> chosen = OnePerNest(std::move(plans), last_round, deferred);
  if (chosen.empty()) return Status::SuccessWithoutChange;

  for (const Accepted& a : chosen) {
    const Plan& plan = a.plan;
    size_t values = 0, parts = 0, words = 0;
    for (const Batched& b : plan.batched) {
      values += b.insts.size();
      parts += b.leaves.size();
      for (const Leaf& leaf : b.leaves) words += leaf.components;
    }
    EmitRemark(RemarkKind::kApplied, "BatchedLoads", plan.function, plan.header->GetLoopMergeInst(),
               std::to_string(values) + " uniform load(s) per iteration (" + std::to_string(parts) +
                   " shuffled part(s)) now load one element per lane per "
                   "batch; each iteration takes its element from the owning "
                   "lane (" +
                   std::to_string(words) + " words per lane)" +
                   (plan.left_to_driver == 0
                        ? std::string()
                        : "; " + std::to_string(plan.left_to_driver) +
                              " load(s) left to the driver (" + plan.left_to_driver_why + ")") +
                   ReadNote(ChooseRead()) + LoopTag(*plan.loop));
  }
  for (const Accepted& a : chosen) {
    handled_headers_.insert(a.plan.header->id());
    uint32_t outer_header = 0;
    if (!Rewrite(a.plan, &outer_header)) return Status::Failure;
    handled_headers_.insert(outer_header);
  }
  return Status::SuccessWithChange;
}

bool BatchUniformLoadsPass::LoadsInCallee(Loop& loop, std::string* why, Instruction** where) {
  // A function call in the loop whose callee reads buffer or image memory:
  // the loads the loop repeats may be there, out of the pass's sight (-O
  // inlines only the functions its inliner takes, lib/inline_loop_callees.h).
  for (BasicBlock* block : loops_->Blocks(loop)) {
    for (Instruction& inst : *block) {
      if (inst.opcode() != spv::Op::OpFunctionCall) continue;
      Function* callee = context()->GetFunction(inst.GetSingleWordInOperand(0));
      if (callee == nullptr) continue;
      const bool loads = !callee->WhileEachInst(
          [&](Instruction* callee_inst) { return !IsMemoryRead(context(), callee_inst); });
      if (!loads) continue;
      *why = "the loop calls " + NameOf(callee->result_id()) +
             ", which loads memory: loads in a called function are not "
             "batched (-O inlines functions called in loops of at most " +
             std::to_string(kInlineLoopCalleeMaxInstructions) + " instructions)";
      *where = &inst;
      return true;
    }
  }
  return false;
}

std::string BatchUniformLoadsPass::AnalyzeShape(Function* func, Loop* loop, Plan* plan,
                                                std::string* why, Instruction** where) {
  auto* def_use = context()->get_def_use_mgr();
  if (!loops_->Shape(func, loop, plan, why, where)) {
    return "UnsupportedLoopShape";
  }
  // Values of the loop used after it, from blocks that do not dominate the
  // back-edge block, travel through a phi of the inner loop's merge: they
  // must be of a type a phi may have.
  for (BasicBlock* block : plan->blocks) {
    if (plan->dominate_latch.count(block->id())) continue;
    for (Instruction& inst : *block) {
      if (inst.result_id() == 0 || inst.type_id() == 0) continue;
      bool outside = false;
      def_use->WhileEachUser(&inst, [&](Instruction* user) {
        BasicBlock* ub = context()->get_instr_block(user);
        if (ub != nullptr && !plan->block_ids.count(ub->id())) outside = true;
        return !outside;
      });
      if (!outside) continue;
      const Instruction* type = def_use->GetDef(inst.type_id());
      switch (type->opcode()) {
        case spv::Op::OpTypePointer:
        case spv::Op::OpTypeImage:
        case spv::Op::OpTypeSampler:
        case spv::Op::OpTypeSampledImage:
          *where = &inst;
          *why = "a pointer or descriptor made in the loop is used after it";
          return "UnsupportedLoopShape";
        default:
          break;
      }
    }
  }
  return "";
}

// What ScanLoads found besides the batched loads: the first refusal, the
// first load whose address differs between lanes, whether any load's
// address changes from iteration to iteration.
struct BatchUniformLoadsPass::LoadScan {
  std::string first_reason, first_why;
  Instruction* first_where = nullptr;
  std::string divergent_why;
  Instruction* divergent_where = nullptr;
  bool any_varying = false;
  void Refuse(const std::string& r, const std::string& w, Instruction* at) {
    if (first_reason.empty()) {
      first_reason = r;
      first_why = w;
      first_where = at;
    }
  }
};

namespace {

// Whether an address computed from |operands| changes with a loop nested in
// |plan|'s loop (that loop's business: it is looked at on its own).
bool ChangesWithInnerLoop(spvtools::opt::IRContext* context, const std::vector<uint32_t>& operands,
                          const LoopShape& plan) {
  auto* def_use = context->get_def_use_mgr();
  std::unordered_set<uint32_t> seen;
  std::vector<uint32_t> stack(operands.begin(), operands.end());
  while (!stack.empty()) {
    const uint32_t id = stack.back();
    stack.pop_back();
    if (!seen.insert(id).second) continue;
    Instruction* d = def_use->GetDef(id);
    BasicBlock* db = d ? context->get_instr_block(d) : nullptr;
    if (db == nullptr || !plan.block_ids.count(db->id())) continue;
    if (d->opcode() == spv::Op::OpPhi) {
      if (db != plan.header && db->GetLoopMergeInst() != nullptr) return true;
      continue;
    }
    d->ForEachInId([&](const uint32_t* op) { stack.push_back(*op); });
  }
  return false;
}

// Whether an address computed from |operands| goes through a load of a
// local the loop stores to (code not in SSA form yet).
bool ThroughLocal(spvtools::opt::IRContext* context, const std::vector<uint32_t>& operands,
                  const LoopShape& plan) {
  auto* def_use = context->get_def_use_mgr();
  std::unordered_set<uint32_t> seen;
  std::vector<uint32_t> stack(operands.begin(), operands.end());
  while (!stack.empty()) {
    const uint32_t id = stack.back();
    stack.pop_back();
    if (!seen.insert(id).second) continue;
    Instruction* d = def_use->GetDef(id);
    BasicBlock* db = d ? context->get_instr_block(d) : nullptr;
    if (db == nullptr || !plan.block_ids.count(db->id())) continue;
    if (d->opcode() == spv::Op::OpLoad &&
        IsPrivateClass(PointerClass(context, d->GetSingleWordInOperand(0)))) {
      return true;
    }
    if (d->opcode() != spv::Op::OpPhi) {
      d->ForEachInId([&](const uint32_t* op) { stack.push_back(*op); });
    }
  }
  return false;
}

}  // namespace

bool BatchUniformLoadsPass::BatchUnits(Instruction* inst, const Batched& b,
                                       std::vector<Batched>* units, std::string* why) {
  auto* def_use = context()->get_def_use_mgr();
  Batched whole = b;
  std::vector<uint32_t> path;
  if (CollectLeaves(context(), inst->type_id(), &path, &whole.leaves, 64, why)) {
    units->push_back(whole);
    return true;
  }
  std::vector<Instruction*> converts;
  bool only_converts = true;
  def_use->ForEachUser(inst, [&](Instruction* user) {
    const spv::Op op = user->opcode();
    if ((op == spv::Op::OpUConvert || op == spv::Op::OpSConvert || op == spv::Op::OpFConvert) &&
        user->GetSingleWordInOperand(0) == inst->result_id()) {
      converts.push_back(user);
    } else {
      only_converts = false;
    }
  });
  std::sort(converts.begin(), converts.end(),
            [](Instruction* x, Instruction* y) { return x->result_id() < y->result_id(); });
  for (Instruction* convert : converts) {
    Batched u = b;
    u.insts = {convert};
    u.leaves.clear();
    std::vector<uint32_t> p2;
    std::string w2;
    if (!CollectLeaves(context(), convert->type_id(), &p2, &u.leaves, 64, &w2)) {
      only_converts = false;
    }
    units->push_back(u);
  }
  return only_converts && !units->empty();
}

std::string BatchUniformLoadsPass::SpeculationRefusal(Instruction* inst, const Plan& plan,
                                                      const std::vector<uint32_t>& operands,
                                                      bool indexed, const LoopExits& exits,
                                                      std::string* why, Instruction** where) {
  bool prefix_only = true;
  for (uint32_t id : operands) {
    bool u = false, ix = false;
    if (!loops_->IsAddressOf(id, plan, plan.ivs, false, &u, &ix)) {
      prefix_only = false;
    }
  }
  const std::string cause = exits.unpredictable ? "the loop may leave on a condition known "
                                                  "only when it runs"
                                                : "the load is conditional";
  if (indexed || !prefix_only) {
    *why = cause +
           ", so elements would be read ahead of time, and the address goes "
           "through another load";
    *where = indexed ? inst : exits.unpredictable_where;
    return "UnprovenBounds";
  }
  std::string bounds_why;
  if (!CanCheckBounds(inst, &bounds_why)) {
    *why = cause + ", so elements would be read ahead of time, and " + bounds_why;
    *where = inst;
    return "UnprovenBounds";
  }
  return "";
}

void BatchUniformLoadsPass::AddUnits(Plan* plan, std::vector<Batched> units, uint32_t cost) {
  for (size_t n = 0; n < units.size(); ++n) {
    Batched& unit = units[n];
    unit.cost = n == 0 ? cost : 0;  // one memory read for all its conversions
    Instruction& value = *unit.insts[0];
    // Reads (or conversions of reads) of the same address share one batch.
    bool shared = false;
    for (Batched& other : plan->batched) {
      Instruction* o = other.insts[0];
      if (o->opcode() != value.opcode() || o->type_id() != value.type_id() ||
          o->NumInOperands() != value.NumInOperands()) {
        continue;
      }
      bool same = true;
      for (uint32_t i = 0; i < value.NumInOperands(); ++i) {
        if (o->GetInOperand(i) != value.GetInOperand(i)) same = false;
      }
      if (!same) continue;
      other.insts.push_back(&value);
      shared = true;
      break;
    }
    if (!shared) plan->batched.push_back(std::move(unit));
  }
}

void BatchUniformLoadsPass::ConsiderLoad(Plan* plan, BasicBlock* block, Instruction* inst,
                                         const UniformityAnalysis& uniformity,
                                         const LoopExits& exits, LoadScan* scan) {
  const bool image = IsImageRead(inst->opcode());
  const std::vector<uint32_t> operands =
      image ? ImageReadOperands(inst) : std::vector<uint32_t>{inst->GetSingleWordInOperand(0)};
  bool invariant = true;
  for (uint32_t id : operands) {
    if (!loops_->IsInvariant(id, *plan, nullptr)) invariant = false;
  }
  if (invariant) return;  // the same element every iteration
  if (ChangesWithInnerLoop(context(), operands, *plan)) return;
  scan->any_varying = true;
  for (uint32_t id : operands) {
    if (uniformity.IsSubgroupUniform(id)) continue;
    if (scan->divergent_where == nullptr) {
      scan->divergent_where = inst;
      scan->divergent_why = "the address differs between lanes";
    }
    return;
  }
  bool uses_iv = false, indexed = false, affine = true;
  for (uint32_t id : operands) {
    if (!loops_->IsAddressOf(id, *plan, plan->ivs, true, &uses_iv, &indexed)) {
      affine = false;
    }
  }
  if (!affine || !uses_iv) {
    scan->Refuse("AddressNotInduction",
                 ThroughLocal(context(), operands, *plan)
                     ? "the address changes from iteration to iteration "
                       "through a local variable the loop stores to (run "
                       "--ssa-rewrite first; waveopt -O does)"
                     : "the address changes from iteration to iteration, but "
                       "not as a function of the loop's counters (it depends "
                       "on values the loop computes, e.g. a list it follows)",
                 inst);
    return;
  }
  Batched b;
  b.insts = {inst};
  b.read = inst;
  b.block = block;
  // What travels: the loaded value, or, for 8/16-bit values of a module
  // that may only store them, the 32-bit conversions the loop makes of it
  // (each its own batched value).
  std::vector<Batched> units;
  std::string why;
  if (!BatchUnits(inst, b, &units, &why)) {
    scan->Refuse("UnsupportedType", why, inst);
    return;
  }
  const LoadHazard hazard = loops_->Hazard(*plan, inst, &why);
  if (hazard != LoadHazard::kNone) {
    scan->Refuse(LoadHazardName(hazard), why, inst);
    return;
  }
  // Read ahead of time for an iteration the original might not reach it
  // in: the loop may leave on a condition the fill cannot evaluate, or the
  // load is conditional.
  const bool speculative = exits.unpredictable || !plan->dominate_latch.count(block->id());
  if (speculative) {
    Instruction* where = nullptr;
    const std::string reason =
        SpeculationRefusal(inst, *plan, operands, indexed, exits, &why, &where);
    if (!reason.empty()) {
      scan->Refuse(reason, why, where);
      return;
    }
  }
  std::vector<size_t> before;
  spvtools::opt::DominatorAnalysis* dom = context()->GetDominatorAnalysis(plan->function);
  for (size_t e = 0; e < plan->exits.size(); ++e) {
    BasicBlock* from = plan->exits[e].from;
    if (from != block && dom->Dominates(from, block)) before.push_back(e);
  }
  for (Batched& unit : units) {
    unit.speculative = speculative;
    unit.before = before;
  }
  // Memory cost per iteration (see the pass doc): a uniform 32-bit load 4
  // units, wider loads and image reads 16 per 16 bytes.
  const uint32_t bytes_words =
      (ComponentsOf(context(), inst->type_id()) + SmallWordsOf(context(), inst->type_id()));
  const uint32_t cost = image ? 16 : (bytes_words <= 1 ? 4 : 16 * ((bytes_words + 3) / 4));
  AddUnits(plan, std::move(units), cost);
}

void BatchUniformLoadsPass::CountRecomputed(Plan* plan) {
  auto* def_use = context()->get_def_use_mgr();
  std::unordered_set<uint32_t> seen;
  std::function<void(uint32_t, int)> count = [&](uint32_t id, int depth) {
    if (depth > 24 || !seen.insert(id).second) return;
    Instruction* inst = def_use->GetDef(id);
    BasicBlock* b = inst ? context()->get_instr_block(inst) : nullptr;
    if (b == nullptr || !plan->block_ids.count(b->id())) return;
    ++plan->recomputed;
    if (inst->opcode() == spv::Op::OpPhi) return;
    inst->ForEachInId([&](const uint32_t* op) { count(*op, depth + 1); });
  };
  for (const LoopExit& e : plan->exits) count(e.cond, 0);
  for (const Batched& b : plan->batched) {
    b.insts[0]->ForEachInId([&](const uint32_t* op) { count(*op, 0); });
  }
}

void BatchUniformLoadsPass::EstimateLive(Plan* plan, const UniformityAnalysis& uniformity) {
  Function* func = plan->function;
  plan->live = LiveEstimate(func, plan->blocks, uniformity);
  auto known = function_live_.find(func->result_id());
  if (known == function_live_.end()) {
    std::vector<BasicBlock*> all;
    for (BasicBlock& b : *func) all.push_back(&b);
    known = function_live_.emplace(func->result_id(), LiveEstimate(func, all, uniformity)).first;
  }
  plan->caller_live = CallerLive(func, uniformity);
  plan->live += plan->caller_live;
  plan->function_live = known->second + plan->caller_live;
}

std::string BatchUniformLoadsPass::Analyze(Function* func, Loop* loop,
                                           const UniformityAnalysis& uniformity, Plan* plan,
                                           std::string* why, Instruction** where) {
  // The pass has something to say only when the loop reads memory at all.
  bool any_memory_load = false;
  for (BasicBlock* loop_block : loops_->Blocks(*loop)) {
    for (Instruction& inst : *loop_block) {
      if (IsMemoryRead(context(), &inst)) any_memory_load = true;
    }
  }
  if (!any_memory_load) {
    if (LoadsInCallee(*loop, why, where)) return "LoadInCallee";
    plan->no_candidates = true;
    return "NoCandidateLoads";
  }

  std::string reason = AnalyzeShape(func, loop, plan, why, where);
  if (!reason.empty()) return reason;

  // Every exit subgroup-uniform: the lanes that enter leave together.
  if (uniformity.LoopExitLevel(plan->header->id()) == Uniformity::kDivergent) {
    *why =
        "lanes may leave the loop at different iterations (an exit test "
        "is not subgroup-uniform)";
    return "LoopTripCountDivergent";
  }
  // Induction variables the fill can step: header phis stepped by a
  // constant addition.
  for (const Induction& iv : loops_->Inductions(*plan)) {
    if (iv.kind == Induction::Kind::kAdd) plan->ivs.push_back(iv);
  }
  const LoopExits exits = loops_->Exits(*plan, plan->ivs);
  plan->exits = exits.predictable;

  // The loads: address from the induction variables and invariants,
  // subgroup-uniform, from memory the loop cannot change.
  LoadScan scan;
  for (BasicBlock* block : plan->blocks) {
    for (Instruction& inst : *block) {
      if (IsMemoryRead(context(), &inst)) {
        ConsiderLoad(plan, block, &inst, uniformity, exits, &scan);
      }
    }
  }
  Instruction* first_left = nullptr;
  // The fact last: -O builds a version only where a fact it read differs.
  const bool scalarizable =
      std::any_of(plan->batched.begin(), plan->batched.end(),
                  [this](const Batched& b) { return !ScalarizableMemory(b.read).empty(); });
  if (scalarizable && config().Fact(&TargetFacts::scalar_uniform_loads)) {
    first_left = plan->batched[0].read;
    LeaveScalarLoadsToDriver(plan);
  }
  if (plan->batched.empty() && plan->left_to_driver > 0) {
    *why = plan->left_to_driver_why;
    *where = first_left;
    return "DriverScalarizes";
  }
  if (plan->batched.empty()) {
    if (!scan.first_reason.empty()) {
      *why = scan.first_why;
      *where = scan.first_where;
      return scan.first_reason;
    }
    if (scan.divergent_where != nullptr) {
      *why = scan.divergent_why;
      *where = scan.divergent_where;
      return "DivergentAddress";
    }
    if (!scan.any_varying && LoadsInCallee(*loop, why, where)) {
      return "LoadInCallee";
    }
    plan->no_candidates = true;
    return "NoCandidateLoads";
  }

  // Trip count of the first batched load: the exits that compare a counter
  // with a constant, run from a constant start.
  const TripCount trips = loops_->CountTrips(*plan, plan->ivs, exits, plan->batched[0].before);
  plan->trips = trips.exact;
  plan->max_trips = trips.at_most;
  CountRecomputed(plan);
  EstimateLive(plan, uniformity);
  plan->exit_form = ExitFormOf(*plan, exits);
  plan->cost = CostRule(*plan, why);
  return CostName(plan->cost);
}

BatchUniformLoadsPass::ExitForm BatchUniformLoadsPass::ExitFormOf(const Plan& plan,
                                                                  const LoopExits& exits) {
  if (exits.unpredictable || plan.exits.size() != 1 || plan.exit_sources.size() != 1) {
    return ExitForm::kTwoExits;
  }
  // Not inside another loop: there, lavapipe (Mesa 22.3) computed wrong
  // results for the one-exit form at subgroup sizes 8 and 16 where the
  // simulator computed the original's at every size (the PCF loop of
  // test/diff/corpus/loop_fog_cascades.comp, nested in a loop with divergent
  // `continue`s); the cause is not known, so the form is not used there.
  if (plan.loop != nullptr && plan.loop->GetParent() != nullptr) {
    return ExitForm::kTwoExits;
  }
  const LoopExit& exit = plan.exits[0];
  BasicBlock* from = exit.from;
  const Instruction* branch = from->terminator();
  if (branch->opcode() != spv::Op::OpBranchConditional ||
      branch->GetSingleWordInOperand(0) != exit.cond) {
    return ExitForm::kTwoExits;
  }
  const uint32_t stay = branch->GetSingleWordInOperand(exit.fires_when_true ? 2 : 1);
  const uint32_t leave = branch->GetSingleWordInOperand(exit.fires_when_true ? 1 : 2);
  // The exit goes to the merge block, or through a block that only
  // branches there (a `break` of glslang's `for (;;) { if (..) break; }`).
  BasicBlock* source = plan.exit_sources[0];
  const bool direct = source == from && leave == plan.merge->id();
  if (!direct && !(leave == source->id() && IsBreakBlock(plan, source))) {
    return ExitForm::kTwoExits;
  }
  if (stay == plan.merge->id() || stay == leave) return ExitForm::kTwoExits;
  if (from == plan.latch) {
    return stay == plan.header->id() ? ExitForm::kAtLatch : ExitForm::kTwoExits;
  }
  return TopRepeatable(plan, from) ? ExitForm::kAtHeader : ExitForm::kTwoExits;
}

namespace {

// How many branches of the loop's blocks go to each block (blocks of the
// loop other than the header are entered from the loop only).
std::unordered_map<uint32_t, int> LoopPreds(const LoopShape& plan) {
  std::unordered_map<uint32_t, int> preds;
  for (BasicBlock* b : plan.blocks) {
    b->ForEachSuccessorLabel([&](const uint32_t succ) { ++preds[succ]; });
  }
  return preds;
}

}  // namespace

bool BatchUniformLoadsPass::IsBreakBlock(const Plan& plan, BasicBlock* block) {
  if (block == plan.header || LoopPreds(plan)[block->id()] != 1) return false;
  for (const Instruction& inst : *block) {
    if (inst.opcode() == spv::Op::OpBranch) {
      return inst.GetSingleWordInOperand(0) == plan.merge->id();
    }
    if (MemoryEffectOf(context(), &inst) != MemoryEffect::kNone ||
        inst.opcode() == spv::Op::OpPhi || inst.result_id() != 0) {
      return false;
    }
  }
  return false;
}

bool BatchUniformLoadsPass::TopRepeatable(const Plan& plan, BasicBlock* from) {
  std::unordered_map<uint32_t, int> preds = LoopPreds(plan);
  BasicBlock* block = plan.header;
  while (RunsTwiceAlike(block)) {
    if (block == from) return true;
    const Instruction* branch = block->terminator();
    if (branch->opcode() != spv::Op::OpBranch) return false;
    const uint32_t next = branch->GetSingleWordInOperand(0);
    if (!plan.block_ids.count(next) || next == plan.header->id() || preds[next] != 1) {
      return false;
    }
    block = context()->get_instr_block(next);
  }
  return false;
}

bool BatchUniformLoadsPass::RunsTwiceAlike(const BasicBlock* block) {
  for (const Instruction& inst : *block) {
    switch (MemoryEffectOf(context(), &inst)) {
      case MemoryEffect::kNone:
        break;
      case MemoryEffect::kRead:
        // The first run's values are never used (the branch no longer
        // reads them): a read may run twice unless it is an access of its
        // own (volatile, atomic).
        if (inst.opcode() == spv::Op::OpAtomicLoad) return false;
        if (inst.opcode() != spv::Op::OpLoad) break;
        if (inst.NumInOperands() > 1 &&
            (inst.GetSingleWordInOperand(1) &
             static_cast<uint32_t>(spv::MemoryAccessMask::Volatile)) != 0) {
          return false;
        }
        break;
      default:
        return false;
    }
  }
  return true;
}

const BatchUniformLoadsPass::ModuleWrites& BatchUniformLoadsPass::WrittenByModule() {
  if (module_writes_ != nullptr) return *module_writes_;
  module_writes_ = std::make_unique<ModuleWrites>();
  ModuleWrites& w = *module_writes_;
  for (Function& func : *get_module()) {
    for (BasicBlock& block : func) {
      for (Instruction& inst : block) {
        const MemoryEffect effect = MemoryEffectOf(context(), &inst);
        if (effect == MemoryEffect::kUnknown) w.unknown = true;
        if (effect != MemoryEffect::kWrite) continue;
        const int operand = WrittenOperand(context(), &inst);
        if (operand < 0) continue;  // outputs, payloads: no buffer
        const uint32_t id = inst.GetSingleWordInOperand(operand);
        Instruction* root = PointerClass(context(), id) == spv::StorageClass::Max
                                ? ImageVariable(context(), id)
                                : RootVariable(context(), id);
        if (root == nullptr) {
          w.unknown = true;
        } else {
          w.roots.insert(root->result_id());
        }
      }
    }
  }
  return w;
}

std::string BatchUniformLoadsPass::ScalarizableMemory(Instruction* read) {
  if (read->opcode() != spv::Op::OpLoad) return "";  // image reads
  Instruction* var = RootVariable(context(), read->GetSingleWordInOperand(0));
  if (var == nullptr) return "";
  auto* def_use = context()->get_def_use_mgr();
  Instruction* ptr_type = def_use->GetDef(var->type_id());
  Instruction* block =
      ptr_type == nullptr ? nullptr : def_use->GetDef(ptr_type->GetSingleWordInOperand(1));
  // Arrays of blocks (descriptor arrays) are left out: not measured.
  if (block == nullptr || block->opcode() != spv::Op::OpTypeStruct) return "";
  const auto sc = static_cast<spv::StorageClass>(var->GetSingleWordInOperand(0));
  const bool buffer_block =
      HasDecoration(context(), block->result_id(), spv::Decoration::BufferBlock);
  if (sc == spv::StorageClass::Uniform && !buffer_block &&
      HasDecoration(context(), block->result_id(), spv::Decoration::Block)) {
    return "a uniform buffer";
  }
  if (sc != spv::StorageClass::StorageBuffer &&
      !(sc == spv::StorageClass::Uniform && buffer_block)) {
    return "";
  }
  bool members_read_only = block->NumInOperands() > 0;
  for (uint32_t m = 0; m < block->NumInOperands(); ++m) {
    if (!HasMemberDecoration(context(), block->result_id(), m, spv::Decoration::NonWritable)) {
      members_read_only = false;
    }
  }
  if (members_read_only ||
      HasDecoration(context(), var->result_id(), spv::Decoration::NonWritable)) {
    return "a storage buffer decorated NonWritable";
  }
  const ModuleWrites& writes = WrittenByModule();
  if (!writes.unknown && !writes.roots.count(var->result_id())) {
    return "a storage buffer no instruction of the module writes";
  }
  return "";
}

void BatchUniformLoadsPass::LeaveScalarLoadsToDriver(Plan* plan) {
  std::vector<Batched> kept;
  for (Batched& b : plan->batched) {
    const std::string memory = ScalarizableMemory(b.read);
    if (memory.empty()) {
      kept.push_back(std::move(b));
      continue;
    }
    plan->left_to_driver += static_cast<uint32_t>(b.insts.size());
    if (plan->left_to_driver_why.empty()) {
      plan->left_to_driver_why =
          TargetFlag() + ": the load reads " + memory + " at a subgroup-uniform address, which " +
          (config().target == Target::kAmd ? "RADV" : "AMD's driver (RADV)") +
          " loads with scalar loads (s_buffer_load: one request per wave, no "
          "vector registers; fact scalar-uniform-loads)";
    }
  }
  plan->batched = std::move(kept);
}

uint32_t BatchUniformLoadsPass::CallerLive(Function* func, const UniformityAnalysis& uniformity,
                                           int depth) {
  auto known = caller_live_.find(func->result_id());
  if (known != caller_live_.end()) return known->second;
  uint32_t most = 0;
  if (depth < 8) {
    caller_live_[func->result_id()] = 0;  // recursion (invalid SPIR-V) ends here
    for (Function& caller : *get_module()) {
      for (BasicBlock& block : caller) {
        for (Instruction& inst : block) {
          if (inst.opcode() != spv::Op::OpFunctionCall ||
              inst.GetSingleWordInOperand(0) != func->result_id()) {
            continue;
          }
          uint32_t across = 0;
          LiveEstimate(&caller, {&block}, uniformity, &inst, &across);
          most = std::max(most, across + CallerLive(&caller, uniformity, depth + 1));
        }
      }
    }
  }
  caller_live_[func->result_id()] = most;
  return most;
}

uint32_t BatchUniformLoadsPass::LiveEstimate(Function* func, const std::vector<BasicBlock*>& blocks,
                                             const UniformityAnalysis& uniformity,
                                             const Instruction* at, uint32_t* at_live) {
  // SPIRV-Tools' liveness gives each block's live-out set; a backward walk
  // through the block finds its busiest point. Values are weighted by the
  // 32-bit words they hold.
  const spvtools::opt::RegisterLiveness* liveness = context()->GetLivenessAnalysis()->Get(func);
  if (liveness == nullptr) return 0;
  // Subgroup-uniform integers live in scalar registers; floating-point
  // values do not (GPUs without scalar float arithmetic compute them in
  // vector registers even when every lane holds the same value).
  auto has_float = [&](uint32_t type_id) {
    Instruction* t = context()->get_def_use_mgr()->GetDef(type_id);
    for (int depth = 0; t != nullptr && depth < 8; ++depth) {
      switch (t->opcode()) {
        case spv::Op::OpTypeFloat:
          return true;
        case spv::Op::OpTypeVector:
        case spv::Op::OpTypeMatrix:
        case spv::Op::OpTypeArray:
          t = context()->get_def_use_mgr()->GetDef(t->GetSingleWordInOperand(0));
          break;
        case spv::Op::OpTypeStruct:
          return true;  // conservatively
        default:
          return false;
      }
    }
    return false;
  };
  // A subgroup-uniform value read from memory (and parts of one) stays in
  // scalar registers whatever its type: drivers load it with scalar loads
  // and use it as an operand directly. Image reads return vector registers.
  std::function<bool(const Instruction*, int)> scalar_read = [&](const Instruction* inst,
                                                                 int depth) -> bool {
    if (depth > 4) return false;
    switch (inst->opcode()) {
      case spv::Op::OpLoad:
        return true;
      case spv::Op::OpCompositeExtract:
      case spv::Op::OpCompositeConstruct:
      case spv::Op::OpVectorShuffle:
      case spv::Op::OpBitcast:
      case spv::Op::OpCopyObject:
      // SPIR-V 1.4+: glslang copies a loaded block struct into its
      // function-layout twin with OpCopyLogical where older versions
      // extract and reconstruct it; same registers either way.
      case spv::Op::OpCopyLogical: {
        bool all = true;
        inst->ForEachInId([&](const uint32_t* id) {
          const Instruction* d = context()->get_def_use_mgr()->GetDef(*id);
          if (d == nullptr || d->type_id() == 0) return;  // a type or constant
          if (d->opcode() == spv::Op::OpConstant || d->opcode() == spv::Op::OpConstantComposite) {
            return;
          }
          if (!uniformity.IsSubgroupUniform(d->result_id()) || !scalar_read(d, depth + 1)) {
            all = false;
          }
        });
        return all;
      }
      default:
        return false;
    }
  };
  // A value read from an input variable (a compute shader's are the
  // invocation ids), and parts of one, count nothing: drivers preload the
  // ids in registers at wave launch and hold them to their last use,
  // wherever the module reads them. GLSL reads gl_GlobalInvocationID again
  // after a loop, HLSL's entry point copies SV_DispatchThreadID before it:
  // the same registers (measured with RADV), now the same estimate.
  std::function<bool(const Instruction*, int)> from_input = [&](const Instruction* inst,
                                                                int depth) -> bool {
    if (depth > 4) return false;
    switch (inst->opcode()) {
      case spv::Op::OpLoad: {
        const Instruction* base = inst->GetBaseAddress();
        return base != nullptr && base->opcode() == spv::Op::OpVariable &&
               spv::StorageClass(base->GetSingleWordInOperand(0)) == spv::StorageClass::Input;
      }
      case spv::Op::OpCompositeExtract:
      case spv::Op::OpVectorShuffle:
      case spv::Op::OpBitcast:
      case spv::Op::OpCopyObject:
      case spv::Op::OpCopyLogical: {
        bool all = true;
        inst->ForEachInId([&](const uint32_t* id) {
          const Instruction* d = context()->get_def_use_mgr()->GetDef(*id);
          if (d == nullptr || !from_input(d, depth + 1)) all = false;
        });
        return all;
      }
      default:
        return false;
    }
  };
  auto compute_weight = [&](const Instruction* inst) -> uint32_t {
    if (inst->result_id() == 0 || inst->type_id() == 0) return 0;
    if (from_input(inst, 0)) return 0;
    if (uniformity.IsSubgroupUniform(inst->result_id()) &&
        (!has_float(inst->type_id()) || scalar_read(inst, 0))) {
      return 0;
    }
    return ComponentsOf(context(), inst->type_id());
  };
  // Compile time: a value's weight is asked for in every block it is live
  // in, and the live set changes at every instruction; both by result id
  // (a weight once, the set as stamps of the block being walked).
  const uint32_t bound = context()->module()->IdBound();
  constexpr uint32_t kNoWeight = ~0u;
  std::vector<uint32_t> weights(bound, kNoWeight);
  auto weight = [&](const Instruction* inst) -> uint32_t {
    const uint32_t id = inst->result_id();
    if (id == 0 || id >= bound) return compute_weight(inst);
    if (weights[id] == kNoWeight) weights[id] = compute_weight(inst);
    return weights[id];
  };
  std::vector<uint32_t> live_in_block(bound, 0);
  uint32_t stamp = 0;
  uint32_t peak = 0;
  for (BasicBlock* block : blocks) {
    const auto* region = liveness->Get(block);
    if (region == nullptr) continue;
    ++stamp;
    uint32_t now = 0;
    auto insert = [&](const Instruction* inst) {
      if (live_in_block[inst->result_id()] == stamp) return;
      live_in_block[inst->result_id()] = stamp;
      now += weight(inst);
    };
    for (const Instruction* inst : region->live_out_) insert(inst);
    peak = std::max(peak, now);
    for (auto it = block->rbegin(); it != block->rend(); ++it) {
      Instruction* inst = &*it;
      if (inst->opcode() == spv::Op::OpPhi) break;
      if (inst->result_id() != 0 && live_in_block[inst->result_id()] == stamp) {
        live_in_block[inst->result_id()] = 0;
        now -= weight(inst);
      }
      if (inst == at && at_live != nullptr) *at_live = now;
      inst->ForEachInId([&](const uint32_t* id) {
        Instruction* def = context()->get_def_use_mgr()->GetDef(*id);
        if (def == nullptr || context()->get_instr_block(def) == nullptr) return;
        insert(def);
      });
      peak = std::max(peak, now);
    }
  }
  return peak;
}

const char* BatchUniformLoadsPass::CostName(Cost cost) {
  static const char* const kCostNames[] = {
      "NotCosted",     "", "ShortLoop", "UnrolledByDriver", "TooManyComponents", "RegisterPressure",
      "NotProfitable",
  };
  return kCostNames[static_cast<int>(cost)];
}

bool BatchUniformLoadsPass::ReportsLiveEstimate(Cost cost) {
  return cost == Cost::kPays || cost == Cost::kTooManyComponents ||
         cost == Cost::kRegisterPressure || cost == Cost::kNotProfitable;
}

BatchUniformLoadsPass::Cost BatchUniformLoadsPass::CostRule(const Plan& plan, std::string* why) {
  uint32_t components = 0;
  uint32_t memory_cost = 0;
  for (const Batched& b : plan.batched) {
    for (const Leaf& leaf : b.leaves) components += leaf.components;
    memory_cost += b.cost;
  }
  if (plan.max_trips >= 0 && plan.max_trips < static_cast<int64_t>(params_.min_trip)) {
    *why = "the loop runs " + std::string(plan.trips >= 0 ? "" : "at most ") +
           std::to_string(plan.max_trips) +
           " times, fewer than min-trip=" + std::to_string(params_.min_trip);
    return Cost::kShortLoop;
  }
  if (params_.always) return Cost::kPays;
  if (RunsInOneInvocation(context(), plan.function, plan.header)) {
    *why =
        "the loop runs in one invocation of its subgroup (it is under a test that the "
        "invocation's index equals a constant): a batch would hold one lane's elements";
    return Cost::kNotProfitable;
  }
  Instruction* merge_inst = plan.header->GetLoopMergeInst();
  const bool dont_unroll = (merge_inst->GetSingleWordInOperand(2) &
                            static_cast<uint32_t>(spv::LoopControlMask::DontUnroll)) != 0;
  if (plan.trips >= 0 && plan.trips <= static_cast<int64_t>(params_.driver_unroll) &&
      !dont_unroll) {
    *why = "the loop runs a constant " + std::to_string(plan.trips) +
           " times: drivers unroll it and load its elements with scalar "
           "loads at constant offsets (driver-unroll=" +
           std::to_string(params_.driver_unroll) + ")";
    return Cost::kUnrolledByDriver;
  }
  if (components > params_.max_components) {
    *why = "a batch would hold " + std::to_string(components) +
           " 32-bit values per lane across the loop, more than "
           "max-components=" +
           std::to_string(params_.max_components);
    return Cost::kTooManyComponents;
  }
  // The kernel's busiest point after the rewrite: the loop's with the
  // batch held across it (and two values of bookkeeping), or elsewhere.
  const uint32_t after = std::max(plan.function_live, plan.live + components + 2);
  if (after > std::max(params_.max_live, plan.function_live)) {
    *why = "about " + std::to_string(plan.live) +
           " values per lane are live in the loop already (the kernel's "
           "busiest point: " +
           std::to_string(plan.function_live) + "); with the batch (" + std::to_string(components) +
           ") that is more than max-live=" + std::to_string(params_.max_live) +
           ", which would cost occupancy";
    return Cost::kRegisterPressure;
  }
  // Per execution of the loop, in wave instruction issues (see the doc).
  const int64_t t = plan.trips >= 0 ? plan.trips : plan.max_trips >= 0 ? plan.max_trips : 256;
  const int64_t batches = (t + 31) / 32;
  const int64_t removed = static_cast<int64_t>(memory_cost) * (t - batches);
  const int64_t added =
      t * (components + 2) + batches * (8 + static_cast<int64_t>(plan.recomputed)) + 8;
  if (removed <= added) {
    *why = "over " + std::to_string(t) + " iterations the rewrite removes " +
           std::to_string(removed) + " units of memory issue and adds " + std::to_string(added) +
           " units of shuffles and bookkeeping";
    return Cost::kNotProfitable;
  }
  return Cost::kPays;
}

namespace {

// A chain of access chains from a variable, flattened: the indices in order
// from the variable's pointee type. False for chains with a pointer-level
// index (OpPtrAccessChain) or anything else between.
bool FlattenChain(spvtools::opt::IRContext* context, uint32_t ptr, Instruction** root,
                  std::vector<uint32_t>* indices) {
  auto* def_use = context->get_def_use_mgr();
  std::vector<std::vector<uint32_t>> parts;
  for (int depth = 0; depth < 32; ++depth) {
    Instruction* inst = def_use->GetDef(ptr);
    if (inst == nullptr) return false;
    if (inst->opcode() == spv::Op::OpVariable) {
      *root = inst;
      indices->clear();
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        indices->insert(indices->end(), it->begin(), it->end());
      }
      return true;
    }
    if (inst->opcode() == spv::Op::OpCopyObject) {
      ptr = inst->GetSingleWordInOperand(0);
      continue;
    }
    if (inst->opcode() != spv::Op::OpAccessChain &&
        inst->opcode() != spv::Op::OpInBoundsAccessChain) {
      return false;
    }
    std::vector<uint32_t> part;
    for (uint32_t i = 1; i < inst->NumInOperands(); ++i) {
      part.push_back(inst->GetSingleWordInOperand(i));
    }
    parts.push_back(part);
    ptr = inst->GetSingleWordInOperand(0);
  }
  return false;
}

}  // namespace

bool BatchUniformLoadsPass::CanCheckBounds(Instruction* inst, std::string* why) {
  auto* def_use = context()->get_def_use_mgr();
  const spv::Op op = inst->opcode();
  if (op == spv::Op::OpImageSampleExplicitLod || op == spv::Op::OpImageSampleDrefExplicitLod ||
      op == spv::Op::OpImageGather || op == spv::Op::OpImageDrefGather) {
    return true;  // a sampler's addressing keeps every read inside the image
  }
  if (op == spv::Op::OpImageFetch || op == spv::Op::OpImageRead) {
    Instruction* image = def_use->GetDef(inst->GetSingleWordInOperand(0));
    Instruction* type = image ? def_use->GetDef(image->type_id()) : nullptr;
    if (type == nullptr || type->opcode() != spv::Op::OpTypeImage) {
      *why = "the image's size cannot be queried";
      return false;
    }
    const auto dim = spv::Dim(type->GetSingleWordInOperand(1));
    if (type->GetSingleWordInOperand(4) != 0 ||
        !(dim == spv::Dim::Dim1D || dim == spv::Dim::Dim2D || dim == spv::Dim::Dim3D ||
          dim == spv::Dim::Buffer || dim == spv::Dim::Rect)) {
      *why =
          "the image is multisampled or of a dimension whose size the "
          "pass does not check";
      return false;
    }
    if (inst->NumInOperands() > 2) {
      const uint32_t mask = inst->GetSingleWordInOperand(2);
      if (mask & ~static_cast<uint32_t>(spv::ImageOperandsMask::Lod)) {
        *why = "the read has image operands besides a level of detail";
        return false;
      }
      uint64_t lod = 1;
      if (!IntConstant(context(), def_use->GetDef(inst->GetSingleWordInOperand(3)), &lod) ||
          lod != 0) {
        *why = "the read is not from level 0";
        return false;
      }
    }
    return true;
  }
  // A load: every dynamic index checked against its array's length.
  Instruction* root = nullptr;
  std::vector<uint32_t> indices;
  if (!FlattenChain(context(), inst->GetSingleWordInOperand(0), &root, &indices)) {
    *why = PointerClass(context(), inst->GetSingleWordInOperand(0)) ==
                   spv::StorageClass::PhysicalStorageBuffer
               ? "a buffer device address has no length to check against"
               : "the address is not an access chain from a variable";
    return false;
  }
  Instruction* type = def_use->GetDef(def_use->GetDef(root->type_id())->GetSingleWordInOperand(1));
  for (size_t i = 0; i < indices.size(); ++i) {
    switch (type->opcode()) {
      case spv::Op::OpTypeStruct: {
        uint64_t m = 0;
        if (!IntConstant(context(), def_use->GetDef(indices[i]), &m)) return false;
        type = def_use->GetDef(type->GetSingleWordInOperand(static_cast<uint32_t>(m)));
        break;
      }
      case spv::Op::OpTypeArray: {
        uint64_t n = 0;
        if (!IntConstant(context(), def_use->GetDef(type->GetSingleWordInOperand(1)), &n)) {
          *why = "an array's length is a specialization constant";
          return false;
        }
        type = def_use->GetDef(type->GetSingleWordInOperand(0));
        break;
      }
      case spv::Op::OpTypeRuntimeArray:
        // Only the block's own trailing array (OpArrayLength of the
        // variable), not an array of descriptors.
        if (i != 1) {
          *why = "the runtime array is not a member of the variable's block";
          return false;
        }
        type = def_use->GetDef(type->GetSingleWordInOperand(0));
        break;
      case spv::Op::OpTypeVector:
      case spv::Op::OpTypeMatrix:
        type = def_use->GetDef(type->GetSingleWordInOperand(0));
        break;
      default:
        *why = "the address indexes a type the pass does not check";
        return false;
    }
  }
  return true;
}

uint32_t BatchUniformLoadsPass::BoundsCheck(Instruction* inst, const Plan& plan, BasicBlock* block,
                                            std::unordered_map<uint32_t, uint32_t>* map) {
  auto* def_use = context()->get_def_use_mgr();
  Emitter e(context(), block);
  const uint32_t bool_type = e.BoolType();
  std::vector<uint32_t> conds;
  // idx <u n, in |idx|'s width.
  auto less = [&](uint32_t idx, uint32_t n_id_or_zero, uint64_t n) -> bool {
    Instruction* idx_def = def_use->GetDef(idx);
    const Instruction* itype = def_use->GetDef(idx_def->type_id());
    if (itype->opcode() != spv::Op::OpTypeInt) return false;
    const uint32_t width = itype->GetSingleWordInOperand(0);
    uint64_t c = 0;
    if (n_id_or_zero == 0 && IntConstant(context(), idx_def, &c)) {
      return MaskTo(c, width) < n;  // a constant index: checked here
    }
    const uint32_t utype = e.UIntType(width);
    uint32_t v = loops_->CloneAt(idx, plan, block, map);
    if (v == 0) return false;
    if (itype->GetSingleWordInOperand(1) != 0) {
      v = e.EmitIds(spv::Op::OpBitcast, utype, {v});
    }
    uint32_t bound = n_id_or_zero;
    if (bound == 0) {
      bound = width == 64
                  ? e.Constant(utype, {static_cast<uint32_t>(n), static_cast<uint32_t>(n >> 32)})
                  : e.UInt(static_cast<uint32_t>(n));
    } else if (width == 64) {
      bound = e.EmitIds(spv::Op::OpUConvert, utype, {bound});
    }
    conds.push_back(e.EmitIds(spv::Op::OpULessThan, bool_type, {v, bound}));
    return e.ok();
  };
  const spv::Op op = inst->opcode();
  if (op == spv::Op::OpImageSampleExplicitLod || op == spv::Op::OpImageSampleDrefExplicitLod ||
      op == spv::Op::OpImageGather || op == spv::Op::OpImageDrefGather) {
    return e.Bool(true);
  }
  if (op == spv::Op::OpImageFetch || op == spv::Op::OpImageRead) {
    context()->AddCapability(spv::Capability::ImageQuery);
    Instruction* image_def = def_use->GetDef(inst->GetSingleWordInOperand(0));
    Instruction* type = def_use->GetDef(image_def->type_id());
    const auto dim = spv::Dim(type->GetSingleWordInOperand(1));
    const uint32_t image = loops_->CloneAt(image_def->result_id(), plan, block, map);
    const uint32_t coord = loops_->CloneAt(inst->GetSingleWordInOperand(1), plan, block, map);
    if (image == 0 || coord == 0) return 0;
    const Instruction* ctype = def_use->GetDef(def_use->GetDef(coord)->type_id());
    const uint32_t n =
        ctype->opcode() == spv::Op::OpTypeVector ? ctype->GetSingleWordInOperand(1) : 1;
    const uint32_t utype = n == 1 ? e.UIntType(32) : e.UIntVectorType(n);
    const bool sampled = type->GetSingleWordInOperand(5) == 1;
    uint32_t size = 0;
    if (sampled && dim != spv::Dim::Buffer && dim != spv::Dim::Rect) {
      size = e.EmitIds(spv::Op::OpImageQuerySizeLod, utype, {image, e.UInt(0)});
    } else {
      size = e.EmitIds(spv::Op::OpImageQuerySize, utype, {image});
    }
    uint32_t ucoord = coord;
    const Instruction* scalar = n == 1 ? ctype : def_use->GetDef(ctype->GetSingleWordInOperand(0));
    if (scalar->GetSingleWordInOperand(1) != 0) {
      ucoord = e.EmitIds(spv::Op::OpBitcast, utype, {coord});
    }
    const uint32_t cmp_type = n == 1 ? bool_type : 0;
    uint32_t inside = 0;
    if (n == 1) {
      inside = e.EmitIds(spv::Op::OpULessThan, cmp_type, {ucoord, size});
    } else {
      spvtools::opt::analysis::Bool b;
      spvtools::opt::analysis::Vector bv(&b, n);
      const uint32_t bvec = context()->get_type_mgr()->GetTypeInstruction(&bv);
      if (bvec == 0) return 0;
      inside = e.EmitIds(spv::Op::OpAll, bool_type,
                         {e.EmitIds(spv::Op::OpULessThan, bvec, {ucoord, size})});
    }
    return e.ok() ? inside : 0;
  }
  Instruction* root = nullptr;
  std::vector<uint32_t> indices;
  if (!FlattenChain(context(), inst->GetSingleWordInOperand(0), &root, &indices)) {
    return 0;
  }
  Instruction* type = def_use->GetDef(def_use->GetDef(root->type_id())->GetSingleWordInOperand(1));
  uint32_t member = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    switch (type->opcode()) {
      case spv::Op::OpTypeStruct: {
        uint64_t m = 0;
        IntConstant(context(), def_use->GetDef(indices[i]), &m);
        member = static_cast<uint32_t>(m);
        type = def_use->GetDef(type->GetSingleWordInOperand(member));
        break;
      }
      case spv::Op::OpTypeArray: {
        uint64_t n = 0;
        IntConstant(context(), def_use->GetDef(type->GetSingleWordInOperand(1)), &n);
        if (!less(indices[i], 0, n)) return 0;
        type = def_use->GetDef(type->GetSingleWordInOperand(0));
        break;
      }
      case spv::Op::OpTypeRuntimeArray: {
        const uint32_t length = e.Emit(spv::Op::OpArrayLength, e.UIntType(32),
                                       {{SPV_OPERAND_TYPE_ID, {root->result_id()}},
                                        {SPV_OPERAND_TYPE_LITERAL_INTEGER, {member}}});
        if (length == 0 || !less(indices[i], length, 0)) return 0;
        type = def_use->GetDef(type->GetSingleWordInOperand(0));
        break;
      }
      case spv::Op::OpTypeVector:
      case spv::Op::OpTypeMatrix:
        if (!less(indices[i], 0, type->GetSingleWordInOperand(1))) return 0;
        type = def_use->GetDef(type->GetSingleWordInOperand(0));
        break;
      default:
        return 0;
    }
  }
  if (conds.empty()) return e.Bool(true);
  uint32_t all = conds[0];
  for (size_t i = 1; i < conds.size(); ++i) {
    all = e.EmitIds(spv::Op::OpLogicalAnd, bool_type, {all, conds[i]});
  }
  return e.ok() ? all : 0;
}

namespace {

// The value |phi| takes from |block_id|, or 0.
uint32_t IncomingFrom(const Instruction* phi, uint32_t block_id) {
  for (uint32_t i = 0; i + 1 < phi->NumInOperands(); i += 2) {
    if (phi->GetSingleWordInOperand(i + 1) == block_id) {
      return phi->GetSingleWordInOperand(i);
    }
  }
  return 0;
}

}  // namespace

bool BatchUniformLoadsPass::CanBroadcast() const {
  // OpGroupNonUniformBroadcast takes a dynamically uniform lane from SPIR-V
  // 1.5; GLSL's subgroupBroadcast only a constant one, and SPIRV-Cross's
  // HLSL of it does not compile, so source output keeps the shuffle.
  return get_module()->version() >= SPV_SPIRV_VERSION_WORD(1, 5) && !config().emit_glsl &&
         !config().emit_hlsl;
}

namespace {

// lavapipe runs a subgroup as one LLVM vector of SubgroupSize 32-bit lanes.
// At 8 lanes (one 256-bit AVX register: lavapipe's own subgroup size on an
// AVX host) LLVM lowers a shuffle of a non-constant lane to one permute; at
// 4 and 16 lanes it is lowered lane by lane. light_loop on this host
// (docs/design/batch-uniform-loads.md, the cpu profile): the shuffle batch
// ran 2.6x faster than the broadcast batch at 8 lanes and 4-5x slower at 16.
// Measured on one AVX2 host only: where another host's vector register holds
// more lanes (AVX-512), the size at which the shuffle is one permute may
// differ.
constexpr uint32_t kCpuShuffleLanes = 8;

}  // namespace

std::string BatchUniformLoadsPass::ReadNote(Read read) {
  const std::string lanes = std::to_string(kCpuShuffleLanes);
  switch (read) {
    case Read::kShuffleOrBroadcast:
      return "; read by subgroup size: a shuffle at " + lanes + " lanes, else a broadcast";
    case Read::kShuffleOrFirst:
      return "; read by subgroup size: a shuffle at " + lanes +
             " lanes, else batches of one element read from the first lane";
    default:
      return "";
  }
}

BatchUniformLoadsPass::Read BatchUniformLoadsPass::ChooseRead() const {
  using ReadParam = Params::ReadParam;
  const ReadParam forced = params_.read;
  if (forced == ReadParam::kShuffle) return Read::kShuffle;
  if (forced == ReadParam::kShuffleOrFirst) return Read::kShuffleOrFirst;
  if (forced == ReadParam::kShuffleOrBroadcast ||
      (forced == ReadParam::kChosen && config().Fact(&TargetFacts::shuffle_fast_only_at_8))) {
    return CanBroadcast() ? Read::kShuffleOrBroadcast : Read::kShuffleOrFirst;
  }
  return CanBroadcast() ? Read::kBroadcast : Read::kShuffle;
}

// What the steps of Rewrite share: the ids and blocks one step makes and a
// later one uses.
struct BatchUniformLoadsPass::RewriteState {
  explicit RewriteState(const Plan& p) : plan(p) {}
  const Plan& plan;
  Read read = Read::kShuffle;
  // The read by size: SubgroupSize == kCpuShuffleLanes, in the preheader.
  uint32_t shuffle_here = 0;
  std::vector<Instruction*> header_phis;
  BasicBlock* pre = nullptr;  // enters only the loop
  // Types and the preheader's ballot (see the header comment).
  uint32_t uint_type = 0, bool_type = 0, v4uint = 0;
  uint32_t rank = 0, first_lane = 0, batch = 0;
  // The outer loop over batches around the loop, and the blocks the
  // builder made for it: the fill (its body's first block, before the
  // loop's header), the fill's last block, the loop's new merge.
  Emitter::Loop outer;
  BasicBlock* fill = nullptr;
  BasicBlock* last_fill = nullptr;
  BasicBlock* inner_merge = nullptr;
  // Per header phi, its outer phi's value along the outer back edge: what a
  // batch hands the next.
  std::vector<uint32_t> next;
  // The merge block's phis: their one predecessor is the outer latch, once
  // PopLoop makes it (the inner merge until then).
  std::vector<Instruction*> merge_phis;
  std::unordered_map<uint32_t, uint32_t> outer_of;   // header phi -> outer phi
  std::unordered_map<uint32_t, uint32_t> chain_map;  // clones in chain blocks
  // Per exit: whether it leaves in this lane's iteration, and whether not.
  std::vector<uint32_t> fires, keeps;
  uint32_t base_guard = 0;  // this lane's slot runs
  // Per batched value and leaf: the 32-bit type it travels as, and the
  // value each lane holds for its slot.
  std::vector<std::vector<uint32_t>> carried, cache;
  uint32_t k = 0, k_next = 0;  // the slot counter, in the header
  // The one-exit forms: whether the loop ends in this batch, and the slots
  // whose iterations go on past the exit test.
  uint32_t ended = 0, trips = 0;
  std::vector<uint32_t> rebuilt;  // per batched value, in the header
  uint32_t ended_at_latch = 0;
  std::vector<BasicBlock*> preds;  // of the inner merge
  bool latch_exits = false;
};

uint32_t BatchUniformLoadsPass::Undef(uint32_t type) {
  for (Instruction& inst : context()->types_values()) {
    if (inst.opcode() == spv::Op::OpUndef && inst.type_id() == type) {
      return inst.result_id();
    }
  }
  const uint32_t id = context()->TakeNextId();
  if (id == 0) return 0;
  context()->AddGlobalValue(
      std::make_unique<Instruction>(context(), spv::Op::OpUndef, type, id, std::vector<Operand>{}));
  return id;
}

bool BatchUniformLoadsPass::MakePreheader(RewriteState* s) {
  const Plan& plan = s->plan;
  s->pre = plan.preheader;
  if (s->pre != nullptr) return true;
  Emitter pe(context(), plan.header);
  s->pre = pe.SplitEdges(plan.header, plan.entries);
  if (s->pre == nullptr) return false;
  for (Instruction* m : plan.merges_naming_header) {
    m->SetInOperand(0, {s->pre->id()});
    context()->get_def_use_mgr()->AnalyzeInstUse(m);
  }
  return true;
}

bool BatchUniformLoadsPass::EmitBallot(RewriteState* s) {
  // Who is in the loop, each lane's rank among them, and the batch: the
  // run of consecutive lanes from the first one (all of them in full or
  // partial-from-the-start subgroups, so slot k's owner is simply lane
  // first + k; lanes past a gap take part in no batch).
  BasicBlock* pre = s->pre;
  Instruction* pre_point = pre->GetMergeInst();
  if (pre_point == nullptr) pre_point = &*pre->tail();
  Emitter p(context(), pre, BasicBlock::iterator(pre_point));
  s->uint_type = p.UIntType(32);
  s->bool_type = p.BoolType();
  s->v4uint = p.UIntVectorType(4);
  const uint32_t ballot = p.Group(spv::Op::OpGroupNonUniformBallot, s->v4uint, -1, {p.Bool(true)});
  s->rank =
      p.Group(spv::Op::OpGroupNonUniformBallotBitCount, s->uint_type, kExclusiveScan, {ballot});
  const uint32_t lane_var = BuiltInInput(spv::BuiltIn::SubgroupLocalInvocationId, nullptr);
  if (lane_var == 0) return false;
  const uint32_t lane = p.EmitIds(spv::Op::OpLoad, s->uint_type, {lane_var});
  // The first active lane: every lane reads the lowest one's id (GLSL
  // subgroupBroadcastFirst, HLSL WaveReadLaneFirst; BallotFindLSB has no
  // HLSL spelling).
  s->first_lane = p.Group(spv::Op::OpGroupNonUniformBroadcastFirst, s->uint_type, -1, {lane});
  const uint32_t in_run =
      p.EmitIds(spv::Op::OpIEqual, s->bool_type,
                {p.EmitIds(spv::Op::OpISub, s->uint_type, {lane, s->first_lane}), s->rank});
  s->batch = p.Group(spv::Op::OpGroupNonUniformBallotBitCount, s->uint_type, kReduce,
                     {p.Group(spv::Op::OpGroupNonUniformBallot, s->v4uint, -1, {in_run})});
  if (s->read == Read::kShuffleOrBroadcast || s->read == Read::kShuffleOrFirst) {
    const uint32_t size_var = BuiltInInput(spv::BuiltIn::SubgroupSize, nullptr);
    if (size_var == 0) return false;
    s->shuffle_here =
        p.EmitIds(spv::Op::OpIEqual, s->bool_type,
                  {p.EmitIds(spv::Op::OpLoad, s->uint_type, {size_var}), p.UInt(kCpuShuffleLanes)});
  }
  if (s->read == Read::kShuffleOrFirst) {
    // Elsewhere a batch of one: only the first lane loads, every lane reads
    // it with a broadcast of the first active lane (the lanes of the loop
    // are the lanes that entered it: its exits are subgroup-uniform).
    s->batch = p.EmitIds(spv::Op::OpSelect, s->uint_type, {s->shuffle_here, s->batch, p.UInt(1)});
  }
  return p.ok();
}

bool BatchUniformLoadsPass::EmitOuter(RewriteState* s, Emitter* e) {
  // The outer header's phis: the header phis' values when a batch starts.
  // The values a batch hands the next: the inner merge's phis (two exits,
  // EmitInnerMergePhis), else what the one exit carries (the header's
  // phis, or the back edge's values).
  const ExitForm form = s->plan.exit_form;
  for (Instruction* phi : s->header_phis) {
    const uint32_t from_pre = IncomingFrom(phi, s->pre->id());
    if (from_pre == 0) return false;
    s->outer_of[phi->result_id()] = e->LoopPhi(&s->outer, phi->type_id(), from_pre);
    if (form == ExitForm::kTwoExits) continue;
    const uint32_t next =
        form == ExitForm::kAtHeader ? phi->result_id() : IncomingFrom(phi, s->plan.latch->id());
    if (next == 0) return false;
    s->next.push_back(next);
  }
  return e->ok();
}

bool BatchUniformLoadsPass::EmitLaneIteration(RewriteState* s) {
  // Each induction variable at this lane's iteration: i0 + rank * step
  // (i0 + rank, i0 - rank for steps of 1 and -1).
  auto* def_use = context()->get_def_use_mgr();
  Emitter fe(context(), s->fill);
  for (const Induction& iv : s->plan.ivs) {
    const Instruction* t = def_use->GetDef(iv.phi->type_id());
    const bool is_signed = t->GetSingleWordInOperand(1) != 0;
    uint32_t r = s->rank;
    uint32_t step = 0;
    if (iv.width == 64) {
      const uint32_t u64 = fe.UIntType(64);
      r = fe.EmitIds(spv::Op::OpUConvert, u64, {s->rank});
      step =
          fe.Constant(u64, {static_cast<uint32_t>(iv.step), static_cast<uint32_t>(iv.step >> 32)});
    } else {
      step = fe.UInt(static_cast<uint32_t>(iv.step));
    }
    if (is_signed) {
      r = fe.EmitIds(spv::Op::OpBitcast, iv.phi->type_id(), {r});
      step = fe.EmitIds(spv::Op::OpBitcast, iv.phi->type_id(), {step});
    }
    const uint32_t base = s->outer_of[iv.phi->result_id()];
    const uint64_t minus_one = MaskTo(~uint64_t{0}, iv.width);
    uint32_t& lane_iv = s->chain_map[iv.phi->result_id()];
    if (iv.step == 1) {
      lane_iv = fe.EmitIds(spv::Op::OpIAdd, iv.phi->type_id(), {base, r});
    } else if (iv.step == minus_one) {
      lane_iv = fe.EmitIds(spv::Op::OpISub, iv.phi->type_id(), {base, r});
    } else {
      const uint32_t offset = fe.EmitIds(spv::Op::OpIMul, iv.phi->type_id(), {r, step});
      lane_iv = fe.EmitIds(spv::Op::OpIAdd, iv.phi->type_id(), {base, offset});
    }
  }
  return fe.ok();
}

bool BatchUniformLoadsPass::EmitExitTests(RewriteState* s) {
  // Each exit's condition at this lane's iteration: whether it leaves there
  // (|fires|) and whether it goes on (|keeps|).
  for (const LoopExit& exit : s->plan.exits) {
    const uint32_t c = loops_->CloneAt(exit.cond, s->plan, s->fill, &s->chain_map);
    if (c == 0) return false;
    Emitter fe(context(), s->fill);
    const uint32_t not_c = fe.EmitIds(spv::Op::OpLogicalNot, s->bool_type, {c});
    s->fires.push_back(exit.fires_when_true ? c : not_c);
    s->keeps.push_back(exit.fires_when_true ? not_c : c);
    if (!fe.ok()) return false;
  }
  // The slots of this batch whose iterations run: all of them, or up to the
  // first lane whose iteration leaves (ranks are lane offsets from the
  // first lane inside the run, so that is a subgroup-uniform count and each
  // lane only compares its rank with it).
  Emitter fe(context(), s->fill);
  const uint32_t bool_type = s->bool_type, uint_type = s->uint_type;
  uint32_t slots = s->batch;
  if (!s->fires.empty()) {
    uint32_t stop = s->fires[0];
    for (size_t i = 1; i < s->fires.size(); ++i) {
      stop = fe.EmitIds(spv::Op::OpLogicalOr, bool_type, {stop, s->fires[i]});
    }
    const uint32_t stops = fe.Group(spv::Op::OpGroupNonUniformBallot, s->v4uint, -1, {stop});
    const uint32_t count =
        fe.Group(spv::Op::OpGroupNonUniformBallotBitCount, uint_type, kReduce, {stops});
    const uint32_t any = fe.EmitIds(spv::Op::OpINotEqual, bool_type, {count, fe.UInt(0)});
    // The slot whose iteration leaves, when a lane's does.
    const uint32_t lowest = fe.BallotLowestBit(stops, config().subgroup_size);
    const uint32_t leaving = fe.EmitIds(spv::Op::OpISub, uint_type, {lowest, s->first_lane});
    if (!fe.ok() || !EmitBatchTrips(s, any, leaving)) return false;
    const uint32_t to_stop = fe.EmitIds(spv::Op::OpIAdd, uint_type, {leaving, fe.UInt(1)});
    const uint32_t below = fe.EmitIds(spv::Op::OpULessThan, bool_type, {to_stop, s->batch});
    const uint32_t fewer = fe.EmitIds(spv::Op::OpLogicalAnd, bool_type, {any, below});
    slots = fe.EmitIds(spv::Op::OpSelect, uint_type, {fewer, to_stop, s->batch});
  }
  s->base_guard = fe.EmitIds(spv::Op::OpULessThan, bool_type, {s->rank, slots});
  return fe.ok();
}

bool BatchUniformLoadsPass::EmitBatchTrips(RewriteState* s, uint32_t any, uint32_t leaving) {
  const ExitForm form = s->plan.exit_form;
  if (form == ExitForm::kTwoExits) return true;
  // The loop ends in this batch when the slot that leaves is one of it; the
  // inner loop then runs up to that slot (through it, when the test is at
  // the back edge, after the body), else the whole batch.
  Emitter fe(context(), s->fill);
  const uint32_t inside = fe.EmitIds(spv::Op::OpULessThan, s->bool_type, {leaving, s->batch});
  s->ended = fe.EmitIds(spv::Op::OpLogicalAnd, s->bool_type, {any, inside});
  uint32_t last = leaving;
  if (form == ExitForm::kAtLatch) {
    last = fe.EmitIds(spv::Op::OpIAdd, s->uint_type, {leaving, fe.UInt(1)});
  }
  s->trips = fe.EmitIds(spv::Op::OpSelect, s->uint_type, {s->ended, last, s->batch});
  return fe.ok();
}

bool BatchUniformLoadsPass::CarriedTypes(RewriteState* s) {
  // The 32-bit type each leaf travels as.
  s->carried.assign(s->plan.batched.size(), {});
  Emitter te(context(), s->fill);
  for (size_t i = 0; i < s->plan.batched.size(); ++i) {
    for (const Leaf& leaf : s->plan.batched[i].leaves) {
      uint32_t t = leaf.type;
      switch (leaf.carry) {
        case Leaf::Carry::kAsIs:
          break;
        case Leaf::Carry::kBits:
          t = leaf.components == 1 ? te.UIntType(32) : te.UIntVectorType(leaf.components);
          break;
        case Leaf::Carry::kFloat: {
          spvtools::opt::analysis::Float f32(32);
          t = context()->get_type_mgr()->GetTypeInstruction(&f32);
          break;
        }
        case Leaf::Carry::kUInt:
          t = te.UIntType(32);
          break;
        case Leaf::Carry::kSInt: {
          spvtools::opt::analysis::Integer i32(32, true);
          t = context()->get_type_mgr()->GetTypeInstruction(&i32);
          break;
        }
      }
      if (t == 0 || !te.ok()) return false;
      s->carried[i].push_back(t);
    }
  }
  return true;
}

namespace {

// The conversion into a leaf's carried type, and back.
spv::Op CarryOp(const BatchUniformLoadsPass::Leaf& leaf) {
  using Carry = BatchUniformLoadsPass::Leaf::Carry;
  switch (leaf.carry) {
    case Carry::kFloat:
      return spv::Op::OpFConvert;
    case Carry::kUInt:
      return spv::Op::OpUConvert;
    case Carry::kSInt:
      return spv::Op::OpSConvert;
    default:
      return spv::Op::OpBitcast;
  }
}

}  // namespace

uint32_t BatchUniformLoadsPass::LoadGuard(RewriteState* s, const Batched& b, BasicBlock* cur) {
  uint32_t guard = s->base_guard;
  // No exit before the load fires in this lane's iteration.
  Emitter ge(context(), cur);
  for (size_t e : b.before) {
    guard = ge.EmitIds(spv::Op::OpLogicalAnd, s->bool_type, {guard, s->keeps[e]});
  }
  if (!ge.ok()) return 0;
  if (b.speculative) {
    const uint32_t inside = BoundsCheck(b.read, s->plan, cur, &s->chain_map);
    if (inside == 0) return 0;
    Emitter ie(context(), cur);
    guard = ie.EmitIds(spv::Op::OpLogicalAnd, s->bool_type, {guard, inside});
    if (!ie.ok()) return 0;
  }
  return guard;
}

bool BatchUniformLoadsPass::EmitLoadGroup(RewriteState* s, const std::vector<size_t>& group,
                                          Emitter* e) {
  const Plan& plan = s->plan;
  const uint32_t guard = LoadGuard(s, plan.batched[group[0]], e->block());
  if (guard == 0) return false;
  Emitter::If load = e->PushIf(guard);
  if (!e->ok()) return false;
  std::unordered_map<uint32_t, uint32_t> load_map = s->chain_map;
  std::vector<std::vector<uint32_t>> parts(group.size());
  for (size_t g = 0; g < group.size(); ++g) {
    const Batched& b = plan.batched[group[g]];
    const uint32_t value = loops_->CloneAt(b.insts[0]->result_id(), plan, e->block(), &load_map);
    if (value == 0) return false;
    for (const Leaf& leaf : b.leaves) {
      uint32_t part = value;
      if (!leaf.path.empty()) {
        std::vector<Operand> ops = {{SPV_OPERAND_TYPE_ID, {value}}};
        for (uint32_t index : leaf.path) {
          ops.push_back({SPV_OPERAND_TYPE_LITERAL_INTEGER, {index}});
        }
        part = e->Emit(spv::Op::OpCompositeExtract, leaf.type, ops);
      }
      if (leaf.carry == Leaf::Carry::kBits) {
        part = ToWords(*e, context(), part, leaf.type, leaf.components);
      } else if (leaf.carry != Leaf::Carry::kAsIs) {
        part = e->EmitIds(CarryOp(leaf), s->carried[group[g]][parts[g].size()], {part});
      }
      parts[g].push_back(part);
    }
    if (!e->ok()) return false;
  }
  if (!e->PopIf(&load)) return false;
  for (size_t g = 0; g < group.size(); ++g) {
    const Batched& b = plan.batched[group[g]];
    for (size_t l = 0; l < b.leaves.size(); ++l) {
      const uint32_t type = s->carried[group[g]][l];
      // Lanes that load nothing hold no value anyone uses.
      const uint32_t none = Undef(type);
      if (none == 0) return false;
      s->cache[group[g]].push_back(e->IfPhi(load, type, parts[g][l], none));
    }
  }
  return e->ok();
}

bool BatchUniformLoadsPass::EmitLoads(RewriteState* s, Emitter* e) {
  // One guarded load block per group of values sharing a guard (the exits
  // that precede them; each value read ahead of time has its own, with its
  // bounds check).
  const Plan& plan = s->plan;
  s->cache.assign(plan.batched.size(), {});
  std::vector<bool> done(plan.batched.size(), false);
  for (size_t i = 0; i < plan.batched.size(); ++i) {
    if (done[i]) continue;
    std::vector<size_t> group = {i};
    if (!plan.batched[i].speculative) {
      for (size_t j = i + 1; j < plan.batched.size(); ++j) {
        if (!done[j] && !plan.batched[j].speculative &&
            plan.batched[j].before == plan.batched[i].before) {
          group.push_back(j);
        }
      }
    }
    for (size_t j : group) done[j] = true;
    if (!EmitLoadGroup(s, group, e)) return false;
  }
  return e->ok();
}

uint32_t BatchUniformLoadsPass::RebuildValue(Emitter* h, const Batched& b,
                                             const std::vector<uint32_t>& taken) {
  auto* def_use = context()->get_def_use_mgr();
  size_t next_leaf = 0;
  std::vector<uint32_t> path;
  std::function<uint32_t(uint32_t)> build = [&](uint32_t type_id) -> uint32_t {
    if (next_leaf < b.leaves.size() && b.leaves[next_leaf].path == path) {
      return taken[next_leaf++];
    }
    Instruction* type = def_use->GetDef(type_id);
    std::vector<uint32_t> members;
    if (type->opcode() == spv::Op::OpTypeStruct) {
      for (uint32_t m = 0; m < type->NumInOperands(); ++m) {
        members.push_back(type->GetSingleWordInOperand(m));
      }
    } else if (type->opcode() == spv::Op::OpTypeArray) {
      members.assign(def_use->GetDef(type->GetSingleWordInOperand(1))->GetSingleWordInOperand(0),
                     type->GetSingleWordInOperand(0));
    } else {  // vector or matrix
      members.assign(type->GetSingleWordInOperand(1), type->GetSingleWordInOperand(0));
    }
    std::vector<Operand> ops;
    for (uint32_t m = 0; m < members.size(); ++m) {
      path.push_back(m);
      uint32_t part = build(members[m]);
      path.pop_back();
      if (part == 0) return 0;
      ops.push_back({SPV_OPERAND_TYPE_ID, {part}});
    }
    return h->Emit(spv::Op::OpCompositeConstruct, type_id, ops);
  };
  return build(b.insts[0]->type_id());
}

uint32_t BatchUniformLoadsPass::ReadSlot(Emitter* e, const RewriteState& s, uint32_t type,
                                         uint32_t value, uint32_t owner) {
  auto shuffle = [&] {
    return e->Group(spv::Op::OpGroupNonUniformShuffle, type, -1, {value, owner});
  };
  auto broadcast = [&] {
    return e->Group(spv::Op::OpGroupNonUniformBroadcast, type, -1, {value, owner});
  };
  if (s.read == Read::kShuffle) return shuffle();
  if (s.read == Read::kBroadcast) return broadcast();
  const uint32_t shuffled = shuffle();
  // kShuffleOrFirst's batch is one slot where it does not shuffle: the
  // owner is the first lane, the loop's lowest active one.
  const uint32_t other = s.read == Read::kShuffleOrFirst
                             ? e->Group(spv::Op::OpGroupNonUniformBroadcastFirst, type, -1, {value})
                             : broadcast();
  // Both reads see the same lanes; a driver with a constant subgroup size
  // folds the select and drops the other read (lavapipe, RADV).
  uint32_t cond = s.shuffle_here;
  const auto* vec = context()->get_type_mgr()->GetType(type)->AsVector();
  if (vec != nullptr && get_module()->version() < SPV_SPIRV_VERSION_WORD(1, 4)) {
    // Before SPIR-V 1.4 a vector select takes a vector of conditions.
    const uint32_t n = vec->element_count();
    std::vector<spvtools::opt::Operand> ops(n, {SPV_OPERAND_TYPE_ID, {cond}});
    cond = e->Emit(spv::Op::OpCompositeConstruct, e->VectorType(e->BoolType(), n), ops);
  }
  return e->EmitIds(spv::Op::OpSelect, type, {cond, shuffled, other});
}

bool BatchUniformLoadsPass::EmitShuffles(RewriteState* s) {
  // The header: k counts the batch's slots; the inner loop starts each
  // batch from the outer phis. At its top every lane of the loop is
  // active: each value of the iteration comes from the owner of slot k.
  auto* def_use = context()->get_def_use_mgr();
  const Plan& plan = s->plan;
  BasicBlock* header = plan.header;
  for (Instruction* phi : s->header_phis) {
    for (uint32_t j = 0; j + 1 < phi->NumInOperands(); j += 2) {
      if (phi->GetSingleWordInOperand(j + 1) == s->pre->id()) {
        phi->SetInOperand(j, {s->outer_of[phi->result_id()]});
        phi->SetInOperand(j + 1, {s->last_fill->id()});
      }
    }
    def_use->AnalyzeInstUse(phi);
  }
  auto top = header->begin();
  while (top != header->end() && top->opcode() == spv::Op::OpPhi) ++top;
  Emitter h(context(), header, top);
  // (The phi goes right after the header's own phis.)
  const uint32_t k = h.EmitIds(spv::Op::OpPhi, s->uint_type, {h.UInt(0), s->last_fill->id()});
  s->k = k;
  // In the one-exit header form the top of the loop runs once more when a
  // batch ends (k == batch, its values unused): the slot stays inside the
  // batch, so that every shuffle reads an active lane of the subgroup (a
  // shuffle from outside it is an undefined value a driver's compiler may
  // reason from).
  uint32_t slot = k;
  if (plan.exit_form == ExitForm::kAtHeader) {
    const uint32_t last = h.EmitIds(spv::Op::OpISub, s->uint_type, {s->batch, h.UInt(1)});
    slot = h.GlslStd450(38 /* UMin */, s->uint_type, {k, last});
  }
  const uint32_t owner = h.EmitIds(spv::Op::OpIAdd, s->uint_type, {s->first_lane, slot});
  s->rebuilt.assign(plan.batched.size(), 0);
  for (size_t i = 0; i < plan.batched.size(); ++i) {
    const Batched& b = plan.batched[i];
    std::vector<uint32_t> taken;
    for (size_t j = 0; j < b.leaves.size(); ++j) {
      const Leaf& leaf = b.leaves[j];
      uint32_t v = ReadSlot(&h, *s, s->carried[i][j], s->cache[i][j], owner);
      if (leaf.carry == Leaf::Carry::kBits) {
        v = FromWords(h, context(), v, leaf.type, leaf.components);
      } else if (leaf.carry != Leaf::Carry::kAsIs) {
        v = h.EmitIds(CarryOp(leaf), leaf.type, {v});
      }
      taken.push_back(v);
    }
    s->rebuilt[i] = RebuildValue(&h, b, taken);
    if (s->rebuilt[i] == 0) return false;
  }
  s->k_next = h.EmitIds(spv::Op::OpIAdd, s->uint_type, {k, h.UInt(1)});
  if (!h.AddIncoming(k, s->k_next, plan.latch->id())) return false;
  Instruction* inner_loop_merge = header->GetLoopMergeInst();
  inner_loop_merge->SetInOperand(0, {s->inner_merge->id()});
  def_use->AnalyzeInstUse(inner_loop_merge);
  return true;
}

bool BatchUniformLoadsPass::EmitInnerBackEdge(RewriteState* s) {
  auto* def_use = context()->get_def_use_mgr();
  const Plan& plan = s->plan;
  BasicBlock* latch = plan.latch;
  // Every branch to the merge block now leaves the inner loop.
  for (BasicBlock* source : plan.exit_sources) {
    if (source == latch) continue;
    source->ForEachSuccessorLabel([&](uint32_t* succ) {
      if (*succ == plan.merge->id()) *succ = s->inner_merge->id();
    });
    def_use->AnalyzeInstUse(source->terminator());
  }
  // The back edge also ends the batch once its slots are used.
  Instruction* back = latch->terminator();
  // Before the loop merge instruction when the latch is the header.
  Instruction* point = latch->GetMergeInst() ? latch->GetMergeInst() : back;
  Emitter le(context(), latch, BasicBlock::iterator(point));
  const uint32_t more = le.EmitIds(spv::Op::OpULessThan, s->bool_type, {s->k_next, s->batch});
  uint32_t go_on = more;
  if (back->opcode() == spv::Op::OpBranchConditional) {
    uint32_t cont = back->GetSingleWordInOperand(0);
    if (back->GetSingleWordInOperand(1) != plan.header->id()) {
      cont = le.EmitIds(spv::Op::OpLogicalNot, s->bool_type, {cont});
    }
    go_on = le.EmitIds(spv::Op::OpLogicalAnd, s->bool_type, {cont, more});
    s->ended_at_latch = le.EmitIds(spv::Op::OpLogicalNot, s->bool_type, {cont});
  } else {
    s->ended_at_latch = le.Bool(false);
  }
  if (!le.ok()) return false;
  back->SetOpcode(spv::Op::OpBranchConditional);
  back->SetInOperands({{SPV_OPERAND_TYPE_ID, {go_on}},
                       {SPV_OPERAND_TYPE_ID, {plan.header->id()}},
                       {SPV_OPERAND_TYPE_ID, {s->inner_merge->id()}}});
  def_use->AnalyzeInstUse(back);
  return true;
}

bool BatchUniformLoadsPass::EmitOneExit(RewriteState* s) {
  // The loop's one exit branch goes on while the slot it tests (at the
  // back edge the next one, at the header this one) is below the batch's
  // trip count, and leaves the inner loop otherwise.
  const Plan& plan = s->plan;
  const bool at_latch = plan.exit_form == ExitForm::kAtLatch;
  BasicBlock* from = plan.exits[0].from;
  Instruction* branch = from->terminator();
  Instruction* point = from->GetMergeInst() ? from->GetMergeInst() : branch;
  Emitter e(context(), from, BasicBlock::iterator(point));
  const uint32_t go_on =
      e.EmitIds(spv::Op::OpULessThan, s->bool_type, {at_latch ? s->k_next : s->k, s->trips});
  if (!e.ok()) return false;
  const uint32_t stay = branch->GetSingleWordInOperand(plan.exits[0].fires_when_true ? 2 : 1);
  // Straight to the inner merge, or through the break block (now a break
  // of the inner loop).
  BasicBlock* source = plan.exit_sources[0];
  const uint32_t leave = source == from ? s->inner_merge->id() : source->id();
  branch->SetInOperands({{SPV_OPERAND_TYPE_ID, {go_on}},
                         {SPV_OPERAND_TYPE_ID, {stay}},
                         {SPV_OPERAND_TYPE_ID, {leave}}});
  context()->get_def_use_mgr()->AnalyzeInstUse(branch);
  if (source != from) {
    source->terminator()->SetInOperand(0, {s->inner_merge->id()});
    context()->get_def_use_mgr()->AnalyzeInstUse(source->terminator());
  }
  return true;
}

bool BatchUniformLoadsPass::EmitOneExitMerge(RewriteState* s) {
  // The inner merge goes to the outer latch, which leaves when the loop
  // ended. The one exit's block dominates both, so the merge block's phis
  // take the exit's values as they are, and so does every use after the
  // loop.
  auto* def_use = context()->get_def_use_mgr();
  const Plan& plan = s->plan;
  const uint32_t from = plan.exit_sources[0]->id();
  plan.merge->ForEachPhiInst([&](Instruction* phi) { s->merge_phis.push_back(phi); });
  for (Instruction* phi : s->merge_phis) {
    const uint32_t v = IncomingFrom(phi, from);
    if (v == 0) return false;
    phi->SetInOperands({{SPV_OPERAND_TYPE_ID, {v}}, {SPV_OPERAND_TYPE_ID, {s->inner_merge->id()}}});
    def_use->AnalyzeInstUse(phi);
  }
  return true;
}

bool BatchUniformLoadsPass::ReplaceUsesAfterLoop(RewriteState* s, Instruction* inst,
                                                 uint32_t through) {
  if (through == 0) return false;
  auto* def_use = context()->get_def_use_mgr();
  std::vector<std::pair<Instruction*, uint32_t>> outside;
  def_use->ForEachUse(inst, [&](Instruction* user, uint32_t index) {
    BasicBlock* ub = context()->get_instr_block(user);
    if (ub != nullptr && !s->plan.block_ids.count(ub->id()) && ub != s->inner_merge) {
      outside.emplace_back(user, index);
    }
  });
  for (auto& [user, index] : outside) {
    user->SetOperand(index, {through});
    def_use->AnalyzeInstUse(user);
  }
  return true;
}

bool BatchUniformLoadsPass::UsedAfterLoop(RewriteState* s, Instruction* inst) {
  bool used = false;
  context()->get_def_use_mgr()->ForEachUse(inst, [&](Instruction* user, uint32_t) {
    BasicBlock* ub = context()->get_instr_block(user);
    if (ub != nullptr && !s->plan.block_ids.count(ub->id()) && ub != s->inner_merge) {
      used = true;
    }
  });
  return used;
}

bool BatchUniformLoadsPass::EmitInnerMergePhis(RewriteState* s, Emitter* im) {
  // From each exit, the loop ended; from the back edge, the batch ended (or
  // the loop, for a do-while) with the next values.
  const Plan& plan = s->plan;
  BasicBlock* latch = plan.latch;
  for (BasicBlock* source : plan.exit_sources) {
    if (source != latch) s->preds.push_back(source);
  }
  s->preds.push_back(latch);
  s->latch_exits = std::find(plan.exit_sources.begin(), plan.exit_sources.end(), latch) !=
                   plan.exit_sources.end();
  for (size_t i = 0; i < s->header_phis.size(); ++i) {
    std::vector<Operand> ops;
    for (BasicBlock* pb : s->preds) {
      const uint32_t v = pb == latch ? IncomingFrom(s->header_phis[i], latch->id())
                                     : s->header_phis[i]->result_id();
      if (v == 0) return false;
      ops.push_back({SPV_OPERAND_TYPE_ID, {v}});
      ops.push_back({SPV_OPERAND_TYPE_ID, {pb->id()}});
    }
    s->next.push_back(im->Emit(spv::Op::OpPhi, s->header_phis[i]->type_id(), ops));
  }
  std::vector<Operand> ops;
  for (BasicBlock* pb : s->preds) {
    ops.push_back({SPV_OPERAND_TYPE_ID, {pb == latch ? s->ended_at_latch : im->Bool(true)}});
    ops.push_back({SPV_OPERAND_TYPE_ID, {pb->id()}});
  }
  s->ended = im->Emit(spv::Op::OpPhi, s->bool_type, ops);
  return im->ok();
}

bool BatchUniformLoadsPass::RouteMergePhis(RewriteState* s, Emitter* im) {
  // The merge block's phis take their values through the inner merge.
  auto* def_use = context()->get_def_use_mgr();
  const Plan& plan = s->plan;
  BasicBlock* latch = plan.latch;
  // A value for the back-edge entry of a phi whose value matters only when
  // the loop ended: |v| itself where it is defined there, else undefined.
  auto at_latch = [&](uint32_t v, uint32_t type) -> uint32_t {
    Instruction* d = def_use->GetDef(v);
    BasicBlock* b = d ? context()->get_instr_block(d) : nullptr;
    if (b == nullptr || !plan.block_ids.count(b->id()) || plan.dominate_latch.count(b->id())) {
      return v;
    }
    return Undef(type);
  };
  plan.merge->ForEachPhiInst([&](Instruction* phi) { s->merge_phis.push_back(phi); });
  for (Instruction* phi : s->merge_phis) {
    std::vector<Operand> ops;
    for (BasicBlock* pb : s->preds) {
      uint32_t v = IncomingFrom(phi, pb->id());
      if (pb == latch && !s->latch_exits) v = 0;
      if (v == 0) {
        // Not an exit: any value of the type will do (the batch went on).
        v = Undef(phi->type_id());
      } else if (pb == latch) {
        v = at_latch(v, phi->type_id());
      }
      if (v == 0) return false;
      ops.push_back({SPV_OPERAND_TYPE_ID, {v}});
      ops.push_back({SPV_OPERAND_TYPE_ID, {pb->id()}});
    }
    const uint32_t through = im->Emit(spv::Op::OpPhi, phi->type_id(), ops);
    phi->SetInOperands(
        {{SPV_OPERAND_TYPE_ID, {through}}, {SPV_OPERAND_TYPE_ID, {s->inner_merge->id()}}});
    def_use->AnalyzeInstUse(phi);
  }
  return true;
}

bool BatchUniformLoadsPass::RouteLoopValues(RewriteState* s, Emitter* im) {
  const Plan& plan = s->plan;
  BasicBlock* latch = plan.latch;
  // The header's values used after the loop: through the phi that carries
  // them to the next batch (on an exit it holds the header's value; one
  // value, so a compiler keeps one register), or, when the back edge also
  // leaves the loop (its edge carries the next values), through a phi of
  // their own.
  for (size_t i = 0; i < s->header_phis.size(); ++i) {
    if (!UsedAfterLoop(s, s->header_phis[i])) continue;
    uint32_t through = s->next[i];
    if (s->latch_exits) {
      std::vector<Operand> ops;
      for (BasicBlock* pb : s->preds) {
        ops.push_back({SPV_OPERAND_TYPE_ID, {s->header_phis[i]->result_id()}});
        ops.push_back({SPV_OPERAND_TYPE_ID, {pb->id()}});
      }
      through = im->Emit(spv::Op::OpPhi, s->header_phis[i]->type_id(), ops);
    }
    if (!ReplaceUsesAfterLoop(s, s->header_phis[i], through)) return false;
  }
  // Values made in blocks that do not dominate the back edge and used
  // after the loop: through a phi too (they dominate every exit).
  for (BasicBlock* block : plan.blocks) {
    if (plan.dominate_latch.count(block->id())) continue;
    for (Instruction& inst : *block) {
      if (inst.result_id() == 0 || inst.type_id() == 0) continue;
      if (!UsedAfterLoop(s, &inst)) continue;
      std::vector<Operand> ops;
      for (BasicBlock* pb : s->preds) {
        const uint32_t v =
            pb == latch && !s->latch_exits ? Undef(inst.type_id()) : inst.result_id();
        if (v == 0) return false;
        ops.push_back({SPV_OPERAND_TYPE_ID, {v}});
        ops.push_back({SPV_OPERAND_TYPE_ID, {pb->id()}});
      }
      const uint32_t through = im->Emit(spv::Op::OpPhi, inst.type_id(), ops);
      if (!ReplaceUsesAfterLoop(s, &inst, through)) return false;
    }
  }
  return true;
}

bool BatchUniformLoadsPass::EmitInnerMerge(RewriteState* s, Emitter* im) {
  // The next header values, whether the loop ended, the loop's values used
  // after it.
  return EmitInnerMergePhis(s, im) && RouteMergePhis(s, im) && RouteLoopValues(s, im);
}

bool BatchUniformLoadsPass::Rewrite(const Plan& plan, uint32_t* outer_header) {
  RewriteState s(plan);
  s.read = ChooseRead();
  context()->AddCapability(spv::Capability::GroupNonUniformBallot);
  if (s.read != Read::kBroadcast) {
    context()->AddCapability(spv::Capability::GroupNonUniformShuffle);
  }
  plan.header->ForEachPhiInst([&](Instruction* phi) { s.header_phis.push_back(phi); });
  // A block that enters only the loop (the one entry when it branches only
  // to the header, else a new one the entries branch to), with the ballot.
  if (!MakePreheader(&s) || !EmitBallot(&s)) return false;
  // The outer loop over batches, entered from it: its header and the fill
  // (each lane's iteration, the exits evaluated there, the loads) before
  // the loop's header.
  Emitter e(context(), s.pre);
  e.PlaceBlocksBefore(plan.header);
  s.outer = e.PushLoopInstead(plan.header->id(), plan.merge);
  if (!EmitOuter(&s, &e)) return false;
  e.LoopWhile(&s.outer, 0);
  s.fill = e.block();
  if (!e.ok() || !EmitLaneIteration(&s) || !EmitExitTests(&s) || !CarriedTypes(&s) ||
      !EmitLoads(&s, &e)) {
    return false;
  }
  // The fill goes on into the loop, now the inner loop, which leaves to a
  // new block before the merge block: the shuffles in its header, its way
  // out, the values the inner merge carries.
  s.last_fill = e.block();
  e.PlaceBlocksBefore(plan.merge);
  s.inner_merge = e.ThroughExisting(plan.header);
  if (s.inner_merge == nullptr || !EmitShuffles(&s)) return false;
  const bool one_exit = plan.exit_form != ExitForm::kTwoExits;
  if (one_exit ? !EmitOneExit(&s) || !EmitOneExitMerge(&s)
               : !EmitInnerBackEdge(&s) || !EmitInnerMerge(&s, &e)) {
    return false;
  }
  // The outer latch: the next batch, or the merge block once the loop
  // ended.
  if (!e.PopLoop(&s.outer, s.next, s.ended)) return false;
  for (Instruction* phi : s.merge_phis) {
    phi->SetInOperand(1, {s.outer.cont->id()});
    context()->get_def_use_mgr()->AnalyzeInstUse(phi);
  }
  *outer_header = s.outer.header->id();
  // Remarks about the outer loop (a later run) point at the original loop.
  s.outer.header->GetLoopMergeInst()->UpdateDebugInfoFrom(plan.header->GetLoopMergeInst());
  // Every use of a batched value takes it from the header.
  for (size_t i = 0; i < plan.batched.size(); ++i) {
    for (Instruction* inst : plan.batched[i].insts) {
      context()->ReplaceAllUsesWith(inst->result_id(), s.rebuilt[i]);
      context()->KillInst(inst);
    }
    ForwardExtracts(context(), s.rebuilt[i]);
  }
  return true;
}

}  // namespace waveopt
