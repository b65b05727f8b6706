// Facts about control barriers and shared (Workgroup) memory that passes
// need to move work across barriers or drop a barrier.
//
// RedundantBarrier(a): control barrier |a| can be removed without changing
// what any invocation reads, for every subgroup size and every schedule:
//   - |a| orders Workgroup memory only (its memory semantics, a constant,
//     name no storage class but WorkgroupMemory), is outside every loop and
//     is in an entry point's function (the look back below ends at the
//     function's start, which in a called function would miss the caller);
//   - every path from |a| reaches the same control barrier |b| (same scope
//     and semantics operands as |a|) before any other barrier, call, return
//     or unknown instruction (MemoryEffectOf, lib/analysis/memory_effects.h);
//   - no Workgroup variable is accessed both between |a| and |b| and
//     between the control barrier before |a| that orders shared memory for
//     the whole workgroup at least as |a| does (not a subgroup-scope one;
//     or the function's start) and |a|, with a write on either side.
//     Accesses are attributed to the variable their pointer is derived
//     from (RootVariable); an access to Workgroup memory through a pointer
//     with no known variable makes the answer no.
// Accesses before |a| stay ordered against those after |b| by |b|; those
// between |a| and |b| touch nothing the invocations wrote or read before
// |a|, so no result depends on |a|.
//
// UsesDominator(defs): the nearest common dominator of the blocks that use
// the results of |defs| (a phi's use counts in its incoming block; a store
// into a Function variable that is never loaded is no use).
//
// MayWriteAfter(from, var): whether |from| or an instruction that runs after
// it (in its block, or in any block reachable from it) may write |var|: a
// write through a pointer derived from |var| or from no known variable, a
// call, or an instruction whose effect is unknown.
#ifndef WAVEOPT_LIB_ANALYSIS_BARRIERS_H_
#define WAVEOPT_LIB_ANALYSIS_BARRIERS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace spvtools {
namespace opt {
class BasicBlock;
class Function;
class Instruction;
class IRContext;
}  // namespace opt
}  // namespace spvtools

namespace waveopt {

// See the contract above. On false, |*why| says what keeps |a| (when not
// null); on true, |*next| (when not null) is |b|.
bool RedundantBarrier(spvtools::opt::IRContext* context, spvtools::opt::Function* func,
                      spvtools::opt::Instruction* a, spvtools::opt::Instruction** next,
                      std::string* why);

// See the contract above; null when no result of |defs| is used.
spvtools::opt::BasicBlock* UsesDominator(spvtools::opt::IRContext* context,
                                         spvtools::opt::Function* func,
                                         const std::vector<spvtools::opt::Instruction*>& defs);

// Whether a store to Workgroup variable |var| may move from before |inst|
// to after it: |inst| is no barrier, call or instruction of unknown effect,
// and accesses no memory through a pointer derived from |var| (or a
// Workgroup pointer derived from no known variable).
bool StoreMayCross(spvtools::opt::IRContext* context, const spvtools::opt::Instruction* inst,
                   uint32_t var);

// See the contract above.
bool MayWriteAfter(spvtools::opt::IRContext* context, spvtools::opt::Instruction* from,
                   uint32_t var);

}  // namespace waveopt

#endif  // WAVEOPT_LIB_ANALYSIS_BARRIERS_H_
