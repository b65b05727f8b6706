// batch-uniform-loads: see the header for the rewrite; docs/passes/
// batch-uniform-loads.md for the legality and cost rules, remarks and
// options.
#include "passes/batch_uniform_loads_pass.h"

#include "lib/analysis/memory_effects.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>

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
constexpr int kExclusiveScan =
    static_cast<int>(spv::GroupOperation::ExclusiveScan);

// GLSL.std.450 instructions that read or write memory or depend on
// fragment interpolation; every other one is a pure function of its
// operands.
bool IsImpureGlslExt(uint32_t number) {
  return number == 35 /* Modf */ || number == 51 /* Frexp */ ||
         (number >= 76 && number <= 78) /* InterpolateAt* */;
}

// Operations whose result the rewrite may recompute for another iteration:
// pure functions of their operands (a division by zero gives an undefined
// value, not undefined behaviour, and is only used where the original
// computes the same).
bool IsRecomputable(spvtools::opt::IRContext* context, const Instruction* inst) {
  switch (inst->opcode()) {
    case spv::Op::OpAccessChain:
    case spv::Op::OpInBoundsAccessChain:
    case spv::Op::OpPtrAccessChain:
    case spv::Op::OpIAdd:
    case spv::Op::OpISub:
    case spv::Op::OpIMul:
    case spv::Op::OpShiftLeftLogical:
    case spv::Op::OpShiftRightLogical:
    case spv::Op::OpShiftRightArithmetic:
    case spv::Op::OpBitwiseAnd:
    case spv::Op::OpBitwiseOr:
    case spv::Op::OpBitwiseXor:
    case spv::Op::OpNot:
    case spv::Op::OpSNegate:
    case spv::Op::OpUDiv:
    case spv::Op::OpSDiv:
    case spv::Op::OpUMod:
    case spv::Op::OpSMod:
    case spv::Op::OpSRem:
    case spv::Op::OpBitFieldUExtract:
    case spv::Op::OpBitFieldSExtract:
    case spv::Op::OpBitFieldInsert:
    case spv::Op::OpCompositeExtract:
    case spv::Op::OpCompositeConstruct:
    case spv::Op::OpCompositeInsert:
    case spv::Op::OpVectorShuffle:
    case spv::Op::OpVectorExtractDynamic:
    case spv::Op::OpBitcast:
    case spv::Op::OpUConvert:
    case spv::Op::OpSConvert:
    case spv::Op::OpConvertUToF:
    case spv::Op::OpConvertSToF:
    case spv::Op::OpConvertFToU:
    case spv::Op::OpConvertFToS:
    case spv::Op::OpFConvert:
    case spv::Op::OpConvertUToPtr:
    case spv::Op::OpFAdd:
    case spv::Op::OpFSub:
    case spv::Op::OpFMul:
    case spv::Op::OpFDiv:
    case spv::Op::OpFNegate:
    case spv::Op::OpVectorTimesScalar:
    case spv::Op::OpCopyObject:
    case spv::Op::OpSelect:
    case spv::Op::OpIEqual:
    case spv::Op::OpINotEqual:
    case spv::Op::OpULessThan:
    case spv::Op::OpSLessThan:
    case spv::Op::OpULessThanEqual:
    case spv::Op::OpSLessThanEqual:
    case spv::Op::OpUGreaterThan:
    case spv::Op::OpSGreaterThan:
    case spv::Op::OpUGreaterThanEqual:
    case spv::Op::OpSGreaterThanEqual:
    case spv::Op::OpLogicalAnd:
    case spv::Op::OpLogicalOr:
    case spv::Op::OpLogicalNot:
    case spv::Op::OpLogicalEqual:
    case spv::Op::OpLogicalNotEqual:
    case spv::Op::OpAny:
    case spv::Op::OpAll:
    case spv::Op::OpSampledImage:
    case spv::Op::OpImage:
      return true;
    case spv::Op::OpExtInst: {
      const Instruction* set = context->get_def_use_mgr()->GetDef(
          inst->GetSingleWordInOperand(0));
      return set != nullptr && set->opcode() == spv::Op::OpExtInstImport &&
             set->GetInOperand(0).AsString() == "GLSL.std.450" &&
             !IsImpureGlslExt(inst->GetSingleWordInOperand(1));
    }
    default:
      return false;
  }
}

// Extracts of a part of |composite| that OpCompositeConstruct put together
// (the rebuilt struct of a batched load) read the part itself, and rebuilds
// left without users go. SPIRV-Cross's HLSL assigns a struct rebuilt in the
// loop header as "s = { a, b };", which HLSL allows only in a declaration;
// the extracts cost nothing either way.
void ForwardExtracts(spvtools::opt::IRContext* context, uint32_t composite) {
  auto* def_use = context->get_def_use_mgr();
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
      if (def == nullptr || def->opcode() != spv::Op::OpCompositeConstruct ||
          type == nullptr || (type->opcode() != spv::Op::OpTypeStruct &&
                              type->opcode() != spv::Op::OpTypeArray)) {
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
uint32_t ToWords(Emitter& e, spvtools::opt::IRContext* context, uint32_t value,
                 uint32_t type_id, uint32_t words) {
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
    const uint32_t word_type =
        shape.is_signed ? e.IntType(32, true) : uint_type;
    for (uint32_t i = 0; i < shape.count; i += per_word) {
      uint32_t w = e.EmitIds(spv::Op::OpBitcast, word_type,
                             {Slice(e, context, value, shape, i, per_word)});
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
      return e.Emit(spv::Op::OpCompositeExtract, uint_type,
                    {{SPV_OPERAND_TYPE_ID, {words_value}},
                     {SPV_OPERAND_TYPE_LITERAL_INTEGER, {first}}});
    }
    return e.Emit(spv::Op::OpVectorShuffle, e.UIntVectorType(2),
                  {{SPV_OPERAND_TYPE_ID, {words_value}}, {SPV_OPERAND_TYPE_ID, {words_value}},
                   {SPV_OPERAND_TYPE_LITERAL_INTEGER, {first}},
                   {SPV_OPERAND_TYPE_LITERAL_INTEGER, {first + 1}}});
  };
  std::vector<uint32_t> parts;
  if (shape.width == 64) {
    const uint32_t u64 = e.IntType(64, false);
    for (uint32_t i = 0; i < shape.count; ++i) {
      uint32_t c = e.EmitIds(spv::Op::OpBitcast, u64, {word(2 * i, 2)});
      if (shape.is_float || shape.is_signed) c = e.EmitIds(spv::Op::OpBitcast, shape.comp_type, {c});
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

// Image instructions that read a texel and that the pass batches.
bool IsImageRead(spv::Op op) {
  switch (op) {
    case spv::Op::OpImageFetch:
    case spv::Op::OpImageRead:
    case spv::Op::OpImageSampleExplicitLod:
    case spv::Op::OpImageSampleDrefExplicitLod:
    case spv::Op::OpImageGather:
    case spv::Op::OpImageDrefGather:
      return true;
    default:
      return false;
  }
}

// An integer OpConstant (or OpConstantNull of an integer type): its value
// and width.
bool IntConstant(spvtools::opt::IRContext* context, const Instruction* inst,
                 uint64_t* value, uint32_t* width = nullptr) {
  if (inst == nullptr) return false;
  const Instruction* type = context->get_def_use_mgr()->GetDef(inst->type_id());
  if (type == nullptr || type->opcode() != spv::Op::OpTypeInt) return false;
  if (width != nullptr) *width = type->GetSingleWordInOperand(0);
  if (inst->opcode() == spv::Op::OpConstantNull) {
    *value = 0;
    return true;
  }
  return ConstantValue(inst, value);
}

uint64_t MaskTo(uint64_t v, uint32_t width) {
  return width >= 64 ? v : (v & ((uint64_t{1} << width) - 1));
}

int64_t SignExtend(uint64_t v, uint32_t width) {
  if (width >= 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t{1} << (width - 1);
  v = MaskTo(v, width);
  return static_cast<int64_t>((v ^ sign) - sign);
}

// The OpVariable a pointer is derived from through access chains (and the
// image variable behind a texel pointer), or null.
Instruction* RootVariable(spvtools::opt::IRContext* context, uint32_t ptr) {
  auto* def_use = context->get_def_use_mgr();
  for (int depth = 0; depth < 64; ++depth) {
    Instruction* inst = def_use->GetDef(ptr);
    if (inst == nullptr) return nullptr;
    switch (inst->opcode()) {
      case spv::Op::OpVariable:
        return inst;
      case spv::Op::OpAccessChain:
      case spv::Op::OpInBoundsAccessChain:
      case spv::Op::OpPtrAccessChain:
      case spv::Op::OpInBoundsPtrAccessChain:
      case spv::Op::OpCopyObject:
      case spv::Op::OpImageTexelPointer:
        ptr = inst->GetSingleWordInOperand(0);
        break;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

// The variable an image (or sampled image) value was loaded from, or null.
Instruction* ImageVariable(spvtools::opt::IRContext* context, uint32_t image) {
  auto* def_use = context->get_def_use_mgr();
  for (int depth = 0; depth < 16; ++depth) {
    Instruction* inst = def_use->GetDef(image);
    if (inst == nullptr) return nullptr;
    switch (inst->opcode()) {
      case spv::Op::OpLoad:
        return RootVariable(context, inst->GetSingleWordInOperand(0));
      case spv::Op::OpSampledImage:
      case spv::Op::OpImage:
      case spv::Op::OpCopyObject:
        image = inst->GetSingleWordInOperand(0);
        break;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

// The storage class of pointer |ptr|'s type, or Max when it is no pointer.
spv::StorageClass PointerClass(spvtools::opt::IRContext* context, uint32_t ptr) {
  auto* def_use = context->get_def_use_mgr();
  Instruction* inst = def_use->GetDef(ptr);
  if (inst == nullptr) return spv::StorageClass::Max;
  Instruction* type = def_use->GetDef(inst->type_id());
  if (type == nullptr || type->opcode() != spv::Op::OpTypePointer) {
    return spv::StorageClass::Max;
  }
  return spv::StorageClass(type->GetSingleWordInOperand(0));
}

bool IsPrivateClass(spv::StorageClass sc) {
  return sc == spv::StorageClass::Function || sc == spv::StorageClass::Private ||
         sc == spv::StorageClass::Input || sc == spv::StorageClass::Output;
}

// Whether |inst| reads buffer, workgroup or image memory (what the pass
// batches; the loads of private variables and of descriptors are not).
bool IsMemoryRead(spvtools::opt::IRContext* context, const Instruction* inst) {
  if (IsImageRead(inst->opcode())) return true;
  if (inst->opcode() != spv::Op::OpLoad) return false;
  const spv::StorageClass sc =
      PointerClass(context, inst->GetSingleWordInOperand(0));
  if (sc == spv::StorageClass::Max || IsPrivateClass(sc)) return false;
  if (sc == spv::StorageClass::UniformConstant) return false;  // descriptors
  // Workgroup memory (a uniform read is one broadcast LDS access) and push
  // constants (scalar registers) cost too little to batch.
  if (sc == spv::StorageClass::Workgroup || sc == spv::StorageClass::PushConstant) {
    return false;
  }
  return true;
}

// |id| with the phis that only pass one value on looked through: a phi
// whose incoming values are all one value (or itself: a loop phi the loop
// never changes) is that value. The SSA rewrite leaves many such phis in
// unoptimized code.
uint32_t LookThroughPhis(spvtools::opt::IRContext* context, uint32_t id) {
  auto* def_use = context->get_def_use_mgr();
  for (int depth = 0; depth < 16; ++depth) {
    Instruction* inst = def_use->GetDef(id);
    if (inst == nullptr || inst->opcode() != spv::Op::OpPhi) return id;
    // The values it takes, each looked through the phis of one value that
    // lead back to it.
    uint32_t same = 0;
    for (uint32_t i = 0; i + 1 < inst->NumInOperands(); i += 2) {
      uint32_t v = inst->GetSingleWordInOperand(i);
      for (int d = 0; d < 16 && v != id; ++d) {
        Instruction* vi = def_use->GetDef(v);
        if (vi == nullptr || vi->opcode() != spv::Op::OpPhi) break;
        uint32_t only = 0;
        bool one = true;
        for (uint32_t k = 0; k + 1 < vi->NumInOperands(); k += 2) {
          const uint32_t w = vi->GetSingleWordInOperand(k);
          if (w == v) continue;
          if (only != 0 && w != only) one = false;
          only = w;
        }
        if (!one || only == 0) break;
        v = only;
      }
      if (v == id) continue;
      if (same != 0 && v != same) return id;
      same = v;
    }
    if (same == 0) return id;
    id = same;
  }
  return id;
}

bool HasDecoration(spvtools::opt::IRContext* context, uint32_t id,
                   spv::Decoration decoration) {
  for (Instruction* dec :
       context->get_decoration_mgr()->GetDecorationsFor(id, false)) {
    if (dec->opcode() == spv::Op::OpDecorate &&
        spv::Decoration(dec->GetSingleWordInOperand(1)) == decoration) {
      return true;
    }
  }
  return false;
}

bool HasMemberDecoration(spvtools::opt::IRContext* context, uint32_t struct_id,
                         uint32_t member, spv::Decoration decoration) {
  for (Instruction* dec :
       context->get_decoration_mgr()->GetDecorationsFor(struct_id, false)) {
    if (dec->opcode() == spv::Op::OpMemberDecorate &&
        dec->GetSingleWordInOperand(1) == member &&
        spv::Decoration(dec->GetSingleWordInOperand(2)) == decoration) {
      return true;
    }
  }
  return false;
}

// The ids an image read depends on besides its result type: the image, the
// coordinate, the Dref or component, and the image operands' ids.
std::vector<uint32_t> ImageReadOperands(const Instruction* inst) {
  std::vector<uint32_t> ids;
  inst->ForEachInId([&](const uint32_t* id) { ids.push_back(*id); });
  return ids;
}

// 32-bit words in a value of |type_id| (for the cost and liveness rules).
uint32_t ComponentsOf(spvtools::opt::IRContext* context, uint32_t type_id,
                      int depth = 0) {
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
      Instruction* length =
          context->get_def_use_mgr()->GetDef(type->GetSingleWordInOperand(1));
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
uint32_t SmallWordsOf(spvtools::opt::IRContext* context, uint32_t type_id,
                      int depth = 0) {
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
          !IntConstant(context, context->get_def_use_mgr()->GetDef(type->GetSingleWordInOperand(1)), &n)) {
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
    } else if (key == "mutate") {
      if (value != "owner-lane-k" && value != "no-bounds" &&
          value != "no-exit-ballot" && value != "whole-subgroup") {
        *error = "mutate must be owner-lane-k, no-bounds, no-exit-ballot or "
                 "whole-subgroup";
        return false;
      }
      params->mutate = value;
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
               "driver-unroll=N or always)";
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

BatchUniformLoadsPass::BatchUniformLoadsPass(PassConfig config)
    : WavePass(std::move(config)) {
  std::string ignored;
  ParseParams(this->config().params, &params_, &ignored);
}

std::string BatchUniformLoadsPass::LoopTag(const Loop& loop) {
  return " [loop %" + std::to_string(loop.GetHeaderBlock()->id()) + "]";
}

namespace {

// The leaves of |type_id| (see Leaf); false when a leaf cannot be shuffled
// (8/16-bit, pointers, images, runtime arrays) or there are more than |cap|.
bool CollectLeaves(spvtools::opt::IRContext* context, uint32_t type_id,
                   std::vector<uint32_t>* path,
                   std::vector<BatchUniformLoadsPass::Leaf>* leaves,
                   size_t cap, std::string* why) {
  auto* def_use = context->get_def_use_mgr();
  Instruction* type = def_use->GetDef(type_id);
  if (leaves->size() > cap) {
    *why = "the loaded value has more than " + std::to_string(cap) +
           " scalar or vector parts";
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
    *why = "an 8- or 16-bit member in a module without the arithmetic "
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
        bool ok = CollectLeaves(context, type->GetSingleWordInOperand(0), path,
                                leaves, cap, why);
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
          *why = "the loaded value has more than " + std::to_string(cap) +
                 " scalar or vector parts";
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
    const Status status = ProcessRound(round + 1 == kMaxRounds, &deferred);
    if (status == Status::Failure) return status;
    if (status == Status::SuccessWithChange) changed = true;
    if (!deferred) break;
    context()->InvalidateAnalysesExceptFor(
        spvtools::opt::IRContext::kAnalysisNone);
  }
  return changed ? Status::SuccessWithChange : Status::SuccessWithoutChange;
}

spvtools::opt::Pass::Status BatchUniformLoadsPass::ProcessRound(
    bool last_round, bool* deferred) {
  loop_blocks_.clear();
  loop_writes_.clear();
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
  const std::string module_reason = ModuleRefusal(&module_why);

  UniformityAnalysis uniformity(context());
  struct Accepted {
    Plan plan;
    uint32_t depth;
    size_t order;
  };
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
    if (!plan.batched.empty() && (reason.empty() || reason == "RegisterPressure" ||
                                  reason == "NotProfitable" ||
                                  reason == "TooManyComponents")) {
      uint32_t words = 0;
      for (const Batched& b : plan.batched) {
        for (const Leaf& leaf : b.leaves) words += leaf.components;
      }
      EmitRemark(RemarkKind::kAnalysis, "LiveEstimate", func, merge_inst,
                 "about " + std::to_string(plan.live) +
                     " values per lane live in the loop" +
                     (plan.caller_live == 0
                          ? std::string()
                          : " (" + std::to_string(plan.caller_live) +
                                " of them held across the calls to its function)") +
                     ", " +
                     std::to_string(plan.function_live) +
                     " at the kernel's busiest point; the batch holds " +
                     std::to_string(words) + LoopTag(*loop));
    }
    if (reason.empty() && !module_reason.empty()) {
      reason = module_reason;
      why = module_why;
    }
    if (reason == "NoCandidateLoads") continue;  // nothing to say
    if (!reason.empty()) {
      EmitRemark(RemarkKind::kMissed, reason, func, where, why + LoopTag(*loop));
      handled_headers_.insert(header->id());
      continue;
    }
    plans.push_back({plan, static_cast<uint32_t>(loop->GetDepth()), n});
  }

  // One loop per nest per round, innermost first (that is where loads
  // repeat most); the next round takes the next one.
  std::stable_sort(plans.begin(), plans.end(),
                   [](const Accepted& a, const Accepted& b) {
                     return a.depth > b.depth;
                   });
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
    Instruction* merge_inst =
        candidate.plan.loop->GetHeaderBlock()->GetLoopMergeInst();
    if (overlaps) {
      // Waits for the next round (the nest's inner loop is rewritten first).
      *deferred = true;
      if (last_round) {
        EmitRemark(RemarkKind::kMissed, "NestedLoopBatched",
                   candidate.plan.function, merge_inst,
                   "more nested levels than one run batches; run the pass "
                   "again to batch this one" +
                       LoopTag(*candidate.plan.loop));
      }
      continue;
    }
    chosen.push_back(candidate);
  }
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](const Accepted& a, const Accepted& b) {
                     return a.order < b.order;
                   });
  if (chosen.empty()) return Status::SuccessWithoutChange;

  for (const Accepted& a : chosen) {
    const Plan& plan = a.plan;
    size_t values = 0, parts = 0, words = 0;
    for (const Batched& b : plan.batched) {
      values += b.insts.size();
      parts += b.leaves.size();
      for (const Leaf& leaf : b.leaves) words += leaf.components;
    }
    EmitRemark(RemarkKind::kApplied, "BatchedLoads", plan.function,
               plan.header->GetLoopMergeInst(),
               std::to_string(values) + " uniform load(s) per iteration (" +
                   std::to_string(parts) +
                   " shuffled part(s)) now load one element per lane per "
                   "batch; each iteration takes its element from the owning "
                   "lane (" + std::to_string(words) + " words per lane)" +
                   LoopTag(*plan.loop));
  }
  for (const Accepted& a : chosen) {
    handled_headers_.insert(a.plan.header->id());
    uint32_t outer_header = 0;
    if (!Rewrite(a.plan, &outer_header)) return Status::Failure;
    handled_headers_.insert(outer_header);
  }
  return Status::SuccessWithChange;
}

bool BatchUniformLoadsPass::IsInvariantExpr(
    uint32_t id, const Plan& plan, const std::unordered_set<uint32_t>* prefix,
    int depth) {
  if (depth > 24) return false;
  id = LookThroughPhis(context(), id);
  Instruction* inst = context()->get_def_use_mgr()->GetDef(id);
  if (inst == nullptr) return false;
  BasicBlock* block = context()->get_instr_block(inst);
  if (block == nullptr || !plan.block_ids.count(block->id())) return true;
  if (inst->opcode() == spv::Op::OpLoad) {
    const spv::StorageClass sc =
        PointerClass(context(), inst->GetSingleWordInOperand(0));
    if (sc == spv::StorageClass::UniformConstant) {
      // A descriptor (image, sampler, buffer handle): the same every time.
      return IsInvariantExpr(inst->GetSingleWordInOperand(0), plan, prefix,
                             depth + 1);
    }
    if (sc == spv::StorageClass::Max) return false;
    if (sc == spv::StorageClass::Input) {
      return IsInvariantExpr(inst->GetSingleWordInOperand(0), plan, prefix,
                             depth + 1);
    }
    if (!IsPrivateClass(sc) && prefix != nullptr && !prefix->count(block->id())) {
      return false;
    }
    std::string ignored;
    return IsInvariantExpr(inst->GetSingleWordInOperand(0), plan, prefix,
                           depth + 1) &&
           MemoryHazard(plan, inst, &ignored).empty();
  }
  if (!IsRecomputable(context(), inst)) return false;
  bool ok = true;
  inst->ForEachInId([&](const uint32_t* operand) {
    if (ok && !IsInvariantExpr(*operand, plan, prefix, depth + 1)) ok = false;
  });
  return ok;
}

bool BatchUniformLoadsPass::IsAddressOf(uint32_t id, const Plan& plan,
                                        bool allow_loads, bool* uses_iv,
                                        bool* indexed_load, int depth) {
  for (const Induction& iv : plan.ivs) {
    if (iv.phi->result_id() == id) {
      *uses_iv = true;
      return true;
    }
  }
  id = LookThroughPhis(context(), id);
  for (const Induction& iv : plan.ivs) {
    if (iv.phi->result_id() == id) {
      *uses_iv = true;
      return true;
    }
  }
  if (depth > 24) return false;
  Instruction* inst = context()->get_def_use_mgr()->GetDef(id);
  if (inst == nullptr) return false;
  BasicBlock* block = context()->get_instr_block(inst);
  if (block == nullptr || !plan.block_ids.count(block->id())) return true;
  if (inst->opcode() == spv::Op::OpLoad) {
    if (IsInvariantExpr(id, plan, nullptr, depth)) return true;
    if (!allow_loads) return false;
    // A load the loop indexes, from memory the loop cannot change (an index
    // list: lights[index[first + i]]). Recomputed for another iteration it
    // reads what that iteration reads.
    const spv::StorageClass sc =
        PointerClass(context(), inst->GetSingleWordInOperand(0));
    if (IsPrivateClass(sc) || sc == spv::StorageClass::Max) return false;
    std::string ignored;
    bool inner_uses = false;
    if (!IsAddressOf(inst->GetSingleWordInOperand(0), plan, allow_loads,
                     &inner_uses, indexed_load, depth + 1) ||
        !MemoryHazard(plan, inst, &ignored).empty()) {
      return false;
    }
    if (inner_uses) {
      *uses_iv = true;
      *indexed_load = true;
    }
    return true;
  }
  if (!IsRecomputable(context(), inst)) return false;
  bool ok = true;
  inst->ForEachInId([&](const uint32_t* operand) {
    if (ok && !IsAddressOf(*operand, plan, allow_loads, uses_iv, indexed_load,
                           depth + 1)) {
      ok = false;
    }
  });
  return ok;
}

std::string BatchUniformLoadsPass::MemoryHazard(const Plan& plan,
                                                Instruction* load,
                                                std::string* why) {
  auto* def_use = context()->get_def_use_mgr();
  const bool image = IsImageRead(load->opcode());
  Instruction* root = nullptr;
  uint32_t ptr = 0;
  if (image) {
    root = ImageVariable(context(), load->GetSingleWordInOperand(0));
    if (root == nullptr) {
      *why = "the image does not come from a variable";
      return "UnknownMemory";
    }
  } else {
    ptr = load->GetSingleWordInOperand(0);
    root = RootVariable(context(), ptr);
  }
  const LoopWrites& writes = WritesOf(*plan.loop);
  if (writes.unknown_inst != nullptr) {
    *why = std::string("the loop (or a function it calls) contains Op") +
           spvOpcodeString(writes.unknown_inst->opcode()) +
           ", whose effect on memory waveopt does not know";
    return "UnknownInstruction";
  }

  // Memory operands: Volatile, or (Vulkan memory model) a load made visible
  // to other invocations, reads what they write meanwhile.
  if (!image && load->NumInOperands() > 1) {
    const uint32_t mask = load->GetSingleWordInOperand(1);
    if (mask & (static_cast<uint32_t>(spv::MemoryAccessMask::Volatile) |
                static_cast<uint32_t>(spv::MemoryAccessMask::MakePointerVisible) |
                static_cast<uint32_t>(spv::MemoryAccessMask::NonPrivatePointer))) {
      *why = "the load is Volatile or made visible to other invocations";
      return "CoherentOrVolatile";
    }
  }
  if (root != nullptr &&
      IsPrivateClass(spv::StorageClass(root->GetSingleWordInOperand(0)))) {
    // A local: only the loop's own stores change it.
    if (writes.unknown || writes.unknown_private ||
        writes.roots.count(root->result_id())) {
      *why = "the loop writes the variable it loads from";
      return "LoopWritesMemory";
    }
    return "";
  }
  if (root == nullptr) {
    // A PhysicalStorageBuffer pointer (buffer device address): it may point
    // into any buffer, so the loop must write no buffer memory at all.
    if (PointerClass(context(), ptr) != spv::StorageClass::PhysicalStorageBuffer) {
      *why = "the loaded pointer does not come from a variable";
      return "UnknownMemory";
    }
    if (writes.barrier) {
      *why = "a barrier in the loop lets other invocations write the memory "
             "between iterations";
      return "BarrierInLoop";
    }
    if (writes.buffers || writes.unknown || writes.physical) {
      *why = "the loop writes buffer memory, which the buffer device address "
             "may point into";
      return "LoopWritesMemory";
    }
    return "";
  }
  const auto storage = spv::StorageClass(root->GetSingleWordInOperand(0));
  // The block type and the member the chain enters first.
  Instruction* pointee = def_use->GetDef(
      def_use->GetDef(root->type_id())->GetSingleWordInOperand(1));
  while (pointee != nullptr && (pointee->opcode() == spv::Op::OpTypeArray ||
                                pointee->opcode() == spv::Op::OpTypeRuntimeArray)) {
    pointee = def_use->GetDef(pointee->GetSingleWordInOperand(0));  // arrays of descriptors
  }
  int32_t member = -1;
  if (!image) {
    Instruction* chain = def_use->GetDef(ptr);
    while (chain != nullptr && chain->opcode() != spv::Op::OpVariable &&
           chain->GetSingleWordInOperand(0) != root->result_id()) {
      chain = def_use->GetDef(chain->GetSingleWordInOperand(0));
    }
    if (chain != nullptr && chain->opcode() != spv::Op::OpVariable &&
        chain->NumInOperands() > 1 && pointee != nullptr &&
        pointee->opcode() == spv::Op::OpTypeStruct) {
      uint64_t m = 0;
      if (IntConstant(context(), def_use->GetDef(chain->GetSingleWordInOperand(1)),
                      &m)) {
        member = static_cast<int32_t>(m);
      }
    }
  }
  auto decorated = [&](spv::Decoration d) {
    return HasDecoration(context(), root->result_id(), d) ||
           (pointee != nullptr && pointee->opcode() == spv::Op::OpTypeStruct &&
            member >= 0 &&
            HasMemberDecoration(context(), pointee->result_id(),
                                static_cast<uint32_t>(member), d));
  };
  if (decorated(spv::Decoration::Coherent) ||
      decorated(spv::Decoration::Volatile)) {
    *why = "the memory is Coherent or Volatile: other invocations may change "
           "it while the loop runs";
    return "CoherentOrVolatile";
  }
  bool read_only = false;
  if (image) {
    // Sampled images and texel buffers cannot be written by shaders.
    Instruction* image_type = pointee;
    read_only = decorated(spv::Decoration::NonWritable) ||
                (image_type != nullptr &&
                 ((image_type->opcode() == spv::Op::OpTypeImage &&
                   image_type->GetSingleWordInOperand(5) == 1) ||
                  image_type->opcode() == spv::Op::OpTypeSampledImage));
  } else {
    const bool buffer_block =
        storage == spv::StorageClass::Uniform && pointee != nullptr &&
        HasDecoration(context(), pointee->result_id(), spv::Decoration::BufferBlock);
    read_only = (storage == spv::StorageClass::Uniform && !buffer_block) ||
                storage == spv::StorageClass::PushConstant ||
                storage == spv::StorageClass::UniformConstant ||
                decorated(spv::Decoration::NonWritable);
  }
  if (read_only) return "";

  // Writable memory: no write to this variable, no barrier, in the loop or
  // in anything it calls.
  if (writes.barrier) {
    *why = "a barrier in the loop lets other invocations write the memory "
           "between iterations";
    return "BarrierInLoop";
  }
  const bool buffer_memory = storage == spv::StorageClass::StorageBuffer ||
                             storage == spv::StorageClass::Uniform;
  if (writes.unknown || writes.aliased || writes.roots.count(root->result_id()) ||
      (buffer_memory && writes.physical) ||
      (HasDecoration(context(), root->result_id(), spv::Decoration::Aliased) &&
       !writes.roots.empty())) {
    *why = "the loop writes the memory it loads from (or memory that may "
           "alias it)";
    return "LoopWritesMemory";
  }
  return "";
}

const std::vector<BasicBlock*>& BatchUniformLoadsPass::LoopBlocks(Loop& loop) {
  const uint32_t header = loop.GetHeaderBlock()->id();
  auto found = loop_blocks_.find(header);
  if (found != loop_blocks_.end()) return found->second;
  // One walk over the function fills every loop of it (linear in blocks
  // times nesting depth), in function order.
  Function* func = loop.GetHeaderBlock()->GetParent();
  spvtools::opt::LoopDescriptor* loops = context()->GetLoopDescriptor(func);
  for (BasicBlock& block : *func) {
    for (Loop* l = (*loops)[&block]; l != nullptr; l = l->GetParent()) {
      loop_blocks_[l->GetHeaderBlock()->id()].push_back(&block);
    }
  }
  return loop_blocks_[header];
}

const BatchUniformLoadsPass::LoopWrites& BatchUniformLoadsPass::WritesOf(
    Loop& loop) {
  const uint32_t header = loop.GetHeaderBlock()->id();
  auto found = loop_writes_.find(header);
  if (found != loop_writes_.end()) return found->second;
  LoopWrites& writes = loop_writes_[header];
  std::set<uint32_t> seen_functions;
  auto note = [&](Instruction* target, spv::StorageClass sc) {
    if (target == nullptr) {
      if (IsPrivateClass(sc)) {
        writes.unknown_private = true;  // through a pointer parameter
        return;
      }
      if (sc == spv::StorageClass::PhysicalStorageBuffer) {
        writes.physical = true;
      } else {
        writes.unknown = true;
      }
      writes.buffers = true;
      return;
    }
    writes.roots.insert(target->result_id());
    const auto root_sc = spv::StorageClass(target->GetSingleWordInOperand(0));
    if (root_sc == spv::StorageClass::StorageBuffer ||
        root_sc == spv::StorageClass::Uniform) {
      writes.buffers = true;
    }
    if (HasDecoration(context(), target->result_id(), spv::Decoration::Aliased)) {
      writes.aliased = true;
    }
  };
  std::function<void(Instruction*)> visit = [&](Instruction* inst) {
    const spv::Op op = inst->opcode();
    switch (MemoryEffectOf(context(), inst)) {
      case MemoryEffect::kBarrier:
        writes.barrier = true;
        return;
      case MemoryEffect::kUnknown:
        if (writes.unknown_inst == nullptr) writes.unknown_inst = inst;
        return;
      case MemoryEffect::kWrite: {
        const int operand = WrittenOperand(context(), inst);
        if (op == spv::Op::OpImageWrite) {
          note(ImageVariable(context(), inst->GetSingleWordInOperand(0)),
               spv::StorageClass::UniformConstant);
        } else if (operand < 0) {
          note(nullptr, spv::StorageClass::StorageBuffer);  // no operand names it
        } else {
          const uint32_t written = inst->GetSingleWordInOperand(static_cast<uint32_t>(operand));
          note(RootVariable(context(), written), PointerClass(context(), written));
        }
        return;
      }
      default:
        break;
    }
    if (op == spv::Op::OpFunctionCall) {
      uint32_t callee = inst->GetSingleWordInOperand(0);
      if (seen_functions.insert(callee).second) {
        if (Function* f = context()->GetFunction(callee)) {
          f->ForEachInst([&](Instruction* i) { visit(i); });
        }
      }
    }
  };
  for (BasicBlock* block : LoopBlocks(loop)) {
    block->ForEachInst([&](Instruction* inst) { visit(inst); });
  }
  return writes;
}

std::string BatchUniformLoadsPass::LoadsInCallee(Loop& loop, std::string* why,
                                                 Instruction** where) {
  // A function call in the loop whose callee reads buffer or image memory:
  // the loads the loop repeats may be there, out of the pass's sight (-O
  // inlines only the functions its inliner takes, lib/inline_loop_callees.h).
  for (BasicBlock* block : LoopBlocks(loop)) {
    for (Instruction& inst : *block) {
      if (inst.opcode() != spv::Op::OpFunctionCall) continue;
      Function* callee = context()->GetFunction(inst.GetSingleWordInOperand(0));
      if (callee == nullptr) continue;
      const bool loads = !callee->WhileEachInst([&](Instruction* callee_inst) {
        return !IsMemoryRead(context(), callee_inst);
      });
      if (!loads) continue;
      *why = "the loop calls " + NameOf(callee->result_id()) +
             ", which loads memory: loads in a called function are not "
             "batched (-O inlines functions called in loops of at most " +
             std::to_string(kInlineLoopCalleeMaxInstructions) +
             " instructions)";
      *where = &inst;
      return "LoadInCallee";
    }
  }
  return "NoCandidateLoads";
}

std::string BatchUniformLoadsPass::AnalyzeShape(Function* func, Loop* loop,
                                                Plan* plan, std::string* why,
                                                Instruction** where) {
  auto* def_use = context()->get_def_use_mgr();
  spvtools::opt::CFG* cfg = context()->cfg();
  spvtools::opt::DominatorAnalysis* dom = context()->GetDominatorAnalysis(func);
  BasicBlock* header = loop->GetHeaderBlock();
  BasicBlock* merge = loop->GetMergeBlock();
  plan->function = func;
  plan->loop = loop;
  plan->header = header;
  plan->merge = merge;
  plan->blocks = LoopBlocks(*loop);
  for (BasicBlock* b : plan->blocks) plan->block_ids.insert(b->id());
  auto shape = [&](const std::string& text) {
    *why = text;
    return std::string("UnsupportedLoopShape");
  };
  if (merge == nullptr || plan->block_ids.count(merge->id())) {
    return shape("the loop has no merge block outside it");
  }

  // The back-edge block (one, by the structured rules) and the entries.
  for (uint32_t pred : cfg->preds(header->id())) {
    BasicBlock* p = cfg->block(pred);
    if (!dom->IsReachable(pred)) continue;
    if (plan->block_ids.count(pred)) {
      if (plan->latch != nullptr) return shape("the loop has two back edges");
      plan->latch = p;
    } else {
      plan->entries.push_back(p);
    }
  }
  if (plan->latch == nullptr || plan->entries.empty()) {
    return shape("the loop has no back edge or no entry");
  }
  std::sort(plan->entries.begin(), plan->entries.end(),
            [&](BasicBlock* a, BasicBlock* b) { return a->id() < b->id(); });
  for (uint32_t pred : cfg->preds(header->id())) {
    if (!dom->IsReachable(pred)) return shape("an unreachable block enters the loop");
  }

  // Every way out goes to the merge block (or returns); the merge block is
  // entered from the loop only.
  for (BasicBlock* block : plan->blocks) {
    bool to_merge = false;
    bool other = false;
    block->ForEachSuccessorLabel([&](const uint32_t succ) {
      if (succ == merge->id()) {
        to_merge = true;
      } else if (!plan->block_ids.count(succ)) {
        other = true;
      }
    });
    if (other) return shape("a branch leaves the loop to a block other than its merge block");
    if (to_merge) plan->exit_sources.push_back(block);
    if (block != header) {
      if (Instruction* m = block->GetMergeInst()) {
        if (m->GetSingleWordInOperand(0) == merge->id()) {
          return shape("a construct inside the loop names the loop's merge block as its own");
        }
      }
    }
  }
  for (uint32_t pred : cfg->preds(merge->id())) {
    if (!plan->block_ids.count(pred) && dom->IsReachable(pred)) {
      return shape("the merge block is also entered from outside the loop");
    }
  }

  // The back edge: an unconditional branch, or a conditional one whose
  // other side leaves the loop (do-while).
  Instruction* back = plan->latch->terminator();
  if (back->opcode() == spv::Op::OpBranchConditional) {
    const uint32_t t = back->GetSingleWordInOperand(1);
    const uint32_t f = back->GetSingleWordInOperand(2);
    if (!((t == header->id() && f == merge->id()) ||
          (f == header->id() && t == merge->id()))) {
      *where = back;
      return shape("the back-edge block branches elsewhere than the header and the merge block");
    }
  } else if (back->opcode() != spv::Op::OpBranch) {
    *where = back;
    return shape("the back-edge block does not end in a branch");
  }
  if (plan->latch != header && plan->latch->GetMergeInst() != nullptr) {
    return shape("the back-edge block heads a construct");
  }

  // Where the ballot goes: a block that enters only the loop; else the
  // rewrite adds one (and moves merge instructions naming the header).
  if (plan->entries.size() == 1 &&
      plan->entries[0]->terminator()->opcode() == spv::Op::OpBranch) {
    plan->preheader = plan->entries[0];
  } else {
    for (BasicBlock& block : *func) {
      Instruction* m = block.GetMergeInst();
      if (m == nullptr || plan->block_ids.count(block.id())) continue;
      if (m->GetSingleWordInOperand(0) == header->id()) {
        plan->merges_naming_header.push_back(m);
      }
      if (m->opcode() == spv::Op::OpLoopMerge &&
          m->GetSingleWordInOperand(1) == header->id()) {
        return shape("the loop's header is another loop's continue target");
      }
    }
  }

  for (BasicBlock* block : plan->blocks) {
    if (dom->Dominates(block, plan->latch)) plan->dominate_latch.insert(block->id());
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
          return shape("a pointer or descriptor made in the loop is used after it");
        default:
          break;
      }
    }
  }
  return "";
}

namespace {

// If |id| is |*base| + |*offset| through integer additions, subtractions of
// constants and same-width bitcasts (offset modulo 2^width), with |*base|
// the first value that is not such an operation.
void AffineOf(spvtools::opt::IRContext* context, uint32_t id, uint32_t* base,
              uint64_t* offset, int depth = 0) {
  auto* def_use = context->get_def_use_mgr();
  Instruction* inst = def_use->GetDef(id);
  *base = id;
  *offset = 0;
  if (inst != nullptr && inst->opcode() == spv::Op::OpPhi) {
    const uint32_t value = LookThroughPhis(context, id);
    if (value != id) {
      AffineOf(context, value, base, offset, depth + 1);
      return;
    }
  }
  if (inst == nullptr || depth > 16) return;
  uint64_t c = 0;
  switch (inst->opcode()) {
    case spv::Op::OpIAdd: {
      const uint32_t a = inst->GetSingleWordInOperand(0);
      const uint32_t b = inst->GetSingleWordInOperand(1);
      if (IntConstant(context, def_use->GetDef(b), &c)) {
        AffineOf(context, a, base, offset, depth + 1);
        *offset += c;
      } else if (IntConstant(context, def_use->GetDef(a), &c)) {
        AffineOf(context, b, base, offset, depth + 1);
        *offset += c;
      }
      return;
    }
    case spv::Op::OpISub:
      if (IntConstant(context, def_use->GetDef(inst->GetSingleWordInOperand(1)), &c)) {
        AffineOf(context, inst->GetSingleWordInOperand(0), base, offset, depth + 1);
        *offset -= c;
      }
      return;
    case spv::Op::OpBitcast:
    case spv::Op::OpCopyObject: {
      const Instruction* from = def_use->GetDef(inst->GetSingleWordInOperand(0));
      const Instruction* t1 = def_use->GetDef(inst->type_id());
      const Instruction* t0 = from ? def_use->GetDef(from->type_id()) : nullptr;
      if (t0 && t1 && t0->opcode() == spv::Op::OpTypeInt &&
          t1->opcode() == spv::Op::OpTypeInt &&
          t0->GetSingleWordInOperand(0) == t1->GetSingleWordInOperand(0)) {
        AffineOf(context, inst->GetSingleWordInOperand(0), base, offset, depth + 1);
      }
      return;
    }
    default:
      return;
  }
}

// The result of integer comparison |op| on |a| and |b| of |width| bits.
bool Compare(spv::Op op, uint64_t a, uint64_t b, uint32_t width, bool* known) {
  *known = true;
  const uint64_t ua = MaskTo(a, width), ub = MaskTo(b, width);
  const int64_t sa = SignExtend(a, width), sb = SignExtend(b, width);
  switch (op) {
    case spv::Op::OpIEqual: return ua == ub;
    case spv::Op::OpINotEqual: return ua != ub;
    case spv::Op::OpULessThan: return ua < ub;
    case spv::Op::OpULessThanEqual: return ua <= ub;
    case spv::Op::OpUGreaterThan: return ua > ub;
    case spv::Op::OpUGreaterThanEqual: return ua >= ub;
    case spv::Op::OpSLessThan: return sa < sb;
    case spv::Op::OpSLessThanEqual: return sa <= sb;
    case spv::Op::OpSGreaterThan: return sa > sb;
    case spv::Op::OpSGreaterThanEqual: return sa >= sb;
    default:
      *known = false;
      return false;
  }
}

}  // namespace

std::string BatchUniformLoadsPass::Analyze(Function* func, Loop* loop,
                                           const UniformityAnalysis& uniformity,
                                           Plan* plan, std::string* why,
                                           Instruction** where) {
  auto* def_use = context()->get_def_use_mgr();
  spvtools::opt::DominatorAnalysis* dom = context()->GetDominatorAnalysis(func);

  // The pass has something to say only when the loop reads memory at all.
  bool any_memory_load = false;
  for (BasicBlock* loop_block : LoopBlocks(*loop)) {
    for (Instruction& inst : *loop_block) {
      if (IsMemoryRead(context(), &inst)) any_memory_load = true;
    }
  }
  if (!any_memory_load) return LoadsInCallee(*loop, why, where);

  std::string reason = AnalyzeShape(func, loop, plan, why, where);
  if (!reason.empty()) return reason;
  BasicBlock* header = plan->header;
  BasicBlock* latch = plan->latch;

  // Every exit subgroup-uniform: the lanes that enter leave together.
  if (uniformity.LoopExitLevel(header->id()) == Uniformity::kDivergent) {
    *why = "lanes may leave the loop at different iterations (an exit test "
           "is not subgroup-uniform)";
    return "LoopTripCountDivergent";
  }

  // Induction variables: header phis stepped by a constant.
  header->ForEachPhiInst([&](Instruction* phi) {
    const Instruction* type = def_use->GetDef(phi->type_id());
    if (type->opcode() != spv::Op::OpTypeInt) return;
    const uint32_t width = type->GetSingleWordInOperand(0);
    if (width != 32 && width != 64) return;
    uint32_t next = 0;
    for (uint32_t i = 0; i + 1 < phi->NumInOperands(); i += 2) {
      if (phi->GetSingleWordInOperand(i + 1) == latch->id()) {
        next = phi->GetSingleWordInOperand(i);
      }
    }
    uint32_t base = 0;
    uint64_t offset = 0;
    AffineOf(context(), next, &base, &offset);
    offset = MaskTo(offset, width);
    if (base == phi->result_id() && offset != 0) {
      plan->ivs.push_back({phi, offset, width});
    }
  });

  // Exits. A block "reaches the latch" when the iteration can still go on
  // from it; an edge from such a block to one that cannot is a way out.
  std::unordered_set<uint32_t> reaching;
  {
    std::vector<uint32_t> stack = {latch->id()};
    while (!stack.empty()) {
      const uint32_t id = stack.back();
      stack.pop_back();
      if (!reaching.insert(id).second || id == header->id()) continue;
      for (uint32_t pred : context()->cfg()->preds(id)) {
        if (plan->block_ids.count(pred)) stack.push_back(pred);
      }
    }
  }
  std::vector<BasicBlock*> exit_blocks;  // every block a way out starts from
  bool unpredictable_exit = false;
  Instruction* unpredictable_where = nullptr;
  // Blocks of the chain that every iteration runs before any exit can fire
  // (loads there may be repeated at the top of a batch).
  std::unordered_set<uint32_t> prefix;
  for (BasicBlock* block : plan->blocks) {
    if (!reaching.count(block->id())) continue;
    bool leaves = false;
    block->ForEachSuccessorLabel([&](const uint32_t succ) {
      if (succ == plan->merge->id() ||
          (plan->block_ids.count(succ) && !reaching.count(succ))) {
        leaves = true;
      }
    });
    if (leaves) exit_blocks.push_back(block);
  }
  for (BasicBlock* block : plan->blocks) {
    if (!plan->dominate_latch.count(block->id())) continue;
    bool before_all = true;
    for (BasicBlock* e : exit_blocks) {
      if (!dom->Dominates(block, e)) before_all = false;
    }
    if (before_all) prefix.insert(block->id());
  }
  for (BasicBlock* block : exit_blocks) {
    Instruction* term = block->terminator();
    bool predictable = plan->dominate_latch.count(block->id()) &&
                       term->opcode() == spv::Op::OpBranchConditional;
    Exit exit;
    if (predictable) {
      auto leaves = [&](uint32_t succ) {
        return succ == plan->merge->id() ||
               (plan->block_ids.count(succ) && !reaching.count(succ));
      };
      const bool t = leaves(term->GetSingleWordInOperand(1));
      const bool f = leaves(term->GetSingleWordInOperand(2));
      exit.from = block;
      exit.cond = term->GetSingleWordInOperand(0);
      exit.fires_when_true = t;
      predictable = t != f;
    }
    if (predictable) {
      // The condition from the induction variables and invariants only.
      std::function<bool(uint32_t, int)> computable = [&](uint32_t id,
                                                           int depth) -> bool {
        for (const Induction& iv : plan->ivs) {
          if (iv.phi->result_id() == id) return true;
        }
        if (depth > 24) return false;
        id = LookThroughPhis(context(), id);
        Instruction* inst = def_use->GetDef(id);
        if (inst == nullptr) return false;
        BasicBlock* b = context()->get_instr_block(inst);
        if (b == nullptr || !plan->block_ids.count(b->id())) return true;
        if (inst->opcode() == spv::Op::OpLoad) {
          return IsInvariantExpr(id, *plan, &prefix, 0);
        }
        if (!IsRecomputable(context(), inst)) return false;
        bool ok = true;
        inst->ForEachInId([&](const uint32_t* op) {
          if (ok && !computable(*op, depth + 1)) ok = false;
        });
        return ok;
      };
      predictable = computable(exit.cond, 0);
    }
    if (predictable) {
      plan->exits.push_back(exit);
    } else if (!unpredictable_exit) {
      unpredictable_exit = true;
      unpredictable_where = term;
    }
  }

  // The loads: address from the induction variables and invariants,
  // subgroup-uniform, from memory the loop cannot change.
  std::string first_reason, first_why;
  Instruction* first_where = nullptr;
  std::string divergent_why;
  Instruction* divergent_where = nullptr;
  bool any_varying = false;
  auto refuse = [&](const std::string& r, const std::string& w, Instruction* at) {
    if (first_reason.empty()) {
      first_reason = r;
      first_why = w;
      first_where = at;
    }
  };
  for (BasicBlock* block : plan->blocks) {
    for (Instruction& inst : *block) {
      if (!IsMemoryRead(context(), &inst)) continue;
      const bool image = IsImageRead(inst.opcode());
      std::vector<uint32_t> operands =
          image ? ImageReadOperands(&inst)
                : std::vector<uint32_t>{inst.GetSingleWordInOperand(0)};
      bool invariant = true;
      for (uint32_t id : operands) {
        if (!IsInvariantExpr(id, *plan, nullptr, 0)) invariant = false;
      }
      if (invariant) continue;  // the same element every iteration
      // An address that changes with a loop nested in this one is that
      // loop's business (it is looked at on its own).
      {
        bool inner = false;
        std::unordered_set<uint32_t> seen;
        std::vector<uint32_t> stack(operands.begin(), operands.end());
        while (!stack.empty() && !inner) {
          const uint32_t id = stack.back();
          stack.pop_back();
          if (!seen.insert(id).second) continue;
          Instruction* d = def_use->GetDef(id);
          BasicBlock* db = d ? context()->get_instr_block(d) : nullptr;
          if (db == nullptr || !plan->block_ids.count(db->id())) continue;
          if (d->opcode() == spv::Op::OpPhi) {
            if (db != header && db->GetLoopMergeInst() != nullptr) inner = true;
            continue;
          }
          d->ForEachInId([&](const uint32_t* op) { stack.push_back(*op); });
        }
        if (inner) continue;
      }
      any_varying = true;
      bool uniform = true;
      for (uint32_t id : operands) {
        if (!uniformity.IsSubgroupUniform(id)) uniform = false;
      }
      if (!uniform) {
        if (divergent_where == nullptr) {
          divergent_where = &inst;
          divergent_why = "the address differs between lanes";
        }
        continue;
      }
      bool uses_iv = false, indexed = false, affine = true;
      for (uint32_t id : operands) {
        if (!IsAddressOf(id, *plan, true, &uses_iv, &indexed, 0)) affine = false;
      }
      if (!affine || !uses_iv) {
        // Through a local the loop stores to: not in SSA form yet.
        bool local = false;
        std::unordered_set<uint32_t> seen;
        std::vector<uint32_t> stack(operands.begin(), operands.end());
        while (!stack.empty() && !local) {
          const uint32_t id = stack.back();
          stack.pop_back();
          if (!seen.insert(id).second) continue;
          Instruction* d = def_use->GetDef(id);
          BasicBlock* db = d ? context()->get_instr_block(d) : nullptr;
          if (db == nullptr || !plan->block_ids.count(db->id())) continue;
          if (d->opcode() == spv::Op::OpLoad &&
              IsPrivateClass(PointerClass(context(), d->GetSingleWordInOperand(0)))) {
            local = true;
          }
          if (d->opcode() != spv::Op::OpPhi) {
            d->ForEachInId([&](const uint32_t* op) { stack.push_back(*op); });
          }
        }
        refuse("AddressNotInduction",
               local
                   ? "the address changes from iteration to iteration "
                     "through a local variable the loop stores to (run "
                     "--ssa-rewrite first; waveopt -O does)"
                   : "the address changes from iteration to iteration, but "
                     "not as a function of the loop's counters (it depends "
                     "on values the loop computes, e.g. a list it follows)",
               &inst);
        continue;
      }
      Batched b;
      b.insts = {&inst};
      b.read = &inst;
      b.block = block;
      std::vector<uint32_t> path;
      std::string leaf_why;
      // What travels: the loaded value, or, for 8/16-bit values of a module
      // that may only store them, the 32-bit conversions the loop makes of
      // it (each its own batched value).
      std::vector<Batched> units;
      if (CollectLeaves(context(), inst.type_id(), &path, &b.leaves, 64, &leaf_why)) {
        units.push_back(b);
      } else {
        std::vector<Instruction*> converts;
        bool only_converts = true;
        def_use->ForEachUser(&inst, [&](Instruction* user) {
          const spv::Op op = user->opcode();
          if ((op == spv::Op::OpUConvert || op == spv::Op::OpSConvert ||
               op == spv::Op::OpFConvert) &&
              user->GetSingleWordInOperand(0) == inst.result_id()) {
            converts.push_back(user);
          } else {
            only_converts = false;
          }
        });
        std::sort(converts.begin(), converts.end(),
                  [](Instruction* x, Instruction* y) {
                    return x->result_id() < y->result_id();
                  });
        for (Instruction* convert : converts) {
          Batched u = b;
          u.insts = {convert};
          u.leaves.clear();
          std::vector<uint32_t> p2;
          std::string w2;
          if (!CollectLeaves(context(), convert->type_id(), &p2, &u.leaves, 64, &w2)) {
            only_converts = false;
          }
          units.push_back(u);
        }
        if (!only_converts || units.empty()) {
          refuse("UnsupportedType", leaf_why, &inst);
          continue;
        }
      }
      std::string hazard_why;
      const std::string hazard = MemoryHazard(*plan, &inst, &hazard_why);
      if (!hazard.empty()) {
        refuse(hazard, hazard_why, &inst);
        continue;
      }
      // Read ahead of time for an iteration the original might not reach
      // it in: the loop may leave on a condition the fill cannot evaluate,
      // or the load is conditional.
      b.speculative = unpredictable_exit || !plan->dominate_latch.count(block->id());
      if (b.speculative && params_.mutate != "no-bounds") {
        bool prefix_only = true;
        for (uint32_t id : operands) {
          bool u = false, ix = false;
          if (!IsAddressOf(id, *plan, false, &u, &ix, 0)) prefix_only = false;
        }
        std::string bounds_why;
        if (indexed || !prefix_only) {
          refuse("UnprovenBounds",
                 std::string(unpredictable_exit
                                 ? "the loop may leave on a condition known "
                                   "only when it runs"
                                 : "the load is conditional") +
                     ", so elements would be read ahead of time, and the "
                     "address goes through another load",
                 indexed ? &inst : unpredictable_where);
          continue;
        }
        if (!CanCheckBounds(&inst, &bounds_why)) {
          refuse("UnprovenBounds",
                 std::string(unpredictable_exit
                                 ? "the loop may leave on a condition known "
                                   "only when it runs"
                                 : "the load is conditional") +
                     ", so elements would be read ahead of time, and " +
                     bounds_why,
                 &inst);
          continue;
        }
      }
      std::vector<size_t> before;
      for (size_t e = 0; e < plan->exits.size(); ++e) {
        BasicBlock* from = plan->exits[e].from;
        if (from != block && dom->Dominates(from, block)) before.push_back(e);
      }
      // Memory cost per iteration (see the pass doc): a uniform 32-bit load
      // 4 units, wider loads and image reads 16 per 16 bytes.
      const uint32_t bytes_words = (ComponentsOf(context(), inst.type_id()) +
                                    SmallWordsOf(context(), inst.type_id()));
      const uint32_t cost = image ? 16 : (bytes_words <= 1 ? 4 : 16 * ((bytes_words + 3) / 4));
      for (size_t n = 0; n < units.size(); ++n) {
        Batched& unit = units[n];
        unit.speculative = b.speculative;
        unit.before = before;
        unit.cost = n == 0 ? cost : 0;  // one memory read for all its conversions
        Instruction& value = *unit.insts[0];
        // Reads (or conversions of reads) of the same address share one
        // batch.
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
  }
  if (plan->batched.empty()) {
    if (!first_reason.empty()) {
      *why = first_why;
      *where = first_where;
      return first_reason;
    }
    if (divergent_where != nullptr) {
      *why = divergent_why;
      *where = divergent_where;
      return "DivergentAddress";
    }
    if (!any_varying) return LoadsInCallee(*loop, why, where);
    return "NoCandidateLoads";
  }

  // Trip count: the exits that compare a counter with a constant, run from
  // a constant start.
  {
    struct Simple {
      size_t exit;
      spv::Op op;
      bool iv_left;
      size_t iv;
      uint64_t offset;
      uint64_t bound;
      bool bound_is_max;  // the bound is min(x, bound): an upper bound only
      bool negate;
    };
    std::vector<Simple> simple;
    bool all_simple = !unpredictable_exit;
    for (size_t e = 0; e < plan->exits.size(); ++e) {
      uint32_t cond = plan->exits[e].cond;
      bool negate = !plan->exits[e].fires_when_true;
      Instruction* c = def_use->GetDef(cond);
      while (c != nullptr && c->opcode() == spv::Op::OpLogicalNot) {
        negate = !negate;
        c = def_use->GetDef(c->GetSingleWordInOperand(0));
      }
      bool ok = false;
      bool known = false;
      if (c != nullptr && c->NumInOperands() == 2) {
        Compare(c->opcode(), 0, 0, 32, &known);
      }
      if (known) {
        for (uint32_t side = 0; side < 2 && !ok; ++side) {
          uint32_t base = 0;
          uint64_t offset = 0;
          AffineOf(context(), c->GetSingleWordInOperand(side), &base, &offset);
          size_t iv = plan->ivs.size();
          for (size_t i = 0; i < plan->ivs.size(); ++i) {
            if (plan->ivs[i].phi->result_id() == base) iv = i;
          }
          if (iv == plan->ivs.size()) continue;
          Instruction* other = def_use->GetDef(c->GetSingleWordInOperand(1 - side));
          uint64_t bound = 0;
          bool is_max = false;
          if (!IntConstant(context(), other, &bound)) {
            // min(x, C) on the bound side of "i < bound": at most C.
            if (other != nullptr && other->opcode() == spv::Op::OpExtInst &&
                other->NumInOperands() == 4 &&
                (other->GetSingleWordInOperand(1) == 38 /* UMin */ ||
                 other->GetSingleWordInOperand(1) == 39 /* SMin */)) {
              for (uint32_t k = 2; k < 4 && !is_max; ++k) {
                if (IntConstant(context(),
                                def_use->GetDef(other->GetSingleWordInOperand(k)),
                                &bound)) {
                  is_max = true;
                }
              }
            }
            // Only where the loop goes on while the counter stays below it.
            const bool less = c->opcode() == spv::Op::OpULessThan ||
                              c->opcode() == spv::Op::OpSLessThan ||
                              c->opcode() == spv::Op::OpULessThanEqual ||
                              c->opcode() == spv::Op::OpSLessThanEqual;
            if (!is_max || !less || side != 0 || !negate) continue;
          }
          simple.push_back({e, c->opcode(), side == 0, iv, offset, bound, is_max,
                            negate});
          ok = true;
        }
      }
      if (!ok || simple.back().bound_is_max) all_simple = false;
    }
    // The counters' start values.
    std::vector<uint64_t> init(plan->ivs.size(), 0);
    std::vector<bool> init_known(plan->ivs.size(), false);
    for (size_t i = 0; i < plan->ivs.size(); ++i) {
      Instruction* phi = plan->ivs[i].phi;
      uint64_t value = 0;
      bool have = false, same = true;
      for (uint32_t k = 0; k + 1 < phi->NumInOperands(); k += 2) {
        if (phi->GetSingleWordInOperand(k + 1) == latch->id()) continue;
        uint64_t v = 0;
        if (!IntConstant(context(), def_use->GetDef(phi->GetSingleWordInOperand(k)), &v)) {
          same = false;
        } else if (have && v != value) {
          same = false;
        } else {
          value = v;
          have = true;
        }
      }
      init[i] = value;
      init_known[i] = have && same;
    }
    // Simulate up to 2^16 iterations (loops of constant bounds; anything
    // longer counts as long).
    bool usable = !simple.empty();
    for (const Simple& s : simple) {
      if (!init_known[s.iv]) usable = false;
    }
    if (usable) {
      const Batched& first = plan->batched[0];
      int64_t count = -1;
      for (int64_t j = 0; j < 65536 && count < 0; ++j) {
        // In chain order: the exits' blocks dominate each other.
        for (const Simple& s : simple) {
          const Induction& iv = plan->ivs[s.iv];
          const uint64_t value = init[s.iv] + static_cast<uint64_t>(j) * iv.step + s.offset;
          bool known = false;
          bool r = s.iv_left ? Compare(s.op, value, s.bound, iv.width, &known)
                             : Compare(s.op, s.bound, value, iv.width, &known);
          if (s.negate) r = !r;
          if (r) {
            const bool before = std::find(first.before.begin(), first.before.end(),
                                          s.exit) != first.before.end();
            count = before ? j : j + 1;
            break;
          }
        }
      }
      if (count >= 0) {
        plan->max_trips = count;
        if (all_simple) plan->trips = count;
      }
    }
  }
  // What the fill recomputes per batch.
  {
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
    for (const Exit& e : plan->exits) count(e.cond, 0);
    for (const Batched& b : plan->batched) {
      b.insts[0]->ForEachInId([&](const uint32_t* op) { count(*op, 0); });
    }
  }
  plan->live = LiveEstimate(func, plan->blocks, uniformity);
  auto known = function_live_.find(func->result_id());
  if (known == function_live_.end()) {
    std::vector<BasicBlock*> all;
    for (BasicBlock& b : *func) all.push_back(&b);
    known = function_live_.emplace(func->result_id(),
                                   LiveEstimate(func, all, uniformity)).first;
  }
  plan->caller_live = CallerLive(func, uniformity);
  plan->live += plan->caller_live;
  plan->function_live = known->second + plan->caller_live;
  return CostRule(*plan, why);
}

uint32_t BatchUniformLoadsPass::CallerLive(Function* func,
                                          const UniformityAnalysis& uniformity,
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

uint32_t BatchUniformLoadsPass::LiveEstimate(
    Function* func, const std::vector<BasicBlock*>& blocks,
    const UniformityAnalysis& uniformity, const Instruction* at,
    uint32_t* at_live) {
  // SPIRV-Tools' liveness gives each block's live-out set; a backward walk
  // through the block finds its busiest point. Values are weighted by the
  // 32-bit words they hold.
  const spvtools::opt::RegisterLiveness* liveness =
      context()->GetLivenessAnalysis()->Get(func);
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
  std::function<bool(const Instruction*, int)> scalar_read =
      [&](const Instruction* inst, int depth) -> bool {
    if (depth > 4) return false;
    switch (inst->opcode()) {
      case spv::Op::OpLoad:
        return true;
      case spv::Op::OpCompositeExtract:
      case spv::Op::OpCompositeConstruct:
      case spv::Op::OpVectorShuffle:
      case spv::Op::OpBitcast:
      case spv::Op::OpCopyObject: {
        bool all = true;
        inst->ForEachInId([&](const uint32_t* id) {
          const Instruction* d = context()->get_def_use_mgr()->GetDef(*id);
          if (d == nullptr || d->type_id() == 0) return;  // a type or constant
          if (d->opcode() == spv::Op::OpConstant ||
              d->opcode() == spv::Op::OpConstantComposite) {
            return;
          }
          if (!uniformity.IsSubgroupUniform(d->result_id()) ||
              !scalar_read(d, depth + 1)) {
            all = false;
          }
        });
        return all;
      }
      default:
        return false;
    }
  };
  auto weight = [&](const Instruction* inst) -> uint32_t {
    if (inst->result_id() == 0 || inst->type_id() == 0) return 0;
    if (uniformity.IsSubgroupUniform(inst->result_id()) &&
        (!has_float(inst->type_id()) || scalar_read(inst, 0))) {
      return 0;
    }
    return ComponentsOf(context(), inst->type_id());
  };
  uint32_t peak = 0;
  for (BasicBlock* block : blocks) {
    const auto* region = liveness->Get(block);
    if (region == nullptr) continue;
    std::unordered_set<const Instruction*> live(region->live_out_.begin(),
                                                region->live_out_.end());
    uint32_t now = 0;
    for (const Instruction* inst : live) now += weight(inst);
    peak = std::max(peak, now);
    for (auto it = block->rbegin(); it != block->rend(); ++it) {
      Instruction* inst = &*it;
      if (inst->opcode() == spv::Op::OpPhi) break;
      if (live.erase(inst)) now -= weight(inst);
      if (inst == at && at_live != nullptr) *at_live = now;
      inst->ForEachInId([&](const uint32_t* id) {
        Instruction* def = context()->get_def_use_mgr()->GetDef(*id);
        if (def == nullptr || context()->get_instr_block(def) == nullptr) return;
        if (live.insert(def).second) now += weight(def);
      });
      peak = std::max(peak, now);
    }
  }
  return peak;
}

std::string BatchUniformLoadsPass::CostRule(const Plan& plan, std::string* why) {
  uint32_t components = 0;
  uint32_t memory_cost = 0;
  for (const Batched& b : plan.batched) {
    for (const Leaf& leaf : b.leaves) components += leaf.components;
    memory_cost += b.cost;
  }
  if (plan.max_trips >= 0 &&
      plan.max_trips < static_cast<int64_t>(params_.min_trip)) {
    *why = "the loop runs " +
           std::string(plan.trips >= 0 ? "" : "at most ") +
           std::to_string(plan.max_trips) + " times, fewer than min-trip=" +
           std::to_string(params_.min_trip);
    return "ShortLoop";
  }
  if (params_.always) return "";
  Instruction* merge_inst = plan.header->GetLoopMergeInst();
  const bool dont_unroll =
      (merge_inst->GetSingleWordInOperand(2) &
       static_cast<uint32_t>(spv::LoopControlMask::DontUnroll)) != 0;
  if (plan.trips >= 0 && plan.trips <= static_cast<int64_t>(params_.driver_unroll) &&
      !dont_unroll) {
    *why = "the loop runs a constant " + std::to_string(plan.trips) +
           " times: drivers unroll it and load its elements with scalar "
           "loads at constant offsets (driver-unroll=" +
           std::to_string(params_.driver_unroll) + ")";
    return "UnrolledByDriver";
  }
  if (components > params_.max_components) {
    *why = "a batch would hold " + std::to_string(components) +
           " 32-bit values per lane across the loop, more than "
           "max-components=" + std::to_string(params_.max_components);
    return "TooManyComponents";
  }
  // The kernel's busiest point after the rewrite: the loop's with the
  // batch held across it (and two values of bookkeeping), or elsewhere.
  const uint32_t after = std::max(plan.function_live, plan.live + components + 2);
  if (after > std::max(params_.max_live, plan.function_live)) {
    *why = "about " + std::to_string(plan.live) +
           " values per lane are live in the loop already (the kernel's "
           "busiest point: " + std::to_string(plan.function_live) +
           "); with the batch (" + std::to_string(components) +
           ") that is more than max-live=" + std::to_string(params_.max_live) +
           ", which would cost occupancy";
    return "RegisterPressure";
  }
  // Per execution of the loop, in wave instruction issues (see the doc).
  const int64_t t = plan.trips >= 0 ? plan.trips
                    : plan.max_trips >= 0 ? plan.max_trips
                                          : 256;
  const int64_t batches = (t + 31) / 32;
  const int64_t removed = static_cast<int64_t>(memory_cost) * (t - batches);
  const int64_t added = t * (components + 2) +
                        batches * (8 + static_cast<int64_t>(plan.recomputed)) + 8;
  if (removed <= added) {
    *why = "over " + std::to_string(t) + " iterations the rewrite removes " +
           std::to_string(removed) + " units of memory issue and adds " +
           std::to_string(added) + " units of shuffles and bookkeeping";
    return "NotProfitable";
  }
  return "";
}


namespace {

// A chain of access chains from a variable, flattened: the indices in order
// from the variable's pointee type. False for chains with a pointer-level
// index (OpPtrAccessChain) or anything else between.
bool FlattenChain(spvtools::opt::IRContext* context, uint32_t ptr,
                  Instruction** root, std::vector<uint32_t>* indices) {
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
  if (op == spv::Op::OpImageSampleExplicitLod ||
      op == spv::Op::OpImageSampleDrefExplicitLod ||
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
        !(dim == spv::Dim::Dim1D || dim == spv::Dim::Dim2D ||
          dim == spv::Dim::Dim3D || dim == spv::Dim::Buffer ||
          dim == spv::Dim::Rect)) {
      *why = "the image is multisampled or of a dimension whose size the "
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
      if (!IntConstant(context(), def_use->GetDef(inst->GetSingleWordInOperand(3)),
                       &lod) ||
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
  Instruction* type = def_use->GetDef(
      def_use->GetDef(root->type_id())->GetSingleWordInOperand(1));
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
        if (!IntConstant(context(), def_use->GetDef(type->GetSingleWordInOperand(1)),
                         &n)) {
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

uint32_t BatchUniformLoadsPass::BoundsCheck(
    Instruction* inst, const Plan& plan, BasicBlock* block,
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
    uint32_t v = CloneAt(idx, plan, block, map);
    if (v == 0) return false;
    if (itype->GetSingleWordInOperand(1) != 0) {
      v = e.EmitIds(spv::Op::OpBitcast, utype, {v});
    }
    uint32_t bound = n_id_or_zero;
    if (bound == 0) {
      bound = width == 64 ? e.Constant(utype, {static_cast<uint32_t>(n),
                                               static_cast<uint32_t>(n >> 32)})
                          : e.UInt(static_cast<uint32_t>(n));
    } else if (width == 64) {
      bound = e.EmitIds(spv::Op::OpUConvert, utype, {bound});
    }
    conds.push_back(e.EmitIds(spv::Op::OpULessThan, bool_type, {v, bound}));
    return e.ok();
  };
  const spv::Op op = inst->opcode();
  if (op == spv::Op::OpImageSampleExplicitLod ||
      op == spv::Op::OpImageSampleDrefExplicitLod ||
      op == spv::Op::OpImageGather || op == spv::Op::OpImageDrefGather) {
    return e.Bool(true);
  }
  if (op == spv::Op::OpImageFetch || op == spv::Op::OpImageRead) {
    context()->AddCapability(spv::Capability::ImageQuery);
    Instruction* image_def = def_use->GetDef(inst->GetSingleWordInOperand(0));
    Instruction* type = def_use->GetDef(image_def->type_id());
    const auto dim = spv::Dim(type->GetSingleWordInOperand(1));
    const uint32_t image = CloneAt(image_def->result_id(), plan, block, map);
    const uint32_t coord = CloneAt(inst->GetSingleWordInOperand(1), plan, block, map);
    if (image == 0 || coord == 0) return 0;
    const Instruction* ctype = def_use->GetDef(def_use->GetDef(coord)->type_id());
    const uint32_t n = ctype->opcode() == spv::Op::OpTypeVector
                           ? ctype->GetSingleWordInOperand(1)
                           : 1;
    const uint32_t utype = n == 1 ? e.UIntType(32) : e.UIntVectorType(n);
    const bool sampled = type->GetSingleWordInOperand(5) == 1;
    uint32_t size = 0;
    if (sampled && dim != spv::Dim::Buffer && dim != spv::Dim::Rect) {
      size = e.EmitIds(spv::Op::OpImageQuerySizeLod, utype, {image, e.UInt(0)});
    } else {
      size = e.EmitIds(spv::Op::OpImageQuerySize, utype, {image});
    }
    uint32_t ucoord = coord;
    const Instruction* scalar =
        n == 1 ? ctype : def_use->GetDef(ctype->GetSingleWordInOperand(0));
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
  Instruction* type = def_use->GetDef(
      def_use->GetDef(root->type_id())->GetSingleWordInOperand(1));
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
        const uint32_t length = e.Emit(
            spv::Op::OpArrayLength, e.UIntType(32),
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

uint32_t BatchUniformLoadsPass::CloneAt(
    uint32_t id, const Plan& plan, BasicBlock* block,
    std::unordered_map<uint32_t, uint32_t>* map) {
  auto* def_use = context()->get_def_use_mgr();
  Instruction* inst = def_use->GetDef(id);
  if (inst == nullptr) return 0;
  // A sampled image is used in the block that makes it (a SPIR-V rule).
  const bool sampled_image = inst->opcode() == spv::Op::OpSampledImage;
  auto found = map->find(id);
  if (found != map->end()) {
    if (!sampled_image ||
        context()->get_instr_block(def_use->GetDef(found->second)) == block) {
      return found->second;
    }
  }
  BasicBlock* def_block = context()->get_instr_block(inst);
  if (!sampled_image &&
      (def_block == nullptr || !plan.block_ids.count(def_block->id()))) {
    return id;
  }
  if (inst->opcode() == spv::Op::OpPhi) {
    const uint32_t value = LookThroughPhis(context(), id);
    if (value == id) return 0;  // an induction phi not mapped
    const uint32_t clone = CloneAt(value, plan, block, map);
    if (clone != 0) (*map)[id] = clone;
    return clone;
  }
  std::vector<Operand> operands;
  for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
    Operand op = inst->GetInOperand(i);
    if (spvIsInIdType(op.type)) {
      uint32_t mapped = CloneAt(op.words[0], plan, block, map);
      if (mapped == 0) return 0;
      op.words = {mapped};
    }
    operands.push_back(op);
  }
  Emitter e(context(), block);
  uint32_t result = e.Emit(inst->opcode(), inst->type_id(), operands);
  if (result != 0) def_use->GetDef(result)->UpdateDebugInfoFrom(inst);
  (*map)[id] = result;
  return result;
}

uint32_t BatchUniformLoadsPass::LaneIdVariable() {
  auto* def_use = context()->get_def_use_mgr();
  uint32_t var = 0;
  for (Instruction& inst : context()->types_values()) {
    if (inst.opcode() != spv::Op::OpVariable ||
        spv::StorageClass(inst.GetSingleWordInOperand(0)) != spv::StorageClass::Input) {
      continue;
    }
    for (Instruction* dec : context()->get_decoration_mgr()->GetDecorationsFor(
             inst.result_id(), false)) {
      if (dec->opcode() == spv::Op::OpDecorate &&
          spv::Decoration(dec->GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn &&
          spv::BuiltIn(dec->GetSingleWordInOperand(2)) ==
              spv::BuiltIn::SubgroupLocalInvocationId) {
        var = inst.result_id();
      }
    }
    if (var != 0) break;
  }
  if (var == 0) {
    // SPIRV-Tools' type manager dereferences null when ids run out while it
    // declares a type: keep the room the Emitter keeps.
    if (context()->module()->IdBound() + 8 > context()->max_id_bound()) return 0;
    auto* types = context()->get_type_mgr();
    const uint32_t ptr = types->FindPointerToType(types->GetUIntTypeId(),
                                                  spv::StorageClass::Input);
    var = ptr == 0 ? 0 : context()->TakeNextId();
    if (var == 0) return 0;
    context()->AddGlobalValue(std::make_unique<Instruction>(
        context(), spv::Op::OpVariable, ptr, var,
        std::vector<Operand>{{SPV_OPERAND_TYPE_STORAGE_CLASS,
                              {static_cast<uint32_t>(spv::StorageClass::Input)}}}));
    context()->get_decoration_mgr()->AddDecorationVal(
        var, static_cast<uint32_t>(spv::Decoration::BuiltIn),
        static_cast<uint32_t>(spv::BuiltIn::SubgroupLocalInvocationId));
  }
  // On every entry point's interface (Input variables always belong there).
  for (Instruction& entry : get_module()->entry_points()) {
    bool listed = false;
    for (uint32_t i = 3; i < entry.NumInOperands(); ++i) {
      if (entry.GetSingleWordInOperand(i) == var) listed = true;
    }
    if (!listed) {
      entry.AddOperand({SPV_OPERAND_TYPE_ID, {var}});
      def_use->AnalyzeInstUse(&entry);
    }
  }
  return var;
}

bool BatchUniformLoadsPass::Rewrite(const Plan& plan, uint32_t* outer_header) {
  auto* def_use = context()->get_def_use_mgr();
  const bool use_broadcast =
      get_module()->version() >= SPV_SPIRV_VERSION_WORD(1, 5);
  context()->AddCapability(spv::Capability::GroupNonUniformBallot);
  if (!use_broadcast) {
    context()->AddCapability(spv::Capability::GroupNonUniformShuffle);
  }
  BasicBlock* header = plan.header;
  BasicBlock* merge = plan.merge;
  BasicBlock* latch = plan.latch;
  auto incoming_from = [](Instruction* phi, uint32_t block_id) -> uint32_t {
    for (uint32_t i = 0; i + 1 < phi->NumInOperands(); i += 2) {
      if (phi->GetSingleWordInOperand(i + 1) == block_id) {
        return phi->GetSingleWordInOperand(i);
      }
    }
    return 0;
  };
  std::vector<Instruction*> header_phis;
  header->ForEachPhiInst([&](Instruction* phi) { header_phis.push_back(phi); });
  // An OpUndef of |type| (one per type).
  auto undef = [&](uint32_t type) -> uint32_t {
    for (Instruction& inst : context()->types_values()) {
      if (inst.opcode() == spv::Op::OpUndef && inst.type_id() == type) {
        return inst.result_id();
      }
    }
    const uint32_t id = context()->TakeNextId();
    if (id == 0) return 0;
    context()->AddGlobalValue(std::make_unique<Instruction>(
        context(), spv::Op::OpUndef, type, id, std::vector<Operand>{}));
    return id;
  };

  // A block that enters only the loop: the one entry when it branches only
  // to the header, else a new one the entries branch to.
  BasicBlock* pre = plan.preheader;
  if (pre == nullptr) {
    pre = NewBlock(header, /*before=*/true);
    if (pre == nullptr) return false;
    std::unordered_set<uint32_t> entry_ids;
    for (BasicBlock* entry : plan.entries) {
      entry_ids.insert(entry->id());
      entry->ForEachSuccessorLabel([&](uint32_t* succ) {
        if (*succ == header->id()) *succ = pre->id();
      });
      def_use->AnalyzeInstUse(entry->terminator());
    }
    for (Instruction* m : plan.merges_naming_header) {
      m->SetInOperand(0, {pre->id()});
      def_use->AnalyzeInstUse(m);
    }
    Emitter pe(context(), pre);
    for (Instruction* phi : header_phis) {
      std::vector<Operand> from_entries, kept;
      for (uint32_t i = 0; i + 1 < phi->NumInOperands(); i += 2) {
        if (entry_ids.count(phi->GetSingleWordInOperand(i + 1))) {
          from_entries.push_back(phi->GetInOperand(i));
          from_entries.push_back(phi->GetInOperand(i + 1));
        } else {
          kept.push_back(phi->GetInOperand(i));
          kept.push_back(phi->GetInOperand(i + 1));
        }
      }
      uint32_t value = from_entries.size() == 2
                           ? from_entries[0].words[0]
                           : pe.Emit(spv::Op::OpPhi, phi->type_id(), from_entries);
      kept.push_back({SPV_OPERAND_TYPE_ID, {value}});
      kept.push_back({SPV_OPERAND_TYPE_ID, {pre->id()}});
      phi->SetInOperands(std::move(kept));
      def_use->AnalyzeInstUse(phi);
    }
    pe.Branch(header->id());
    if (!pe.ok()) return false;
  }

  // The preheader: who is in the loop, each lane's rank among them, and the
  // batch: the run of consecutive lanes from the first one (all of them in
  // full or partial-from-the-start subgroups, so slot k's owner is simply
  // lane first + k; lanes past a gap take part in no batch).
  Instruction* pre_point = pre->GetMergeInst();
  if (pre_point == nullptr) pre_point = &*pre->tail();
  Emitter p(context(), pre, BasicBlock::iterator(pre_point));
  const uint32_t uint_type = p.UIntType(32);
  const uint32_t bool_type = p.BoolType();
  const uint32_t v4uint = p.UIntVectorType(4);
  const uint32_t ballot =
      p.Group(spv::Op::OpGroupNonUniformBallot, v4uint, -1, {p.Bool(true)});
  const uint32_t rank = p.Group(spv::Op::OpGroupNonUniformBallotBitCount,
                                uint_type, kExclusiveScan, {ballot});
  const uint32_t lane_var = LaneIdVariable();
  if (lane_var == 0) return false;
  const uint32_t lane = p.EmitIds(spv::Op::OpLoad, uint_type, {lane_var});
  // The first active lane: every lane reads the lowest one's id (GLSL
  // subgroupBroadcastFirst, HLSL WaveReadLaneFirst; BallotFindLSB has no
  // HLSL spelling).
  const uint32_t first_lane =
      p.Group(spv::Op::OpGroupNonUniformBroadcastFirst, uint_type, -1, {lane});
  const uint32_t in_run = p.EmitIds(
      spv::Op::OpIEqual, bool_type,
      {p.EmitIds(spv::Op::OpISub, uint_type, {lane, first_lane}), rank});
  const uint32_t batch = p.Group(
      spv::Op::OpGroupNonUniformBallotBitCount, uint_type, kReduce,
      {p.Group(spv::Op::OpGroupNonUniformBallot, v4uint, -1,
               {params_.mutate == "whole-subgroup" ? p.Bool(true) : in_run})});
  if (!p.ok()) return false;

  // New blocks: outer and fill before the header, inner merge and outer
  // latch before the merge block.
  BasicBlock* outer = NewBlock(header, /*before=*/true);
  BasicBlock* fill = outer ? NewBlock(header, true) : nullptr;
  BasicBlock* inner_merge = fill ? NewBlock(merge, true) : nullptr;
  BasicBlock* outer_latch = inner_merge ? NewBlock(merge, true) : nullptr;
  if (outer_latch == nullptr) return false;
  *outer_header = outer->id();

  // outer: the header phis' values when a batch starts.
  Emitter oe(context(), outer);
  std::vector<uint32_t> outer_phis, next_phis;
  std::unordered_map<uint32_t, uint32_t> outer_of;  // header phi -> outer phi
  for (Instruction* phi : header_phis) {
    const uint32_t from_pre = incoming_from(phi, pre->id());
    const uint32_t next = context()->TakeNextId();
    if (from_pre == 0 || next == 0) return false;
    next_phis.push_back(next);
    outer_phis.push_back(oe.EmitIds(spv::Op::OpPhi, phi->type_id(),
                                    {from_pre, pre->id(), next, outer_latch->id()}));
    outer_of[phi->result_id()] = outer_phis.back();
  }
  oe.LoopMerge(merge->id(), outer_latch->id());
  oe.Branch(fill->id());
  if (!oe.ok()) return false;
  // Remarks about the outer loop (a later run) point at the original loop.
  outer->GetLoopMergeInst()->UpdateDebugInfoFrom(header->GetLoopMergeInst());
  pre->ForEachSuccessorLabel([&](uint32_t* succ) {
    if (*succ == header->id()) *succ = outer->id();
  });
  def_use->AnalyzeInstUse(pre->terminator());

  // fill: each lane's iteration, the exits evaluated there, and the loads.
  std::unordered_map<uint32_t, uint32_t> chain_map;  // clones in chain blocks
  {
    Emitter fe(context(), fill);
    for (const Induction& iv : plan.ivs) {
      const Instruction* t = def_use->GetDef(iv.phi->type_id());
      const bool is_signed = t->GetSingleWordInOperand(1) != 0;
      uint32_t r = rank;
      uint32_t step = 0;
      if (iv.width == 64) {
        const uint32_t u64 = fe.UIntType(64);
        r = fe.EmitIds(spv::Op::OpUConvert, u64, {rank});
        step = fe.Constant(u64, {static_cast<uint32_t>(iv.step),
                                 static_cast<uint32_t>(iv.step >> 32)});
      } else {
        step = fe.UInt(static_cast<uint32_t>(iv.step));
      }
      if (is_signed) {
        r = fe.EmitIds(spv::Op::OpBitcast, iv.phi->type_id(), {r});
        step = fe.EmitIds(spv::Op::OpBitcast, iv.phi->type_id(), {step});
      }
      // i0 + rank * step (i0 + rank, i0 - rank for steps of 1 and -1).
      const uint32_t base = outer_of[iv.phi->result_id()];
      const uint64_t minus_one = MaskTo(~uint64_t{0}, iv.width);
      if (iv.step == 1) {
        chain_map[iv.phi->result_id()] =
            fe.EmitIds(spv::Op::OpIAdd, iv.phi->type_id(), {base, r});
      } else if (iv.step == minus_one) {
        chain_map[iv.phi->result_id()] =
            fe.EmitIds(spv::Op::OpISub, iv.phi->type_id(), {base, r});
      } else {
        const uint32_t offset =
            fe.EmitIds(spv::Op::OpIMul, iv.phi->type_id(), {r, step});
        chain_map[iv.phi->result_id()] =
            fe.EmitIds(spv::Op::OpIAdd, iv.phi->type_id(), {base, offset});
      }
    }
    if (!fe.ok()) return false;
  }
  // Each exit's condition at this lane's iteration: whether it leaves
  // there (|fires|) and whether it goes on (|keeps|).
  std::vector<uint32_t> fires, keeps;
  for (const Exit& exit : plan.exits) {
    const uint32_t c = CloneAt(exit.cond, plan, fill, &chain_map);
    if (c == 0) return false;
    Emitter fe(context(), fill);
    const uint32_t not_c = fe.EmitIds(spv::Op::OpLogicalNot, bool_type, {c});
    fires.push_back(exit.fires_when_true ? c : not_c);
    keeps.push_back(exit.fires_when_true ? not_c : c);
    if (!fe.ok()) return false;
  }
  // The slots of this batch whose iterations run: all of them, or up to
  // the first lane whose iteration leaves (ranks are lane offsets from the
  // first lane inside the run, so that is a subgroup-uniform count and each
  // lane only compares its rank with it).
  uint32_t base_guard = 0;
  {
    Emitter fe(context(), fill);
    uint32_t slots = batch;
    if (!fires.empty() && params_.mutate != "no-exit-ballot") {
      uint32_t stop = fires[0];
      for (size_t i = 1; i < fires.size(); ++i) {
        stop = fe.EmitIds(spv::Op::OpLogicalOr, bool_type, {stop, fires[i]});
      }
      const uint32_t stops =
          fe.Group(spv::Op::OpGroupNonUniformBallot, v4uint, -1, {stop});
      const uint32_t any = fe.EmitIds(
          spv::Op::OpINotEqual, bool_type,
          {fe.Group(spv::Op::OpGroupNonUniformBallotBitCount, uint_type, kReduce,
                    {stops}),
           fe.UInt(0)});
      const uint32_t to_stop = fe.EmitIds(
          spv::Op::OpIAdd, uint_type,
          {fe.EmitIds(spv::Op::OpISub, uint_type,
                      {fe.BallotLowestBit(stops, config().subgroup_size), first_lane}),
           fe.UInt(1)});
      const uint32_t fewer =
          fe.EmitIds(spv::Op::OpLogicalAnd, bool_type,
                     {any, fe.EmitIds(spv::Op::OpULessThan, bool_type,
                                      {to_stop, batch})});
      slots = fe.EmitIds(spv::Op::OpSelect, uint_type, {fewer, to_stop, batch});
    }
    base_guard = fe.EmitIds(spv::Op::OpULessThan, bool_type, {rank, slots});
    if (!fe.ok()) return false;
  }

  // The 32-bit type each leaf travels as.
  std::vector<std::vector<uint32_t>> carried(plan.batched.size());
  {
    Emitter te(context(), fill);
    for (size_t i = 0; i < plan.batched.size(); ++i) {
      for (const Leaf& leaf : plan.batched[i].leaves) {
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
        carried[i].push_back(t);
      }
    }
  }
  // Into the carried type, and back.
  auto carry_op = [](const Leaf& leaf) {
    switch (leaf.carry) {
      case Leaf::Carry::kFloat: return spv::Op::OpFConvert;
      case Leaf::Carry::kUInt: return spv::Op::OpUConvert;
      case Leaf::Carry::kSInt: return spv::Op::OpSConvert;
      default: return spv::Op::OpBitcast;
    }
  };

  // One guarded load block per group of values sharing a guard (the exits
  // that precede them; each value read ahead of time has its own, with its
  // bounds check).
  std::vector<std::vector<uint32_t>> cache(plan.batched.size());
  std::vector<bool> done(plan.batched.size(), false);
  BasicBlock* cur = fill;
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
    uint32_t guard = base_guard;
    {
      const Batched& b = plan.batched[i];
      // No exit before the load fires in this lane's iteration.
      Emitter ge(context(), cur);
      for (size_t e : b.before) {
        guard = ge.EmitIds(spv::Op::OpLogicalAnd, bool_type, {guard, keeps[e]});
      }
      if (!ge.ok()) return false;
      if (b.speculative && params_.mutate != "no-bounds") {
        const uint32_t inside = BoundsCheck(b.read, plan, cur, &chain_map);
        if (inside == 0) return false;
        Emitter ie(context(), cur);
        guard = ie.EmitIds(spv::Op::OpLogicalAnd, bool_type, {guard, inside});
        if (!ie.ok()) return false;
      }
    }
    BasicBlock* load_block = NewBlock(header, true);
    BasicBlock* join = load_block ? NewBlock(header, true) : nullptr;
    if (join == nullptr) return false;
    Emitter ce(context(), cur);
    ce.SelectionMerge(join->id());
    ce.BranchConditional(guard, load_block->id(), join->id());
    if (!ce.ok()) return false;
    std::unordered_map<uint32_t, uint32_t> load_map = chain_map;
    std::vector<std::vector<uint32_t>> parts(group.size());
    for (size_t g = 0; g < group.size(); ++g) {
      const Batched& b = plan.batched[group[g]];
      const uint32_t value = CloneAt(b.insts[0]->result_id(), plan, load_block,
                                     &load_map);
      if (value == 0) return false;
      Emitter le(context(), load_block);
      for (const Leaf& leaf : b.leaves) {
        uint32_t part = value;
        if (!leaf.path.empty()) {
          std::vector<Operand> ops = {{SPV_OPERAND_TYPE_ID, {value}}};
          for (uint32_t index : leaf.path) {
            ops.push_back({SPV_OPERAND_TYPE_LITERAL_INTEGER, {index}});
          }
          part = le.Emit(spv::Op::OpCompositeExtract, leaf.type, ops);
        }
        if (leaf.carry == Leaf::Carry::kBits) {
          part = ToWords(le, context(), part, leaf.type, leaf.components);
        } else if (leaf.carry != Leaf::Carry::kAsIs) {
          part = le.EmitIds(carry_op(leaf), carried[group[g]][parts[g].size()], {part});
        }
        parts[g].push_back(part);
      }
      if (!le.ok()) return false;
    }
    Emitter lb(context(), load_block);
    lb.Branch(join->id());
    Emitter je(context(), join);
    for (size_t g = 0; g < group.size(); ++g) {
      const Batched& b = plan.batched[group[g]];
      for (size_t l = 0; l < b.leaves.size(); ++l) {
        const uint32_t type = carried[group[g]][l];
        // Lanes that load nothing hold no value anyone uses.
        const uint32_t none = undef(type);
        if (none == 0) return false;
        cache[group[g]].push_back(je.EmitIds(
            spv::Op::OpPhi, type, {parts[g][l], load_block->id(), none, cur->id()}));
      }
    }
    if (!lb.ok() || !je.ok()) return false;
    cur = join;
  }
  BasicBlock* last_fill = cur;
  {
    Emitter le(context(), last_fill);
    le.Branch(header->id());
    if (!le.ok()) return false;
  }

  // The header: k counts the batch's slots; the inner loop starts each
  // batch from the outer phis. At its top every lane of the loop is
  // active: each value of the iteration comes from the owner of slot k.
  for (Instruction* phi : header_phis) {
    for (uint32_t j = 0; j + 1 < phi->NumInOperands(); j += 2) {
      if (phi->GetSingleWordInOperand(j + 1) == pre->id()) {
        phi->SetInOperand(j, {outer_of[phi->result_id()]});
        phi->SetInOperand(j + 1, {last_fill->id()});
      }
    }
    def_use->AnalyzeInstUse(phi);
  }
  const uint32_t k_next = context()->TakeNextId();
  if (k_next == 0) return false;
  auto top = header->begin();
  while (top != header->end() && top->opcode() == spv::Op::OpPhi) ++top;
  Emitter h(context(), header, top);
  // (The phi goes right after the header's own phis.)
  const uint32_t k = h.EmitIds(spv::Op::OpPhi, uint_type,
                               {h.UInt(0), last_fill->id(), k_next, latch->id()});
  const uint32_t owner =
      params_.mutate == "owner-lane-k"
          ? k
          : h.EmitIds(spv::Op::OpIAdd, uint_type, {first_lane, k});
  std::vector<uint32_t> rebuilt(plan.batched.size(), 0);
  for (size_t i = 0; i < plan.batched.size(); ++i) {
    const Batched& b = plan.batched[i];
    std::vector<uint32_t> taken;
    for (size_t j = 0; j < b.leaves.size(); ++j) {
      const Leaf& leaf = b.leaves[j];
      uint32_t v = h.Group(use_broadcast ? spv::Op::OpGroupNonUniformBroadcast
                                         : spv::Op::OpGroupNonUniformShuffle,
                           carried[i][j], -1, {cache[i][j], owner});
      if (leaf.carry == Leaf::Carry::kBits) {
        v = FromWords(h, context(), v, leaf.type, leaf.components);
      } else if (leaf.carry != Leaf::Carry::kAsIs) {
        v = h.EmitIds(carry_op(leaf), leaf.type, {v});
      }
      taken.push_back(v);
    }
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
        members.assign(def_use->GetDef(type->GetSingleWordInOperand(1))
                           ->GetSingleWordInOperand(0),
                       type->GetSingleWordInOperand(0));
      } else {  // vector or matrix
        members.assign(type->GetSingleWordInOperand(1),
                       type->GetSingleWordInOperand(0));
      }
      std::vector<Operand> ops;
      for (uint32_t m = 0; m < members.size(); ++m) {
        path.push_back(m);
        uint32_t part = build(members[m]);
        path.pop_back();
        if (part == 0) return 0;
        ops.push_back({SPV_OPERAND_TYPE_ID, {part}});
      }
      return h.Emit(spv::Op::OpCompositeConstruct, type_id, ops);
    };
    rebuilt[i] = build(b.insts[0]->type_id());
    if (rebuilt[i] == 0) return false;
  }
  h.EmitIds(spv::Op::OpIAdd, uint_type, {k, h.UInt(1)}, k_next);
  if (!h.ok()) return false;
  Instruction* inner_loop_merge = header->GetLoopMergeInst();
  inner_loop_merge->SetInOperand(0, {inner_merge->id()});
  def_use->AnalyzeInstUse(inner_loop_merge);

  // Every branch to the merge block now leaves the inner loop.
  for (BasicBlock* source : plan.exit_sources) {
    if (source == latch) continue;
    source->ForEachSuccessorLabel([&](uint32_t* succ) {
      if (*succ == merge->id()) *succ = inner_merge->id();
    });
    def_use->AnalyzeInstUse(source->terminator());
  }
  // The back edge also ends the batch once its slots are used.
  uint32_t ended_at_latch = 0;
  {
    Instruction* back = latch->terminator();
    // Before the loop merge instruction when the latch is the header.
    Instruction* point = latch->GetMergeInst() ? latch->GetMergeInst() : back;
    Emitter le(context(), latch, BasicBlock::iterator(point));
    const uint32_t more = le.EmitIds(spv::Op::OpULessThan, bool_type, {k_next, batch});
    uint32_t go_on = more;
    if (back->opcode() == spv::Op::OpBranchConditional) {
      uint32_t cont = back->GetSingleWordInOperand(0);
      if (back->GetSingleWordInOperand(1) != header->id()) {
        cont = le.EmitIds(spv::Op::OpLogicalNot, bool_type, {cont});
      }
      go_on = le.EmitIds(spv::Op::OpLogicalAnd, bool_type, {cont, more});
      ended_at_latch = le.EmitIds(spv::Op::OpLogicalNot, bool_type, {cont});
    } else {
      ended_at_latch = le.Bool(false);
    }
    if (!le.ok()) return false;
    back->SetOpcode(spv::Op::OpBranchConditional);
    back->SetInOperands({{SPV_OPERAND_TYPE_ID, {go_on}},
                         {SPV_OPERAND_TYPE_ID, {header->id()}},
                         {SPV_OPERAND_TYPE_ID, {inner_merge->id()}}});
    def_use->AnalyzeInstUse(back);
  }

  // inner_merge: from each exit, the loop ended; from the back edge, the
  // batch ended (or the loop, for a do-while) with the next values.
  std::vector<BasicBlock*> preds;
  for (BasicBlock* source : plan.exit_sources) {
    if (source != latch) preds.push_back(source);
  }
  preds.push_back(latch);
  const bool latch_exits =
      std::find(plan.exit_sources.begin(), plan.exit_sources.end(), latch) !=
      plan.exit_sources.end();
  // A value for the back-edge entry of a phi whose value matters only when
  // the loop ended: |v| itself where it is defined there, else undefined.
  auto at_latch = [&](uint32_t v, uint32_t type) -> uint32_t {
    Instruction* d = def_use->GetDef(v);
    BasicBlock* b = d ? context()->get_instr_block(d) : nullptr;
    if (b == nullptr || !plan.block_ids.count(b->id()) ||
        plan.dominate_latch.count(b->id())) {
      return v;
    }
    return undef(type);
  };
  Emitter im(context(), inner_merge);
  for (size_t i = 0; i < header_phis.size(); ++i) {
    std::vector<Operand> ops;
    for (BasicBlock* pb : preds) {
      const uint32_t v = pb == latch ? incoming_from(header_phis[i], latch->id())
                                     : header_phis[i]->result_id();
      if (v == 0) return false;
      ops.push_back({SPV_OPERAND_TYPE_ID, {v}});
      ops.push_back({SPV_OPERAND_TYPE_ID, {pb->id()}});
    }
    im.Emit(spv::Op::OpPhi, header_phis[i]->type_id(), ops, next_phis[i]);
  }
  uint32_t ended = 0;
  {
    std::vector<Operand> ops;
    for (BasicBlock* pb : preds) {
      ops.push_back({SPV_OPERAND_TYPE_ID, {pb == latch ? ended_at_latch : im.Bool(true)}});
      ops.push_back({SPV_OPERAND_TYPE_ID, {pb->id()}});
    }
    ended = im.Emit(spv::Op::OpPhi, bool_type, ops);
  }
  // The merge block's phis take their values through the inner merge.
  std::vector<Instruction*> merge_phis;
  merge->ForEachPhiInst([&](Instruction* phi) { merge_phis.push_back(phi); });
  for (Instruction* phi : merge_phis) {
    std::vector<Operand> ops;
    for (BasicBlock* pb : preds) {
      uint32_t v = incoming_from(phi, pb->id());
      if (pb == latch && !latch_exits) v = 0;
      if (v == 0) {
        // Not an exit: any value of the type will do (the batch went on).
        v = undef(phi->type_id());
      } else if (pb == latch) {
        v = at_latch(v, phi->type_id());
      }
      if (v == 0) return false;
      ops.push_back({SPV_OPERAND_TYPE_ID, {v}});
      ops.push_back({SPV_OPERAND_TYPE_ID, {pb->id()}});
    }
    const uint32_t through = im.Emit(spv::Op::OpPhi, phi->type_id(), ops);
    phi->SetInOperands({{SPV_OPERAND_TYPE_ID, {through}},
                        {SPV_OPERAND_TYPE_ID, {outer_latch->id()}}});
    def_use->AnalyzeInstUse(phi);
  }
  // The header's values used after the loop: through the phi that carries
  // them to the next batch (on an exit it holds the header's value; one
  // value, so a compiler keeps one register), or, when the back edge also
  // leaves the loop (its edge carries the next values), through a phi of
  // their own.
  for (size_t i = 0; i < header_phis.size(); ++i) {
    std::vector<std::pair<Instruction*, uint32_t>> outside;
    def_use->ForEachUse(header_phis[i], [&](Instruction* user, uint32_t index) {
      BasicBlock* ub = context()->get_instr_block(user);
      if (ub != nullptr && !plan.block_ids.count(ub->id()) && ub != inner_merge) {
        outside.emplace_back(user, index);
      }
    });
    if (outside.empty()) continue;
    uint32_t through = next_phis[i];
    if (latch_exits) {
      std::vector<Operand> ops;
      for (BasicBlock* pb : preds) {
        ops.push_back({SPV_OPERAND_TYPE_ID, {header_phis[i]->result_id()}});
        ops.push_back({SPV_OPERAND_TYPE_ID, {pb->id()}});
      }
      through = im.Emit(spv::Op::OpPhi, header_phis[i]->type_id(), ops);
      if (through == 0) return false;
    }
    for (auto& [user, index] : outside) {
      user->SetOperand(index, {through});
      def_use->AnalyzeInstUse(user);
    }
  }
  // Values made in blocks that do not dominate the back edge and used
  // after the loop: through a phi too (they dominate every exit).
  for (BasicBlock* block : plan.blocks) {
    if (plan.dominate_latch.count(block->id())) continue;
    for (Instruction& inst : *block) {
      if (inst.result_id() == 0 || inst.type_id() == 0) continue;
      std::vector<std::pair<Instruction*, uint32_t>> outside;
      def_use->ForEachUse(&inst, [&](Instruction* user, uint32_t index) {
        BasicBlock* ub = context()->get_instr_block(user);
        if (ub != nullptr && !plan.block_ids.count(ub->id()) && ub != inner_merge) {
          outside.emplace_back(user, index);
        }
      });
      if (outside.empty()) continue;
      std::vector<Operand> ops;
      for (BasicBlock* pb : preds) {
        const uint32_t v = pb == latch && !latch_exits ? undef(inst.type_id())
                                                       : inst.result_id();
        if (v == 0) return false;
        ops.push_back({SPV_OPERAND_TYPE_ID, {v}});
        ops.push_back({SPV_OPERAND_TYPE_ID, {pb->id()}});
      }
      const uint32_t through = im.Emit(spv::Op::OpPhi, inst.type_id(), ops);
      if (through == 0) return false;
      for (auto& [user, index] : outside) {
        user->SetOperand(index, {through});
        def_use->AnalyzeInstUse(user);
      }
    }
  }
  im.Branch(outer_latch->id());
  Emitter ol(context(), outer_latch);
  ol.BranchConditional(ended, merge->id(), outer->id());
  if (!im.ok() || !ol.ok()) return false;

  // Every use of a batched value takes it from the header.
  for (size_t i = 0; i < plan.batched.size(); ++i) {
    for (Instruction* inst : plan.batched[i].insts) {
      context()->ReplaceAllUsesWith(inst->result_id(), rebuilt[i]);
      context()->KillInst(inst);
    }
    ForwardExtracts(context(), rebuilt[i]);
  }
  return true;
}

}  // namespace waveopt
