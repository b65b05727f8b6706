#include "analysis/barriers.h"

#include <algorithm>
#include <unordered_set>

#include "analysis/ir_util.h"
#include "analysis/loops.h"
#include "analysis/memory_effects.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/ir_context.h"
#include "source/opt/loop_descriptor.h"

namespace waveopt {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;

namespace {

// Memory-semantics bits naming storage classes other than Workgroup:
// Uniform, Subgroup, CrossWorkgroup, AtomicCounter, Image, Output memory.
constexpr uint64_t kOtherStorageBits = 0x40 | 0x80 | 0x200 | 0x400 | 0x800 | 0x1000;

struct Access {
  uint32_t var = 0;
  bool write = false;
};

// The Workgroup variables |inst| reads or writes. False when they cannot be
// named: a call, an unknown effect, a write to memory no operand names, or a
// Workgroup pointer derived from no known variable. Barriers are the
// caller's business (true, nothing added).
bool WorkgroupAccesses(IRContext* context, const Instruction* inst, std::vector<Access>* out) {
  const MemoryEffect effect = MemoryEffectOf(context, inst);
  switch (effect) {
    case MemoryEffect::kNone:
    case MemoryEffect::kBarrier:
      return true;
    case MemoryEffect::kCall:
    case MemoryEffect::kUnknown:
      return false;
    case MemoryEffect::kRead:
    case MemoryEffect::kWrite:
      break;
  }
  const int written = effect == MemoryEffect::kWrite ? WrittenOperand(context, inst) : -1;
  if (effect == MemoryEffect::kWrite && written < 0) return false;
  for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
    if (!spvIsInIdType(inst->GetInOperand(i).type)) continue;
    const uint32_t id = inst->GetSingleWordInOperand(i);
    if (PointerClass(context, id) != spv::StorageClass::Workgroup) continue;
    const Instruction* root = RootVariable(context, id);
    if (root == nullptr) return false;
    out->push_back({root->result_id(), static_cast<int>(i) == written});
  }
  return true;
}

bool SameOperands(const Instruction* a, const Instruction* b) {
  if (a->NumInOperands() != b->NumInOperands()) return false;
  for (uint32_t i = 0; i < a->NumInOperands(); ++i) {
    if (!(a->GetInOperand(i).words == b->GetInOperand(i).words)) return false;
  }
  return true;
}

// Whether control barrier |p| orders shared memory between all invocations
// of the workgroup at least as control barrier |a| does: |p| has |a|'s
// operands, or its scopes are constants no narrower than Workgroup
// (CrossDevice, Device, Workgroup) and its semantics a constant naming
// WorkgroupMemory with AcquireRelease or SequentiallyConsistent. A
// subgroup-scope barrier (subgroupBarrier()) does not.
bool OrdersSharedLike(IRContext* context, const Instruction* p, const Instruction* a) {
  if (SameOperands(p, a)) return true;
  if (p->NumInOperands() != 3) return false;
  auto* def_use = context->get_def_use_mgr();
  uint64_t value[3] = {};
  for (uint32_t i = 0; i < 3; ++i) {
    const Instruction* c = def_use->GetDef(p->GetSingleWordInOperand(i));
    if (c == nullptr || !IntConstant(context, c, &value[i])) return false;
  }
  constexpr uint64_t kWorkgroupScope = 2;  // CrossDevice 0, Device 1
  constexpr uint64_t kWorkgroupMemory = 0x100, kOrdering = 0x8 | 0x10;
  return value[0] <= kWorkgroupScope && value[1] <= kWorkgroupScope &&
         (value[2] & kWorkgroupMemory) != 0 && (value[2] & kOrdering) != 0;
}

bool Fail(std::string* why, const char* text) {
  if (why != nullptr) *why = text;
  return false;
}

bool EndsInvocation(spv::Op op) {
  return op == spv::Op::OpReturn || op == spv::Op::OpReturnValue || op == spv::Op::OpKill ||
         op == spv::Op::OpUnreachable || op == spv::Op::OpTerminateInvocation;
}

// The accesses on every path from |a| up to the next control barrier, which
// must be the same one on every path (|*next|). False with |*why| otherwise.
bool AccessesUpToNextBarrier(IRContext* context, Instruction* a, Instruction** next,
                             std::vector<Access>* out, std::string* why) {
  BasicBlock* start = context->get_instr_block(a);
  std::vector<std::pair<BasicBlock*, bool>> stack = {{start, true}};
  std::unordered_set<uint32_t> seen;
  while (!stack.empty()) {
    auto [block, from_a] = stack.back();
    stack.pop_back();
    auto it = from_a ? ++BasicBlock::iterator(a) : block->begin();
    bool stopped = false;
    for (; it != block->end(); ++it) {
      if (it->opcode() == spv::Op::OpControlBarrier) {
        if (*next != nullptr && *next != &*it) {
          return Fail(why, "paths from the barrier reach different barriers");
        }
        *next = &*it;
        stopped = true;
        break;
      }
      if (MemoryEffectOf(context, &*it) == MemoryEffect::kBarrier) {
        return Fail(why, "a memory barrier follows it");
      }
      if (EndsInvocation(it->opcode())) {
        return Fail(why, "a path from the barrier ends before another barrier");
      }
      if (!WorkgroupAccesses(context, &*it, out)) {
        return Fail(why,
                    "an instruction after it has effects on memory that "
                    "cannot be attributed to a shared variable");
      }
    }
    if (stopped) continue;
    bool loops = false;
    block->ForEachSuccessorLabel([&](uint32_t succ) {
      if (succ == start->id()) loops = true;
      if (!seen.insert(succ).second) return;
      stack.push_back({context->get_instr_block(succ), false});
    });
    if (loops) return Fail(why, "it is inside a loop");
  }
  if (*next == nullptr) return Fail(why, "no barrier follows it");
  return true;
}

// The accesses on every path into |a| since the previous control barrier
// that orders shared memory as |a| does (OrdersSharedLike; or the
// function's start). False with |*why| when one cannot be named.
bool AccessesSincePreviousBarrier(IRContext* context, Instruction* a, std::vector<Access>* out,
                                  std::string* why) {
  BasicBlock* start = context->get_instr_block(a);
  std::vector<std::pair<BasicBlock*, bool>> stack = {{start, true}};
  std::unordered_set<uint32_t> seen = {start->id()};
  while (!stack.empty()) {
    auto [block, at_a] = stack.back();
    stack.pop_back();
    std::vector<Instruction*> insts;
    for (Instruction& inst : *block) {
      if (at_a && &inst == a) break;
      insts.push_back(&inst);
    }
    bool stopped = false;
    for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
      if ((*it)->opcode() == spv::Op::OpControlBarrier && OrdersSharedLike(context, *it, a)) {
        stopped = true;
        break;
      }
      if (!WorkgroupAccesses(context, *it, out)) {
        return Fail(why,
                    "an instruction before it has effects on memory that "
                    "cannot be attributed to a shared variable");
      }
    }
    if (stopped) continue;
    for (uint32_t pred : context->cfg()->preds(block->id())) {
      if (!seen.insert(pred).second) continue;
      stack.push_back({context->get_instr_block(pred), false});
    }
  }
  return true;
}

bool Conflict(const std::vector<Access>& x, const std::vector<Access>& y) {
  for (const Access& p : x) {
    for (const Access& q : y) {
      if (p.var == q.var && (p.write || q.write)) return true;
    }
  }
  return false;
}

}  // namespace

bool RedundantBarrier(IRContext* context, Function* func, Instruction* a, Instruction** next,
                      std::string* why) {
  if (a->opcode() != spv::Op::OpControlBarrier || a->NumInOperands() != 3) {
    return Fail(why, "not a control barrier");
  }
  uint64_t semantics = 0;
  const Instruction* sem = context->get_def_use_mgr()->GetDef(a->GetSingleWordInOperand(2));
  if (sem == nullptr || !IntConstant(context, sem, &semantics)) {
    return Fail(why, "its memory semantics are not a constant");
  }
  if ((semantics & kOtherStorageBits) != 0) {
    return Fail(why, "it orders memory other than shared memory");
  }
  BasicBlock* block = context->get_instr_block(a);
  if ((*context->GetLoopDescriptor(func))[block->id()] != nullptr) {
    return Fail(why, "it is inside a loop");
  }
  // The look back ends at the function's start: a caller's accesses before
  // the call are not seen, so only an entry point's function qualifies.
  bool entry = false;
  for (const Instruction& ep : context->module()->entry_points()) {
    if (ep.GetSingleWordInOperand(1) == func->result_id()) entry = true;
  }
  if (!entry) return Fail(why, "it is not in an entry point's function");
  Instruction* b = nullptr;
  std::vector<Access> between, before;
  if (!AccessesUpToNextBarrier(context, a, &b, &between, why)) return false;
  if (!SameOperands(a, b)) {
    return Fail(why, "the next barrier has other scopes or semantics");
  }
  if (!AccessesSincePreviousBarrier(context, a, &before, why)) return false;
  if (Conflict(between, before)) {
    return Fail(why,
                "a shared variable accessed before it is accessed after "
                "it, and one of the accesses writes");
  }
  if (next != nullptr) *next = b;
  return true;
}

BasicBlock* UsesDominator(IRContext* context, Function* func,
                          const std::vector<Instruction*>& defs) {
  spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(func);
  BasicBlock* common = nullptr;
  auto add = [&](BasicBlock* b) {
    if (b == nullptr) return;
    common = common == nullptr ? b : dom->CommonDominator(common, b);
  };
  auto* def_use = context->get_def_use_mgr();
  // A store into a Function variable that nothing loads (what ssa-rewrite
  // leaves of a local) is no use.
  auto dead_store = [&](Instruction* user) {
    if (user->opcode() != spv::Op::OpStore) return false;
    Instruction* var = def_use->GetDef(user->GetSingleWordInOperand(0));
    if (var == nullptr || var->opcode() != spv::Op::OpVariable ||
        spv::StorageClass(var->GetSingleWordInOperand(0)) != spv::StorageClass::Function) {
      return false;
    }
    return def_use->WhileEachUser(var, [](Instruction* u) {
      return u->opcode() == spv::Op::OpStore || u->opcode() == spv::Op::OpName ||
             u->opcode() == spv::Op::OpDecorate;
    });
  };
  for (Instruction* def : defs) {
    def_use->ForEachUse(def, [&](Instruction* user, uint32_t operand) {
      if (dead_store(user)) return;
      if (user->opcode() == spv::Op::OpPhi) {
        add(context->get_instr_block(user->GetSingleWordOperand(operand + 1)));
      } else {
        add(context->get_instr_block(user));
      }
    });
  }
  return common;
}

bool StoreMayCross(IRContext* context, const Instruction* inst, uint32_t var) {
  if (MemoryEffectOf(context, inst) == MemoryEffect::kBarrier) return false;
  std::vector<Access> accesses;
  if (!WorkgroupAccesses(context, inst, &accesses)) return false;
  for (const Access& a : accesses) {
    if (a.var == var) return false;
  }
  return true;
}

bool MayWriteAfter(IRContext* context, Instruction* from, uint32_t var) {
  BasicBlock* start = context->get_instr_block(from);
  std::vector<std::pair<BasicBlock*, bool>> stack = {{start, true}};
  std::unordered_set<uint32_t> seen;
  while (!stack.empty()) {
    auto [block, at_from] = stack.back();
    stack.pop_back();
    auto it = at_from ? BasicBlock::iterator(from) : block->begin();
    for (; it != block->end(); ++it) {
      const MemoryEffect effect = MemoryEffectOf(context, &*it);
      if (effect == MemoryEffect::kCall || effect == MemoryEffect::kUnknown) return true;
      if (effect != MemoryEffect::kWrite) continue;
      const int written = WrittenOperand(context, &*it);
      if (written < 0) return true;
      const uint32_t ptr = it->GetSingleWordInOperand(static_cast<uint32_t>(written));
      const Instruction* root = RootVariable(context, ptr);
      if (root == nullptr ? PointerClass(context, ptr) == spv::StorageClass::Workgroup
                          : root->result_id() == var) {
        return true;
      }
    }
    block->ForEachSuccessorLabel([&](uint32_t succ) {
      if (seen.insert(succ).second) stack.push_back({context->get_instr_block(succ), false});
    });
  }
  return false;
}

}  // namespace waveopt
