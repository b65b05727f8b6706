// quad-exchange: see the header for the rewrite and why it is right;
// docs/passes/quad-exchange.md for the remarks and the cost rule.
#include "passes/quad_exchange_pass.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "analysis/ir_util.h"
#include "analysis/uniformity.h"
#include "passes/emitter.h"
#include "source/opcode.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/ir_context.h"
#include "source/opt/loop_descriptor.h"
#include "source/opt/type_manager.h"
#include "source/util/string_utils.h"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;

// Debug information (NonSemantic.Shader.DebugInfo.100 from DXC, Slang and
// glslang -gV, OpenCL.DebugInfo.100): it names values and variables but
// reads and writes nothing; SPIRV-Tools keeps it consistent when the
// rewrite replaces or removes what it names.
static bool IsDebugInfo(const Instruction* inst) {
  return inst->IsNonSemanticInstruction() ||
         inst->GetCommonDebugOpcode() != CommonDebugInfoInstructionsMax;
}
using spvtools::opt::IRContext;
using spvtools::opt::Operand;

bool IsChain(spv::Op op) {
  return op == spv::Op::OpAccessChain || op == spv::Op::OpInBoundsAccessChain;
}

// Memory semantics bits of storage other than Workgroup memory: a barrier
// that orders them is needed by other accesses.
constexpr uint32_t kOtherMemory =
    static_cast<uint32_t>(spv::MemorySemanticsMask::UniformMemory) |
    static_cast<uint32_t>(spv::MemorySemanticsMask::SubgroupMemory) |
    static_cast<uint32_t>(spv::MemorySemanticsMask::CrossWorkgroupMemory) |
    static_cast<uint32_t>(spv::MemorySemanticsMask::AtomicCounterMemory) |
    static_cast<uint32_t>(spv::MemorySemanticsMask::ImageMemory) |
    static_cast<uint32_t>(spv::MemorySemanticsMask::OutputMemory);

// Capabilities whose operations depend on which invocations share a
// subgroup or quad: relabelling invocations would change their results.
bool IsMembershipCapability(spv::Capability cap) {
  if (IsSubgroupCapability(cap)) return true;
  switch (cap) {
    case spv::Capability::SubgroupBallotKHR:
    case spv::Capability::SubgroupVoteKHR:
    case spv::Capability::ComputeDerivativeGroupQuadsNV:
    case spv::Capability::ComputeDerivativeGroupLinearNV:
    case spv::Capability::Groups:
      return true;
    default:
      return false;
  }
}

// Whether |b| runs after |a| on every path through |b| (|dom|: their
// function's dominator tree).
bool RunsAfter(IRContext* ctx, spvtools::opt::DominatorAnalysis* dom, Instruction* a,
               Instruction* b) {
  BasicBlock* ba = ctx->get_instr_block(a);
  BasicBlock* bb = ctx->get_instr_block(b);
  if (ba != bb) return dom->StrictlyDominates(ba, bb);
  for (Instruction* it = a->NextNode(); it != nullptr; it = it->NextNode()) {
    if (it == b) return true;
  }
  return false;
}

const char* DirectionText(uint32_t xor_mask) {
  switch (xor_mask) {
    case 0:
      return "own";
    case 1:
      return "horizontal";
    case 2:
      return "vertical";
    default:
      return "diagonal";
  }
}

}  // namespace

bool QuadExchangePass::ValidateParams(const std::string& text, std::string* error) {
  if (text.empty() || text == "full-subgroups") return true;
  *error = "unknown parameter '" + text + "' (expected full-subgroups)";
  return false;
}

QuadExchangePass::Refusal QuadExchangePass::ResolveSize(Instruction* entry, WorkgroupSize* size) {
  const uint32_t func_id = entry->GetSingleWordInOperand(1);
  for (Instruction& a : get_module()->annotations()) {
    if (a.opcode() == spv::Op::OpDecorate &&
        a.GetSingleWordInOperand(1) == static_cast<uint32_t>(spv::Decoration::BuiltIn) &&
        a.GetSingleWordInOperand(2) == static_cast<uint32_t>(spv::BuiltIn::WorkgroupSize)) {
      Instruction* c = get_def_use_mgr()->GetDef(a.GetSingleWordInOperand(0));
      uint64_t v[3] = {0, 0, 0};
      bool ok =
          c != nullptr && c->opcode() == spv::Op::OpConstantComposite && c->NumInOperands() == 3;
      for (uint32_t i = 0; ok && i < 3; ++i) {
        ok = IntConstant(context(), get_def_use_mgr()->GetDef(c->GetSingleWordInOperand(i)), &v[i]);
      }
      if (!ok) {
        return {Reason::kUnknownWorkgroupSize,
                "the workgroup size is not a constant (specialization "
                "constants may change it)",
                nullptr};
      }
      *size = {static_cast<uint32_t>(v[0]), static_cast<uint32_t>(v[1]),
               static_cast<uint32_t>(v[2])};
      return {};
    }
  }
  for (Instruction& mode : get_module()->execution_modes()) {
    if (mode.opcode() == spv::Op::OpExecutionMode && mode.GetSingleWordInOperand(0) == func_id &&
        static_cast<spv::ExecutionMode>(mode.GetSingleWordInOperand(1)) ==
            spv::ExecutionMode::LocalSize) {
      *size = {mode.GetSingleWordInOperand(2), mode.GetSingleWordInOperand(3),
               mode.GetSingleWordInOperand(4)};
      return {};
    }
  }
  return {Reason::kUnknownWorkgroupSize,
          "the entry point has no constant LocalSize or WorkgroupSize", nullptr};
}

bool QuadExchangePass::MayDependOnWorkgroup(uint32_t root) {
  std::vector<uint32_t> work = {root};
  std::unordered_set<uint32_t> seen;
  auto* defs = get_def_use_mgr();
  while (!work.empty()) {
    const uint32_t id = work.back();
    work.pop_back();
    if (!seen.insert(id).second) continue;
    Instruction* def = defs->GetDef(id);
    if (def == nullptr) return true;
    switch (def->opcode()) {
      case spv::Op::OpFunctionParameter:
      case spv::Op::OpFunctionCall:
        return true;
      case spv::Op::OpVariable: {
        const auto sc = static_cast<spv::StorageClass>(def->GetSingleWordInOperand(0));
        if (sc == spv::StorageClass::Input) {
          const spv::BuiltIn b = BuiltInOf(context(), id);
          if (b == spv::BuiltIn::WorkgroupId || b == spv::BuiltIn::GlobalInvocationId ||
              b == spv::BuiltIn::NumWorkgroups || b == spv::BuiltIn::Max) {
            return true;
          }
          continue;
        }
        if (sc != spv::StorageClass::Function) return true;
        // Every value stored to the variable (through chains too).
        std::vector<Instruction*> ptrs = {def};
        bool escapes = false;
        for (size_t k = 0; k < ptrs.size(); ++k) {
          defs->ForEachUser(ptrs[k], [&](Instruction* user) {
            if (IsChain(user->opcode())) {
              ptrs.push_back(user);
            } else if (user->opcode() == spv::Op::OpStore) {
              work.push_back(user->GetSingleWordInOperand(1));
            } else if (user->opcode() != spv::Op::OpLoad && user->opcode() != spv::Op::OpName &&
                       !user->IsDecoration() && !IsDebugInfo(user)) {
              escapes = true;  // calls, copies, atomics: unknown writes
            }
          });
        }
        if (escapes) return true;
        continue;
      }
      default:
        break;
    }
    if (def->opcode() == spv::Op::OpLabel) continue;
    def->ForEachInId([&work](const uint32_t* in) { work.push_back(*in); });
  }
  return false;
}

const char* QuadExchangePass::ReasonName(Reason reason) {
  static const char* const kNames[] = {
      "",
#define WAVEOPT_QUAD_EXCHANGE_REASON_NAME(name) #name,
      WAVEOPT_QUAD_EXCHANGE_REASONS(WAVEOPT_QUAD_EXCHANGE_REASON_NAME)
#undef WAVEOPT_QUAD_EXCHANGE_REASON_NAME
  };
  return kNames[static_cast<size_t>(reason)];
}

QuadExchangePass::Refusal QuadExchangePass::Analyze(Function* function, Instruction* var,
                                                    Candidate* c) {
  c->function = function;
  c->var = var;
  Accesses a;
  a.var_name = "'" + NameOf(var->result_id()) + "'";
  Refusal r = CollectAccesses(*c, &a);
  if (!r.refused()) r = CheckStoreAndLoads(c, &a);
  if (!r.refused()) r = FindBarrier(a, c);
  if (!r.refused()) r = CheckBarrier(a, *c);
  if (!r.refused()) r = CheckOtherMemory(*c);
  if (!r.refused()) r = CheckReads(a, *c);
  if (!r.refused()) r = CollectIdentityLoads(c);
  if (!r.refused()) r = EvaluateAccesses(a, c);
  return r;
}

QuadExchangePass::Refusal QuadExchangePass::CollectAccesses(const Candidate& c, Accesses* a) {
  IRContext* ctx = context();
  auto* defs = get_def_use_mgr();
  Reason bad = Reason::kNone;
  Instruction* where = nullptr;
  defs->ForEachUser(c.var, [&](Instruction* user) {
    if (bad != Reason::kNone) return;
    if (user->opcode() == spv::Op::OpName || user->opcode() == spv::Op::OpEntryPoint ||
        user->IsDecoration() || IsDebugInfo(user)) {
      return;
    }
    BasicBlock* block = ctx->get_instr_block(user);
    if (!IsChain(user->opcode()) || block == nullptr || block->GetParent() != c.function) {
      where = user;
      bad = block != nullptr && block->GetParent() != c.function ? Reason::kUsedInOtherFunction
                                                                 : Reason::kUnsupportedAccess;
      return;
    }
    defs->ForEachUser(user, [&](Instruction* access) {
      if (bad != Reason::kNone) return;
      if (access->opcode() == spv::Op::OpLoad &&
          access->GetSingleWordInOperand(0) == user->result_id()) {
        a->loads.push_back(access);
      } else if (access->opcode() == spv::Op::OpStore &&
                 access->GetSingleWordInOperand(0) == user->result_id()) {
        a->stores.push_back(access);
      } else if (access->opcode() != spv::Op::OpName && !access->IsDecoration() &&
                 !IsDebugInfo(access)) {
        where = access;
        bad = Reason::kUnsupportedAccess;
      }
    });
  });
  if (bad == Reason::kUsedInOtherFunction) {
    return {bad, a->var_name + " is also used outside the entry point's function", where};
  }
  if (bad != Reason::kNone) {
    return {bad,
            a->var_name +
                " is accessed other than by loads and stores of whole elements "
                "through access chains (atomics, copies, whole-array or nested "
                "chains, calls)",
            where};
  }
  return {};
}

QuadExchangePass::Refusal QuadExchangePass::CheckStoreAndLoads(Candidate* c, Accesses* a) {
  auto* defs = get_def_use_mgr();
  const std::string& var_name = a->var_name;
  if (a->stores.empty()) {
    return {Reason::kNoStore, var_name + " is never written", nullptr};
  }
  if (a->stores.size() > 1) {
    return {Reason::kSecondWrite,
            var_name + " is written by " + std::to_string(a->stores.size()) +
                " stores; a read could see the second write",
            a->stores[1]};
  }
  Instruction* store = a->stores[0];
  c->store = store;
  a->value_type = defs->GetDef(store->GetSingleWordInOperand(1))->type_id();
  Instruction* t = defs->GetDef(a->value_type);
  Instruction* leaf =
      t->opcode() == spv::Op::OpTypeVector ? defs->GetDef(t->GetSingleWordInOperand(0)) : t;
  if (leaf->opcode() != spv::Op::OpTypeInt && leaf->opcode() != spv::Op::OpTypeFloat) {
    return {Reason::kUnsupportedElementType,
            var_name +
                " holds elements that are not integer or float "
                "scalars or vectors",
            store};
  }
  for (Instruction* load : a->loads) {
    if (load->type_id() != a->value_type) {
      return {Reason::kPartialElement,
              "a read of " + var_name +
                  " loads part of an element, not the element the store "
                  "writes",
              load};
    }
  }
  if (a->loads.empty()) {
    return {Reason::kNoRead, var_name + " is never read", store};
  }
  return {};
}

QuadExchangePass::Refusal QuadExchangePass::FindBarrier(const Accesses& a, Candidate* c) {
  IRContext* ctx = context();
  Instruction* store = c->store;
  auto* loops = ctx->GetLoopDescriptor(c->function);
  if ((*loops)[ctx->get_instr_block(store)->id()] != nullptr) {
    return {Reason::kSecondWrite,
            "the store to " + a.var_name + " is in a loop: it writes more than once", store};
  }
  auto* dom = ctx->GetDominatorAnalysis(c->function);
  Instruction* barrier = nullptr;
  for (BasicBlock& bb : *c->function) {
    for (Instruction& inst : bb) {
      if (inst.opcode() != spv::Op::OpControlBarrier) continue;
      if (!RunsAfter(ctx, dom, store, &inst)) continue;
      if (barrier == nullptr || RunsAfter(ctx, dom, &inst, barrier)) {
        barrier = &inst;
      }
    }
  }
  if (barrier == nullptr) {
    return {Reason::kNoBarrier, "no control barrier follows the store to " + a.var_name, store};
  }
  c->barrier = barrier;
  return {};
}

QuadExchangePass::Refusal QuadExchangePass::CheckBarrier(const Accesses& a, const Candidate& c) {
  IRContext* ctx = context();
  auto* defs = get_def_use_mgr();
  Instruction* barrier = c.barrier;
  uint64_t exec = 0, mem = 0, sem = 0;
  const bool known =
      IntConstant(context(), defs->GetDef(barrier->GetSingleWordInOperand(0)), &exec) &&
      IntConstant(context(), defs->GetDef(barrier->GetSingleWordInOperand(1)), &mem) &&
      IntConstant(context(), defs->GetDef(barrier->GetSingleWordInOperand(2)), &sem);
  if (!known || exec != static_cast<uint32_t>(spv::Scope::Workgroup) || (sem & kOtherMemory) != 0) {
    return {Reason::kOtherAccessesNeedBarrier,
            "the barrier after the store is not a workgroup barrier of "
            "shared memory only: other memory needs it",
            barrier};
  }
  BasicBlock* barrier_block = ctx->get_instr_block(barrier);
  if ((*ctx->GetLoopDescriptor(c.function))[barrier_block->id()] != nullptr) {
    return {Reason::kBarrierInLoop, "the barrier after the store is in a loop", barrier};
  }
  auto* pdom = ctx->GetPostDominatorAnalysis(c.function);
  if (!pdom->Dominates(barrier_block, ctx->get_instr_block(c.store))) {
    return {Reason::kDivergentExitBetween,
            "an invocation may leave between the store to " + a.var_name +
                " and the barrier: its value would not be there for a quad "
                "operation",
            barrier};
  }
  if (!pdom->Dominates(barrier_block, &*c.function->begin())) {
    return {Reason::kBarrierNotReachedByAll,
            "some invocations may not reach the store to " + a.var_name + " and the barrier",
            barrier};
  }
  return {};
}

QuadExchangePass::Refusal QuadExchangePass::CheckOtherMemory(const Candidate& c) {
  // A memory barrier elsewhere makes other memory visible with the help of
  // this control barrier (memoryBarrierImage(); barrier();).
  for (BasicBlock& bb : *c.function) {
    for (Instruction& inst : bb) {
      if (inst.opcode() == spv::Op::OpMemoryBarrier) {
        return {Reason::kOtherAccessesNeedBarrier,
                "the function has a memory barrier, which may rely on the "
                "control barrier to order other memory",
                &inst};
      }
    }
  }
  // Other shared memory ordered by the barrier.
  for (Instruction& v : get_module()->types_values()) {
    if (&v == c.var || v.opcode() != spv::Op::OpVariable ||
        static_cast<spv::StorageClass>(v.GetSingleWordInOperand(0)) !=
            spv::StorageClass::Workgroup) {
      continue;
    }
    bool used = false;
    get_def_use_mgr()->ForEachUser(&v, [&](Instruction* u) {
      BasicBlock* b = context()->get_instr_block(u);
      if (b != nullptr && b->GetParent() == c.function) used = true;
    });
    // Callees could use it too.
    for (BasicBlock& bb : *c.function) {
      for (Instruction& inst : bb) {
        if (inst.opcode() == spv::Op::OpFunctionCall) used = true;
      }
    }
    if (used) {
      return {Reason::kOtherAccessesNeedBarrier,
              "the function also uses other shared memory ('" + NameOf(v.result_id()) +
                  "') or calls functions, which the barrier may order",
              c.barrier};
    }
  }
  return {};
}

QuadExchangePass::Refusal QuadExchangePass::CheckReads(const Accesses& a, const Candidate& c) {
  IRContext* ctx = context();
  auto* dom = ctx->GetDominatorAnalysis(c.function);
  for (Instruction* load : a.loads) {
    if (!RunsAfter(ctx, dom, c.barrier, load)) {
      return {Reason::kReadBeforeBarrier, "a read of " + a.var_name + " is not after the barrier",
              load};
    }
    if (ctx->get_instr_block(load)->GetLoopMergeInst() != nullptr) {
      return {Reason::kReadInLoopHeader, "a read of " + a.var_name + " is in a loop header block",
              load};
    }
  }
  return {};
}

QuadExchangePass::Refusal QuadExchangePass::CollectIdentityLoads(Candidate* c) {
  for (Instruction& v : get_module()->types_values()) {
    if (v.opcode() != spv::Op::OpVariable) continue;
    const spv::BuiltIn b = BuiltInOf(context(), v.result_id());
    if (b != spv::BuiltIn::LocalInvocationId && b != spv::BuiltIn::LocalInvocationIndex &&
        b != spv::BuiltIn::GlobalInvocationId) {
      continue;
    }
    Instruction* where = nullptr;
    const Reason fail = CollectIdentityLoadsOf(&v, c, &where);
    if (fail == Reason::kIdentityInCallee) {
      return {fail,
              "an invocation id is read outside the entry point's function; "
              "the relabelled id could not reach it",
              where};
    }
    if (fail != Reason::kNone) {
      return {fail,
              "an invocation id is used other than by loads of the whole "
              "value or of a constant component of a 32-bit unsigned built-in",
              where};
    }
  }
  // Program order, for determinism.
  std::unordered_set<Instruction*> set(c->identity_loads.begin(), c->identity_loads.end());
  c->identity_loads.clear();
  for (BasicBlock& bb : *c->function) {
    for (Instruction& inst : bb) {
      if (set.count(&inst)) c->identity_loads.push_back(&inst);
    }
  }
  return {};
}

QuadExchangePass::Reason QuadExchangePass::CollectIdentityLoadsOf(Instruction* v, Candidate* c,
                                                                  Instruction** where) {
  IRContext* ctx = context();
  auto* defs = get_def_use_mgr();
  Reason fail = Reason::kNone;
  defs->ForEachUser(v, [&](Instruction* u) {
    if (fail != Reason::kNone || u->opcode() == spv::Op::OpName ||
        u->opcode() == spv::Op::OpEntryPoint || u->IsDecoration() || IsDebugInfo(u)) {
      return;
    }
    BasicBlock* ub = ctx->get_instr_block(u);
    if (ub == nullptr || ub->GetParent() != c->function) {
      *where = u;
      fail = Reason::kIdentityInCallee;
      return;
    }
    Instruction* pt = defs->GetDef(defs->GetDef(v->type_id())->GetSingleWordInOperand(1));
    Instruction* scalar =
        pt->opcode() == spv::Op::OpTypeVector ? defs->GetDef(pt->GetSingleWordInOperand(0)) : pt;
    if (scalar->opcode() != spv::Op::OpTypeInt || scalar->GetSingleWordInOperand(0) != 32 ||
        scalar->GetSingleWordInOperand(1) != 0) {
      *where = u;
      fail = Reason::kUnsupportedIdentityUse;
      return;
    }
    if (u->opcode() == spv::Op::OpLoad) {
      c->identity_loads.push_back(u);
      return;
    }
    uint64_t k = 0;
    if (IsChain(u->opcode()) && u->NumInOperands() == 2 &&
        IntConstant(context(), defs->GetDef(u->GetSingleWordInOperand(1)), &k) && k < 3) {
      defs->ForEachUser(u, [&](Instruction* l) {
        if (l->opcode() == spv::Op::OpLoad) {
          c->identity_loads.push_back(l);
        } else if (l->opcode() != spv::Op::OpName && !l->IsDecoration() && !IsDebugInfo(l)) {
          *where = l;
          fail = Reason::kUnsupportedIdentityUse;
        }
      });
      return;
    }
    *where = u;
    fail = Reason::kUnsupportedIdentityUse;
  });
  return fail;
}

QuadExchangePass::Refusal QuadExchangePass::EvaluateAccesses(const Accesses& a, Candidate* c) {
  const uint32_t n = c->size.Count();
  if (n % 4 != 0 || n < 4) {
    return {Reason::kWorkgroupNotMultipleOf4,
            "the workgroup has " + std::to_string(n) +
                " invocations, not a multiple of 4: its subgroups are never "
                "all full with a size that is a multiple of 4",
            c->store};
  }
  InvocationEvaluator eval(context(), c->function, c->size, nullptr);
  Lanes lanes{&eval, {}, c->var, a.value_type, a.var_name};
  lanes.env.probes = false;
  lanes.env.workgroup_unknown = true;
  // A read whose index cannot be evaluated for invocation 0, which runs
  // it: refused as AnalyzeRead would, before the writers of every
  // invocation are evaluated (compile time: their evaluation is most of
  // the pass's cost, and such reads are the common refusal).
  for (BasicBlock& bb : *c->function) {
    for (Instruction& inst : bb) {
      if (std::find(a.loads.begin(), a.loads.end(), &inst) == a.loads.end()) continue;
      if (lanes.eval->Reaches(0, &bb, 0, lanes.env).reach == Reach::kNo) continue;
      const Element e = ElementOf(&lanes, &inst, 0);
      if (e.index < 0 && !e.out_of_bounds) return IndexRefusal(lanes, e, &inst, 0);
    }
  }
  std::unordered_map<int64_t, uint32_t> writer;
  Refusal r = EvaluateWriters(&lanes, c->store, &writer);
  if (r.refused()) return r;
  // Each read in program order: the invocations that execute it, and its
  // writer.
  for (BasicBlock& bb : *c->function) {
    for (Instruction& inst : bb) {
      if (std::find(a.loads.begin(), a.loads.end(), &inst) == a.loads.end()) {
        continue;
      }
      Read read;
      r = AnalyzeRead(&lanes, writer, &inst, &read);
      if (r.refused()) return r;
      c->reads.push_back(read);
    }
  }
  return {};
}

QuadExchangePass::Refusal QuadExchangePass::EvaluateWriters(
    Lanes* lanes, Instruction* store, std::unordered_map<int64_t, uint32_t>* writer) {
  const uint32_t n = lanes->eval->size().Count();
  for (uint32_t i = 0; i < n; ++i) {
    const Element e = ElementOf(lanes, store, i);
    if (e.index < 0) return IndexRefusal(*lanes, e, store, i);
    if (!writer->emplace(e.index, i).second) {
      return {Reason::kConflictingWrites,
              "invocations " + std::to_string((*writer)[e.index]) + " and " + std::to_string(i) +
                  " write the same element of " + lanes->var_name,
              store};
    }
  }
  return {};
}

QuadExchangePass::Element QuadExchangePass::ElementOf(Lanes* lanes, Instruction* access,
                                                      uint32_t i) {
  auto* defs = get_def_use_mgr();
  Instruction* chain = defs->GetDef(access->GetSingleWordInOperand(0));
  Instruction* type = defs->GetDef(defs->GetDef(lanes->var->type_id())->GetSingleWordInOperand(1));
  Element e;
  int64_t flat = 0;
  for (uint32_t k = 1; k < chain->NumInOperands(); ++k) {
    uint64_t len = 0;
    if (type->opcode() != spv::Op::OpTypeArray ||
        !IntConstant(context(), defs->GetDef(type->GetSingleWordInOperand(1)), &len)) {
      e.unknown = chain;
      return e;
    }
    LaneValue v;
    const uint32_t id = chain->GetSingleWordInOperand(k);
    if (!lanes->eval->Eval(0, id, i, lanes->env, &v) || v.count != 1) {
      e.unknown = lanes->eval->FailedAt();
      e.index_id = id;
      return e;
    }
    const int64_t idx = v.Signed(0);
    if (idx < 0 || static_cast<uint64_t>(idx) >= len) {
      e.out_of_bounds = true;
      return e;
    }
    flat = flat * static_cast<int64_t>(len) + idx;
    type = defs->GetDef(type->GetSingleWordInOperand(0));
  }
  if (type->result_id() != lanes->value_type) {
    e.unknown = chain;
    return e;
  }
  e.index = flat;
  return e;
}

QuadExchangePass::Refusal QuadExchangePass::IndexRefusal(const Lanes& lanes, const Element& e,
                                                         Instruction* access, uint32_t i) {
  const bool is_store = access->opcode() == spv::Op::OpStore;
  const std::string what = (is_store ? "the store to " : "a read of ") + lanes.var_name;
  if (e.out_of_bounds) {
    return {Reason::kOutOfBounds, what + " is out of bounds for invocation " + std::to_string(i),
            access};
  }
  const std::string culprit = e.unknown != nullptr ? InstText(e.unknown) : std::string("its value");
  if (e.index_id != 0 && MayDependOnWorkgroup(e.index_id)) {
    return {Reason::kIndexNotLocal,
            "an index of " + what + " depends on " + culprit +
                ", which is not a function of the invocation's place in its "
                "workgroup that the analysis can evaluate (its def chain "
                "reaches the workgroup or global id, memory, a parameter or a "
                "call)",
            access};
  }
  return {Reason::kIndexNotEvaluated,
          "an index of " + what + " depends on " + culprit +
              ", which is not a function of the invocation id that the "
              "analysis can evaluate",
          access};
}

QuadExchangePass::Refusal QuadExchangePass::AnalyzeRead(
    Lanes* lanes, const std::unordered_map<int64_t, uint32_t>& writer, Instruction* load,
    Read* read) {
  BasicBlock* block = context()->get_instr_block(load);
  const uint32_t n = lanes->eval->size().Count();
  // The source of each reader: of those that read, and of those that may.
  struct Sources {
    std::set<uint32_t> masks, quad_lanes;
    bool Mixed() const { return masks.size() > 1 && quad_lanes.size() > 1; }
  } reads, may_read;
  // An invocation whose execution of the read is unknown must be served
  // like the others: the rewrite is then right whether it reads or not.
  // Where it could not be, the unknown decides: a refusal.
  ReachResult first_unknown;
  uint32_t unknown_lane = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const ReachResult reach = lanes->eval->Reaches(0, block, i, lanes->env);
    if (reach.reach == Reach::kNo) continue;
    const bool sure = reach.reach == Reach::kYes;
    if (!sure && first_unknown.unknown == nullptr) {
      first_unknown = reach;
      unknown_lane = i;
    }
    const Element e = ElementOf(lanes, load, i);
    if (e.out_of_bounds && !sure) {
      return GuardRefusal(*lanes, load, i, reach, "it reads out of the array's bounds");
    }
    // (An index the analysis cannot evaluate is refused as such, whether
    // or not the invocation reads.)
    if (e.index < 0) return IndexRefusal(*lanes, e, load, i);
    auto w = writer.find(e.index);
    if (w == writer.end()) {
      if (!sure) {
        return GuardRefusal(*lanes, load, i, reach,
                            "it reads an element that no invocation writes");
      }
      return {Reason::kReadsUnwritten,
              "invocation " + std::to_string(i) + " reads an element of " + lanes->var_name +
                  " that no invocation writes",
              load};
    }
    if ((w->second >> 2) != (i >> 2)) {
      if (!sure) {
        return GuardRefusal(*lanes, load, i, reach,
                            "it reads the element that invocation " + std::to_string(w->second) +
                                " writes, outside its quad");
      }
      return AcrossQuads(block->GetParent(), lanes, load, i, w->second);
    }
    for (Sources* s : {&may_read, sure ? &reads : nullptr}) {
      if (s == nullptr) continue;
      s->masks.insert(w->second ^ i);
      s->quad_lanes.insert(w->second & 3u);
    }
  }
  if (reads.Mixed()) {
    return {Reason::kMixedQuadLanes,
            "a read of " + lanes->var_name +
                " takes its element from different quad lanes in different "
                "directions (neither one swap nor one broadcast)",
            load};
  }
  if (may_read.Mixed()) {
    return GuardRefusal(*lanes, load, unknown_lane, first_unknown,
                        "its element comes from another direction than the "
                        "other readers' (neither one swap nor one "
                        "broadcast)");
  }
  read->load = load;
  if (may_read.masks.size() <= 1) {
    read->source.xor_mask = may_read.masks.empty() ? 0 : *may_read.masks.begin();
  } else {
    read->source.is_broadcast = true;
    read->source.broadcast = *may_read.quad_lanes.begin();
  }
  return {};
}

QuadExchangePass::Refusal QuadExchangePass::GuardRefusal(const Lanes& lanes, Instruction* load,
                                                         uint32_t i, const ReachResult& reach,
                                                         const std::string& then) {
  return {
      Reason::kGuardNotEvaluable,
      "whether invocation " + std::to_string(i) + " reads " + lanes.var_name + " here depends on " +
          (reach.unknown != nullptr ? InstText(reach.unknown) : std::string("its control flow")) +
          ", which the analysis cannot evaluate for it in every "
          "workgroup, and if it does, " +
          then,
      reach.unknown != nullptr ? reach.unknown : load};
}

QuadExchangePass::Refusal QuadExchangePass::AcrossQuads(Function* function, const Lanes* lanes,
                                                        Instruction* load, uint32_t reader,
                                                        uint32_t writer) {
  // Is the kernel quad-ordered at all (lane_layout's answer)?
  IRContext* ctx = context();
  UniformityAnalysis uniformity(ctx);
  InvocationEvaluator probe(ctx, function, lanes->eval->size(), &uniformity);
  std::vector<Function*> fns = {function};
  std::vector<LaneAccess> accesses = CollectLaneAccesses(ctx, fns);
  LaneMaps maps(&probe, accesses);
  const bool ordered = FirstQuadOrderedItem(&maps) >= 0;
  return {ordered ? Reason::kReadAcrossQuads : Reason::kNotQuadOrdered,
          "invocation " + std::to_string(reader) + " reads the element " + lanes->var_name +
              " that invocation " + std::to_string(writer) + " writes, outside its quad " +
              std::to_string(reader & ~3u) + ".." + std::to_string((reader & ~3u) + 3) +
              (ordered ? ""
                       : ": no access of the kernel puts lanes 4k..4k+3 on a "
                         "2x2 block (not quad-ordered; morton-remap may make "
                         "it so)"),
          load};
}

std::string QuadExchangePass::InstText(const Instruction* inst) {
  std::string text = std::string("Op") + spvOpcodeString(inst->opcode());
  if (inst->opcode() == spv::Op::OpLabel) {
    return "the control flow into block " + NameOf(inst->result_id());
  }
  if (inst->result_id() != 0) text += " " + NameOf(inst->result_id());
  if (inst->opcode() == spv::Op::OpFunctionCall) {
    text += " (a call of a function that may not return)";
  }
  return text;
}

bool QuadExchangePass::FullSubgroups(const Candidate& c) const {
  if (full_subgroups_) return true;
  return c.size.Count() % 64 == 0 && config().Fact(&TargetFacts::waves_32_or_64);
}

bool QuadExchangePass::Rewrite(const Candidate& c) {
  const bool promise = FullSubgroups(c);
  IRContext* ctx = context();
  BasicBlock* entry_block = &*c.function->begin();
  auto where = entry_block->begin();
  while (where->opcode() == spv::Op::OpVariable) ++where;

  // The relabelled identity and the run-time check, once in the entry
  // block; every identity load takes the relabelled value.
  Emitter e(ctx, entry_block, where);
  Identity id;
  if (!EmitIdentity(c, promise, &e, &id)) return false;
  if (!EmitInvocationIds(c, &e, &id)) return false;
  ReplaceIdentityLoads(c, id);

  // The quad operations, where every invocation is active.
  BasicBlock* rest = nullptr;
  Instruction* quad_at = nullptr;
  if (!GuardSharedPath(c, promise, id.fast, &rest, &quad_at)) return false;
  std::vector<uint32_t> sources;
  if (!EmitQuadOps(c, rest, quad_at, &sources)) return false;

  if (promise) {
    RemoveSharedPath(c, sources);
    return true;
  }
  if (!GuardReads(c, id.fast, sources)) return false;
  ctx->InvalidateAnalyses(IRContext::kAnalysisCFG | IRContext::kAnalysisDominatorAnalysis |
                          IRContext::kAnalysisLoopAnalysis);
  return true;
}

bool QuadExchangePass::EmitIdentity(const Candidate& c, bool promise, Emitter* e, Identity* id) {
  IRContext* ctx = context();
  ctx->AddCapability(spv::Capability::GroupNonUniform);
  ctx->AddCapability(spv::Capability::GroupNonUniformQuad);
  const uint32_t v_size = BuiltInInput(spv::BuiltIn::SubgroupSize, c.entry);
  const uint32_t v_sid = BuiltInInput(spv::BuiltIn::SubgroupId, c.entry);
  const uint32_t v_lane = BuiltInInput(spv::BuiltIn::SubgroupLocalInvocationId, c.entry);
  if (!v_size || !v_sid || !v_lane) return false;
  uint32_t v_num = 0, v_index = 0;
  if (!promise) {
    ctx->AddCapability(spv::Capability::GroupNonUniformBallot);
    v_num = BuiltInInput(spv::BuiltIn::NumSubgroups, c.entry);
    v_index = BuiltInInput(spv::BuiltIn::LocalInvocationIndex, c.entry);
    if (!v_num || !v_index) return false;
  }

  const uint32_t u32 = e->UIntType(32);
  const uint32_t boolean = e->BoolType();
  id->u32 = u32;
  const uint32_t ss = e->EmitIds(spv::Op::OpLoad, u32, {v_size});
  const uint32_t sid = e->EmitIds(spv::Op::OpLoad, u32, {v_sid});
  const uint32_t lane = e->EmitIds(spv::Op::OpLoad, u32, {v_lane});
  const uint32_t base = e->EmitIds(spv::Op::OpIMul, u32, {sid, ss});
  const uint32_t relabelled = e->EmitIds(spv::Op::OpIAdd, u32, {base, lane});
  id->index = relabelled;
  if (!promise) {
    const uint32_t ns = e->EmitIds(spv::Op::OpLoad, u32, {v_num});
    const uint32_t li = e->EmitIds(spv::Op::OpLoad, u32, {v_index});
    id->fast = EmitFullCheck(c, ss, ns, u32, boolean, e);
    id->index = e->EmitIds(spv::Op::OpSelect, u32, {id->fast, relabelled, li});
  }
  return e->ok();
}

uint32_t QuadExchangePass::EmitFullCheck(const Candidate& c, uint32_t ss, uint32_t ns, uint32_t u32,
                                         uint32_t boolean, Emitter* e) {
  const uint32_t total = e->EmitIds(spv::Op::OpIMul, u32, {ns, ss});
  const uint32_t full = e->EmitIds(spv::Op::OpIEqual, boolean, {total, e->UInt(c.size.Count())});
  const uint32_t low = e->EmitIds(spv::Op::OpBitwiseAnd, u32, {ss, e->UInt(3)});
  const uint32_t aligned = e->EmitIds(spv::Op::OpIEqual, boolean, {low, e->UInt(0)});
  // Defence against implementations whose built-ins disagree with their
  // subgroups (lavapipe at 16 lanes runs an 8-wide row as a 16-lane
  // subgroup with 8 active lanes, yet reports 4 subgroups of 16 for
  // 8x8): this subgroup's active lanes must fill it. Where the built-ins
  // are right and the first two checks hold, every subgroup is full and
  // this is true everywhere, so the condition stays workgroup-uniform.
  // (The type first, then the constant: in one call their order would be
  // the compiler's choice, and the ids with it.)
  const uint32_t mask_type = e->UIntVectorType(4);
  const uint32_t ballot =
      e->Group(spv::Op::OpGroupNonUniformBallot, mask_type, -1, {e->Bool(true)});
  const uint32_t active = e->Group(spv::Op::OpGroupNonUniformBallotBitCount, u32,
                                   static_cast<int>(spv::GroupOperation::Reduce), {ballot});
  const uint32_t filled = e->EmitIds(spv::Op::OpIEqual, boolean, {active, ss});
  const uint32_t both = e->EmitIds(spv::Op::OpLogicalAnd, boolean, {full, aligned});
  return e->EmitIds(spv::Op::OpLogicalAnd, boolean, {both, filled});
}

bool QuadExchangePass::EmitInvocationIds(const Candidate& c, Emitter* e, Identity* id) {
  auto* defs = get_def_use_mgr();
  const uint32_t u32 = id->u32;
  bool wants_local = false, wants_global = false;
  for (Instruction* load : c.identity_loads) {
    Instruction* ptr = defs->GetDef(load->GetSingleWordInOperand(0));
    const uint32_t var_id =
        IsChain(ptr->opcode()) ? ptr->GetSingleWordInOperand(0) : ptr->result_id();
    const spv::BuiltIn b = BuiltInOf(context(), var_id);
    wants_local |= b != spv::BuiltIn::LocalInvocationIndex;
    wants_global |= b == spv::BuiltIn::GlobalInvocationId;
  }
  if (wants_local) {
    const WorkgroupSize& s = c.size;
    id->local[0] = e->EmitIds(spv::Op::OpUMod, u32, {id->index, e->UInt(s.x)});
    const uint32_t row = e->EmitIds(spv::Op::OpUDiv, u32, {id->index, e->UInt(s.x)});
    id->local[1] = e->EmitIds(spv::Op::OpUMod, u32, {row, e->UInt(s.y)});
    id->local[2] = e->EmitIds(spv::Op::OpUDiv, u32, {id->index, e->UInt(s.x * s.y)});
    id->local_vec = e->EmitIds(spv::Op::OpCompositeConstruct, e->UIntVectorType(3),
                               {id->local[0], id->local[1], id->local[2]});
  }
  if (wants_global) {
    const uint32_t v_wg = BuiltInInput(spv::BuiltIn::WorkgroupId, c.entry);
    if (v_wg == 0) return false;
    const uint32_t wg = e->EmitIds(spv::Op::OpLoad, e->UIntVectorType(3), {v_wg});
    const uint32_t dims[3] = {c.size.x, c.size.y, c.size.z};
    for (uint32_t k = 0; k < 3; ++k) {
      const uint32_t wk =
          e->Emit(spv::Op::OpCompositeExtract, u32,
                  {{SPV_OPERAND_TYPE_ID, {wg}}, {SPV_OPERAND_TYPE_LITERAL_INTEGER, {k}}});
      const uint32_t origin = e->EmitIds(spv::Op::OpIMul, u32, {wk, e->UInt(dims[k])});
      id->global[k] = e->EmitIds(spv::Op::OpIAdd, u32, {origin, id->local[k]});
    }
    id->global_vec = e->EmitIds(spv::Op::OpCompositeConstruct, e->UIntVectorType(3),
                                {id->global[0], id->global[1], id->global[2]});
  }
  return e->ok();
}

void QuadExchangePass::ReplaceIdentityLoads(const Candidate& c, const Identity& id) {
  IRContext* ctx = context();
  auto* defs = get_def_use_mgr();
  for (Instruction* load : c.identity_loads) {
    Instruction* ptr = defs->GetDef(load->GetSingleWordInOperand(0));
    const bool chain = IsChain(ptr->opcode());
    const uint32_t var_id = chain ? ptr->GetSingleWordInOperand(0) : ptr->result_id();
    const spv::BuiltIn b = BuiltInOf(context(), var_id);
    uint32_t value = 0;
    if (b == spv::BuiltIn::LocalInvocationIndex) {
      value = id.index;
    } else {
      const bool g = b == spv::BuiltIn::GlobalInvocationId;
      if (chain) {
        uint64_t k = 0;
        IntConstant(context(), defs->GetDef(ptr->GetSingleWordInOperand(1)), &k);
        value = g ? id.global[k] : id.local[k];
      } else {
        value = g ? id.global_vec : id.local_vec;
      }
    }
    ctx->ReplaceAllUsesWith(load->result_id(), value);
    ctx->KillInst(load);
  }
}

bool QuadExchangePass::GuardSharedPath(const Candidate& c, bool promise, uint32_t fast,
                                       BasicBlock** rest, Instruction** quad_at) {
  IRContext* ctx = context();
  Instruction* store = c.store;
  Instruction* barrier = c.barrier;
  if (promise) {
    // No shared-memory path: the quad operations go where the barrier was.
    *rest = ctx->get_instr_block(barrier);
    *quad_at = barrier->NextNode();
    return true;
  }
  // The store moves next to the barrier (nothing between them touches the
  // array, and no other invocation can read it before the barrier); both
  // go into a block that only the shared-memory path runs.
  store->InsertBefore(barrier);
  ctx->set_instr_block(store, ctx->get_instr_block(barrier));
  Emitter h(ctx, ctx->get_instr_block(barrier));
  const Emitter::If slow = h.WrapInIf(store, barrier, fast, Emitter::Arms::kElse);
  if (!h.ok()) return false;
  *rest = slow.merge;
  *quad_at = &*slow.merge->begin();
  return true;
}

bool QuadExchangePass::EmitQuadOps(const Candidate& c, BasicBlock* rest, Instruction* quad_at,
                                   std::vector<uint32_t>* sources) {
  const uint32_t value = c.store->GetSingleWordInOperand(1);
  const uint32_t type = get_def_use_mgr()->GetDef(value)->type_id();
  Emitter q(context(), rest, BasicBlock::iterator(quad_at));
  // Once per source.
  std::vector<std::pair<std::pair<bool, uint32_t>, uint32_t>> made;
  for (const Read& r : c.reads) {
    const std::pair<bool, uint32_t> key = {
        r.source.is_broadcast, r.source.is_broadcast ? r.source.broadcast : r.source.xor_mask};
    uint32_t id = 0;
    for (const auto& m : made) {
      if (m.first == key) id = m.second;
    }
    if (id == 0) {
      if (!key.first && key.second == 0) {
        id = value;
      } else if (!key.first) {
        id = q.Group(spv::Op::OpGroupNonUniformQuadSwap, type, -1, {value, q.UInt(key.second - 1)});
      } else {
        id =
            q.Group(spv::Op::OpGroupNonUniformQuadBroadcast, type, -1, {value, q.UInt(key.second)});
      }
      made.push_back({key, id});
    }
    sources->push_back(id);
  }
  return q.ok();
}

void QuadExchangePass::RemoveSharedPath(const Candidate& c, const std::vector<uint32_t>& sources) {
  IRContext* ctx = context();
  auto* defs = get_def_use_mgr();
  // The reads take the quad values; the store, the barrier, the access
  // chains and the array go.
  for (size_t k = 0; k < c.reads.size(); ++k) {
    ctx->ReplaceAllUsesWith(c.reads[k].load->result_id(), sources[k]);
  }
  std::vector<Instruction*> dead = {c.store, c.barrier};
  for (const Read& r : c.reads) dead.push_back(r.load);
  std::vector<Instruction*> chains;
  for (Instruction* d : dead) {
    if (d->opcode() != spv::Op::OpControlBarrier) {
      Instruction* ch = defs->GetDef(d->GetSingleWordInOperand(0));
      if (std::find(chains.begin(), chains.end(), ch) == chains.end()) {
        chains.push_back(ch);
      }
    }
  }
  for (Instruction* d : dead) ctx->KillInst(d);
  for (Instruction* ch : chains) {
    if (defs->NumUses(ch) == 0) ctx->KillInst(ch);
  }
  RemoveIfUnused(c.var);
}

void QuadExchangePass::RemoveIfUnused(Instruction* var) {
  bool var_used = false;
  get_def_use_mgr()->ForEachUser(var, [&var_used](Instruction* u) {
    if (u->opcode() != spv::Op::OpEntryPoint && u->opcode() != spv::Op::OpName &&
        !u->IsDecoration() && !IsDebugInfo(u)) {
      var_used = true;
    }
  });
  if (var_used) return;
  const uint32_t var_id = var->result_id();
  for (Instruction& ep : get_module()->entry_points()) {
    for (uint32_t i = 3; i < ep.NumInOperands(); ++i) {
      if (ep.GetSingleWordInOperand(i) == var_id) {
        ep.RemoveInOperand(i);
        get_def_use_mgr()->AnalyzeInstUse(&ep);
        break;
      }
    }
  }
  context()->KillNamesAndDecorates(var_id);
  context()->KillInst(var);
}

bool QuadExchangePass::GuardReads(const Candidate& c, uint32_t fast,
                                  const std::vector<uint32_t>& sources) {
  IRContext* ctx = context();
  // Each read: the quad value on the fast path, the load otherwise.
  for (size_t k = 0; k < c.reads.size(); ++k) {
    Instruction* load = c.reads[k].load;
    Emitter t(ctx, ctx->get_instr_block(load));
    const Emitter::If read = t.WrapInIf(load, load, fast, Emitter::Arms::kElse);
    const uint32_t phi_id = t.IfPhi(read, load->type_id(), sources[k], load->result_id());
    if (phi_id == 0) return false;
    Instruction* phi = get_def_use_mgr()->GetDef(phi_id);
    ctx->ReplaceAllUsesWithPredicate(load->result_id(), phi_id,
                                     [phi](Instruction* user) { return user != phi; });
  }
  return true;
}

std::vector<std::pair<Instruction*, Function*>> QuadExchangePass::ComputeEntries() {
  std::vector<std::pair<Instruction*, Function*>> entries;
  for (Instruction& ep : get_module()->entry_points()) {
    if (static_cast<spv::ExecutionModel>(ep.GetSingleWordInOperand(0)) !=
        spv::ExecutionModel::GLCompute) {
      continue;
    }
    Function* f = nullptr;
    for (Function& fn : *get_module()) {
      if (fn.result_id() == ep.GetSingleWordInOperand(1)) f = &fn;
    }
    if (f != nullptr) entries.push_back({&ep, f});
  }
  return entries;
}

std::vector<Instruction*> QuadExchangePass::SharedVars(Function* f) {
  std::vector<Instruction*> vars;
  for (Instruction& v : get_module()->types_values()) {
    if (v.opcode() != spv::Op::OpVariable ||
        static_cast<spv::StorageClass>(v.GetSingleWordInOperand(0)) !=
            spv::StorageClass::Workgroup) {
      continue;
    }
    bool used = false;
    get_def_use_mgr()->ForEachUser(&v, [&](Instruction* u) {
      BasicBlock* b = context()->get_instr_block(u);
      if (b != nullptr && b->GetParent() == f) used = true;
    });
    if (used) vars.push_back(&v);
  }
  return vars;
}

std::string QuadExchangePass::MembershipText() {
  for (const Instruction& cap : get_module()->capabilities()) {
    const auto k = static_cast<spv::Capability>(cap.GetSingleWordInOperand(0));
    if (!IsMembershipCapability(k)) continue;
    spv_operand_desc desc = nullptr;
    const std::string cap_name =
        context()->grammar().lookupOperand(SPV_OPERAND_TYPE_CAPABILITY, static_cast<uint32_t>(k),
                                           &desc) == SPV_SUCCESS
            ? desc->name
            : std::to_string(static_cast<uint32_t>(k));
    return "the module declares the capability " + cap_name;
  }
  return "";
}

QuadExchangePass::Refusal QuadExchangePass::AnalyzeEntry(Function* f,
                                                         const std::vector<Instruction*>& vars,
                                                         const std::string& membership,
                                                         Candidate* c) {
  if (!membership.empty()) {
    return {Reason::kUsesSubgroupOps,
            membership +
                ": its results may depend on which invocations share "
                "a subgroup, which the relabelled ids would change",
            nullptr};
  }
  if (vars.size() > 1) {
    return {Reason::kOtherAccessesNeedBarrier,
            "the entry point uses " + std::to_string(vars.size()) +
                " shared variables; their barriers order each other's "
                "accesses",
            nullptr};
  }
  Refusal r = ResolveSize(c->entry, &c->size);
  if (!r.refused()) r = Analyze(f, vars[0], c);
  return r;
}

std::string QuadExchangePass::ExchangedText(const Candidate& c) {
  std::string kinds;
  uint32_t ops = 0;
  std::vector<std::string> seen;
  for (const Read& r : c.reads) {
    const std::string k = r.source.is_broadcast
                              ? "broadcast of quad lane " + std::to_string(r.source.broadcast)
                              : std::string(DirectionText(r.source.xor_mask)) +
                                    (r.source.xor_mask == 0 ? " value" : " swap");
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
    seen.push_back(k);
    if (r.source.is_broadcast || r.source.xor_mask != 0) ++ops;
    kinds += (kinds.empty() ? "" : ", ") + k;
  }
  const std::string removed =
      FullSubgroups(c) ? std::string(full_subgroups_ ? "every subgroup full (promised)"
                                                     : "every subgroup full (" + TargetFlag() +
                                                           ", " + std::to_string(c.size.Count()) +
                                                           " invocations, a multiple of 64)") +
                             ": the store, the barrier and the reads are removed"
                       : std::string(
                             "the store, the barrier and the reads are skipped when every "
                             "subgroup is full and SubgroupSize is a multiple of 4");
  return std::to_string(c.reads.size()) + " read(s) of '" + NameOf(c.var->result_id()) + "' (" +
         kinds + ") served by " + std::to_string(ops) + " quad operation(s); " + removed +
         " (identity relabelled to SubgroupId * SubgroupSize + "
         "SubgroupLocalInvocationId)";
}

QuadExchangePass::Status QuadExchangePass::Process() {
  // Entry points and the shared variables their functions use.
  const std::vector<std::pair<Instruction*, Function*>> entries = ComputeEntries();
  bool any_shared = false;
  for (const auto& [ep, f] : entries) any_shared |= !SharedVars(f).empty();
  if (!any_shared) return Status::SuccessWithoutChange;

  std::string why;
  const std::string refusal = ModuleRefusal(&why);
  if (!refusal.empty()) {
    EmitRemark(RemarkKind::kMissed, refusal, nullptr, nullptr, why);
    return Status::SuccessWithoutChange;
  }
  if (config().emit_hlsl) {
    EmitRemark(RemarkKind::kMissed, ReasonName(Reason::kNotExpressibleInHlsl), nullptr, nullptr,
               "the output is emitted as HLSL, which has no SubgroupId or "
               "NumSubgroups: the rewrite's lane layout and its check that every "
               "subgroup is full cannot be written in it");
    return Status::SuccessWithoutChange;
  }
  const std::string membership = MembershipText();

  bool changed = false;
  for (const auto& [ep, f] : entries) {
    const std::vector<Instruction*> vars = SharedVars(f);
    if (vars.empty()) continue;
    Candidate c;
    c.entry = ep;
    const Refusal r = AnalyzeEntry(f, vars, membership, &c);
    if (r.refused()) {
      EmitRemark(RemarkKind::kMissed, ReasonName(r.reason), f, r.where, r.why);
      continue;
    }
    if (!Selected(f, c.store)) continue;
    EmitRemark(RemarkKind::kApplied, "Exchanged", f, c.store, ExchangedText(c));
    if (!Rewrite(c)) return Status::Failure;
    changed = true;
  }
  return changed ? Status::SuccessWithChange : Status::SuccessWithoutChange;
}

}  // namespace waveopt
