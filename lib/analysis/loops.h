// Loop analyses shared by the passes: the facts about a structured loop that
// batch-uniform-loads, morton-remap and workgroup-reduce decide from.
//
//   - Shape: a structured loop's header, merge block, back-edge block,
//     entries, blocks in function order, and which ways lead out of it.
//   - Induction variables: header phis (and, before SSA rewriting, Function
//     variables stored once before the loop and once in it) stepped each
//     iteration by a constant: i + c, i - c, i * c, i << c, i >> c (logical
//     and arithmetic), at any integer width, through int/uint bitcasts.
//   - Exits: the ways out of an iteration, which of them a later iteration's
//     induction values predict, the blocks every iteration runs before any
//     exit can fire.
//   - Trip counts: the iterations a point of the loop runs, simulated from
//     constant starts and constant bounds (exactly, or an upper bound).
//   - What a loop writes (and what the functions it calls write), and
//     whether a load in it may see such a write.
//   - Invariance: whether a value is the same in every iteration, or a
//     function of the induction variables a rewrite may recompute for
//     another iteration, and the recomputation itself (CloneAt).
//
// Built on SPIRV-Tools' LoopDescriptor (headers, nesting, merge blocks);
// every result is about the module as it is when asked: rebuild the
// analysis (or Clear() it) after changing the module.
#ifndef WAVEOPT_LIB_ANALYSIS_LOOPS_H_
#define WAVEOPT_LIB_ANALYSIS_LOOPS_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/int_eval.h"
#include "spirv/unified1/spirv.hpp11"

namespace spvtools {
namespace opt {
class BasicBlock;
class Function;
class Instruction;
class IRContext;
class Loop;
}  // namespace opt
}  // namespace spvtools

namespace waveopt {

// ---------------------------------------------------------------------------
// Small facts about values and memory the loop analyses are made of (and the
// passes that use them share).

// (IntConstant, the one constant reader, is in analysis/ir_util.h.)
// MaskTo and SignExtend are in analysis/int_eval.h (inline).
// The result of integer comparison |op| on |a| and |b| of |width| bits;
// |*known| is false when |op| is no integer comparison.
bool CompareInts(spv::Op op, uint64_t a, uint64_t b, uint32_t width, bool* known);
bool CompareIntsWith(const IntOp* entry, uint64_t a, uint64_t b, uint32_t width, bool* known);

// The OpVariable a pointer is derived from through access chains (and the
// image variable behind a texel pointer), or null.
spvtools::opt::Instruction* RootVariable(spvtools::opt::IRContext* context, uint32_t ptr);
// The same, with the definitions |get_def|(id) gives (Definitions).
template <typename GetDef>
spvtools::opt::Instruction* RootVariableOf(const GetDef& get_def, uint32_t ptr) {
  for (int depth = 0; depth < 64; ++depth) {
    auto* inst = get_def(ptr);  // dependent: Instruction is incomplete here
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
spvtools::opt::Instruction* ImageVariable(spvtools::opt::IRContext* context, uint32_t image);
// The storage class of pointer |ptr|'s type, or Max when it is no pointer.
spv::StorageClass PointerClass(spvtools::opt::IRContext* context, uint32_t ptr);
// Function, Private, Input, Output: memory of one invocation.
bool IsPrivateClass(spv::StorageClass sc);
// Image instructions that read a texel (fetch, read, explicit-lod samples
// and gathers).
bool IsImageRead(spv::Op op);
bool HasDecoration(spvtools::opt::IRContext* context, uint32_t id, spv::Decoration decoration);
bool HasMemberDecoration(spvtools::opt::IRContext* context, uint32_t struct_id, uint32_t member,
                         spv::Decoration decoration);

// Operations whose result a rewrite may recompute elsewhere: pure functions
// of their operands (a division by zero gives an undefined value, not
// undefined behaviour, and is only used where the original computes the
// same).
bool IsRecomputable(spvtools::opt::IRContext* context, const spvtools::opt::Instruction* inst);

// |id| with the phis that only pass one value on looked through: a phi
// whose incoming values are all one value (or itself: a loop phi the loop
// never changes) is that value. The SSA rewrite leaves many such phis in
// unoptimized code.
uint32_t LookThroughPhis(spvtools::opt::IRContext* context, uint32_t id);

// If |id| is |*base| + |*offset| through integer additions, subtractions of
// constants and same-width bitcasts (offset modulo 2^width), with |*base|
// the first value that is not such an operation.
void AffineOf(spvtools::opt::IRContext* context, uint32_t id, uint32_t* base, uint64_t* offset);

// ---------------------------------------------------------------------------
// Loop facts.

// A structured loop as the rewrites see it (see LoopAnalysis::Shape).
struct LoopShape {
  spvtools::opt::Function* function = nullptr;
  spvtools::opt::Loop* loop = nullptr;
  spvtools::opt::BasicBlock* header = nullptr;
  spvtools::opt::BasicBlock* merge = nullptr;
  spvtools::opt::BasicBlock* latch = nullptr;  // the back-edge block
  // The header's predecessors outside the loop (by id); |preheader| is set
  // when there is one that branches only to the header.
  std::vector<spvtools::opt::BasicBlock*> entries;
  spvtools::opt::BasicBlock* preheader = nullptr;
  // Merge instructions outside the loop that name the header as their merge
  // block (when there is no preheader).
  std::vector<spvtools::opt::Instruction*> merges_naming_header;
  std::vector<spvtools::opt::BasicBlock*> blocks;  // function order
  std::unordered_set<uint32_t> block_ids;
  std::unordered_set<uint32_t> dominate_latch;           // loop blocks that do
  std::vector<spvtools::opt::BasicBlock*> exit_sources;  // branch to merge
};

// A value stepped by a constant each iteration: a header phi (SSA form), or
// a Function variable stored once before the loop and once in it (memory
// form, before SSA rewriting: |load| is a load of it in the loop).
struct Induction {
  enum class Kind {
    kAdd,                  // next = i + step (subtractions: step mod 2^width)
    kMul,                  // next = i * step
    kShiftLeft,            // next = i << step
    kShiftRightLogical,    // next = i >> step (zero fill)
    kShiftRightArithmetic  // next = i >> step (sign fill)
  };
  spvtools::opt::Instruction* phi = nullptr;       // SSA form
  spvtools::opt::Instruction* variable = nullptr;  // memory form
  Kind kind = Kind::kAdd;
  uint64_t step = 0;  // addend (mod 2^width), factor or shift amount
  uint32_t width = 32;
  // The value one iteration after |value| (modulo 2^width).
  uint64_t Next(uint64_t value) const;
  // The id that holds the value (the phi, or the variable).
  uint32_t id() const;
};

// A way out of the loop whose condition a later iteration's induction
// values predict: a conditional branch in a block every iteration passes
// (|from| dominates the back-edge block), on a value computed from the
// induction variables and loop invariants only.
struct LoopExit {
  spvtools::opt::BasicBlock* from = nullptr;
  uint32_t cond = 0;
  bool fires_when_true = true;
};

struct LoopExits {
  std::vector<LoopExit> predictable;  // in function order
  // A way out no later iteration predicts (a return, a break on a value the
  // loop computes); |unpredictable_where| is the first one's terminator.
  bool unpredictable = false;
  spvtools::opt::Instruction* unpredictable_where = nullptr;
  // Blocks of the chain that every iteration runs before any exit can fire
  // (loads there may be repeated at the top of a batch).
  std::unordered_set<uint32_t> prefix;
};

// "The exit fires when (counter + offset) op bound" (negated when |negate|),
// the counter on the left of |op| or on its right.
struct ExitTest {
  size_t exit = 0;  // which exit (the caller's numbering)
  spv::Op op = spv::Op::OpNop;
  bool counter_left = true;
  size_t counter = 0;  // index into the inductions
  uint64_t offset = 0;
  uint64_t bound = 0;
  bool bound_is_max = false;  // the bound is min(x, bound): an upper bound only
  bool negate = false;
};

// Iterations of a point of a loop: |exact| when every exit is a test of a
// counter against a constant, |at_most| an upper bound; -1 when unknown.
struct TripCount {
  int64_t exact = -1;
  int64_t at_most = -1;
};

// What a loop (and what it calls) writes.
struct LoopWrites {
  bool barrier = false;
  bool unknown = false;                // a write through a pointer with no root variable
  bool unknown_private = false;        // the same, to Function/Private memory
  bool physical = false;               // a write through a PhysicalStorageBuffer pointer
  bool buffers = false;                // a write to any buffer memory
  std::unordered_set<uint32_t> roots;  // written variables (images too)
  bool aliased = false;                // a written variable is decorated Aliased
  // The first instruction (in block order) whose effect on memory is not
  // known (lib/analysis/memory_effects.h); null when there is none.
  const spvtools::opt::Instruction* unknown_inst = nullptr;
};

// Why a load in a loop may see a write made in the loop.
enum class LoadHazard {
  kNone,
  kUnknownMemory,       // the pointer or image does not come from a variable
  kCoherentOrVolatile,  // other invocations may change the memory meanwhile
  kLoopWritesMemory,    // the loop writes it (or memory that may alias it)
  kBarrierInLoop,       // other invocations may write it between iterations
  kUnknownInstruction,  // the loop holds an instruction of unknown memory effect
};
// The stable remark name of a hazard ("" for kNone).
const char* LoadHazardName(LoadHazard hazard);

class LoopAnalysis {
 public:
  // |context| must outlive this object.
  explicit LoopAnalysis(spvtools::opt::IRContext* context) : context_(context) {}
  // Forgets what was cached (call after changing the module).
  void Clear();

  // The blocks of |loop| in function order (cached per loop).
  const std::vector<spvtools::opt::BasicBlock*>& Blocks(spvtools::opt::Loop& loop);
  // What the loop (and what it calls) writes (cached per loop).
  const LoopWrites& Writes(spvtools::opt::Loop& loop);

  // Fills |shape| for |loop| of |func|: one back edge, reachable entries,
  // every way out to the merge block (or a return), the merge block entered
  // from the loop only, a back-edge block that branches to the header (and
  // possibly the merge block) and heads no construct, no construct inside
  // naming the loop's merge block. False with |why| (and |*where|, when an
  // instruction is to blame) otherwise.
  bool Shape(spvtools::opt::Function* func, spvtools::opt::Loop* loop, LoopShape* shape,
             std::string* why, spvtools::opt::Instruction** where);

  // The induction variables of |shape|'s loop among the header phis of a
  // 32- or 64-bit integer type, in header order.
  std::vector<Induction> Inductions(const LoopShape& shape);
  // The same for the loop of |header| whose back-edge block is |latch|.
  std::vector<Induction> Inductions(spvtools::opt::BasicBlock* header,
                                    spvtools::opt::BasicBlock* latch);
  // The memory-form induction |load| reads (a load in |loop| of a Function
  // variable stored a constant once before the loop and its own load
  // +/- a constant once in it); false when it is none. |*start| gets the
  // stored constant.
  bool MemoryInduction(spvtools::opt::Loop* loop, spvtools::opt::Instruction* load, Induction* iv,
                       uint64_t* start);
  // The constant every entry gives the header phi |iv| of the loop whose
  // back-edge block is |latch| (false when they differ or are not
  // constants).
  bool StartValue(const spvtools::opt::BasicBlock* latch, const Induction& iv, uint64_t* start);

  // The exits of |shape|'s loop; see LoopExits.
  LoopExits Exits(const LoopShape& shape, const std::vector<Induction>& ivs);

  // The block of |loop| that leaves it, when there is exactly one, it ends
  // in a conditional branch to the merge block and nothing in the loop
  // returns or kills; null otherwise. Blocks in function order.
  spvtools::opt::BasicBlock* SingleExitBlock(spvtools::opt::Function* func,
                                             spvtools::opt::Loop* loop);

  // |cond| (looked through logical nots, |negate| flipping the sense) as a
  // test of an induction of |ivs| (plus a constant) against a constant, or
  // (on the bound side of a less-than that keeps the loop going)
  // min(x, constant); false when it is neither. A memory-form induction is
  // matched by any load of its variable.
  bool AsExitTest(uint32_t cond, bool negate, const std::vector<Induction>& ivs, ExitTest* test);
  // Simulates the counters from |starts| until a test fires, iteration j
  // from 0 to |max_iteration|; a test fires in iteration j before the point
  // counted when |before_point(test.exit)|. Returns the iterations the
  // point runs, or -1 when no test fires.
  int64_t SimulateTrips(const std::vector<Induction>& ivs, const std::vector<uint64_t>& starts,
                        const std::vector<ExitTest>& tests, const std::vector<bool>& before_point,
                        int64_t max_iteration) const;
  // The trip count of the point of |shape|'s loop that |before| exits
  // precede (indices into |exits.predictable|): exact when every exit is
  // such a test, an upper bound when some are.
  TripCount CountTrips(const LoopShape& shape, const std::vector<Induction>& ivs,
                       const LoopExits& exits, const std::vector<size_t>& before);
  // The trip count of a loop with a single exit (SingleExitBlock) that
  // tests a counter (a header phi or a memory-form induction) against a
  // constant: the times its body runs (the header once more when the test
  // is in the header or the body; as often when it is in the back-edge
  // block). -1 when unknown or more than |max_trips| + 1.
  int64_t SingleExitTripCount(spvtools::opt::Function* func, spvtools::opt::Loop* loop,
                              int64_t max_trips);

  // Whether a load in |shape|'s loop may see a write made in the loop:
  // stores/atomics/image writes to its memory, barriers, calls that do
  // either; |why| says how.
  LoadHazard Hazard(const LoopShape& shape, spvtools::opt::Instruction* load, std::string* why);

  // Whether |id| has the same value in every iteration of |shape|'s loop:
  // defined outside it, or recomputable from such values and loads of
  // memory the loop cannot change (loads only in |prefix| blocks, which
  // every iteration runs before it can leave, when |prefix| is not null).
  bool IsInvariant(uint32_t id, const LoopShape& shape, const std::unordered_set<uint32_t>* prefix,
                   int depth = 0);
  // Whether |id| is computed from the induction variables |ivs| and values
  // invariant in the loop (loads only in |prefix| blocks) through
  // recomputable operations: a later iteration's value can be computed
  // ahead of time.
  bool IsPredictable(uint32_t id, const LoopShape& shape, const std::vector<Induction>& ivs,
                     const std::unordered_set<uint32_t>* prefix, int depth = 0);
  // Whether |id| is computed only from |ivs|, values defined outside the
  // loop and constants, through recomputable operations (and loads of
  // memory the loop cannot change when |allow_loads|). |*uses_iv| is set
  // when it depends on an induction variable; |*indexed_load| when it goes
  // through a load that does.
  bool IsAddressOf(uint32_t id, const LoopShape& shape, const std::vector<Induction>& ivs,
                   bool allow_loads, bool* uses_iv, bool* indexed_load, int depth = 0);

  // Recomputes the in-loop part of |id|'s computation at the end of |block|
  // with each value that |map| maps replaced (the induction phis, typically;
  // |map| also memoises the clones). Returns the clone's id, |id| itself when
  // it is defined outside the loop, 0 on failure (an unmapped induction phi,
  // ids ran out).
  uint32_t CloneAt(uint32_t id, const LoopShape& shape, spvtools::opt::BasicBlock* block,
                   std::unordered_map<uint32_t, uint32_t>* map);

 private:
  // Whether the header phi |phi| of the loop whose back-edge block is
  // |latch| is an induction; fills |iv|.
  bool PhiInduction(const spvtools::opt::BasicBlock* latch, spvtools::opt::Instruction* phi,
                    Induction* iv);
  // The index in |ivs| whose value |id| is (the phi, or a load of the
  // memory-form variable); |ivs.size()| when none.
  size_t CounterIndex(uint32_t id, const std::vector<Induction>& ivs);

  spvtools::opt::IRContext* context_;
  std::unordered_map<uint32_t, std::vector<spvtools::opt::BasicBlock*>> blocks_;  // by header id
  std::unordered_map<uint32_t, LoopWrites> writes_;                               // by header id
};

}  // namespace waveopt

#endif  // WAVEOPT_LIB_ANALYSIS_LOOPS_H_
