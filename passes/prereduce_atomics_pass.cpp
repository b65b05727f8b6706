// prereduce-atomics: see the header for the rewrite; docs/passes/
// prereduce-atomics.md for remarks and options.
#include "passes/prereduce_atomics_pass.h"

#include <algorithm>
#include <cstdlib>
#include <deque>

#include "analysis/ir_util.h"
#include "analysis/uniformity.h"
#include "passes/emitter.h"
#include "source/opcode.h"
#include "source/opt/constants.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/ir_context.h"
#include "source/opt/type_manager.h"
#include "source/spirv_constant.h"
#include "source/spirv_target_env.h"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;

constexpr uint32_t kMemorySemanticsOrdering =
    static_cast<uint32_t>(spv::MemorySemanticsMask::Acquire) |
    static_cast<uint32_t>(spv::MemorySemanticsMask::Release) |
    static_cast<uint32_t>(spv::MemorySemanticsMask::AcquireRelease) |
    static_cast<uint32_t>(spv::MemorySemanticsMask::SequentiallyConsistent);
constexpr uint32_t kMemorySemanticsVolatile =
    static_cast<uint32_t>(spv::MemorySemanticsMask::Volatile);

constexpr int kReduce = static_cast<int>(spv::GroupOperation::Reduce);
constexpr int kExclusiveScan = static_cast<int>(spv::GroupOperation::ExclusiveScan);

bool IsAtomic(spv::Op op) {
  switch (op) {
    case spv::Op::OpAtomicLoad:
    case spv::Op::OpAtomicStore:
    case spv::Op::OpAtomicExchange:
    case spv::Op::OpAtomicCompareExchange:
    case spv::Op::OpAtomicCompareExchangeWeak:
    case spv::Op::OpAtomicIIncrement:
    case spv::Op::OpAtomicIDecrement:
    case spv::Op::OpAtomicIAdd:
    case spv::Op::OpAtomicISub:
    case spv::Op::OpAtomicSMin:
    case spv::Op::OpAtomicUMin:
    case spv::Op::OpAtomicSMax:
    case spv::Op::OpAtomicUMax:
    case spv::Op::OpAtomicAnd:
    case spv::Op::OpAtomicOr:
    case spv::Op::OpAtomicXor:
    case spv::Op::OpAtomicFlagTestAndSet:
    case spv::Op::OpAtomicFlagClear:
    case spv::Op::OpAtomicFAddEXT:
    case spv::Op::OpAtomicFMinEXT:
    case spv::Op::OpAtomicFMaxEXT:
      return true;
    default:
      return false;
  }
}

bool IsFloatAtomic(spv::Op op) {
  return op == spv::Op::OpAtomicFAddEXT || op == spv::Op::OpAtomicFMinEXT ||
         op == spv::Op::OpAtomicFMaxEXT;
}

bool IsIncDec(spv::Op op) {
  return op == spv::Op::OpAtomicIIncrement || op == spv::Op::OpAtomicIDecrement;
}

// Operations where applying the same operand twice changes nothing.
bool IsIdempotent(spv::Op op) {
  switch (op) {
    case spv::Op::OpAtomicAnd:
    case spv::Op::OpAtomicOr:
    case spv::Op::OpAtomicSMin:
    case spv::Op::OpAtomicUMin:
    case spv::Op::OpAtomicSMax:
    case spv::Op::OpAtomicUMax:
      return true;
    default:
      return false;
  }
}

// The OpGroupNonUniform* arithmetic that combines the operands of |op|.
spv::Op GroupOpFor(spv::Op op) {
  switch (op) {
    case spv::Op::OpAtomicIAdd:
    case spv::Op::OpAtomicISub:  // the atomic subtracts the lanes' sum
      return spv::Op::OpGroupNonUniformIAdd;
    case spv::Op::OpAtomicSMin:
      return spv::Op::OpGroupNonUniformSMin;
    case spv::Op::OpAtomicUMin:
      return spv::Op::OpGroupNonUniformUMin;
    case spv::Op::OpAtomicSMax:
      return spv::Op::OpGroupNonUniformSMax;
    case spv::Op::OpAtomicUMax:
      return spv::Op::OpGroupNonUniformUMax;
    case spv::Op::OpAtomicAnd:
      return spv::Op::OpGroupNonUniformBitwiseAnd;
    case spv::Op::OpAtomicOr:
      return spv::Op::OpGroupNonUniformBitwiseOr;
    case spv::Op::OpAtomicXor:
      return spv::Op::OpGroupNonUniformBitwiseXor;
    case spv::Op::OpAtomicFAddEXT:
      return spv::Op::OpGroupNonUniformFAdd;
    case spv::Op::OpAtomicFMinEXT:
      return spv::Op::OpGroupNonUniformFMin;
    case spv::Op::OpAtomicFMaxEXT:
      return spv::Op::OpGroupNonUniformFMax;
    default:
      return spv::Op::OpNop;
  }
}

const char* OpName(spv::Op op) {
  switch (op) {
    case spv::Op::OpAtomicLoad:
      return "OpAtomicLoad";
    case spv::Op::OpAtomicStore:
      return "OpAtomicStore";
    case spv::Op::OpAtomicExchange:
      return "OpAtomicExchange";
    case spv::Op::OpAtomicCompareExchange:
      return "OpAtomicCompareExchange";
    case spv::Op::OpAtomicCompareExchangeWeak:
      return "OpAtomicCompareExchangeWeak";
    case spv::Op::OpAtomicIIncrement:
      return "OpAtomicIIncrement";
    case spv::Op::OpAtomicIDecrement:
      return "OpAtomicIDecrement";
    case spv::Op::OpAtomicIAdd:
      return "OpAtomicIAdd";
    case spv::Op::OpAtomicISub:
      return "OpAtomicISub";
    case spv::Op::OpAtomicSMin:
      return "OpAtomicSMin";
    case spv::Op::OpAtomicUMin:
      return "OpAtomicUMin";
    case spv::Op::OpAtomicSMax:
      return "OpAtomicSMax";
    case spv::Op::OpAtomicUMax:
      return "OpAtomicUMax";
    case spv::Op::OpAtomicAnd:
      return "OpAtomicAnd";
    case spv::Op::OpAtomicOr:
      return "OpAtomicOr";
    case spv::Op::OpAtomicXor:
      return "OpAtomicXor";
    case spv::Op::OpAtomicFlagTestAndSet:
      return "OpAtomicFlagTestAndSet";
    case spv::Op::OpAtomicFlagClear:
      return "OpAtomicFlagClear";
    case spv::Op::OpAtomicFAddEXT:
      return "OpAtomicFAddEXT";
    case spv::Op::OpAtomicFMinEXT:
      return "OpAtomicFMinEXT";
    case spv::Op::OpAtomicFMaxEXT:
      return "OpAtomicFMaxEXT";
    default:
      return "atomic";
  }
}

using Stage = PrereduceAtomicsPass::StageBits;

// The stage group of an execution model; 0 for one the pass does not know.
uint32_t StageBitOf(spv::ExecutionModel model) {
  switch (model) {
    case spv::ExecutionModel::GLCompute:
      return Stage::kStageCompute;
    case spv::ExecutionModel::TaskNV:
    case spv::ExecutionModel::MeshNV:
    case spv::ExecutionModel::TaskEXT:
    case spv::ExecutionModel::MeshEXT:
      return Stage::kStageMesh;
    case spv::ExecutionModel::Fragment:
      return Stage::kStageFragment;
    case spv::ExecutionModel::Vertex:
      return Stage::kStageVertex;
    case spv::ExecutionModel::TessellationControl:
    case spv::ExecutionModel::TessellationEvaluation:
      return Stage::kStageTessellation;
    case spv::ExecutionModel::Geometry:
      return Stage::kStageGeometry;
    case spv::ExecutionModel::RayGenerationKHR:
    case spv::ExecutionModel::IntersectionKHR:
    case spv::ExecutionModel::AnyHitKHR:
    case spv::ExecutionModel::ClosestHitKHR:
    case spv::ExecutionModel::MissKHR:
    case spv::ExecutionModel::CallableKHR:
      return Stage::kStageRayTracing;
    default:
      return 0;
  }
}

// The name `stages=` uses for |bit|.
const char* StageName(uint32_t bit) {
  switch (bit) {
    case Stage::kStageCompute:
      return "compute";
    case Stage::kStageMesh:
      return "mesh";
    case Stage::kStageFragment:
      return "fragment";
    case Stage::kStageVertex:
      return "vertex";
    case Stage::kStageTessellation:
      return "tessellation";
    case Stage::kStageGeometry:
      return "geometry";
    case Stage::kStageRayTracing:
      return "raytracing";
    default:
      return "unknown";
  }
}

uint32_t StageBitByName(const std::string& name) {
  if (name == "all") return Stage::kStageAll;
  for (uint32_t bit = 1; bit & Stage::kStageAll; bit <<= 1) {
    if (name == StageName(bit)) return bit;
  }
  return 0;
}

// Subgroup operations: OpGroupNonUniform* and the KHR subgroup extensions.
bool IsSubgroupOp(spv::Op op) {
  const uint32_t n = static_cast<uint32_t>(op);
  return (n >= static_cast<uint32_t>(spv::Op::OpGroupNonUniformElect) &&
          n <= static_cast<uint32_t>(spv::Op::OpGroupNonUniformQuadSwap)) ||
         (n >= static_cast<uint32_t>(spv::Op::OpSubgroupBallotKHR) &&
          n <= static_cast<uint32_t>(spv::Op::OpSubgroupReadInvocationKHR));
}

// Whether |inst| may sit between two atomics that share an elected branch:
// free of side effects, or a load/store of memory no other invocation can
// access (|*private_var| set: the variable, or 0 when the pointer's base is
// not one). Loads of read-only invocation inputs and descriptors are free;
// every other memory read (buffers, workgroup memory, images) is not, since
// it could observe an earlier atomic of the branch.
bool MayJoinAcross(spvtools::opt::IRContext* context, Instruction* inst, bool* private_access,
                   uint32_t* private_var) {
  *private_access = false;
  *private_var = 0;
  const spv::Op op = inst->opcode();
  if (op == spv::Op::OpLoad || op == spv::Op::OpStore) {
    Instruction* ptr = context->get_def_use_mgr()->GetDef(inst->GetSingleWordInOperand(0));
    const auto* ptr_type = context->get_type_mgr()->GetType(ptr->type_id())->AsPointer();
    if (ptr_type == nullptr) return false;
    switch (ptr_type->storage_class()) {
      case spv::StorageClass::Function:
      case spv::StorageClass::Private: {
        *private_access = true;
        Instruction* base = inst->GetBaseAddress();
        if (base->opcode() == spv::Op::OpVariable) *private_var = base->result_id();
        return true;
      }
      case spv::StorageClass::Input:
      case spv::StorageClass::UniformConstant:
      case spv::StorageClass::PushConstant:
        return op == spv::Op::OpLoad;
      default:
        return false;
    }
  }
  switch (op) {
    case spv::Op::OpImageRead:
    case spv::Op::OpImageFetch:
    case spv::Op::OpImageGather:
    case spv::Op::OpImageDrefGather:
    case spv::Op::OpImageSparseRead:
    case spv::Op::OpImageSparseFetch:
    case spv::Op::OpImageSparseGather:
    case spv::Op::OpImageSparseDrefGather:
    case spv::Op::OpImageSparseSampleProjImplicitLod:
    case spv::Op::OpImageSparseSampleProjExplicitLod:
    case spv::Op::OpImageSparseSampleProjDrefImplicitLod:
    case spv::Op::OpImageSparseSampleProjDrefExplicitLod:
      return false;
    default:
      break;
  }
  if (spvOpcodeIsImageSample(op)) return false;
  return context->IsCombinatorInstruction(inst);
}

// Word |index| of the uint vector |composite|.
uint32_t ExtractWord(Emitter* e, uint32_t composite, uint32_t index) {
  return e->Emit(spv::Op::OpCompositeExtract, e->UIntType(32),
                 {{SPV_OPERAND_TYPE_ID, {composite}}, {SPV_OPERAND_TYPE_LITERAL_INTEGER, {index}}});
}

// EmitSplit64's Add/Sub: the reduction and exclusive scan of the 64-bit
// value whose words are |lo| and |hi|, in |type| (signed: |is_signed|).
void EmitSplit64Add(Emitter* e, uint32_t type, bool is_signed, uint32_t lo, uint32_t hi,
                    bool want_result, uint32_t* total, uint32_t* prefix) {
  // Σv = Σ(lo & 0xffff) + (Σ(lo >> 16) << 16) + (Σhi << 32) mod 2^64.
  // The first two sums stay below 128 · 2^16 = 2^23; the third matters
  // only modulo 2^32 (it is shifted by 32), so it may wrap.
  const uint32_t uint_type = e->UIntType(32);
  const uint32_t v3 = e->UIntVectorType(3);
  const uint32_t ulong = e->UIntType(64);
  const uint32_t pieces =
      e->EmitIds(spv::Op::OpCompositeConstruct, v3,
                 {e->EmitIds(spv::Op::OpBitwiseAnd, uint_type, {lo, e->UInt(0xffffu)}),
                  e->EmitIds(spv::Op::OpShiftRightLogical, uint_type, {lo, e->UInt(16)}), hi});
  auto join = [&](uint32_t sums) {
    uint32_t x = e->EmitIds(spv::Op::OpUConvert, ulong, {ExtractWord(e, sums, 0)});
    const uint32_t mid = e->EmitIds(spv::Op::OpUConvert, ulong, {ExtractWord(e, sums, 1)});
    const uint32_t top = e->EmitIds(spv::Op::OpUConvert, ulong, {ExtractWord(e, sums, 2)});
    x = e->EmitIds(spv::Op::OpIAdd, ulong,
                   {x, e->EmitIds(spv::Op::OpShiftLeftLogical, ulong, {mid, e->UInt(16)})});
    x = e->EmitIds(spv::Op::OpIAdd, ulong,
                   {x, e->EmitIds(spv::Op::OpShiftLeftLogical, ulong, {top, e->UInt(32)})});
    return is_signed ? e->EmitIds(spv::Op::OpBitcast, type, {x}) : x;
  };
  *total = join(e->Group(spv::Op::OpGroupNonUniformIAdd, v3, kReduce, {pieces}));
  if (want_result) {
    *prefix = join(e->Group(spv::Op::OpGroupNonUniformIAdd, v3, kExclusiveScan, {pieces}));
  }
}

// EmitSplit64Max's returned values: the max over the lanes before this one
// of the 64-bit values (|w_hi|, |w_lo|), as its words, in three 32-bit
// exclusive max-scans over the high half, bits 8-31 and bits 0-7 of the
// low half. Each later level keys a lane's piece with the number of times
// the running maximum of the levels before it has grown so far (at most
// 128, 8 bits), so that a scan's maximum falls among exactly the lanes that
// tie the running maximum so far; lanes that do not tie it give 0. The doc
// has the proof.
void EmitExclusiveMax64(Emitter* e, bool is_signed, uint32_t w_lo, uint32_t w_hi,
                        uint32_t* before_lo, uint32_t* before_hi) {
  const uint32_t uint_type = e->UIntType(32);
  const uint32_t bool_type = e->BoolType();
  const uint32_t mask_type = e->UIntVectorType(4);
  const spv::Op hi_max =
      is_signed ? spv::Op::OpGroupNonUniformSMax : spv::Op::OpGroupNonUniformUMax;
  const spv::Op umax = spv::Op::OpGroupNonUniformUMax;
  const spv::Op gt = is_signed ? spv::Op::OpSGreaterThan : spv::Op::OpUGreaterThan;
  const spv::Op ge = is_signed ? spv::Op::OpSGreaterThanEqual : spv::Op::OpUGreaterThanEqual;
  constexpr int kInclusiveScan = static_cast<int>(spv::GroupOperation::InclusiveScan);
  auto bits = [&](spv::Op opcode, uint32_t a, uint32_t b) {
    return e->EmitIds(opcode, uint_type, {a, b});
  };
  // How many lanes up to this one (inclusive) have |grows| set.
  auto running_count = [&](uint32_t grows) {
    const uint32_t ballot = e->Group(spv::Op::OpGroupNonUniformBallot, mask_type, -1, {grows});
    return e->Group(spv::Op::OpGroupNonUniformBallotBitCount, uint_type, kInclusiveScan, {ballot});
  };
  // Level 1: the high half.
  *before_hi = e->Group(hi_max, uint_type, kExclusiveScan, {w_hi});
  const uint32_t ties1 = e->EmitIds(ge, bool_type, {w_hi, *before_hi});
  const uint32_t grows1 = e->EmitIds(gt, bool_type, {w_hi, *before_hi});
  const uint32_t seg1 = running_count(grows1);
  // Level 2: bits 8-31 under the level-1 segment.
  // (Each emitted operand gets its own statement: the order in which C++
  // evaluates function arguments is unspecified, and gcc and clang emit
  // them in opposite orders.)
  const uint32_t tag1 = bits(spv::Op::OpShiftLeftLogical, seg1, e->UInt(24));
  const uint32_t mid_lo = bits(spv::Op::OpShiftRightLogical, w_lo, e->UInt(8));
  const uint32_t key2_or = bits(spv::Op::OpBitwiseOr, tag1, mid_lo);
  const uint32_t key2 = e->EmitIds(spv::Op::OpSelect, uint_type, {ties1, key2_or, e->UInt(0)});
  const uint32_t before2 = e->Group(umax, uint_type, kExclusiveScan, {key2});
  const uint32_t ties2 =
      e->EmitIds(spv::Op::OpLogicalAnd, bool_type,
                 {ties1, e->EmitIds(spv::Op::OpUGreaterThanEqual, bool_type, {key2, before2})});
  const uint32_t grows2 = e->EmitIds(spv::Op::OpUGreaterThan, bool_type, {key2, before2});
  const uint32_t seg2 = running_count(grows2);
  // Level 3: bits 0-7 under the level-2 segment.
  const uint32_t tag2 = bits(spv::Op::OpShiftLeftLogical, seg2, e->UInt(24));
  const uint32_t low_lo = bits(spv::Op::OpBitwiseAnd, w_lo, e->UInt(0xffu));
  const uint32_t key3_or = bits(spv::Op::OpBitwiseOr, tag2, low_lo);
  const uint32_t key3 = e->EmitIds(spv::Op::OpSelect, uint_type, {ties2, key3_or, e->UInt(0)});
  const uint32_t before3 = e->Group(umax, uint_type, kExclusiveScan, {key3});
  const uint32_t high24 = bits(spv::Op::OpShiftLeftLogical, before2, e->UInt(8));
  const uint32_t low8 = bits(spv::Op::OpBitwiseAnd, before3, e->UInt(0xffu));
  *before_lo = bits(spv::Op::OpBitwiseOr, high24, low8);
}

// EmitSplit64's Min/Max of |op| on the 64-bit value whose words are |lo|
// and |hi|, in |type|: the order of 64-bit values is the order of (high
// half, low half), the high half compared as the operation's signedness
// says and the low half unsigned. Min is max of the complements (~x
// reverses both orders), so everything below is a max.
void EmitSplit64Max(Emitter* e, spv::Op op, uint32_t type, uint32_t lo, uint32_t hi,
                    bool want_result, uint32_t* total, uint32_t* prefix) {
  const uint32_t uint_type = e->UIntType(32);
  const uint32_t v2 = e->UIntVectorType(2);
  const bool is_min = op == spv::Op::OpAtomicSMin || op == spv::Op::OpAtomicUMin;
  const bool is_signed = op == spv::Op::OpAtomicSMin || op == spv::Op::OpAtomicSMax;
  const spv::Op hi_max =
      is_signed ? spv::Op::OpGroupNonUniformSMax : spv::Op::OpGroupNonUniformUMax;
  uint32_t w_lo = lo;
  uint32_t w_hi = hi;
  if (is_min) {
    w_lo = e->EmitIds(spv::Op::OpNot, uint_type, {lo});
    w_hi = e->EmitIds(spv::Op::OpNot, uint_type, {hi});
  }
  // (low, high) of a max back to the atomic's type (complemented for min).
  auto join = [&](uint32_t low, uint32_t high) {
    uint32_t x = e->EmitIds(spv::Op::OpCompositeConstruct, v2, {low, high});
    if (is_min) x = e->EmitIds(spv::Op::OpNot, v2, {x});
    return e->EmitIds(spv::Op::OpBitcast, type, {x});
  };
  // The winner: the highest high half, then the highest low half among the
  // lanes that have it (the others give 0, the identity of umax).
  const uint32_t top_hi = e->Group(hi_max, uint_type, kReduce, {w_hi});
  const uint32_t on_top = e->EmitIds(spv::Op::OpIEqual, e->BoolType(), {w_hi, top_hi});
  const uint32_t top_lo =
      e->Group(spv::Op::OpGroupNonUniformUMax, uint_type, kReduce,
               {e->EmitIds(spv::Op::OpSelect, uint_type, {on_top, w_lo, e->UInt(0)})});
  *total = join(top_lo, top_hi);
  if (!want_result) return;
  uint32_t before_lo = 0;
  uint32_t before_hi = 0;
  EmitExclusiveMax64(e, is_signed, w_lo, w_hi, &before_lo, &before_hi);
  *prefix = join(before_lo, before_hi);
}

// The remarks' names, in the order of Reason.
constexpr const char* kReasonNames[] = {
    "",
    // Missed.
    "UnsupportedAtomicOp",
    "FloatAtomic",
    "UnsupportedType",
    "NonRelaxedSemantics",
    "VolatileAtomic",
    "UnsupportedStorageClass",
    "UnsupportedStage",
    "StageNotPromised",
    "MixedStageFunction",
    "AlreadyPreReduced",
    "UnsupportedControlFlow",
    "NotExpressibleInHlsl",
    "DivergentAddress",
    "DistinctAddresses",
    "DriverPreReduces",
    "NotProfitableOnCpu",
    // Applied.
    "UniformAddressUniformValue",
    "UniformAddressDivergentValue",
    "SmallBinSet",
};

}  // namespace

const char* PrereduceAtomicsPass::ReasonName(Reason reason) {
  static_assert(
      sizeof(kReasonNames) / sizeof(kReasonNames[0]) == static_cast<size_t>(Reason::kCount),
      "kReasonNames has one name per Reason");
  return kReasonNames[static_cast<size_t>(reason)];
}

bool PrereduceAtomicsPass::ParseParams(const std::string& text, Params* params,
                                       std::string* error) {
  std::vector<std::pair<std::string, std::string>> items;
  if (!SplitParams(text, &items, error)) return false;
  for (const auto& [key, value] : items) {
    if (key == "max-bins") {
      char* end = nullptr;
      unsigned long n = std::strtoul(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 1 || n > 128) {
        *error = "max-bins must be a number from 1 to 128";
        return false;
      }
      params->max_bins = static_cast<uint32_t>(n);
    } else if (key == "extended-types" && value.empty()) {
      params->extended_types = true;
    } else if (key == "float-reassoc" && value.empty()) {
      params->float_reassoc = true;
    } else if (key == "stages") {
      uint32_t stages = 0;
      size_t start = 0;
      while (start <= value.size()) {
        size_t end = value.find('+', start);
        if (end == std::string::npos) end = value.size();
        const uint32_t bit = StageBitByName(value.substr(start, end - start));
        if (bit == 0) {
          *error =
              "stages must be a '+'-separated list of compute, mesh, "
              "fragment, vertex, tessellation, geometry, raytracing or "
              "all";
          return false;
        }
        stages |= bit;
        start = end + 1;
      }
      params->stages = stages;
    } else {
      *error = "unknown parameter '" + key +
               "' (expected max-bins=N, extended-types, float-reassoc or "
               "stages=LIST)";
      return false;
    }
  }
  return true;
}

PrereduceAtomicsPass::PrereduceAtomicsPass(PassConfig config) : WavePass(std::move(config)) {
  std::string ignored;
  ParseParams(this->config().params, &params_, &ignored);
}

spvtools::opt::Pass::Status PrereduceAtomicsPass::Process() {
  std::vector<std::pair<Function*, Instruction*>> atomics;
  for (Function& func : *get_module()) {
    for (BasicBlock& block : func) {
      for (Instruction& inst : block) {
        if (IsAtomic(inst.opcode())) atomics.emplace_back(&func, &inst);
      }
    }
  }
  if (atomics.empty()) return Status::SuccessWithoutChange;

  // Module-wide refusals: one missed remark per atomic, same reason.
  std::string module_why;
  const std::string module_reason = ModuleRefusal(&module_why);
  if (!module_reason.empty()) {
    for (auto& [func, atomic] : atomics) {
      EmitRemark(RemarkKind::kMissed, module_reason, func, atomic, module_why);
    }
    return Status::SuccessWithoutChange;
  }

  // The entry points (stages) that run each function, and which entry
  // points already use subgroup operations.
  entries_of_.clear();
  entries_with_subgroup_ops_.clear();
  helper_var_ = 0;
  for (Instruction& ep : get_module()->entry_points()) {
    const uint32_t entry = ep.GetSingleWordInOperand(1);
    std::unordered_set<uint32_t> seen;
    std::deque<uint32_t> work{entry};
    while (!work.empty()) {
      const uint32_t id = work.front();
      work.pop_front();
      if (!seen.insert(id).second) continue;
      Function* callee = context()->GetFunction(id);
      if (callee == nullptr) continue;
      entries_of_[id].push_back(&ep);
      callee->ForEachInst([&](Instruction* inst) {
        if (inst->opcode() == spv::Op::OpFunctionCall) {
          work.push_back(inst->GetSingleWordInOperand(0));
        } else if (IsSubgroupOp(inst->opcode())) {
          entries_with_subgroup_ops_.insert(entry);
        }
      });
    }
  }

  const std::vector<std::vector<Candidate>> groups = Groups(atomics);
  if (groups.empty()) return Status::SuccessWithoutChange;
  for (const std::vector<Candidate>& group : groups) {
    if (!Rewrite(group)) return Status::Failure;
  }
  return Status::SuccessWithChange;
}

std::vector<std::vector<PrereduceAtomicsPass::Candidate>> PrereduceAtomicsPass::Groups(
    const std::vector<std::pair<Function*, Instruction*>>& atomics) {
  // Before any rewrite: the uniformity the pipeline kept, if any.
  std::unique_ptr<UniformityAnalysis> own;
  const UniformityAnalysis& uniformity = UniformityOf(context(), config().uniformity.get(), &own);
  std::vector<std::vector<Candidate>> groups;
  // The open group holds atomics the driver profile would leave to RADV
  // (DriverPreReduces) and whose results are unused: it is rewritten only
  // when two or more of them share an elected branch (RADV elects once per
  // atomic), else each gets its missed remark. |deferred_why| is that
  // remark's text.
  bool deferred = false;
  std::string deferred_why;
  auto close_deferred = [&]() {
    if (!deferred) return;
    deferred = false;
    if (groups.back().size() >= 2) {
      if (!GroupSelected(groups.back())) {
        groups.pop_back();
        return;
      }
      for (const Candidate& c : groups.back()) EmitApplied(c);
      return;
    }
    const Candidate& c = groups.back().front();
    EmitReason(RemarkKind::kMissed, Reason::kDriverPreReduces, c.function, c.atomic, deferred_why);
    groups.pop_back();
  };
  for (auto& [func, atomic] : atomics) {
    Candidate cand;
    std::string why;
    Reason reason = Classify(func, atomic, uniformity, &cand, &why);
    if (reason == Reason::kNone) reason = DriverProfileRefusal(cand, &why);
    const bool defer = reason == Reason::kDriverPreReduces && !cand.result_used;
    if (reason != Reason::kNone && !defer) {
      close_deferred();
      EmitReason(RemarkKind::kMissed, reason, func, atomic, why);
      continue;
    }
    // An atomic --only-rewrite leaves splits groups as a refused one does;
    // a deferred group is selected as one (GroupSelected).
    if (!defer && !Selected(func, atomic)) {
      close_deferred();
      continue;
    }
    // Remarks in program order; every decision (which atomics share an
    // elected branch too) is final before the first rewrite.
    if (groups.empty() || defer != deferred || !JoinsPrevious(groups.back(), &cand)) {
      close_deferred();
      groups.emplace_back();
      deferred = defer;
      deferred_why = why;
    }
    if (!defer) EmitApplied(cand);
    groups.back().push_back(cand);
  }
  close_deferred();
  return groups;
}

// A deferred group is one rewrite (one election where the driver would make
// one per atomic; alone, each is left to it): --only-rewrite selects it
// whole when it selects one of its atomics, else each says NotSelected.
bool PrereduceAtomicsPass::GroupSelected(const std::vector<Candidate>& group) {
  for (const Candidate& c : group) {
    if (InSelection(c.function, c.atomic)) return true;
  }
  for (const Candidate& c : group) Selected(c.function, c.atomic);
  return false;
}

bool PrereduceAtomicsPass::JoinsPrevious(const std::vector<Candidate>& group, Candidate* cand) {
  cand->hoist.clear();
  cand->joins_previous = false;
  std::vector<Instruction*> hoist;
  const Candidate& prev = group.back();
  if (prev.shape != Shape::kUniformAddress || cand->shape != Shape::kUniformAddress ||
      prev.fragment || cand->fragment || prev.function != cand->function) {
    return false;
  }
  BasicBlock* block = context()->get_instr_block(prev.atomic);
  if (block != context()->get_instr_block(cand->atomic)) return false;

  // What stays below the branch: the group's results, what uses them, and
  // the private variables such a staying instruction touches (a later access
  // to one stays too, so private memory keeps its order).
  std::unordered_set<const Instruction*> atomics;
  std::unordered_set<uint32_t> staying_ids;
  for (const Candidate& c : group) {
    atomics.insert(c.atomic);
    staying_ids.insert(c.atomic->result_id());
  }
  std::unordered_set<uint32_t> staying_vars;
  bool staying_unknown_var = false;
  auto uses_staying = [&](Instruction* inst) {
    return !inst->WhileEachInId([&](const uint32_t* id) { return staying_ids.count(*id) == 0; });
  };
  bool after_prev = group.size() == 1;  // the walk starts after the first
  auto it = BasicBlock::iterator(group.front().atomic);
  for (++it; &*it != cand->atomic; ++it) {
    Instruction* inst = &*it;
    if (atomics.count(inst) != 0) {
      after_prev = after_prev || inst == prev.atomic;
      continue;
    }
    bool private_access = false;
    uint32_t var = 0;
    if (!MayJoinAcross(context(), inst, &private_access, &var)) return false;
    const bool var_staying =
        private_access &&
        (staying_unknown_var || (var == 0 ? !staying_vars.empty() : staying_vars.count(var) != 0));
    if (uses_staying(inst) || var_staying) {
      if (inst->result_id() != 0) staying_ids.insert(inst->result_id());
      if (private_access && var == 0) staying_unknown_var = true;
      if (private_access && var != 0) staying_vars.insert(var);
    } else if (after_prev) {
      hoist.push_back(inst);
    }
  }
  // The atomic's own pointer and value must be known above the branch.
  if (uses_staying(cand->atomic)) return false;
  cand->hoist = std::move(hoist);
  cand->joins_previous = true;
  return true;
}

PrereduceAtomicsPass::Reason PrereduceAtomicsPass::DriverProfileRefusal(const Candidate& cand,
                                                                        std::string* why) {
  const spvtools::opt::analysis::Integer* int_type =
      context()->get_type_mgr()->GetType(cand.atomic->type_id())->AsInteger();
  // Measured (test/amd/radv_atomics.py): RADV compiles every 32-bit
  // integer uniform-address atomic to one elected lane with an s_bcnt1 or
  // DPP reduction, in no more instructions than this rewrite; 64-bit
  // ones it handles worse or wrongly, and fragment shaders were not
  // measured (waverun isa compiles compute shaders).
  if (cand.shape == Shape::kUniformAddress && int_type != nullptr && int_type->width() == 32 &&
      !cand.fragment && config().Fact(&TargetFacts::elects_uniform_atomics)) {
    *why = TargetFlag() +
           ": RADV pre-reduces a 32-bit uniform-address "
           "atomic itself (one elected lane, an s_bcnt1 or DPP reduction, "
           "v_mbcnt for the returned values) in no more instructions than "
           "this rewrite (fact elects-uniform-atomics)";
    return Reason::kDriverPreReduces;
  }
  // Measured on lavapipe (docs/benchmarks.md): the uniform-value case A
  // (compaction) and the small-bin case C (histograms) are slower than
  // the plain atomics; case B (tile_minmax) is faster.
  if ((cand.shape == Shape::kSmallBinSet || cand.uniform_value) &&
      config().Fact(&TargetFacts::cheap_same_address_atomics)) {
    *why =
        TargetFlag() + ": " +
        (cand.shape == Shape::kSmallBinSet ? "the small-bin pre-reduction (histograms)"
                                           : "the uniform-value pre-reduction (append counters)") +
        " measured slower than one atomic per lane on lavapipe "
        "(fact cheap-same-address-atomics)";
    return Reason::kNotProfitableOnCpu;
  }
  return Reason::kNone;
}

void PrereduceAtomicsPass::EmitApplied(const Candidate& cand) {
  {
    std::string what = std::string(OpName(cand.atomic->opcode())) +
                       (cand.uniform_value ? " of a uniform value" : " of a divergent value");
    what += cand.result_used ? "; each lane's returned value is rebuilt"
                             : "; the returned value is unused";
    if (cand.split64) {
      what += "; the 64-bit value is reduced as 32-bit pieces";
    }
    if (cand.fragment) what += "; helper invocations are kept out";
    if (cand.joins_previous) {
      what += "; shares the elected branch of the atomic before it";
    }
    if (cand.shape == Shape::kUniformAddress) {
      EmitReason(RemarkKind::kApplied,
                 cand.uniform_value ? Reason::kUniformAddressUniformValue
                                    : Reason::kUniformAddressDivergentValue,
                 cand.function, cand.atomic, "one atomic per subgroup: " + what);
    } else {
      uint32_t bits = 0;
      while ((uint64_t{1} << bits) < cand.bin_bound) ++bits;
      EmitReason(
          RemarkKind::kApplied, Reason::kSmallBinSet, cand.function, cand.atomic,
          "one atomic per distinct address per subgroup (the index "
          "takes at most " +
              std::to_string(cand.bin_bound) + " values; " +
              (cand.matched ? "lanes sharing it found by " + std::to_string(bits) + " ballot(s)"
                            : std::string("a loop takes one index at a time")) +
              "): " + what);
    }
  }
}

PrereduceAtomicsPass::Reason PrereduceAtomicsPass::Classify(Function* func, Instruction* atomic,
                                                            const UniformityAnalysis& uniformity,
                                                            Candidate* cand, std::string* why) {
  bool fragment = false;
  Reason reason = OperationRefusal(atomic, why);
  if (reason == Reason::kNone) reason = PlaceRefusal(func, atomic, &fragment, why);
  if (reason != Reason::kNone) return reason;
  Describe(func, atomic, fragment, uniformity, cand);
  reason = HlslRefusal(*cand, why);
  if (reason != Reason::kNone) return reason;
  return ShapeOf(uniformity, cand, why);
}

PrereduceAtomicsPass::Reason PrereduceAtomicsPass::OperationRefusal(Instruction* atomic,
                                                                    std::string* why) {
  const spv::Op op = atomic->opcode();
  switch (op) {
    case spv::Op::OpAtomicLoad:
    case spv::Op::OpAtomicStore:
    case spv::Op::OpAtomicExchange:
    case spv::Op::OpAtomicCompareExchange:
    case spv::Op::OpAtomicCompareExchangeWeak:
    case spv::Op::OpAtomicFlagTestAndSet:
    case spv::Op::OpAtomicFlagClear:
      *why = std::string(OpName(op)) +
             " does not combine across lanes; only read-modify-write "
             "arithmetic and bitwise atomics are pre-reduced";
      return Reason::kUnsupportedAtomicOp;
    case spv::Op::OpAtomicFAddEXT:
    case spv::Op::OpAtomicFMinEXT:
    case spv::Op::OpAtomicFMaxEXT:
      if (!params_.float_reassoc && !config().float_reassoc) {
        *why = std::string(OpName(op)) +
               ": float atomics are left alone (reassociating float "
               "additions changes rounding; --prereduce-atomics="
               "float-reassoc allows it)";
        return Reason::kFloatAtomic;
      }
      break;
    default:
      break;
  }

  auto* def_use = context()->get_def_use_mgr();
  const auto* type = context()->get_type_mgr()->GetType(atomic->type_id());
  const auto* int_type = type ? type->AsInteger() : nullptr;
  const auto* float_type = type ? type->AsFloat() : nullptr;
  if (IsFloatAtomic(op)) {
    if (float_type == nullptr || float_type->width() != 32) {
      *why = "only 32-bit float atomics are pre-reduced";
      return Reason::kUnsupportedType;
    }
  } else if (int_type == nullptr || (int_type->width() != 32 && int_type->width() != 64)) {
    *why = "only 32- and 64-bit integer atomics are pre-reduced";
    return Reason::kUnsupportedType;
  }

  uint64_t semantics = 0;
  if (!IntConstant(context(), def_use->GetDef(atomic->GetSingleWordInOperand(2)), &semantics)) {
    *why = "the memory semantics are not a constant";
    return Reason::kNonRelaxedSemantics;
  }
  if (semantics & kMemorySemanticsVolatile) {
    *why = "the atomic is Volatile";
    return Reason::kVolatileAtomic;
  }
  if (semantics & kMemorySemanticsOrdering) {
    *why =
        "the atomic orders memory (Acquire/Release/AcquireRelease/"
        "SequentiallyConsistent); combining lanes would change what "
        "other invocations observe";
    return Reason::kNonRelaxedSemantics;
  }
  return Reason::kNone;
}

PrereduceAtomicsPass::Reason PrereduceAtomicsPass::PlaceRefusal(Function* func, Instruction* atomic,
                                                                bool* fragment, std::string* why) {
  auto* def_use = context()->get_def_use_mgr();
  const uint32_t pointer = atomic->GetSingleWordInOperand(0);
  Instruction* pointer_def = def_use->GetDef(pointer);
  const auto* pointer_type =
      pointer_def ? context()->get_type_mgr()->GetType(pointer_def->type_id()) : nullptr;
  const auto* as_pointer = pointer_type ? pointer_type->AsPointer() : nullptr;
  if (as_pointer == nullptr) {
    *why = "the pointer's type is unknown";
    return Reason::kUnsupportedStorageClass;
  }
  switch (as_pointer->storage_class()) {
    case spv::StorageClass::Workgroup:
    case spv::StorageClass::StorageBuffer:
    case spv::StorageClass::PhysicalStorageBuffer:
    case spv::StorageClass::Uniform:  // BufferBlock storage buffers
    case spv::StorageClass::Image:
      break;
    default:
      *why =
          "atomics on this storage class are not pre-reduced (Workgroup, "
          "StorageBuffer, PhysicalStorageBuffer and image texels are)";
      return Reason::kUnsupportedStorageClass;
  }

  const Reason stage_reason = StageRefusal(func, fragment, why);
  if (stage_reason != Reason::kNone) return stage_reason;

  BasicBlock* block = context()->get_instr_block(atomic);
  if (UnderElect(func, block)) {
    *why =
        "a dominating OpGroupNonUniformElect (or lowest-lane-of-a-ballot "
        "test) already leaves one lane (already pre-reduced)";
    return Reason::kAlreadyPreReduced;
  }

  if (Instruction* loop_merge = block->GetLoopMergeInst()) {
    const uint32_t merge = loop_merge->GetSingleWordInOperand(0);
    const uint32_t cont = loop_merge->GetSingleWordInOperand(1);
    const Instruction* term = block->terminator();
    bool splittable = cont != block->id();
    if (term->opcode() == spv::Op::OpBranchConditional) {
      uint32_t t = term->GetSingleWordInOperand(1);
      uint32_t f = term->GetSingleWordInOperand(2);
      splittable = splittable && (t == merge || f == merge || t == cont || f == cont);
    } else if (term->opcode() != spv::Op::OpBranch) {
      splittable = false;
    }
    if (!splittable) {
      *why =
          "the atomic sits in a loop header whose branch cannot be "
          "moved out of it";
      return Reason::kUnsupportedControlFlow;
    }
  }
  return Reason::kNone;
}

void PrereduceAtomicsPass::Describe(Function* func, Instruction* atomic, bool fragment,
                                    const UniformityAnalysis& uniformity, Candidate* cand) {
  auto* def_use = context()->get_def_use_mgr();
  const spv::Op op = atomic->opcode();
  cand->atomic = atomic;
  cand->function = func;
  cand->fragment = fragment;
  cand->result_used = !def_use->WhileEachUser(atomic, [](Instruction* user) {
    return spvtools::opt::IsAnnotationInst(user->opcode()) ||
           spvtools::opt::IsDebug2Inst(user->opcode());
  });
  if (IsIncDec(op)) {
    cand->uniform_value = true;
  } else {
    cand->uniform_value = uniformity.IsSubgroupUniform(atomic->GetSingleWordInOperand(3));
  }
  // Without shaderSubgroupExtendedTypes a divergent 64-bit value is reduced
  // as 32-bit pieces.
  cand->split64 =
      IntWidth(atomic->type_id()) == 64 && !cand->uniform_value && !params_.extended_types;
}

PrereduceAtomicsPass::Reason PrereduceAtomicsPass::HlslRefusal(const Candidate& cand,
                                                               std::string* why) {
  const spv::Op op = cand.atomic->opcode();
  if (config().emit_hlsl && cand.fragment && !config().hlsl_dxc) {
    *why =
        "the output is emitted as HLSL, and the rewrite keeps helper lanes "
        "out with IsHelperLane(), a shader model 6.6 intrinsic that "
        "glslang's HLSL front end does not accept (--hlsl-dialect=dxc "
        "if the HLSL is for DXC)";
    return Reason::kNotExpressibleInHlsl;
  }
  // HLSL's prefix operations are sums, products and bit counts: the
  // returned values of other operations of divergent values come from an
  // exclusive scan it cannot write.
  if (config().emit_hlsl && cand.result_used && !cand.uniform_value &&
      op != spv::Op::OpAtomicIAdd && op != spv::Op::OpAtomicISub &&
      !(IsFloatAtomic(op) && op == spv::Op::OpAtomicFAddEXT)) {
    *why = "the output is emitted as HLSL, which has no exclusive scan for " +
           std::string(spvOpcodeString(op)) +
           " (WavePrefix* has sums, products and bit counts only), and each "
           "lane's returned value needs one";
    return Reason::kNotExpressibleInHlsl;
  }
  return Reason::kNone;
}

PrereduceAtomicsPass::Reason PrereduceAtomicsPass::ShapeOf(const UniformityAnalysis& uniformity,
                                                           Candidate* cand, std::string* why) {
  const uint32_t pointer = cand->atomic->GetSingleWordInOperand(0);
  if (uniformity.IsSubgroupUniform(pointer)) {
    cand->shape = Shape::kUniformAddress;
    return Reason::kNone;
  }
  uint32_t index = 0;
  uint64_t bound = 0;
  if (!FindBinIndex(pointer, uniformity, &index, &bound, why)) {
    return Reason::kDivergentAddress;
  }
  if (IsInvocationIndex(index, uniformity, 0)) {
    *why =
        "the index is the invocation's own index, so lanes rarely share "
        "an address and pre-reduction would add a loop iteration per lane";
    return Reason::kDistinctAddresses;
  }
  cand->shape = Shape::kSmallBinSet;
  cand->bin_index = index;
  cand->bin_bound = bound;
  cand->matched = cand->uniform_value && !IsFloatAtomic(cand->atomic->opcode());
  return Reason::kNone;
}

PrereduceAtomicsPass::Reason PrereduceAtomicsPass::StageRefusal(Function* func, bool* fragment,
                                                                std::string* why) {
  *fragment = false;
  auto it = entries_of_.find(func->result_id());
  if (it == entries_of_.end()) return Reason::kNone;  // no entry point runs it
  bool other = false;
  for (Instruction* ep : it->second) {
    const auto model = spv::ExecutionModel(ep->GetSingleWordInOperand(0));
    const uint32_t bit = StageBitOf(model);
    const std::string entry_name = ep->GetInOperand(2).AsString();
    if (bit == 0) {
      *why = "the function runs in entry point '" + entry_name + "' of an execution model (" +
             std::to_string(static_cast<uint32_t>(model)) + ") the pass does not handle";
      return Reason::kUnsupportedStage;
    }
    if ((params_.stages & bit) == 0 &&
        entries_with_subgroup_ops_.count(ep->GetSingleWordInOperand(1)) == 0) {
      *why = std::string("the function runs in the ") + StageName(bit) + " stage (entry point '" +
             entry_name +
             "'), where Vulkan does not guarantee subgroup operations (the "
             "device lists its stages in subgroupSupportedStages) and the "
             "entry point uses none; pass --prereduce-atomics=stages=" +
             StageName(bit) + "+... if the target device supports them";
      return Reason::kStageNotPromised;
    }
    if (bit == Stage::kStageFragment) {
      *fragment = true;
    } else {
      other = true;
    }
  }
  if (*fragment && other) {
    *why =
        "the function runs in fragment and in other stages: helper "
        "invocations must be kept out in the first, and the test for them "
        "is only valid in fragment shaders";
    *fragment = false;
    return Reason::kMixedStageFunction;
  }
  return Reason::kNone;
}

bool PrereduceAtomicsPass::IsInvocationIndex(uint32_t id, const UniformityAnalysis& uniformity,
                                             int depth) {
  if (depth > 8) return false;
  auto* def_use = context()->get_def_use_mgr();
  Instruction* inst = def_use->GetDef(id);
  if (inst == nullptr) return false;
  // The BuiltIn decoration of a variable, or -1.
  auto builtin_of = [&](uint32_t var) -> int {
    int found = -1;
    for (Instruction* dec : context()->get_decoration_mgr()->GetDecorationsFor(var, false)) {
      if (dec->opcode() == spv::Op::OpDecorate &&
          spv::Decoration(dec->GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn) {
        found = static_cast<int>(dec->GetSingleWordInOperand(2));
      }
    }
    return found;
  };
  switch (inst->opcode()) {
    case spv::Op::OpLoad: {
      const uint32_t ptr = inst->GetSingleWordInOperand(0);
      Instruction* var = def_use->GetDef(ptr);
      if (var == nullptr) return false;
      if (var->opcode() == spv::Op::OpAccessChain && var->NumInOperands() == 2) {
        // gl_LocalInvocationID.x through an access chain.
        uint64_t component = 1;
        IntConstant(context(), def_use->GetDef(var->GetSingleWordInOperand(1)), &component);
        int b = builtin_of(var->GetSingleWordInOperand(0));
        return component == 0 && (b == static_cast<int>(spv::BuiltIn::LocalInvocationId) ||
                                  b == static_cast<int>(spv::BuiltIn::GlobalInvocationId));
      }
      if (var->opcode() != spv::Op::OpVariable) return false;
      int b = builtin_of(ptr);
      if (b == static_cast<int>(spv::BuiltIn::LocalInvocationIndex) ||
          b == static_cast<int>(spv::BuiltIn::SubgroupLocalInvocationId)) {
        return true;
      }
      const uint32_t stored = StoredOnce(id);
      return stored != 0 && IsInvocationIndex(stored, uniformity, depth + 1);
    }
    case spv::Op::OpCompositeExtract: {
      if (inst->NumInOperands() != 2 || inst->GetSingleWordInOperand(1) != 0) {
        return false;
      }
      Instruction* load = def_use->GetDef(inst->GetSingleWordInOperand(0));
      if (load == nullptr || load->opcode() != spv::Op::OpLoad) return false;
      int b = builtin_of(load->GetSingleWordInOperand(0));
      return b == static_cast<int>(spv::BuiltIn::LocalInvocationId) ||
             b == static_cast<int>(spv::BuiltIn::GlobalInvocationId);
    }
    case spv::Op::OpIAdd:
    case spv::Op::OpISub: {
      const uint32_t a = inst->GetSingleWordInOperand(0);
      const uint32_t b = inst->GetSingleWordInOperand(1);
      if (uniformity.IsSubgroupUniform(b)) {
        return IsInvocationIndex(a, uniformity, depth + 1);
      }
      if (inst->opcode() == spv::Op::OpIAdd && uniformity.IsSubgroupUniform(a)) {
        return IsInvocationIndex(b, uniformity, depth + 1);
      }
      return false;
    }
    case spv::Op::OpBitcast:
    case spv::Op::OpCopyObject:
      return IsInvocationIndex(inst->GetSingleWordInOperand(0), uniformity, depth + 1);
    case spv::Op::OpUMod:
    case spv::Op::OpBitwiseAnd: {
      // The low bits of a lane's own index still differ between neighbours.
      uint64_t c = 0;
      return IntConstant(context(), def_use->GetDef(inst->GetSingleWordInOperand(1)), &c) &&
             c >= 4 && IsInvocationIndex(inst->GetSingleWordInOperand(0), uniformity, depth + 1);
    }
    default:
      return false;
  }
}

uint32_t PrereduceAtomicsPass::StoredOnce(uint32_t id) {
  auto* def_use = context()->get_def_use_mgr();
  Instruction* load = def_use->GetDef(id);
  if (load == nullptr || load->opcode() != spv::Op::OpLoad) return 0;
  const uint32_t ptr = load->GetSingleWordInOperand(0);
  Instruction* var = def_use->GetDef(ptr);
  if (var == nullptr || var->opcode() != spv::Op::OpVariable ||
      spv::StorageClass(var->GetSingleWordInOperand(0)) != spv::StorageClass::Function ||
      var->NumInOperands() > 1) {  // an initializer is a second value
    return 0;
  }
  uint32_t stored = 0;
  int stores = 0;
  def_use->ForEachUser(var, [&](Instruction* user) {
    if (user->opcode() == spv::Op::OpStore && user->GetSingleWordInOperand(0) == ptr) {
      ++stores;
      stored = user->GetSingleWordInOperand(1);
    } else if (user->opcode() != spv::Op::OpLoad &&
               !spvtools::opt::IsAnnotationInst(user->opcode()) &&
               !spvtools::opt::IsDebug2Inst(user->opcode())) {
      stores += 2;  // escapes (access chain, call): unknown
    }
  });
  return stores == 1 ? stored : 0;
}

bool PrereduceAtomicsPass::IsLowestOfBallotSet(Instruction* cond) {
  // rank == 0 (either operand order), rank an exclusive ballot bit count:
  // the lowest lane of a set, what the matched case C branches on.
  if (cond->opcode() != spv::Op::OpIEqual) return false;
  auto* def_use = context()->get_def_use_mgr();
  for (uint32_t i = 0; i < 2; ++i) {
    Instruction* rank = def_use->GetDef(cond->GetSingleWordInOperand(i));
    uint64_t zero = 1;
    if (rank != nullptr && rank->opcode() == spv::Op::OpGroupNonUniformBallotBitCount &&
        rank->GetSingleWordInOperand(1) ==
            static_cast<uint32_t>(spv::GroupOperation::ExclusiveScan) &&
        IntConstant(context(), def_use->GetDef(cond->GetSingleWordInOperand(1 - i)), &zero) &&
        zero == 0) {
      return true;
    }
  }
  return false;
}

bool PrereduceAtomicsPass::UnderElect(Function* func, BasicBlock* block) {
  spvtools::opt::DominatorAnalysis* dom = context()->GetDominatorAnalysis(func);
  auto* def_use = context()->get_def_use_mgr();
  for (BasicBlock* b = dom->ImmediateDominator(block); b != nullptr;
       b = dom->ImmediateDominator(b)) {
    const Instruction* term = b->terminator();
    if (term->opcode() != spv::Op::OpBranchConditional) continue;
    Instruction* cond = def_use->GetDef(term->GetSingleWordInOperand(0));
    if (cond == nullptr ||
        !(cond->opcode() == spv::Op::OpGroupNonUniformElect || IsLowestOfBallotSet(cond))) {
      continue;
    }
    uint32_t on_true = term->GetSingleWordInOperand(1);
    if (on_true != term->GetSingleWordInOperand(2) && dom->Dominates(on_true, block->id())) {
      return true;
    }
  }
  return false;
}

uint32_t PrereduceAtomicsPass::IntWidth(uint32_t type_id) {
  Instruction* type = context()->get_def_use_mgr()->GetDef(type_id);
  if (type == nullptr || type->opcode() != spv::Op::OpTypeInt) return 0;
  return type->GetSingleWordInOperand(0);
}

uint64_t PrereduceAtomicsPass::IndexBound(uint32_t id, int depth) {
  if (depth > 8) return 0;
  Instruction* inst = context()->get_def_use_mgr()->GetDef(id);
  if (inst == nullptr) return 0;
  uint64_t c = 0;
  auto const_operand = [&](uint32_t index, uint64_t* value) {
    return IntConstant(context(),
                       context()->get_def_use_mgr()->GetDef(inst->GetSingleWordInOperand(index)),
                       value);
  };
  switch (inst->opcode()) {
    case spv::Op::OpConstant:
      return IntConstant(context(), inst, &c) && c < (1u << 31) ? c + 1 : 0;
    case spv::Op::OpLoad: {
      const uint32_t stored = StoredOnce(id);
      return stored != 0 ? IndexBound(stored, depth + 1) : 0;
    }
    case spv::Op::OpBitwiseAnd:
      // x & C is in [0, C] for an unsigned view; C must not have the sign bit.
      if (const_operand(1, &c) || const_operand(0, &c)) {
        return c < (1u << 31) ? c + 1 : 0;
      }
      return 0;
    case spv::Op::OpUMod:
      return const_operand(1, &c) && c > 0 && c <= (1u << 31) ? c : 0;
    case spv::Op::OpSMod:
      // The sign of the divisor: in [0, c) for a positive c. (OpSRem, HLSL's
      // and C's %, follows the dividend: negative values stay negative.)
      return const_operand(1, &c) && c > 0 && c <= (1u << 31) ? c : 0;
    case spv::Op::OpShiftRightLogical:
    case spv::Op::OpUDiv: {
      // x >> c, x / c: below ceil(bound(x) / 2^c) (or the same with c),
      // bound(x) being 2^width when nothing smaller is known.
      const uint32_t width = IntWidth(inst->type_id());
      if (!const_operand(1, &c) || width == 0 || width > 32) return 0;
      uint64_t below = IndexBound(inst->GetSingleWordInOperand(0), depth + 1);
      if (below == 0) below = uint64_t{1} << width;
      uint64_t divisor = c;
      if (inst->opcode() == spv::Op::OpShiftRightLogical) {
        if (c >= width) return 0;
        divisor = uint64_t{1} << c;
      }
      if (divisor == 0) return 0;
      const uint64_t bound = (below + divisor - 1) / divisor;
      return bound <= (1u << 31) ? bound : 0;
    }
    case spv::Op::OpBitFieldUExtract: {
      // |count| bits: below 2^count.
      if (!const_operand(2, &c) || c >= 31) return 0;
      return uint64_t{1} << c;
    }
    case spv::Op::OpBitcast:
    case spv::Op::OpUConvert:
    case spv::Op::OpCopyObject:
      return IndexBound(inst->GetSingleWordInOperand(0), depth + 1);
    case spv::Op::OpIAdd: {
      // [0, a) + [0, b) is in [0, a + b - 1).
      uint64_t a = IndexBound(inst->GetSingleWordInOperand(0), depth + 1);
      uint64_t b = IndexBound(inst->GetSingleWordInOperand(1), depth + 1);
      return a && b && a + b - 1 < (1u << 31) ? a + b - 1 : 0;
    }
    case spv::Op::OpSelect: {
      uint64_t a = IndexBound(inst->GetSingleWordInOperand(1), depth + 1);
      uint64_t b = IndexBound(inst->GetSingleWordInOperand(2), depth + 1);
      return a && b ? std::max(a, b) : 0;
    }
    case spv::Op::OpExtInst: {
      if (!IsGlslStd450(context(), inst)) return 0;
      uint32_t ext = inst->GetSingleWordInOperand(1);
      uint64_t lo = 0, hi = 0;
      switch (ext) {
        case 38:  // UMin(x, C)
          if (const_operand(3, &hi) || const_operand(2, &hi)) {
            return hi < (1u << 31) ? hi + 1 : 0;
          }
          return 0;
        case 44:  // UClamp(x, lo, hi)
          return const_operand(4, &hi) && hi < (1u << 31) ? hi + 1 : 0;
        case 45:  // SClamp(x, lo, hi) with 0 <= lo
          if (const_operand(3, &lo) && const_operand(4, &hi) && lo < (1u << 31) &&
              hi < (1u << 31)) {
            return hi + 1;
          }
          return 0;
        default:
          return 0;
      }
    }
    default:
      return 0;
  }
}

bool PrereduceAtomicsPass::FindBinIndex(uint32_t pointer, const UniformityAnalysis& uniformity,
                                        uint32_t* index, uint64_t* bound_out, std::string* why) {
  auto* def_use = context()->get_def_use_mgr();
  Instruction* chain = def_use->GetDef(pointer);
  if (chain == nullptr || (chain->opcode() != spv::Op::OpAccessChain &&
                           chain->opcode() != spv::Op::OpInBoundsAccessChain)) {
    *why =
        "the address differs between lanes and is not an access chain "
        "into an array";
    return false;
  }
  const uint32_t base = chain->GetSingleWordInOperand(0);
  if (!uniformity.IsSubgroupUniform(base)) {
    *why = "the base of the address differs between lanes";
    return false;
  }
  Instruction* base_def = def_use->GetDef(base);
  Instruction* type =
      def_use->GetDef(def_use->GetDef(base_def->type_id())->GetSingleWordInOperand(1));
  uint32_t divergent = 0;
  uint64_t bound = 0;
  for (uint32_t i = 1; i < chain->NumInOperands() && type != nullptr; ++i) {
    const uint32_t idx = chain->GetSingleWordInOperand(i);
    const bool is_divergent = !uniformity.IsSubgroupUniform(idx);
    uint64_t type_bound = 0;
    uint32_t next_type = 0;
    switch (type->opcode()) {
      case spv::Op::OpTypeArray: {
        next_type = type->GetSingleWordInOperand(0);
        uint64_t length = 0;
        if (IntConstant(context(), def_use->GetDef(type->GetSingleWordInOperand(1)), &length)) {
          type_bound = length;
        }
        break;
      }
      case spv::Op::OpTypeRuntimeArray:
        next_type = type->GetSingleWordInOperand(0);
        break;
      case spv::Op::OpTypeVector:
      case spv::Op::OpTypeMatrix:
        next_type = type->GetSingleWordInOperand(0);
        type_bound = type->GetSingleWordInOperand(1);
        break;
      case spv::Op::OpTypeStruct: {
        uint64_t member = 0;
        if (!IntConstant(context(), def_use->GetDef(idx), &member) ||
            member >= type->NumInOperands()) {
          *why = "the address indexes a struct with a non-constant index";
          return false;
        }
        next_type = type->GetSingleWordInOperand(static_cast<uint32_t>(member));
        break;
      }
      default:
        *why = "the address indexes a type that is not an aggregate";
        return false;
    }
    if (is_divergent) {
      if (divergent != 0) {
        *why = "more than one index of the address differs between lanes";
        return false;
      }
      divergent = idx;
      uint64_t value_bound = IndexBound(idx, 0);
      bound = type_bound && value_bound ? std::min(type_bound, value_bound)
                                        : std::max(type_bound, value_bound);
    }
    type = def_use->GetDef(next_type);
  }
  if (divergent == 0) {
    *why = "the address differs between lanes";
    return false;
  }
  const auto* idx_type = context()->get_type_mgr()->GetType(def_use->GetDef(divergent)->type_id());
  if (idx_type == nullptr || idx_type->AsInteger() == nullptr ||
      idx_type->AsInteger()->width() != 32) {
    *why = "the divergent index is not a 32-bit integer";
    return false;
  }
  if (bound == 0 || bound > params_.max_bins) {
    *why =
        "the address differs between lanes and its index is not provably "
        "in a set of at most " +
        std::to_string(params_.max_bins) +
        " values (an array of at most max-bins elements, a constant "
        "and-mask, umod or clamp)";
    return false;
  }
  *index = divergent;
  *bound_out = bound;
  return true;
}

bool PrereduceAtomicsPass::EmitPeers(BasicBlock* pre, uint32_t index, uint64_t bound,
                                     bool want_leader_lane, Peers* peers) {
  Emitter e(context(), pre);
  context()->AddCapability(spv::Capability::GroupNonUniformBallot);
  const uint32_t bool_type = e.BoolType();
  const uint32_t uint_type = e.UIntType(32);
  const uint32_t mask_type = e.UIntVectorType(4);
  uint32_t idx = index;
  const auto* idx_type =
      context()->get_type_mgr()->GetType(context()->get_def_use_mgr()->GetDef(index)->type_id());
  if (idx_type->AsInteger()->IsSigned()) {
    idx = e.EmitIds(spv::Op::OpBitcast, uint_type, {index});
  }
  // Only the bits an index in [0, bound) can have are compared: an index
  // out of that range is out of bounds of what it indexes (undefined, or
  // under robust access free to land anywhere in the buffer).
  uint32_t peers_mask = e.Group(spv::Op::OpGroupNonUniformBallot, mask_type, -1, {e.Bool(true)});
  for (uint32_t bit = 0; (uint64_t{1} << bit) < bound; ++bit) {
    const uint32_t masked = e.EmitIds(spv::Op::OpBitwiseAnd, uint_type, {idx, e.UInt(1u << bit)});
    const uint32_t set = e.EmitIds(spv::Op::OpINotEqual, bool_type, {masked, e.UInt(0)});
    const uint32_t ballot = e.Group(spv::Op::OpGroupNonUniformBallot, mask_type, -1, {set});
    // Lanes with the bit keep the ballot, the others its complement.
    const uint32_t flip =
        e.EmitIds(spv::Op::OpSelect, uint_type, {set, e.UInt(0), e.UInt(0xffffffffu)});
    const uint32_t flips =
        e.EmitIds(spv::Op::OpCompositeConstruct, mask_type, {flip, flip, flip, flip});
    const uint32_t agree = e.EmitIds(spv::Op::OpBitwiseXor, mask_type, {ballot, flips});
    peers_mask = e.EmitIds(spv::Op::OpBitwiseAnd, mask_type, {peers_mask, agree});
  }
  peers->count =
      e.Group(spv::Op::OpGroupNonUniformBallotBitCount, uint_type, kReduce, {peers_mask});
  peers->rank =
      e.Group(spv::Op::OpGroupNonUniformBallotBitCount, uint_type, kExclusiveScan, {peers_mask});
  peers->is_leader = e.EmitIds(spv::Op::OpIEqual, bool_type, {peers->rank, e.UInt(0)});
  peers->leader_lane = want_leader_lane ? e.BallotLowestBit(peers_mask, config().subgroup_size) : 0;
  return e.ok();
}

bool PrereduceAtomicsPass::EmitSplit64(Emitter* e, const OpInfo& info, bool want_result,
                                       uint32_t* total, uint32_t* prefix) {
  context()->AddCapability(spv::Capability::GroupNonUniformArithmetic);
  const spv::Op op = info.op;
  const uint32_t v2 = e->UIntVectorType(2);
  // The operand as (low word, high word).
  const uint32_t halves = e->EmitIds(spv::Op::OpBitcast, v2, {info.value_id});

  if (op == spv::Op::OpAtomicAnd || op == spv::Op::OpAtomicOr || op == spv::Op::OpAtomicXor) {
    // Bitwise: every bit on its own, so each half on its own.
    const spv::Op group_op = GroupOpFor(op);
    *total =
        e->EmitIds(spv::Op::OpBitcast, info.type_id, {e->Group(group_op, v2, kReduce, {halves})});
    if (want_result) {
      *prefix = e->EmitIds(spv::Op::OpBitcast, info.type_id,
                           {e->Group(group_op, v2, kExclusiveScan, {halves})});
    }
    return e->ok();
  }

  const uint32_t lo = ExtractWord(e, halves, 0);
  const uint32_t hi = ExtractWord(e, halves, 1);
  if (op == spv::Op::OpAtomicIAdd || op == spv::Op::OpAtomicISub) {
    EmitSplit64Add(e, info.type_id, info.is_signed, lo, hi, want_result, total, prefix);
  } else {
    context()->AddCapability(spv::Capability::GroupNonUniformBallot);
    EmitSplit64Max(e, op, info.type_id, lo, hi, want_result, total, prefix);
  }
  return e->ok();
}

uint32_t PrereduceAtomicsPass::EmitIsHelper(Emitter* e, Function* func) {
  if (context()->get_feature_mgr()->HasCapability(spv::Capability::DemoteToHelperInvocation)) {
    // Lanes may become helpers on the way (demote): ask at this point.
    return e->EmitIds(spv::Op::OpIsHelperInvocationEXT, e->BoolType(), {});
  }
  // Without demote a lane is a helper from its start or never, so the
  // built-in is exact.
  auto* def_use = context()->get_def_use_mgr();
  const uint32_t bool_type = e->BoolType();
  if (helper_var_ == 0) {
    for (Instruction& inst : get_module()->types_values()) {
      if (inst.opcode() != spv::Op::OpVariable ||
          spv::StorageClass(inst.GetSingleWordInOperand(0)) != spv::StorageClass::Input) {
        continue;
      }
      bool is_helper = false;
      for (Instruction* dec :
           context()->get_decoration_mgr()->GetDecorationsFor(inst.result_id(), false)) {
        if (dec->opcode() == spv::Op::OpDecorate &&
            spv::Decoration(dec->GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn &&
            spv::BuiltIn(dec->GetSingleWordInOperand(2)) == spv::BuiltIn::HelperInvocation) {
          is_helper = true;
        }
      }
      if (is_helper) {
        helper_var_ = inst.result_id();
        break;
      }
    }
  }
  if (helper_var_ == 0) {
    const uint32_t pointer =
        context()->get_type_mgr()->FindPointerToType(bool_type, spv::StorageClass::Input);
    const uint32_t var = context()->TakeNextId();
    if (pointer == 0 || var == 0) return 0;
    std::unique_ptr<Instruction> inst(new Instruction(
        context(), spv::Op::OpVariable, pointer, var,
        {{SPV_OPERAND_TYPE_STORAGE_CLASS, {static_cast<uint32_t>(spv::StorageClass::Input)}}}));
    def_use->AnalyzeInstDefUse(inst.get());
    get_module()->AddGlobalValue(std::move(inst));
    context()->get_decoration_mgr()->AddDecorationVal(
        var, static_cast<uint32_t>(spv::Decoration::BuiltIn),
        static_cast<uint32_t>(spv::BuiltIn::HelperInvocation));
    helper_var_ = var;
  }
  // Every fragment entry point that runs |func| lists the variable.
  for (Instruction* ep : entries_of_[func->result_id()]) {
    bool listed = false;
    for (uint32_t i = 3; i < ep->NumInOperands(); ++i) {
      listed = listed || ep->GetSingleWordInOperand(i) == helper_var_;
    }
    if (!listed) {
      ep->AddOperand({SPV_OPERAND_TYPE_ID, {helper_var_}});
      def_use->AnalyzeInstUse(ep);
    }
  }
  return e->EmitIds(spv::Op::OpLoad, bool_type, {helper_var_});
}

bool PrereduceAtomicsPass::EmitOperands(Emitter* e, Elected* item, const Peers* peers) {
  const OpInfo& info = item->info;
  const spv::Op op = info.op;
  // The bool and uint types first (added here when the module lacks them).
  e->BoolType();
  e->UIntType(32);
  uint32_t total = 0;   // the operand of the single atomic
  uint32_t prefix = 0;  // what the lanes before this one contributed
  if (IsFloatAtomic(op)) {
    EmitFloatOperands(e, info, item->want_result, &total, &prefix);
  } else if (item->uniform_value && IsIdempotent(op)) {
    total = info.value_id;
  } else if (item->uniform_value) {
    EmitUniformOperands(e, info, item->want_result, peers, &total, &prefix);
  } else if (info.width == 64 && !params_.extended_types) {
    if (!EmitSplit64(e, info, item->want_result, &total, &prefix)) return false;
  } else {
    context()->AddCapability(spv::Capability::GroupNonUniformArithmetic);
    const spv::Op group_op = GroupOpFor(op);
    total = e->Group(group_op, info.type_id, kReduce, {info.value_id});
    if (item->want_result) {
      prefix = e->Group(group_op, info.type_id, kExclusiveScan, {info.value_id});
    }
  }
  item->total = total;
  item->prefix = prefix;
  return e->ok();
}

void PrereduceAtomicsPass::EmitFloatOperands(Emitter* e_ptr, const OpInfo& info, bool want_result,
                                             uint32_t* total, uint32_t* prefix) {
  Emitter& e = *e_ptr;
  const spv::Op op = info.op;
  const uint32_t type = info.type_id;
  const uint32_t v = info.value_id;
  const uint32_t bool_type = e.BoolType();
  const uint32_t uint_type = e.UIntType(32);
  // Reassociated (float-reassoc): the subgroup's sum/min/max feeds one
  // atomic. For fadd, -0.0 is the identity: a sum of -0.0s stays -0.0
  // even where the subgroup reduction starts from +0.0.
  context()->AddCapability(spv::Capability::GroupNonUniformArithmetic);
  const spv::Op group_op = GroupOpFor(op);
  *total = e.Group(group_op, type, kReduce, {v});
  if (want_result) *prefix = e.Group(group_op, type, kExclusiveScan, {v});
  if (op == spv::Op::OpAtomicFAddEXT) {
    context()->AddCapability(spv::Capability::GroupNonUniformBallot);
    const uint32_t neg_zero = e.Constant(type, {0x80000000u});
    const uint32_t bits = e.EmitIds(spv::Op::OpBitcast, uint_type, {v});
    const uint32_t nonzero =
        e.EmitIds(spv::Op::OpINotEqual, bool_type, {bits, e.UInt(0x80000000u)});
    const uint32_t ballot =
        e.Group(spv::Op::OpGroupNonUniformBallot, e.UIntVectorType(4), -1, {nonzero});
    const uint32_t others =
        e.Group(spv::Op::OpGroupNonUniformBallotBitCount, uint_type, kReduce, {ballot});
    const uint32_t all_neg_zero = e.EmitIds(spv::Op::OpIEqual, bool_type, {others, e.UInt(0)});
    *total = e.EmitIds(spv::Op::OpSelect, type, {all_neg_zero, neg_zero, *total});
    if (want_result) {
      const uint32_t before =
          e.Group(spv::Op::OpGroupNonUniformBallotBitCount, uint_type, kExclusiveScan, {ballot});
      const uint32_t none_before = e.EmitIds(spv::Op::OpIEqual, bool_type, {before, e.UInt(0)});
      *prefix = e.EmitIds(spv::Op::OpSelect, type, {none_before, neg_zero, *prefix});
    }
  }
}

void PrereduceAtomicsPass::EmitUniformOperands(Emitter* e_ptr, const OpInfo& info, bool want_result,
                                               const Peers* peers, uint32_t* total,
                                               uint32_t* prefix) {
  Emitter& e = *e_ptr;
  const spv::Op op = info.op;
  const uint32_t type = info.type_id;
  const uint32_t v = info.value_id;
  const uint32_t bool_type = e.BoolType();
  const uint32_t uint_type = e.UIntType(32);
  // Converts a 32-bit lane count to the atomic's type.
  auto count_as_type = [&](uint32_t count) -> uint32_t {
    uint32_t x = count;
    if (info.width == 64) x = e.EmitIds(spv::Op::OpUConvert, e.UIntType(64), {x});
    if (info.is_signed) x = e.EmitIds(spv::Op::OpBitcast, type, {x});
    return x;
  };
  // v if the low bit of |count| is set, else 0.
  auto odd_select = [&](uint32_t count) -> uint32_t {
    uint32_t bit = e.EmitIds(spv::Op::OpBitwiseAnd, uint_type, {count, e.UInt(1)});
    uint32_t odd = e.EmitIds(spv::Op::OpIEqual, bool_type, {bit, e.UInt(1)});
    return e.EmitIds(spv::Op::OpSelect, type, {odd, v, e.Zero(type)});
  };

  context()->AddCapability(spv::Capability::GroupNonUniformBallot);
  uint32_t count = 0;
  uint32_t before = 0;
  if (peers != nullptr) {
    count = peers->count;
    before = peers->rank;
  } else {
    const uint32_t mask_type = e.UIntVectorType(4);
    uint32_t ballot = e.Group(spv::Op::OpGroupNonUniformBallot, mask_type, -1, {e.Bool(true)});
    count = e.Group(spv::Op::OpGroupNonUniformBallotBitCount, uint_type, kReduce, {ballot});
    if (want_result && config().Fact(&TargetFacts::cheap_lane_prefix)) {
      // ACO lowers an exclusive add of 1 to v_mbcnt (2 instructions) and a
      // ballot's exclusive bit count to 9 (docs/design/prereduce-atomics.md).
      context()->AddCapability(spv::Capability::GroupNonUniformArithmetic);
      before = e.Group(spv::Op::OpGroupNonUniformIAdd, uint_type, kExclusiveScan, {e.UInt(1)});
    } else if (want_result) {
      before =
          e.Group(spv::Op::OpGroupNonUniformBallotBitCount, uint_type, kExclusiveScan, {ballot});
    }
  }
  if (op == spv::Op::OpAtomicXor) {
    *total = odd_select(count);
    if (want_result) *prefix = odd_select(before);
  } else if (IsIncDec(op)) {
    *total = count_as_type(count);
    if (want_result) *prefix = count_as_type(before);
  } else {
    *total = e.EmitIds(spv::Op::OpIMul, type, {v, count_as_type(count)});
    if (want_result) {
      *prefix = e.EmitIds(spv::Op::OpIMul, type, {v, count_as_type(before)});
    }
  }
}

bool PrereduceAtomicsPass::EmitElectedAtomics(Emitter* e, BasicBlock* merge,
                                              std::vector<Elected>* group, const Peers* peers) {
  for (Elected& item : *group) {
    item.result = 0;
    if (!EmitOperands(e, &item, peers)) return false;
  }
  context()->AddCapability(spv::Capability::GroupNonUniform);
  const uint32_t elect = peers != nullptr
                             ? peers->is_leader
                             : e->Group(spv::Op::OpGroupNonUniformElect, e->BoolType(), -1, {});
  if (!e->ok()) return false;
  Emitter::If single = e->PushIf(elect, Emitter::Arms::kThen, merge);

  // The elected lane issues the atomics in their program order.
  for (Elected& item : *group) {
    Instruction* atomic = item.atomic;
    spv::Op new_op = item.info.op;
    if (new_op == spv::Op::OpAtomicIIncrement) new_op = spv::Op::OpAtomicIAdd;
    if (new_op == spv::Op::OpAtomicIDecrement) new_op = spv::Op::OpAtomicISub;
    item.single =
        e->Emit(new_op, item.info.type_id,
                {{SPV_OPERAND_TYPE_ID, {atomic->GetSingleWordInOperand(0)}},
                 {SPV_OPERAND_TYPE_SCOPE_ID, {atomic->GetSingleWordInOperand(1)}},
                 {SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID, {atomic->GetSingleWordInOperand(2)}},
                 {SPV_OPERAND_TYPE_ID, {item.total}}});
    // The single atomic keeps the original's source location.
    if (item.single != 0) {
      context()->get_def_use_mgr()->GetDef(item.single)->UpdateDebugInfoFrom(atomic);
    }
  }
  if (!e->PopIf(&single)) return false;

  // Every phi first (a block's phis lead it), then the rebuilds.
  std::vector<uint32_t> phis;
  for (const Elected& item : *group) {
    const uint32_t type = item.info.type_id;
    phis.push_back(item.want_result ? e->IfPhi(single, type, item.single, e->Null(type)) : 0);
  }
  for (size_t i = 0; i < group->size(); ++i) {
    Elected& item = (*group)[i];
    if (!item.want_result) continue;
    item.result = EmitRebuild(e, item, elect, phis[i], peers);
    if (item.result == 0) return false;
  }
  return e->ok();
}

uint32_t PrereduceAtomicsPass::EmitRebuild(Emitter* m_ptr, const Elected& item, uint32_t elect,
                                           uint32_t phi, const Peers* peers) {
  Emitter& m = *m_ptr;
  const OpInfo& info = item.info;
  const spv::Op op = info.op;
  const uint32_t type = info.type_id;
  const uint32_t v = info.value_id;
  const uint32_t prefix = item.prefix;
  // The elected lane's returned value, to every lane (with |peers|: the
  // leader's, from its lane). 64-bit values travel as two 32-bit halves so
  // that no extended-types feature is needed.
  uint32_t base = 0;
  context()->AddCapability(spv::Capability::GroupNonUniformBallot);
  auto from_leader = [&](uint32_t value_type, uint32_t value) -> uint32_t {
    if (peers == nullptr) {
      return m.Group(spv::Op::OpGroupNonUniformBroadcastFirst, value_type, -1, {value});
    }
    context()->AddCapability(spv::Capability::GroupNonUniformShuffle);
    return m.Group(spv::Op::OpGroupNonUniformShuffle, value_type, -1, {value, peers->leader_lane});
  };
  if (info.width == 64) {
    const uint32_t v2 = m.UIntVectorType(2);
    uint32_t halves = m.EmitIds(spv::Op::OpBitcast, v2, {phi});
    halves = from_leader(v2, halves);
    base = m.EmitIds(spv::Op::OpBitcast, type, {halves});
  } else {
    base = from_leader(type, phi);
  }
  // old <op> x, for the original operation.
  auto combine = [&](uint32_t old, uint32_t x) -> uint32_t {
    switch (op) {
      case spv::Op::OpAtomicIAdd:
      case spv::Op::OpAtomicIIncrement:
        return m.EmitIds(spv::Op::OpIAdd, type, {old, x});
      case spv::Op::OpAtomicISub:
      case spv::Op::OpAtomicIDecrement:
        return m.EmitIds(spv::Op::OpISub, type, {old, x});
      case spv::Op::OpAtomicAnd:
        return m.EmitIds(spv::Op::OpBitwiseAnd, type, {old, x});
      case spv::Op::OpAtomicOr:
        return m.EmitIds(spv::Op::OpBitwiseOr, type, {old, x});
      case spv::Op::OpAtomicXor:
        return m.EmitIds(spv::Op::OpBitwiseXor, type, {old, x});
      case spv::Op::OpAtomicFAddEXT:
        return m.EmitIds(spv::Op::OpFAdd, type, {old, x});
      case spv::Op::OpAtomicFMinEXT:
      case spv::Op::OpAtomicFMaxEXT: {
        uint32_t keep_old = m.EmitIds(
            op == spv::Op::OpAtomicFMinEXT ? spv::Op::OpFOrdLessThan : spv::Op::OpFOrdGreaterThan,
            m.BoolType(), {old, x});
        return m.EmitIds(spv::Op::OpSelect, type, {keep_old, old, x});
      }
      default: {
        spv::Op cmp = op == spv::Op::OpAtomicUMin   ? spv::Op::OpULessThan
                      : op == spv::Op::OpAtomicSMin ? spv::Op::OpSLessThan
                      : op == spv::Op::OpAtomicUMax ? spv::Op::OpUGreaterThan
                                                    : spv::Op::OpSGreaterThan;
        uint32_t keep_old = m.EmitIds(cmp, m.BoolType(), {old, x});
        return m.EmitIds(spv::Op::OpSelect, type, {keep_old, old, x});
      }
    }
  };
  uint32_t result = 0;
  if (item.uniform_value && IsIdempotent(op)) {
    // The first lane sees the old value, every later one old <op> v.
    result = m.EmitIds(spv::Op::OpSelect, type, {elect, base, combine(base, v)});
  } else if (IsFloatAtomic(op)) {
    // The first lane sees exactly the old value (old + identity could turn
    // -0.0 into +0.0); the others old <op> (their exclusive prefix).
    result = m.EmitIds(spv::Op::OpSelect, type, {elect, base, combine(base, prefix)});
  } else {
    result = combine(base, prefix);
  }
  return m.ok() ? result : 0;
}

PrereduceAtomicsPass::OpInfo PrereduceAtomicsPass::InfoOf(Instruction* atomic) {
  OpInfo info;
  info.op = atomic->opcode();
  info.type_id = atomic->type_id();
  const auto* result_type = context()->get_type_mgr()->GetType(info.type_id);
  if (const auto* int_type = result_type->AsInteger()) {
    info.width = int_type->width();
    info.is_signed = int_type->IsSigned();
  } else {
    info.width = result_type->AsFloat()->width();
  }
  info.value_id = IsIncDec(info.op) ? 0 : atomic->GetSingleWordInOperand(3);
  return info;
}

bool PrereduceAtomicsPass::Rewrite(const std::vector<Candidate>& group) {
  const Candidate& cand = group.front();
  Instruction* atomic = cand.atomic;
  const OpInfo info = InfoOf(atomic);
  Emitter e(context(), context()->get_instr_block(atomic), BasicBlock::iterator(atomic));
  BasicBlock* tail = OpenSite(group, &e);
  if (tail == nullptr) return false;

  // In fragment shaders the rewrite runs in the else arm of an if on the
  // helper test whose merge is the tail, so that helper lanes neither
  // count nor get elected; their returned value is 0 (IfPhi).
  Emitter::If guard;
  BasicBlock* post = tail;  // the rewrite's merge (null: a new block)
  if (cand.fragment) {
    const uint32_t is_helper = EmitIsHelper(&e, cand.function);
    if (is_helper == 0) return false;
    guard = e.PushIf(is_helper, Emitter::Arms::kElse, tail);
    post = nullptr;
  }

  uint32_t result = 0;
  if (!EmitShape(group, info, &e, post, &result)) return false;
  if (cand.fragment) {
    if (!e.PopIf(&guard)) return false;
    if (cand.result_used) {
      result = e.IfPhi(guard, info.type_id, e.Null(info.type_id), result);
      if (!e.ok()) return false;
    }
  }

  if (cand.result_used) context()->ReplaceAllUsesWith(atomic->result_id(), result);
  context()->KillInst(atomic);
  return true;
}

BasicBlock* PrereduceAtomicsPass::OpenSite(const std::vector<Candidate>& group, Emitter* e) {
  // The rewrite's control flow goes where the atomic was: a loop header
  // first hands its other instructions to a new block; what follows the
  // atomic becomes the rewrite's merge.
  if (e->SplitLoopHeader() == nullptr) return nullptr;
  BasicBlock* tail = e->SplitHere();
  if (tail == nullptr) return nullptr;
  BasicBlock* block = e->block();
  // What sat between joined atomics and uses none of their results goes
  // above the group's reductions, in program order.
  for (const Candidate& joined : group) {
    for (Instruction* inst : joined.hoist) {
      std::unique_ptr<Instruction> moved(inst);
      inst->RemoveFromList();
      block->AddInstruction(std::move(moved));
      context()->set_instr_block(inst, block);
    }
  }
  return tail;
}

bool PrereduceAtomicsPass::EmitShape(const std::vector<Candidate>& group, const OpInfo& info,
                                     Emitter* e, BasicBlock* post, uint32_t* result) {
  const Candidate& cand = group.front();
  Instruction* atomic = cand.atomic;
  if (cand.shape == Shape::kUniformAddress) {
    std::vector<Elected> items;
    for (const Candidate& joined : group) {
      Elected item;
      item.atomic = joined.atomic;
      item.info = InfoOf(joined.atomic);
      item.uniform_value = joined.uniform_value;
      item.want_result = joined.result_used;
      items.push_back(item);
    }
    if (!EmitElectedAtomics(e, post, &items)) return false;
    // Joined atomics (never in fragment shaders) are done here; the first
    // one's result goes back to Rewrite, like the other shapes'.
    for (size_t i = 1; i < items.size(); ++i) {
      if (items[i].want_result) {
        context()->ReplaceAllUsesWith(items[i].atomic->result_id(), items[i].result);
      }
      context()->KillInst(items[i].atomic);
    }
    *result = items.front().result;
  } else if (cand.matched) {
    Peers peers;
    std::vector<Elected> items(1);
    items[0].atomic = atomic;
    items[0].info = info;
    items[0].uniform_value = true;
    items[0].want_result = cand.result_used;
    if (!EmitPeers(e->block(), cand.bin_index, cand.bin_bound, cand.result_used, &peers) ||
        !EmitElectedAtomics(e, post, &items, &peers)) {
      return false;
    }
    *result = items[0].result;
  } else if (!EmitIndexLoop(cand, info, e, post, result)) {
    return false;
  }
  return true;
}

bool PrereduceAtomicsPass::EmitIndexLoop(const Candidate& cand, const OpInfo& info, Emitter* e,
                                         BasicBlock* post, uint32_t* result) {
  // Until every lane is done: the first remaining lane's index; the lanes
  // that share it run the uniform-address rewrite.
  //   header: phis; loop merge post, continue cont → check
  //   check: done ? latch : pick;  pick: mine ? run : picked
  //   run → (single) → ran → picked → latch → cont: all done ? post : header
  context()->AddCapability(spv::Capability::GroupNonUniform);
  context()->AddCapability(spv::Capability::GroupNonUniformBallot);
  context()->AddCapability(spv::Capability::GroupNonUniformVote);
  Emitter::Loop loop = e->PushLoop(post);
  // header: lanes done so far; the loop's only exit is uniform (cont).
  const uint32_t bool_type = e->BoolType();
  const uint32_t done = e->LoopPhi(&loop, bool_type, e->Bool(false));
  uint32_t acc = 0;
  if (cand.result_used) acc = e->LoopPhi(&loop, info.type_id, e->Null(info.type_id));
  e->LoopWhile(&loop, 0);
  // check: lanes already done sit this iteration out.
  Emitter::If pending = e->PushIf(done, Emitter::Arms::kElse);
  // pick: the first remaining lane's index; the lanes that share it run.
  const uint32_t idx_type = context()->get_def_use_mgr()->GetDef(cand.bin_index)->type_id();
  const uint32_t first =
      e->Group(spv::Op::OpGroupNonUniformBroadcastFirst, idx_type, -1, {cand.bin_index});
  const uint32_t mine = e->EmitIds(spv::Op::OpIEqual, bool_type, {cand.bin_index, first});
  Emitter::If run = e->PushIf(mine);
  if (!e->ok()) return false;
  // run → ran: the uniform-address rewrite among the lanes that share the
  // index (the value is uniform among them when it is across the subgroup).
  std::vector<Elected> items(1);
  items[0].atomic = cand.atomic;
  items[0].info = info;
  items[0].uniform_value = cand.uniform_value;
  items[0].want_result = cand.result_used;
  if (!EmitElectedAtomics(e, nullptr, &items) || !e->PopIf(&run)) return false;
  // picked: this iteration's value; latch: every lane's.
  const uint32_t acc2 = cand.result_used ? e->IfPhi(run, info.type_id, items[0].result, acc) : 0;
  if (!e->PopIf(&pending)) return false;
  const uint32_t done_next = e->IfPhi(pending, bool_type, e->Bool(true), mine);
  if (cand.result_used) *result = e->IfPhi(pending, info.type_id, acc, acc2);
  const uint32_t all_done = e->Group(spv::Op::OpGroupNonUniformAll, bool_type, -1, {done_next});
  if (cand.result_used) return e->PopLoop(&loop, {done_next, *result}, all_done);
  return e->PopLoop(&loop, {done_next}, all_done);
}

}  // namespace waveopt
