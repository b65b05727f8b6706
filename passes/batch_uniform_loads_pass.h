// batch-uniform-loads: a loop whose lanes all load the same element each
// iteration (tiled lighting's light list, seed 000) loads one element per
// lane per batch instead, and each iteration takes its element from the lane
// that holds it.
//
// The loop is found by its structure (OpLoopMerge header, merge block, the
// one back-edge block), whatever its layout: exit test at the top, in the
// body or at the bottom (do-while, rotated loops, single-block loops), the
// body merged into the continue target (glslang's HLSL, spirv-opt -O),
// breaks and returns. Induction variables are header phis stepped by a
// constant (any step, either direction, any integer width, through
// int/uint bitcasts).
//
// Before (SSA; every lane loads lights[start + i] in every iteration):
//   %header: %i = OpPhi %uint %start %pre %i_next %latch
//            OpLoopMerge %merge %latch None
//            %c = OpULessThan %bool %i %end          ; any exit, anywhere
//            OpBranchConditional %c %body %merge
//   %body:   %p = OpAccessChain %ptr %lights %int_0 %i
//            %L = OpLoad %v4float %p
//   %latch:  %i_next = OpIAdd %uint %i %uint_1
//            OpBranch %header
//
// After: the loop becomes the inner loop of an outer loop over batches.
//   %pre:    %ballot = OpGroupNonUniformBallot %v4uint %subgroup %true
//            %first  = OpGroupNonUniformBroadcastFirst %uint %lane
//            %rank   = ExclusiveScan BitCount of %ballot
//            %lane   = ExclusiveScan BitCount of all ones (the lane id)
//            %batch  = Reduce BitCount of Ballot(%lane - %first == %rank)
//                      (the run of consecutive lanes from %first)
//   %outer:  %i0 = OpPhi %start %pre %i_out %outer_latch  ; per header phi
//            OpLoopMerge %merge %outer_latch None
//   %fill:   %ir = %i0 + %rank * step       ; this lane's iteration
//            %stop = every exit test the loop can predict, at %ir
//            %runs = ExclusiveScan BitCount of Ballot(%stop) == 0
//            %g = %rank < %batch && %runs && no exit before the load at %ir
//            (&& the element is in bounds, for a load the original might
//            not reach: see the pass doc)
//            OpBranchConditional %g %load %filled
//   %load:   %own = OpLoad (address at %ir)
//   %filled: %cache = OpPhi %own %load %null %fill
//   %header: %k = OpPhi %uint_0 %filled %k_next %latch  ; slot in the batch
//            %L' = OpGroupNonUniformShuffle %cache (%first + %k)
//                  (OpGroupNonUniformBroadcast with a dynamic id on 1.5+)
//            %k_next = %k + 1
//            OpLoopMerge %inner_merge %latch None
//            ... the loop as it was, %L replaced by %L', exits to
//            %inner_merge ...
//   %latch:  OpBranchConditional (%k_next < %batch) %header %inner_merge
//   %inner_merge: the next header values, whether the loop ended, the
//            loop's values used after it
//   %outer_latch: OpBranchConditional %ended %merge %outer
//
// Capabilities added: GroupNonUniformBallot, GroupNonUniformShuffle (before
// SPIR-V 1.5), ImageQuery (bounds of an image read ahead of time). Analyses:
// UniformityAnalysis, LoopDescriptor, dominators.
#ifndef WAVEOPT_PASSES_BATCH_UNIFORM_LOADS_PASS_H_
#define WAVEOPT_PASSES_BATCH_UNIFORM_LOADS_PASS_H_

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/wave_pass.h"

namespace spvtools {
namespace opt {
class Loop;
}  // namespace opt
}  // namespace spvtools

namespace waveopt {

class UniformityAnalysis;

class BatchUniformLoadsPass : public WavePass {
 public:
  struct Params {
    // Loops known to run fewer times are skipped.
    uint32_t min_trip = 4;
    // 32-bit components one batch may hold per lane (registers held across
    // the batch).
    uint32_t max_components = 16;
    // Estimated per-lane 32-bit values live in the loop after the rewrite
    // (the loop's own pressure, what its callers hold across the call, the
    // batch); above it the rewrite would cost occupancy. RDNA2 keeps its
    // most waves per SIMD up to 32 VGPRs at wave64 and wave32; the estimate
    // leaves the driver's temporaries out, hence the margin (calibrated on
    // the corpus with `waverun isa`, see the pass doc).
    uint32_t max_live = 28;
    // A loop with a constant trip count up to this many iterations and no
    // DontUnroll is left to the driver, which unrolls it (0: never).
    uint32_t driver_unroll = 32;
    // Skip the cost rule (legality still applies).
    bool always = false;
    // Test only: a deliberately wrong rewrite, to show the differential
    // tests catch it ("owner-lane-k", "no-bounds", "no-exit-ballot",
    // "whole-subgroup"; see the pass doc).
    std::string mutate;
  };
  // Accepts "min-trip=N,max-components=N,max-live=N,driver-unroll=N,always,
  // mutate=NAME".
  static bool ParseParams(const std::string& text, Params* params,
                          std::string* error);
  static bool ValidateParams(const std::string& text, std::string* error) {
    Params p;
    return ParseParams(text, &p, error);
  }

  explicit BatchUniformLoadsPass(PassConfig config);
  const char* name() const override { return "batch-uniform-loads"; }
  Status Process() override;
  // One round: every nest's innermost candidate. |*deferred| is set when a
  // nest has another candidate for the next round; on the |last_round| it
  // gets a NestedLoopBatched remark instead.
  Status ProcessRound(bool last_round, bool* deferred);

  // One shuffled piece of a loaded value: the indices that reach it from
  // the loaded composite, its type, and how it travels between lanes.
  struct Leaf {
    enum class Carry {
      kAsIs,    // 32-bit scalars and vectors, bools
      kBits,    // bitcast to |words| uints: 64-bit scalars, 16-bit pairs, 8-bit quads
      kFloat,   // a 16-bit float as a 32-bit one (exact)
      kUInt,    // an 8/16-bit unsigned integer zero-extended to 32 bits
      kSInt,    // an 8/16-bit signed integer sign-extended to 32 bits
    };
    std::vector<uint32_t> path;
    uint32_t type = 0;
    Carry carry = Carry::kAsIs;
    uint32_t components = 1;  // 32-bit words moved
  };

 private:
  // A header phi stepped by a constant each iteration.
  struct Induction {
    spvtools::opt::Instruction* phi = nullptr;
    uint64_t step = 0;  // modulo 2^width
    uint32_t width = 32;
  };
  // A way out of the loop whose condition the fill can evaluate for a later
  // iteration: a conditional branch in a block every iteration passes
  // (|from| dominates the back-edge block), on a value computed from the
  // induction variables and loop invariants only.
  struct Exit {
    spvtools::opt::BasicBlock* from = nullptr;
    uint32_t cond = 0;
    bool fires_when_true = true;
  };
  // One batched value (loads of the same address share it).
  struct Batched {
    std::vector<spvtools::opt::Instruction*> insts;  // program order
    // The memory read (insts[0] itself, or the load insts[0] converts).
    spvtools::opt::Instruction* read = nullptr;
    std::vector<Leaf> leaves;
    spvtools::opt::BasicBlock* block = nullptr;  // of the first
    // Exits (indices into Plan::exits) that can fire before it in an
    // iteration.
    std::vector<size_t> before;
    // The original might not execute it in an iteration the fill loads it
    // for: the fill checks its bounds first.
    bool speculative = false;
    uint32_t cost = 0;  // memory cost per iteration (see the pass doc)
  };
  // A loop the pass can rewrite, and the loads it batches.
  struct Plan {
    spvtools::opt::Function* function = nullptr;
    spvtools::opt::Loop* loop = nullptr;
    spvtools::opt::BasicBlock* header = nullptr;
    spvtools::opt::BasicBlock* merge = nullptr;
    spvtools::opt::BasicBlock* latch = nullptr;  // the back-edge block
    // The header's predecessors outside the loop; |preheader| is set when
    // there is one that branches only to the header (the ballot goes there).
    std::vector<spvtools::opt::BasicBlock*> entries;
    spvtools::opt::BasicBlock* preheader = nullptr;
    // Merge instructions outside the loop that name the header as their
    // merge block (they move to a new preheader).
    std::vector<spvtools::opt::Instruction*> merges_naming_header;
    std::vector<spvtools::opt::BasicBlock*> blocks;  // function order
    std::unordered_set<uint32_t> block_ids;
    std::unordered_set<uint32_t> dominate_latch;  // loop blocks that do
    std::vector<spvtools::opt::BasicBlock*> exit_sources;  // branch to merge
    std::vector<Induction> ivs;
    std::vector<Exit> exits;
    std::vector<Batched> batched;
    int64_t trips = -1;      // constant trip count, or -1
    int64_t max_trips = -1;  // an upper bound, or -1
    // Estimated per-lane 32-bit values live at the loop's busiest point
    // (subgroup-uniform values do not count: they live in scalar registers).
    uint32_t live = 0;
    uint32_t function_live = 0;  // the same for the whole function
    // Included in both: values the callers of a non-entry function hold
    // live across their calls to it (drivers inline every call).
    uint32_t caller_live = 0;
    // Instructions the fill recomputes per batch (addresses, exit tests).
    uint32_t recomputed = 0;
  };

  // "LoadInCallee" (|why|, |where| set) when |loop| calls a function that
  // loads buffer memory, else "NoCandidateLoads" (nothing to say).
  std::string LoadsInCallee(spvtools::opt::Loop& loop, std::string* why,
                            spvtools::opt::Instruction** where);

  // Fills |plan| for |loop|, or returns a missed-remark name and sets |why|
  // (|where| gets the instruction the remark is about).
  std::string Analyze(spvtools::opt::Function* func, spvtools::opt::Loop* loop,
                      const UniformityAnalysis& uniformity, Plan* plan,
                      std::string* why, spvtools::opt::Instruction** where);
  // The block-structure part of Analyze.
  std::string AnalyzeShape(spvtools::opt::Function* func,
                           spvtools::opt::Loop* loop, Plan* plan,
                           std::string* why,
                           spvtools::opt::Instruction** where);
  // Whether the rewrite pays (see the pass doc); "" or a remark name.
  std::string CostRule(const Plan& plan, std::string* why);
  // Estimated per-lane 32-bit values live at the busiest point of |blocks|
  // (of |func|); see Plan::live. With |at| (an instruction of one of the
  // blocks), |*at_live| gets the values live just after it, |at| itself
  // left out.
  uint32_t LiveEstimate(spvtools::opt::Function* func,
                        const std::vector<spvtools::opt::BasicBlock*>& blocks,
                        const UniformityAnalysis& uniformity,
                        const spvtools::opt::Instruction* at = nullptr,
                        uint32_t* at_live = nullptr);
  // Plan::caller_live of |func|: the most any call to it holds live across
  // the call, plus the same for the caller (|depth| bounds the walk).
  uint32_t CallerLive(spvtools::opt::Function* func,
                      const UniformityAnalysis& uniformity, int depth = 0);

  // Whether |id| is computed only from the induction variables of |plan|,
  // values defined outside the loop and constants, through operations the
  // rewrite can recompute (and loads of memory the loop cannot change when
  // |allow_loads|). |*uses_iv| is set when it depends on an induction
  // variable; |*indexed_load| when it goes through a load that does.
  bool IsAddressOf(uint32_t id, const Plan& plan, bool allow_loads,
                   bool* uses_iv, bool* indexed_load, int depth);

  // Whether |id| has the same value in every iteration of |plan|'s loop:
  // defined outside it, or recomputable from such values and loads of
  // memory the loop cannot change (loads only in |prefix| blocks, which
  // every iteration runs before it can leave, when |prefix| is not null).
  bool IsInvariantExpr(uint32_t id, const Plan& plan,
                       const std::unordered_set<uint32_t>* prefix, int depth);

  // Whether |inst| (a load or image read in the loop) may see a write made
  // in the loop: stores/atomics/image writes to its memory, barriers, calls
  // that do either. "" or a remark name with |why|.
  std::string MemoryHazard(const Plan& plan, spvtools::opt::Instruction* inst,
                           std::string* why);

  // Clones the in-loop part of |id|'s computation before the end of |block|
  // with each induction phi replaced as |map| says (|map| also memoises the
  // clones). 0 on failure.
  uint32_t CloneAt(uint32_t id, const Plan& plan,
                   spvtools::opt::BasicBlock* block,
                   std::unordered_map<uint32_t, uint32_t>* map);

  // Emits into |block| the test that |inst|'s clone (operands per |map|)
  // reads inside its resource; 0 on failure. Only for Batched::speculative.
  uint32_t BoundsCheck(spvtools::opt::Instruction* inst, const Plan& plan,
                       spvtools::opt::BasicBlock* block,
                       std::unordered_map<uint32_t, uint32_t>* map);
  // Whether BoundsCheck can check |inst|; else |why| says what is missing.
  bool CanCheckBounds(spvtools::opt::Instruction* inst, std::string* why);

  // The module's SubgroupLocalInvocationId input (declared when missing),
  // on every entry point's interface; 0 when ids ran out.
  uint32_t LaneIdVariable();

  // Rewrites |plan|'s loop; |*outer_header| gets the label of the outer
  // loop over batches it wraps around it. False when ids ran out.
  bool Rewrite(const Plan& plan, uint32_t* outer_header);

  // The blocks of |loop| in function order (cached per loop).
  const std::vector<spvtools::opt::BasicBlock*>& LoopBlocks(
      spvtools::opt::Loop& loop);

  // What the loop (and what it calls) writes, computed once per loop.
  struct LoopWrites {
    bool barrier = false;
    bool unknown = false;  // a write through a pointer with no root variable
    bool unknown_private = false;  // the same, to Function/Private memory
    bool physical = false;  // a write through a PhysicalStorageBuffer pointer
    bool buffers = false;   // a write to any buffer memory
    std::unordered_set<uint32_t> roots;  // written variables (images too)
    bool aliased = false;  // a written variable is decorated Aliased
    // The first instruction (in block order) whose effect on memory is not
    // known (lib/analysis/memory_effects.h); null when there is none.
    const spvtools::opt::Instruction* unknown_inst = nullptr;
  };
  const LoopWrites& WritesOf(spvtools::opt::Loop& loop);

  // " [loop %N]": which loop a remark is about, for modules without lines.
  static std::string LoopTag(const spvtools::opt::Loop& loop);

  Params params_;
  std::unordered_map<uint32_t, std::vector<spvtools::opt::BasicBlock*>>
      loop_blocks_;  // by header id
  std::unordered_map<uint32_t, LoopWrites> loop_writes_;  // by header id
  std::unordered_map<uint32_t, uint32_t> function_live_;  // by function id
  std::unordered_map<uint32_t, uint32_t> caller_live_;    // by function id
  // Loop headers done in an earlier round of this run: batched, reported
  // missed, or the outer loop over batches a rewrite made.
  std::unordered_set<uint32_t> handled_headers_;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_BATCH_UNIFORM_LOADS_PASS_H_
