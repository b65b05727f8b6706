// Uniformity analysis (see uniformity.h for the contract passes rely on).
//
// One optimistic fixed point over the whole module. Every value starts at
// kWorkgroupUniform and is only ever raised, by monotone transfer functions,
// from a worklist of instructions:
//   - values: the rules of docs/uniformity.md (built-ins, storage classes,
//     subgroup operations, pure arithmetic = max of the operands);
//   - a branch's level is its condition's level; raising it raises the
//     control level of every block transitively control-dependent on it
//     (ControlDependenceAnalysis over the post-dominator tree), the join
//     level of the blocks where paths from its different successors meet
//     (phis there), and the exit level of every loop it lets lanes leave at
//     different iterations (values of the loop used outside it: temporal
//     divergence);
//   - Function/Private variables: per group of pointers that may reach the
//     same variable (union-find over access chains, phis, selects and
//     pointer arguments), a content level = max over every write of the
//     value, the address and the control level of the write;
//   - calls: parameters take the max of the arguments and of the call-site
//     control; a call's result takes the callee's returned level; a callee
//     that may kill or demote lanes makes the call an early exit.
// Each level, control level, join level and loop exit level rises at most
// twice, so the work is linear in the module apart from the join regions of
// the non-uniform branches.
#include "analysis/uniformity.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analysis/ir_util.h"
#include "source/operand.h"
#include "source/opt/basic_block.h"
#include "source/opt/cfg.h"
#include "source/opt/control_dependence.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/def_use_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/function.h"
#include "source/opt/instruction.h"
#include "source/opt/ir_context.h"
#include "source/opt/module.h"

namespace waveopt {

namespace {

using spv::Op;
using spvtools::opt::BasicBlock;
using spvtools::opt::ControlDependenceAnalysis;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;

constexpr Uniformity kW = Uniformity::kWorkgroupUniform;
constexpr Uniformity kS = Uniformity::kSubgroupUniform;
constexpr Uniformity kD = Uniformity::kDivergent;

Uniformity Max(Uniformity a, Uniformity b) { return a < b ? b : a; }
Uniformity Min(Uniformity a, Uniformity b) { return a < b ? a : b; }

uint32_t PopBack(std::vector<uint32_t>* v) {
  uint32_t x = v->back();
  v->pop_back();
  return x;
}

// True for opcodes whose result is a function of their id operands only, the
// same in every lane that has the same operands.
bool IsPureOpcode(Op op) {
  switch (op) {
    case Op::OpCopyObject:
    case Op::OpCopyLogical:
    case Op::OpTranspose:
    case Op::OpSampledImage:
    case Op::OpImage:
    case Op::OpConvertFToU:
    case Op::OpConvertFToS:
    case Op::OpConvertSToF:
    case Op::OpConvertUToF:
    case Op::OpUConvert:
    case Op::OpSConvert:
    case Op::OpFConvert:
    case Op::OpQuantizeToF16:
    case Op::OpConvertPtrToU:
    case Op::OpConvertUToPtr:
    case Op::OpSatConvertSToU:
    case Op::OpSatConvertUToS:
    case Op::OpBitcast:
    case Op::OpSNegate:
    case Op::OpFNegate:
    case Op::OpIAdd:
    case Op::OpFAdd:
    case Op::OpISub:
    case Op::OpFSub:
    case Op::OpIMul:
    case Op::OpFMul:
    case Op::OpUDiv:
    case Op::OpSDiv:
    case Op::OpFDiv:
    case Op::OpUMod:
    case Op::OpSRem:
    case Op::OpSMod:
    case Op::OpFRem:
    case Op::OpFMod:
    case Op::OpVectorTimesScalar:
    case Op::OpMatrixTimesScalar:
    case Op::OpVectorTimesMatrix:
    case Op::OpMatrixTimesVector:
    case Op::OpMatrixTimesMatrix:
    case Op::OpOuterProduct:
    case Op::OpDot:
    case Op::OpSDot:
    case Op::OpUDot:
    case Op::OpSUDot:
    case Op::OpIAddCarry:
    case Op::OpISubBorrow:
    case Op::OpUMulExtended:
    case Op::OpSMulExtended:
    case Op::OpAny:
    case Op::OpAll:
    case Op::OpIsNan:
    case Op::OpIsInf:
    case Op::OpIsFinite:
    case Op::OpIsNormal:
    case Op::OpSignBitSet:
    case Op::OpLessOrGreater:
    case Op::OpOrdered:
    case Op::OpUnordered:
    case Op::OpLogicalEqual:
    case Op::OpLogicalNotEqual:
    case Op::OpLogicalOr:
    case Op::OpLogicalAnd:
    case Op::OpLogicalNot:
    case Op::OpSelect:
    case Op::OpIEqual:
    case Op::OpINotEqual:
    case Op::OpUGreaterThan:
    case Op::OpSGreaterThan:
    case Op::OpUGreaterThanEqual:
    case Op::OpSGreaterThanEqual:
    case Op::OpULessThan:
    case Op::OpSLessThan:
    case Op::OpULessThanEqual:
    case Op::OpSLessThanEqual:
    case Op::OpFOrdEqual:
    case Op::OpFUnordEqual:
    case Op::OpFOrdNotEqual:
    case Op::OpFUnordNotEqual:
    case Op::OpFOrdLessThan:
    case Op::OpFUnordLessThan:
    case Op::OpFOrdGreaterThan:
    case Op::OpFUnordGreaterThan:
    case Op::OpFOrdLessThanEqual:
    case Op::OpFUnordLessThanEqual:
    case Op::OpFOrdGreaterThanEqual:
    case Op::OpFUnordGreaterThanEqual:
    case Op::OpShiftRightLogical:
    case Op::OpShiftRightArithmetic:
    case Op::OpShiftLeftLogical:
    case Op::OpBitwiseOr:
    case Op::OpBitwiseXor:
    case Op::OpBitwiseAnd:
    case Op::OpNot:
    case Op::OpBitFieldInsert:
    case Op::OpBitFieldSExtract:
    case Op::OpBitFieldUExtract:
    case Op::OpBitReverse:
    case Op::OpBitCount:
    case Op::OpVectorExtractDynamic:
    case Op::OpVectorInsertDynamic:
    case Op::OpVectorShuffle:
    case Op::OpCompositeConstruct:
    case Op::OpCompositeExtract:
    case Op::OpCompositeInsert:
    case Op::OpAccessChain:
    case Op::OpInBoundsAccessChain:
    case Op::OpPtrAccessChain:
    case Op::OpInBoundsPtrAccessChain:
    case Op::OpArrayLength:
    case Op::OpPtrEqual:
    case Op::OpPtrNotEqual:
    case Op::OpPtrDiff:
    // Image operations that read no writable memory: the result depends on
    // the image/sampler handles and the coordinates only.
    case Op::OpImageSampleImplicitLod:
    case Op::OpImageSampleExplicitLod:
    case Op::OpImageSampleDrefImplicitLod:
    case Op::OpImageSampleDrefExplicitLod:
    case Op::OpImageSampleProjImplicitLod:
    case Op::OpImageSampleProjExplicitLod:
    case Op::OpImageSampleProjDrefImplicitLod:
    case Op::OpImageSampleProjDrefExplicitLod:
    case Op::OpImageFetch:
    case Op::OpImageGather:
    case Op::OpImageDrefGather:
    case Op::OpImageSparseSampleImplicitLod:
    case Op::OpImageSparseSampleExplicitLod:
    case Op::OpImageSparseSampleDrefImplicitLod:
    case Op::OpImageSparseSampleDrefExplicitLod:
    case Op::OpImageSparseFetch:
    case Op::OpImageSparseGather:
    case Op::OpImageSparseDrefGather:
    case Op::OpImageSparseTexelsResident:
    case Op::OpImageQuerySizeLod:
    case Op::OpImageQuerySize:
    case Op::OpImageQueryLod:
    case Op::OpImageQueryLevels:
    case Op::OpImageQuerySamples:
    case Op::OpImageQueryFormat:
    case Op::OpImageQueryOrder:
    case Op::OpImageTexelPointer:
      return true;
    default:
      return false;
  }
}

bool IsAccessChain(Op op) {
  return op == Op::OpAccessChain || op == Op::OpInBoundsAccessChain || op == Op::OpPtrAccessChain ||
         op == Op::OpInBoundsPtrAccessChain;
}

// Instructions after which the executing lane may be gone (or a helper).
bool IsLaneExit(Op op) {
  return op == Op::OpKill || op == Op::OpTerminateInvocation ||
         op == Op::OpDemoteToHelperInvocation || op == Op::OpTerminateRayKHR ||
         op == Op::OpIgnoreIntersectionKHR;
}

// Level of a built-in input. Everything not listed is per invocation.
Uniformity BuiltInLevel(uint32_t builtin) {
  switch (static_cast<spv::BuiltIn>(builtin)) {
    case spv::BuiltIn::WorkgroupId:
    case spv::BuiltIn::NumWorkgroups:
    case spv::BuiltIn::WorkgroupSize:
    case spv::BuiltIn::NumSubgroups:
      return kW;
    // SubgroupSize may differ between subgroups of one workgroup when the
    // pipeline allows varying subgroup sizes.
    case spv::BuiltIn::SubgroupSize:
    case spv::BuiltIn::SubgroupId:
      return kS;
    default:
      return kD;
  }
}

// Per-function data.
struct LoopInfo {
  uint32_t header = 0;
  std::unordered_set<uint32_t> blocks;
  std::vector<uint32_t> block_order;     // |blocks| in function order
  std::unordered_set<uint32_t> exiting;  // blocks with a successor outside
  // For each block of the loop: the highest level of the branches inside the
  // loop that decide whether a lane reaches it (its own branch included).
  std::unordered_map<uint32_t, Uniformity> leave;
  Uniformity exit = kW;
};

struct FuncInfo {
  Function* func = nullptr;
  ControlDependenceAnalysis cda;
  std::vector<LoopInfo> loops;
  std::vector<Instruction*> call_sites;
  std::vector<uint32_t> params;
  std::vector<uint32_t> divergent_exits;  // blocks with a divergent lane exit
  Uniformity entry = kW;                  // control level at the call sites
  Uniformity ret = kW;                    // level of the returned value
  Uniformity kill = kW;                   // level of the lane exits inside (kill/demote)
  bool has_lane_exit = false;             // may kill/demote lanes (itself or callees)
  bool is_entry_point = false;
  bool irreducible = false;
  int return_value_blocks = 0;
};

struct BlockInfo {
  FuncInfo* fn = nullptr;
  BasicBlock* bb = nullptr;
  uint32_t order = 0;           // position in the module
  Uniformity branch = kW;       // level of the terminator's condition
  Uniformity ctl = kW;          // control level
  Uniformity join = kW;         // level of the divergent paths meeting here
  Uniformity exit_marked = kW;  // level of a lane exit here, propagated
  std::vector<uint32_t> succs;  // distinct successors
  std::vector<uint32_t> loops;  // indices in fn->loops
  bool joins_computed = false;
  std::vector<uint32_t> joins;
};

struct MemClass {
  Uniformity content = kW;
  std::vector<Instruction*> readers;  // loads and copies from the class
};

}  // namespace

const char* UniformityName(Uniformity u) {
  switch (u) {
    case Uniformity::kWorkgroupUniform:
      return "workgroup";
    case Uniformity::kSubgroupUniform:
      return "subgroup";
    case Uniformity::kDivergent:
      return "divergent";
  }
  return "divergent";
}

struct UniformityAnalysis::Impl {
  explicit Impl(IRContext* context) : ctx(context), du(context->get_def_use_mgr()) {}

  IRContext* ctx;
  spvtools::opt::analysis::DefUseManager* du;
  std::vector<Uniformity> level;  // by id
  std::vector<bool> analysed;     // by id: defined inside a function
  std::vector<std::unique_ptr<FuncInfo>> funcs;
  std::unordered_map<uint32_t, FuncInfo*> func_by_id;
  std::vector<BlockInfo> blocks;
  std::unordered_map<uint32_t, uint32_t> block_index;  // label id -> blocks[]
  std::unordered_map<uint32_t, std::pair<FuncInfo*, uint32_t>> loop_by_header;
  // Function/Private pointers: union-find over ids, and the classes.
  std::unordered_map<uint32_t, uint32_t> uf_parent;
  std::unordered_map<uint32_t, MemClass> classes;
  std::vector<Instruction*> worklist;
  // DivergentBranches(), computed on demand.
  mutable std::unordered_map<uint32_t, std::vector<uint32_t>> deps_cache;
  mutable std::unordered_map<uint32_t, std::vector<uint32_t>> exit_deps;
  mutable bool exit_deps_done = false;

  // ---- helpers ----
  BlockInfo* Block(uint32_t id) {
    auto it = block_index.find(id);
    return it == block_index.end() ? nullptr : &blocks[it->second];
  }
  const BlockInfo* Block(uint32_t id) const {
    auto it = block_index.find(id);
    return it == block_index.end() ? nullptr : &blocks[it->second];
  }
  BlockInfo* BlockOf(Instruction* inst) {
    BasicBlock* bb = ctx->get_instr_block(inst);
    return bb ? Block(bb->id()) : nullptr;
  }
  Uniformity L(uint32_t id) const { return id < level.size() ? level[id] : kD; }

  // Storage class of |id|'s pointer type, or Max if |id| is not a pointer.
  spv::StorageClass PointerClass(uint32_t id) {
    Instruction* def = du->GetDef(id);
    if (!def || def->type_id() == 0) return spv::StorageClass::Max;
    Instruction* type = du->GetDef(def->type_id());
    if (!type || type->opcode() != Op::OpTypePointer) {
      return spv::StorageClass::Max;
    }
    return static_cast<spv::StorageClass>(type->GetSingleWordInOperand(0));
  }
  bool IsPrivatePtr(uint32_t id) {
    spv::StorageClass sc = PointerClass(id);
    return sc == spv::StorageClass::Function || sc == spv::StorageClass::Private;
  }
  // The variable (or parameter, or other pointer source) |ptr| points into.
  Instruction* RootOf(uint32_t ptr) {
    Instruction* def = du->GetDef(ptr);
    while (def && (IsAccessChain(def->opcode()) || def->opcode() == Op::OpCopyObject)) {
      def = du->GetDef(def->GetSingleWordInOperand(0));
    }
    return def;
  }
  uint32_t Find(uint32_t id) {
    auto it = uf_parent.find(id);
    if (it == uf_parent.end()) return id;
    uint32_t root = id;
    while (true) {
      auto p = uf_parent.find(root);
      if (p == uf_parent.end() || p->second == root) break;
      root = p->second;
    }
    // Path compression.
    while (id != root) {
      uint32_t next = uf_parent[id];
      uf_parent[id] = root;
      id = next;
    }
    return root;
  }
  void Union(uint32_t a, uint32_t b) {
    uf_parent.try_emplace(a, a);
    uf_parent.try_emplace(b, b);
    a = Find(a);
    b = Find(b);
    if (a != b) uf_parent[std::max(a, b)] = std::min(a, b);
  }
  MemClass& ClassOf(uint32_t ptr) { return classes[Find(ptr)]; }

  Uniformity ScopeLevel(uint32_t scope_id) {
    Instruction* def = du->GetDef(scope_id);
    if (!def || def->opcode() != Op::OpConstant) return kD;
    switch (static_cast<spv::Scope>(def->GetSingleWordInOperand(0))) {
      case spv::Scope::CrossDevice:
      case spv::Scope::Device:
      case spv::Scope::QueueFamily:
      case spv::Scope::Workgroup:
        return kW;
      case spv::Scope::Subgroup:
        return kS;
      default:
        return kD;
    }
  }

  Uniformity MaxOperands(const Instruction* inst) const {
    Uniformity u = kW;
    inst->ForEachInId([&](const uint32_t* id) { u = Max(u, L(*id)); });
    return u;
  }

  // ---- transfer functions ----
  Uniformity GroupLevel(Instruction* inst) {
    const Op op = inst->opcode();
    const uint32_t n = inst->NumInOperands();
    auto in = [&](uint32_t i) { return inst->GetSingleWordInOperand(i); };
    const uint32_t op_code = static_cast<uint32_t>(op);
    // (scope, group operation, value): arithmetic group operations.
    const bool arithmetic =
        (op_code >= uint32_t(Op::OpGroupNonUniformIAdd) &&
         op_code <= uint32_t(Op::OpGroupNonUniformLogicalXor)) ||
        (op_code >= uint32_t(Op::OpGroupIAdd) && op_code <= uint32_t(Op::OpGroupSMax)) ||
        (op_code >= uint32_t(Op::OpGroupIAddNonUniformAMD) &&
         op_code <= uint32_t(Op::OpGroupSMaxNonUniformAMD)) ||
        (op_code >= uint32_t(Op::OpGroupIMulKHR) && op_code <= uint32_t(Op::OpGroupLogicalXorKHR));
    if (arithmetic) {
      if (n < 3) return kD;
      // Only a full reduction gives every lane the same result.
      return static_cast<spv::GroupOperation>(in(1)) == spv::GroupOperation::Reduce
                 ? ScopeLevel(in(0))
                 : kD;
    }
    switch (op) {
      case Op::OpGroupNonUniformAll:
      case Op::OpGroupNonUniformAny:
      case Op::OpGroupNonUniformAllEqual:
      case Op::OpGroupNonUniformBallot:
      case Op::OpGroupNonUniformBroadcastFirst:
      case Op::OpGroupAll:
      case Op::OpGroupAny:
        return ScopeLevel(in(0));
      case Op::OpGroupNonUniformBroadcast:
      case Op::OpGroupBroadcast:
        // The lane index must be dynamically uniform; take it into account
        // anyway.
        return Max(ScopeLevel(in(0)), L(in(2)));
      case Op::OpGroupNonUniformBallotBitCount:
        // Reduce counts the bits of the ballot: a function of the operand.
        return static_cast<spv::GroupOperation>(in(1)) == spv::GroupOperation::Reduce ? L(in(2))
                                                                                      : kD;
      case Op::OpGroupNonUniformBallotBitExtract:
      case Op::OpGroupNonUniformBallotFindLSB:
      case Op::OpGroupNonUniformBallotFindMSB: {
        Uniformity u = kW;
        for (uint32_t i = 1; i < n; ++i) u = Max(u, L(in(i)));
        return u;
      }
      case Op::OpGroupNonUniformShuffle:
        // Every lane reads the lane |id| names: uniform when |id| is.
        return Min(L(in(1)), Max(L(in(2)), Max(kS, ScopeLevel(in(0)))));
      case Op::OpGroupNonUniformShuffleXor:
      case Op::OpGroupNonUniformShuffleUp:
      case Op::OpGroupNonUniformShuffleDown:
      case Op::OpGroupNonUniformQuadBroadcast:
      case Op::OpGroupNonUniformQuadSwap:
      case Op::OpGroupNonUniformRotateKHR:
        // Another lane's copy of the value.
        return L(in(1));
      case Op::OpSubgroupBallotKHR:
      case Op::OpSubgroupFirstInvocationKHR:
      case Op::OpSubgroupAllKHR:
      case Op::OpSubgroupAnyKHR:
      case Op::OpSubgroupAllEqualKHR:
        return kS;
      case Op::OpSubgroupReadInvocationKHR:
        return Min(L(in(0)), Max(L(in(1)), kS));
      default:
        // Elect, InverseBallot, PartitionNV, clustered and scan forms, and
        // anything unknown.
        return kD;
    }
  }

  // Level of a load through |ptr| (|access| = the memory operand mask).
  Uniformity LoadLevel(uint32_t ptr, uint32_t access) {
    if (access & uint32_t(spv::MemoryAccessMask::Volatile)) return kD;
    Instruction* root = RootOf(ptr);
    auto* decos = ctx->get_decoration_mgr();
    if (root && root->result_id() != 0 &&
        decos->HasDecoration(root->result_id(), uint32_t(spv::Decoration::Volatile))) {
      return kD;
    }
    const Uniformity addr = L(ptr);
    switch (PointerClass(ptr)) {
      case spv::StorageClass::Function:
      case spv::StorageClass::Private:
        return Max(addr, ClassOf(ptr).content);
      case spv::StorageClass::PushConstant:
      case spv::StorageClass::UniformConstant:
        return addr;
      case spv::StorageClass::Uniform:
        return IsBufferBlock(root) ? Max(addr, kS) : addr;
      case spv::StorageClass::StorageBuffer:
      case spv::StorageClass::Workgroup:
      case spv::StorageClass::PhysicalStorageBuffer:
      case spv::StorageClass::CrossWorkgroup:
        // Memory other invocations may write: the same value in every lane
        // of a subgroup loading it together (race-free programs), no more.
        return Max(addr, kS);
      case spv::StorageClass::Input: {
        if (!root || root->opcode() != Op::OpVariable) return kD;
        Uniformity u = kD;
        decos->WhileEachDecoration(root->result_id(), uint32_t(spv::Decoration::BuiltIn),
                                   [&](const Instruction& d) {
                                     u = BuiltInLevel(d.GetSingleWordInOperand(2));
                                     return false;
                                   });
        return Max(addr, u);
      }
      default:
        return kD;
    }
  }

  // True if |root| is a Uniform variable of a BufferBlock (writable) type.
  bool IsBufferBlock(Instruction* root) {
    if (!root || root->opcode() != Op::OpVariable) return true;
    Instruction* type = du->GetDef(root->type_id());
    if (!type || type->opcode() != Op::OpTypePointer) return true;
    type = du->GetDef(type->GetSingleWordInOperand(1));
    while (type &&
           (type->opcode() == Op::OpTypeArray || type->opcode() == Op::OpTypeRuntimeArray)) {
      type = du->GetDef(type->GetSingleWordInOperand(0));
    }
    if (!type) return true;
    return ctx->get_decoration_mgr()->HasDecoration(type->result_id(),
                                                    uint32_t(spv::Decoration::BufferBlock));
  }

  Uniformity ValueTransfer(Instruction* inst) {
    const Op op = inst->opcode();
    switch (op) {
      case Op::OpPhi: {
        // A phi of one value on every edge (the SSA rewrite leaves such
        // phis at merges) is that value, whichever way the lanes came.
        uint32_t same = 0;
        bool all_same = true;
        for (uint32_t i = 0; i + 1 < inst->NumInOperands(); i += 2) {
          const uint32_t v = inst->GetSingleWordInOperand(i);
          if (v == inst->result_id()) continue;
          if (same != 0 && v != same) all_same = false;
          same = v;
        }
        if (all_same && same != 0) return L(same);
        Uniformity u = kW;
        for (uint32_t i = 0; i + 1 < inst->NumInOperands(); i += 2) {
          u = Max(u, L(inst->GetSingleWordInOperand(i)));
        }
        BlockInfo* b = BlockOf(inst);
        return b ? Max(u, b->join) : kD;
      }
      case Op::OpFunctionParameter:
        return L(inst->result_id());  // raised by the call sites
      case Op::OpFunctionCall: {
        auto it = func_by_id.find(inst->GetSingleWordInOperand(0));
        return it == func_by_id.end() ? kD : it->second->ret;
      }
      case Op::OpLoad:
        return LoadLevel(inst->GetSingleWordInOperand(0),
                         inst->NumInOperands() > 1 ? inst->GetSingleWordInOperand(1) : 0);
      case Op::OpVariable:
      case Op::OpUndef:
        // An undefined value may be taken to be the same in every lane.
        return kW;
      case Op::OpImageRead:
      case Op::OpImageSparseRead:
        // Storage images: other invocations may write them.
        return Max(MaxOperands(inst), kS);
      case Op::OpExtInst: {
        if (!IsGlslStd450(ctx, inst)) return kD;
        const uint32_t ext = inst->GetSingleWordInOperand(1);
        // InterpolateAtCentroid/Sample/Offset read per-invocation inputs.
        if (ext >= 76 && ext <= 78) return kD;
        return MaxOperands(inst);
      }
      default:
        break;
    }
    if (IsPureOpcode(op)) return MaxOperands(inst);
    const uint32_t code = static_cast<uint32_t>(op);
    if ((code >= uint32_t(Op::OpGroupNonUniformElect) &&
         code <= uint32_t(Op::OpGroupNonUniformQuadSwap)) ||
        (code >= uint32_t(Op::OpGroupAll) && code <= uint32_t(Op::OpGroupSMax)) ||
        (code >= uint32_t(Op::OpGroupIAddNonUniformAMD) &&
         code <= uint32_t(Op::OpGroupSMaxNonUniformAMD)) ||
        (code >= uint32_t(Op::OpGroupIMulKHR) && code <= uint32_t(Op::OpGroupLogicalXorKHR)) ||
        op == Op::OpGroupNonUniformRotateKHR || op == Op::OpSubgroupBallotKHR ||
        op == Op::OpSubgroupFirstInvocationKHR || op == Op::OpSubgroupAllKHR ||
        op == Op::OpSubgroupAnyKHR || op == Op::OpSubgroupAllEqualKHR ||
        op == Op::OpSubgroupReadInvocationKHR) {
      return GroupLevel(inst);
    }
    // Atomics, derivatives, clocks, helper-invocation tests, unknown
    // opcodes.
    return kD;
  }

  // ---- raising ----
  void Push(Instruction* inst) { worklist.push_back(inst); }

  void Raise(uint32_t id, Uniformity u) {
    if (id >= level.size() || u <= level[id]) return;
    level[id] = u;
    du->ForEachUser(id, [this](Instruction* user) { Push(user); });
  }

  void RaiseContent(uint32_t ptr, Uniformity u) {
    MemClass& c = ClassOf(ptr);
    if (u <= c.content) return;
    c.content = u;
    for (Instruction* r : c.readers) Push(r);
  }

  // Pushes the instructions of |b| whose effect depends on its control.
  void PushControlUsers(BlockInfo* b) {
    for (Instruction& inst : *b->bb) {
      switch (inst.opcode()) {
        case Op::OpStore:
        case Op::OpCopyMemory:
        case Op::OpCopyMemorySized:
        case Op::OpFunctionCall:
        case Op::OpReturnValue:
          Push(&inst);
          break;
        default:
          if (IsLaneExit(inst.opcode())) Push(&inst);
          break;
      }
    }
  }

  void RaiseCtl(BlockInfo* b, Uniformity u) {
    if (u <= b->ctl) return;
    b->ctl = u;
    PushControlUsers(b);
  }

  void RaiseEntry(FuncInfo* f, Uniformity u) {
    if (u <= f->entry) return;
    f->entry = u;
    for (BasicBlock& bb : *f->func) PushControlUsers(Block(bb.id()));
  }

  void RaiseRet(FuncInfo* f, Uniformity u) {
    if (u <= f->ret) return;
    f->ret = u;
    for (Instruction* call : f->call_sites) Push(call);
  }

  void RaiseKill(FuncInfo* f, Uniformity u) {
    if (u <= f->kill) return;
    f->kill = u;
    for (Instruction* call : f->call_sites) Push(call);
  }

  // Lanes may leave at |b| (kill, demote, a call that does) at level |u|:
  // every block reachable from |b| is reached by fewer lanes.
  void MarkLaneExit(BlockInfo* b, Uniformity u) {
    if (u <= b->exit_marked) return;
    b->exit_marked = u;
    if (u == kD) b->fn->divergent_exits.push_back(b->bb->id());
    std::unordered_set<uint32_t> seen;
    std::vector<uint32_t> stack(b->succs.begin(), b->succs.end());
    while (!stack.empty()) {
      uint32_t id = PopBack(&stack);
      if (!seen.insert(id).second) continue;
      BlockInfo* s = Block(id);
      if (!s) continue;
      RaiseCtl(s, u);
      stack.insert(stack.end(), s->succs.begin(), s->succs.end());
    }
  }

  void RaiseLoopExit(LoopInfo* loop, Uniformity u) {
    if (u <= loop->exit) return;
    loop->exit = u;
    // Temporal divergence: lanes left the loop at different iterations, so
    // a value of the loop seen after it differs between them.
    for (uint32_t id : loop->block_order) {
      for (Instruction& inst : *Block(id)->bb) {
        if (inst.result_id() != 0) {
          bool used_outside = false;
          du->WhileEachUser(&inst, [&](Instruction* user) {
            BasicBlock* ub = ctx->get_instr_block(user);
            if (ub && !loop->blocks.count(ub->id())) used_outside = true;
            return !used_outside;
          });
          if (used_outside) Raise(inst.result_id(), u);
        }
        if ((inst.opcode() == Op::OpStore || inst.opcode() == Op::OpCopyMemory ||
             inst.opcode() == Op::OpCopyMemorySized) &&
            IsPrivatePtr(inst.GetSingleWordInOperand(0))) {
          RaiseContent(inst.GetSingleWordInOperand(0), u);
        }
        if (inst.opcode() == Op::OpFunctionCall) {
          auto it = func_by_id.find(inst.GetSingleWordInOperand(0));
          if (it != func_by_id.end()) RaiseEntry(it->second, u);
        }
      }
    }
  }

  // Blocks where paths from two different successors of |b| meet before
  // (or at) its immediate post-dominator. Over-approximates: every block
  // reachable from two successors within that region.
  void ComputeJoins(BlockInfo* b) {
    b->joins_computed = true;
    Function* func = b->fn->func;
    BasicBlock* ipdom = ctx->GetPostDominatorAnalysis(func)->ImmediateDominator(b->bb);
    uint32_t stop = (!ipdom || ctx->cfg()->IsPseudoExitBlock(ipdom)) ? 0 : ipdom->id();
    constexpr int kMany = -1;
    std::unordered_map<uint32_t, int> label;
    for (int i = 0; i < static_cast<int>(b->succs.size()); ++i) {
      std::vector<uint32_t> stack{b->succs[i]};
      while (!stack.empty()) {
        uint32_t id = PopBack(&stack);
        auto ins = label.try_emplace(id, i);
        if (!ins.second) {
          if (ins.first->second == i || ins.first->second == kMany) continue;
          ins.first->second = kMany;
        }
        if (id == stop) continue;
        BlockInfo* s = Block(id);
        if (s) stack.insert(stack.end(), s->succs.begin(), s->succs.end());
      }
    }
    for (const auto& e : label) {
      if (e.second == kMany) b->joins.push_back(e.first);
    }
    std::sort(b->joins.begin(), b->joins.end(),
              [this](uint32_t x, uint32_t y) { return Block(x)->order < Block(y)->order; });
  }

  void RaiseBranch(BlockInfo* b, Uniformity u) {
    if (u <= b->branch) return;
    b->branch = u;
    FuncInfo* f = b->fn;
    const uint32_t id = b->bb->id();
    // 1. Control of the blocks depending on the branch. A block's control
    //    is at least that of the blocks it depends on, so stop at blocks
    //    already at |u|.
    if (f->cda.HasBlock(id)) {
      std::vector<uint32_t> stack{id};
      while (!stack.empty()) {
        uint32_t x = PopBack(&stack);
        for (const auto& dep : f->cda.GetDependenceTargets(x)) {
          BlockInfo* t = Block(dep.target_bb_id());
          if (!t || t->ctl >= u) continue;
          RaiseCtl(t, u);
          stack.push_back(dep.target_bb_id());
        }
      }
    }
    // 2. Phis where the successors' paths meet.
    if (!b->joins_computed) ComputeJoins(b);
    for (uint32_t j : b->joins) {
      BlockInfo* jb = Block(j);
      if (jb->join >= u) continue;
      jb->join = u;
      jb->bb->ForEachPhiInst([this](Instruction* phi) { Push(phi); });
    }
    // 3. Loops the branch lets lanes leave at different iterations.
    for (uint32_t li : b->loops) {
      LoopInfo* loop = &f->loops[li];
      std::vector<uint32_t> stack;
      auto raise = [&](uint32_t x) {
        Uniformity& lv = loop->leave[x];
        if (lv >= u) return;
        lv = u;
        if (loop->exiting.count(x)) RaiseLoopExit(loop, u);
        stack.push_back(x);
      };
      raise(id);
      while (!stack.empty()) {
        uint32_t x = PopBack(&stack);
        if (!f->cda.HasBlock(x)) continue;
        for (const auto& dep : f->cda.GetDependenceTargets(x)) {
          if (loop->blocks.count(dep.target_bb_id())) {
            raise(dep.target_bb_id());
          }
        }
      }
    }
  }

  // Applies |inst|: raises its value, and the effects of stores, calls,
  // returns, branches and lane exits.
  void Eval(Instruction* inst) {
    const Op op = inst->opcode();
    if (inst->result_id() != 0 && inst->result_id() < analysed.size() &&
        analysed[inst->result_id()] && op != Op::OpLabel) {
      Raise(inst->result_id(), ValueTransfer(inst));
    }
    BlockInfo* b = nullptr;
    auto block = [&]() {
      if (!b) b = BlockOf(inst);
      return b;
    };
    switch (op) {
      case Op::OpStore: {
        const uint32_t ptr = inst->GetSingleWordInOperand(0);
        if (!IsPrivatePtr(ptr) || !block()) return;
        RaiseContent(
            ptr, Max(Max(L(inst->GetSingleWordInOperand(1)), L(ptr)), Max(b->ctl, b->fn->entry)));
        return;
      }
      case Op::OpCopyMemory:
      case Op::OpCopyMemorySized: {
        const uint32_t target = inst->GetSingleWordInOperand(0);
        const uint32_t source = inst->GetSingleWordInOperand(1);
        if (!IsPrivatePtr(target) || !block()) return;
        Uniformity u = Max(LoadLevel(source, 0), L(target));
        if (op == Op::OpCopyMemorySized) {
          u = Max(u, L(inst->GetSingleWordInOperand(2)));
        }
        RaiseContent(target, Max(u, Max(b->ctl, b->fn->entry)));
        return;
      }
      case Op::OpFunctionCall: {
        auto it = func_by_id.find(inst->GetSingleWordInOperand(0));
        if (it == func_by_id.end() || !block()) return;
        FuncInfo* callee = it->second;
        const Uniformity site = Max(b->ctl, b->fn->entry);
        for (uint32_t i = 1; i < inst->NumInOperands(); ++i) {
          if (i - 1 < callee->params.size()) {
            Raise(callee->params[i - 1], Max(L(inst->GetSingleWordInOperand(i)), site));
          }
        }
        RaiseEntry(callee, site);
        if (callee->has_lane_exit) {
          const Uniformity k = Max(b->ctl, callee->kill);
          if (k != kW) MarkLaneExit(b, k);
          RaiseKill(b->fn, k);
        }
        return;
      }
      case Op::OpReturnValue: {
        if (!block()) return;
        Uniformity u = L(inst->GetSingleWordInOperand(0));
        // Lanes returning from different places return different values.
        if (b->fn->return_value_blocks > 1) u = Max(u, b->ctl);
        RaiseRet(b->fn, u);
        return;
      }
      case Op::OpBranchConditional:
      case Op::OpSwitch:
        if (block() && b->succs.size() > 1) {
          RaiseBranch(b, L(inst->GetSingleWordInOperand(0)));
        }
        return;
      default:
        if (IsLaneExit(op) && block()) {
          if (op == Op::OpDemoteToHelperInvocation && b->ctl != kW) {
            MarkLaneExit(b, b->ctl);
          }
          RaiseKill(b->fn, b->ctl);
        }
        return;
    }
  }

  // ---- setup ----
  void Run();
  void SetUpFunction(FuncInfo* f);
  void ComputeLoops(FuncInfo* f);
  void SetUpMemory();
  const std::vector<uint32_t>& Deps(uint32_t block_id) const;
};

void UniformityAnalysis::Impl::ComputeLoops(FuncInfo* f) {
  auto* dom = ctx->GetDominatorAnalysis(f->func);
  // Back edges (to a dominating header) and retreating edges that are not
  // (irreducible control flow), by depth-first search.
  std::unordered_map<uint32_t, int> state;  // 1 on stack, 2 done
  std::unordered_map<uint32_t, std::vector<uint32_t>> latches;
  std::vector<uint32_t> headers;
  std::vector<std::pair<uint32_t, uint32_t>> stack;
  const uint32_t entry = f->func->entry()->id();
  stack.push_back({entry, 0});
  state[entry] = 1;
  while (!stack.empty()) {
    auto& top = stack.back();
    BlockInfo* b = Block(top.first);
    if (top.second < b->succs.size()) {
      uint32_t s = b->succs[top.second++];
      auto st_it = state.find(s);
      int st = st_it == state.end() ? 0 : st_it->second;
      if (st == 0) {
        state[s] = 1;
        stack.push_back({s, 0});
      } else if (st == 1) {
        if (dom->Dominates(s, top.first)) {
          if (!latches.count(s)) headers.push_back(s);
          latches[s].push_back(top.first);
        } else {
          f->irreducible = true;
        }
      }
    } else {
      state[top.first] = 2;
      stack.pop_back();
    }
  }
  // Back edges from blocks whose edge the search met as a cross edge (the
  // header on the stack already done) still dominate: catch them too.
  for (BasicBlock& bb : *f->func) {
    if (!dom->IsReachable(&bb)) continue;
    for (uint32_t s : Block(bb.id())->succs) {
      if (dom->Dominates(s, bb.id())) {
        auto& l = latches[s];
        if (l.empty()) headers.push_back(s);
        if (std::find(l.begin(), l.end(), bb.id()) == l.end()) {
          l.push_back(bb.id());
        }
      }
    }
  }
  std::sort(headers.begin(), headers.end(),
            [this](uint32_t x, uint32_t y) { return Block(x)->order < Block(y)->order; });
  headers.erase(std::unique(headers.begin(), headers.end()), headers.end());
  for (uint32_t h : headers) {
    LoopInfo loop;
    loop.header = h;
    loop.blocks.insert(h);
    std::vector<uint32_t> work;
    for (uint32_t l : latches[h]) work.push_back(l);
    while (!work.empty()) {
      uint32_t x = work.back();
      work.pop_back();
      if (!loop.blocks.insert(x).second) continue;
      for (uint32_t p : ctx->cfg()->preds(x)) {
        BasicBlock* pb = ctx->cfg()->block(p);
        if (pb && dom->IsReachable(pb)) work.push_back(p);
      }
    }
    loop.block_order.assign(loop.blocks.begin(), loop.blocks.end());
    std::sort(loop.block_order.begin(), loop.block_order.end(),
              [this](uint32_t x, uint32_t y) { return Block(x)->order < Block(y)->order; });
    for (uint32_t id : loop.block_order) {
      for (uint32_t s : Block(id)->succs) {
        if (!loop.blocks.count(s)) loop.exiting.insert(id);
      }
    }
    const uint32_t index = static_cast<uint32_t>(f->loops.size());
    for (uint32_t id : loop.block_order) Block(id)->loops.push_back(index);
    f->loops.push_back(std::move(loop));
    loop_by_header[h] = {f, index};
  }
}

void UniformityAnalysis::Impl::SetUpFunction(FuncInfo* f) {
  Function* func = f->func;
  for (BasicBlock& bb : *func) {
    const uint32_t id = bb.id();
    block_index[id] = static_cast<uint32_t>(blocks.size());
    BlockInfo info;
    info.fn = f;
    info.bb = &bb;
    info.order = static_cast<uint32_t>(blocks.size());
    bb.ForEachSuccessorLabel([&info](uint32_t s) {
      if (std::find(info.succs.begin(), info.succs.end(), s) == info.succs.end()) {
        info.succs.push_back(s);
      }
    });
    blocks.push_back(std::move(info));
    if (bb.terminator()->opcode() == Op::OpReturnValue) {
      ++f->return_value_blocks;
    }
  }
  f->cda.ComputeControlDependenceGraph(*ctx->cfg(), *ctx->GetPostDominatorAnalysis(func));
  func->ForEachParam([this, f](Instruction* p) {
    f->params.push_back(p->result_id());
    analysed[p->result_id()] = true;
  });
  for (BasicBlock& bb : *func) {
    for (Instruction& inst : bb) {
      if (inst.result_id() != 0) analysed[inst.result_id()] = true;
    }
  }
}

// Groups the Function/Private pointers that may reach the same variable and
// records the readers of each group; a group whose pointer escapes to an
// instruction the analysis does not model is divergent.
void UniformityAnalysis::Impl::SetUpMemory() {
  std::vector<uint32_t> escaped;
  for (auto& fp : funcs) {
    fp->func->ForEachInst([&](Instruction* inst) {
      const Op op = inst->opcode();
      if (inst->result_id() != 0 && IsPrivatePtr(inst->result_id())) {
        const uint32_t id = inst->result_id();
        uf_parent.try_emplace(id, id);
        if (IsAccessChain(op) || op == Op::OpCopyObject) {
          Union(id, inst->GetSingleWordInOperand(0));
        } else if (op == Op::OpPhi) {
          for (uint32_t i = 0; i + 1 < inst->NumInOperands(); i += 2) {
            Union(id, inst->GetSingleWordInOperand(i));
          }
        } else if (op == Op::OpSelect) {
          Union(id, inst->GetSingleWordInOperand(1));
          Union(id, inst->GetSingleWordInOperand(2));
        } else if (op != Op::OpVariable && op != Op::OpFunctionParameter) {
          escaped.push_back(id);  // loaded pointers, undef, call results
        }
      }
      // Uses of Function/Private pointers.
      for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
        const auto& operand = inst->GetInOperand(i);
        if (!spvIsInIdType(operand.type)) continue;
        const uint32_t use = operand.words[0];
        if (!IsPrivatePtr(use)) continue;
        if ((op == Op::OpLoad && i == 0) || (op == Op::OpStore && i == 0) ||
            ((op == Op::OpCopyMemory || op == Op::OpCopyMemorySized) && i < 2) ||
            ((IsAccessChain(op) || op == Op::OpCopyObject) && i == 0) || op == Op::OpPhi ||
            (op == Op::OpSelect && i > 0)) {
          continue;
        }
        if (op == Op::OpFunctionCall && i > 0) {
          auto it = func_by_id.find(inst->GetSingleWordInOperand(0));
          if (it != func_by_id.end() && i - 1 < it->second->params.size()) {
            Union(use, it->second->params[i - 1]);
            continue;
          }
        }
        escaped.push_back(use);  // atomics, extended instructions, ...
      }
    });
  }
  for (auto& fp : funcs) {
    fp->func->ForEachInst([&](Instruction* inst) {
      const Op op = inst->opcode();
      if (op == Op::OpLoad && IsPrivatePtr(inst->GetSingleWordInOperand(0))) {
        ClassOf(inst->GetSingleWordInOperand(0)).readers.push_back(inst);
      } else if ((op == Op::OpCopyMemory || op == Op::OpCopyMemorySized) &&
                 IsPrivatePtr(inst->GetSingleWordInOperand(1))) {
        ClassOf(inst->GetSingleWordInOperand(1)).readers.push_back(inst);
      }
    });
    // Pointer parameters of a function nobody here calls point anywhere.
    if (fp->call_sites.empty() && !fp->is_entry_point) {
      for (uint32_t p : fp->params) {
        if (IsPrivatePtr(p)) escaped.push_back(p);
      }
    }
  }
  for (uint32_t id : escaped) ClassOf(id).content = kD;
}

void UniformityAnalysis::Impl::Run() {
  spvtools::opt::Module* module = ctx->module();
  level.assign(module->IdBound(), kW);
  analysed.assign(module->IdBound(), false);
  for (auto& func : *module) {
    auto f = std::make_unique<FuncInfo>();
    f->func = &func;
    func_by_id[func.result_id()] = f.get();
    funcs.push_back(std::move(f));
  }
  for (auto& ep : module->entry_points()) {
    auto it = func_by_id.find(ep.GetSingleWordInOperand(1));
    if (it != func_by_id.end()) it->second->is_entry_point = true;
  }
  for (auto& fp : funcs) SetUpFunction(fp.get());
  for (auto& fp : funcs) ComputeLoops(fp.get());
  // Call graph: call sites, and which functions may kill or demote lanes.
  for (auto& fp : funcs) {
    fp->func->ForEachInst([&](Instruction* inst) {
      if (IsLaneExit(inst->opcode())) fp->has_lane_exit = true;
      if (inst->opcode() != Op::OpFunctionCall) return;
      auto it = func_by_id.find(inst->GetSingleWordInOperand(0));
      if (it != func_by_id.end()) it->second->call_sites.push_back(inst);
    });
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& fp : funcs) {
      if (!fp->has_lane_exit) continue;
      for (Instruction* call : fp->call_sites) {
        FuncInfo* caller = BlockOf(call)->fn;
        if (!caller->has_lane_exit) caller->has_lane_exit = changed = true;
      }
    }
  }
  SetUpMemory();

  // Starting points that are not transfer functions.
  for (auto& fp : funcs) {
    FuncInfo* f = fp.get();
    if (f->call_sites.empty() && !f->is_entry_point) {
      // Unknown callers: any arguments, any control.
      f->entry = kD;
      for (uint32_t p : f->params) level[p] = kD;
    }
    for (BasicBlock& bb : *f->func) {
      BlockInfo* b = Block(bb.id());
      // Blocks outside the post-dominator tree (infinite loops) and every
      // block of an irreducible function: nothing is known.
      if (f->irreducible || !f->cda.HasBlock(bb.id())) {
        b->ctl = b->join = kD;
      }
    }
    if (f->irreducible) {
      f->func->ForEachInst([this](Instruction* inst) {
        if (inst->result_id() != 0 && analysed[inst->result_id()]) {
          level[inst->result_id()] = kD;
        }
      });
      f->ret = f->kill = kD;
      for (auto& loop : f->loops) loop.exit = kD;
    }
  }
  for (auto& fp : funcs) {
    fp->func->ForEachInst([this](Instruction* inst) { Push(inst); }, true, false);
  }
  // Process in program order first: most values settle in one sweep.
  std::reverse(worklist.begin(), worklist.end());
  while (!worklist.empty()) {
    Instruction* inst = worklist.back();
    worklist.pop_back();
    Eval(inst);
  }
}

const std::vector<uint32_t>& UniformityAnalysis::Impl::Deps(uint32_t block_id) const {
  static const std::vector<uint32_t> kNone;
  const BlockInfo* b = Block(block_id);
  if (!b || b->ctl != kD) return kNone;
  auto cached = deps_cache.find(block_id);
  if (cached != deps_cache.end()) return cached->second;
  if (!exit_deps_done) {
    exit_deps_done = true;
    for (const auto& fp : funcs) {
      for (uint32_t x : fp->divergent_exits) {
        std::unordered_set<uint32_t> seen;
        std::vector<uint32_t> stack(Block(x)->succs.begin(), Block(x)->succs.end());
        while (!stack.empty()) {
          uint32_t id = PopBack(&stack);
          if (!seen.insert(id).second) continue;
          exit_deps[id].push_back(x);
          const BlockInfo* s = Block(id);
          if (s) stack.insert(stack.end(), s->succs.begin(), s->succs.end());
        }
      }
    }
  }
  std::vector<uint32_t> deps;
  std::unordered_set<uint32_t> seen;
  std::vector<uint32_t> stack{block_id};
  const ControlDependenceAnalysis& cda = b->fn->cda;
  while (!stack.empty()) {
    uint32_t x = PopBack(&stack);
    if (!cda.HasBlock(x)) continue;
    for (const auto& dep : cda.GetDependenceSources(x)) {
      const uint32_t s = dep.source_bb_id();
      if (s == ControlDependenceAnalysis::kPseudoEntryBlock) continue;
      if (!seen.insert(s).second) continue;
      if (Block(s)->branch == kD) deps.push_back(s);
      stack.push_back(s);
    }
  }
  auto ex = exit_deps.find(block_id);
  if (ex != exit_deps.end()) {
    for (uint32_t x : ex->second) {
      if (std::find(deps.begin(), deps.end(), x) == deps.end()) {
        deps.push_back(x);
      }
    }
  }
  std::sort(deps.begin(), deps.end(),
            [this](uint32_t x, uint32_t y) { return Block(x)->order < Block(y)->order; });
  return deps_cache[block_id] = std::move(deps);
}

UniformityAnalysis::UniformityAnalysis(IRContext* context) : impl_(new Impl(context)) {
  impl_->Run();
}

UniformityAnalysis::~UniformityAnalysis() { delete impl_; }

bool SharedUniformity::Kept(IRContext* context) const {
  return analysis_ != nullptr && context_ == context &&
         context->AreAnalysesValid(IRContext::kAnalysisDefUse) &&
         def_use_ == context->get_def_use_mgr();
}

const UniformityAnalysis& SharedUniformity::Of(IRContext* context) {
  if (!Kept(context)) {
    analysis_.reset();
    analysis_ = std::make_unique<UniformityAnalysis>(context);
    context_ = context;
    def_use_ = context->get_def_use_mgr();
  }
  return *analysis_;
}

void SharedUniformity::Forget() {
  analysis_.reset();
  context_ = nullptr;
  def_use_ = nullptr;
}

const UniformityAnalysis& UniformityOf(IRContext* context, SharedUniformity* shared,
                                       std::unique_ptr<UniformityAnalysis>* own) {
  if (shared != nullptr) return shared->Of(context);
  *own = std::make_unique<UniformityAnalysis>(context);
  return **own;
}

Uniformity UniformityAnalysis::ValueLevel(uint32_t id) const {
  if (id >= impl_->level.size()) return kD;
  Instruction* def = impl_->du->GetDef(id);
  if (!def) return kD;
  return impl_->level[id];
}

bool UniformityAnalysis::IsBlockUniform(uint32_t block_id) const {
  return BlockLevel(block_id) != kD;
}

Uniformity UniformityAnalysis::BlockLevel(uint32_t block_id) const {
  const BlockInfo* b = impl_->Block(block_id);
  return b ? b->ctl : kD;
}

const std::vector<uint32_t>& UniformityAnalysis::DivergentBranches(uint32_t block_id) const {
  return impl_->Deps(block_id);
}

Uniformity UniformityAnalysis::EntryLevel(uint32_t function_id) const {
  auto it = impl_->func_by_id.find(function_id);
  return it == impl_->func_by_id.end() ? kD : it->second->entry;
}

Uniformity UniformityAnalysis::LoopExitLevel(uint32_t header_id) const {
  auto it = impl_->loop_by_header.find(header_id);
  if (it == impl_->loop_by_header.end()) return kD;
  return it->second.first->loops[it->second.second].exit;
}

void UniformityAnalysis::Print(std::ostream& out) const {
  IRContext* ctx = impl_->ctx;
  std::unordered_map<uint32_t, std::string> names;
  for (auto& inst : ctx->module()->debugs2()) {
    if (inst.opcode() != Op::OpName) continue;
    names.try_emplace(inst.GetSingleWordInOperand(0), inst.GetInOperand(1).AsString());
  }
  auto name = [&](uint32_t id) {
    auto it = names.find(id);
    return it == names.end() ? std::string() : " \"" + it->second + "\"";
  };
  for (const auto& fp : impl_->funcs) {
    Function* func = fp->func;
    out << "function %" << func->result_id() << name(func->result_id());
    if (fp->entry != kW) out << " entry " << UniformityName(fp->entry);
    out << "\n";
    func->ForEachParam([&](const Instruction* p) {
      out << "  value %" << p->result_id() << name(p->result_id()) << " "
          << UniformityName(ValueLevel(p->result_id())) << "\n";
    });
    for (BasicBlock& bb : *func) {
      for (Instruction& inst : bb) {
        if (inst.result_id() == 0) continue;
        out << "  value %" << inst.result_id() << name(inst.result_id()) << " "
            << UniformityName(ValueLevel(inst.result_id())) << "\n";
      }
    }
    for (BasicBlock& bb : *func) {
      out << "  block %" << bb.id() << name(bb.id()) << " "
          << (IsBlockUniform(bb.id()) ? "uniform" : "divergent");
      const std::vector<uint32_t>& deps = DivergentBranches(bb.id());
      if (!deps.empty()) {
        out << " deps";
        for (uint32_t d : deps) out << " %" << d;
      }
      out << "\n";
    }
  }
}

}  // namespace waveopt
