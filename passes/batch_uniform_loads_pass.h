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
//                  (OpGroupNonUniformBroadcast with a dynamic id on 1.5+;
//                  under --assume-driver=cpu chosen by SubgroupSize: see
//                  Read)
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
// UniformityAnalysis, LoopAnalysis (lib/analysis/loops.h: shape, inductions,
// exits, trip counts, writes, invariance, recomputation), dominators.
#ifndef WAVEOPT_PASSES_BATCH_UNIFORM_LOADS_PASS_H_
#define WAVEOPT_PASSES_BATCH_UNIFORM_LOADS_PASS_H_

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/loops.h"
#include "passes/wave_pass.h"

namespace spvtools {
namespace opt {
class Loop;
}  // namespace opt
}  // namespace spvtools

namespace waveopt {

class Emitter;
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
    // most waves per SIMD up to 32 VGPRs at wave64 and wave32. Calibrated
    // with RADV (scripts/corpus/calibrate_registers.py, see the pass doc):
    // every batched kernel estimated at up to 32 compiled to at most 32
    // VGPRs; from 35 on most lost waves.
    uint32_t max_live = 32;
    // A loop with a constant trip count up to this many iterations and no
    // DontUnroll is left to the driver, which unrolls it (0: never).
    uint32_t driver_unroll = 32;
    // Skip the cost rule (legality still applies).
    bool always = false;
    // The slot read: chosen by ChooseRead, or forced by read=shuffle,
    // broadcast, shuffle-or-broadcast or shuffle-or-first (see Read).
    enum class ReadParam { kChosen, kShuffle, kBroadcast, kShuffleOrBroadcast, kShuffleOrFirst };
    ReadParam read = ReadParam::kChosen;
  };
  // Accepts "min-trip=N,max-components=N,max-live=N,driver-unroll=N,always,
  // read=shuffle|broadcast|shuffle-or-broadcast|shuffle-or-first".
  static bool ParseParams(const std::string& text, Params* params, std::string* error);
  static bool ValidateParams(const std::string& text, std::string* error) {
    Params p;
    return ParseParams(text, &p, error);
  }

  explicit BatchUniformLoadsPass(PassConfig config);
  const char* name() const override { return "batch-uniform-loads"; }
  // The analysis contract: def-use, instruction-to-block and decorations
  // stay valid across its rewrites; it adds loops and blocks, so the CFG, dominators and loops are
  // not kept.
  spvtools::opt::IRContext::Analysis GetPreservedAnalyses() override { return kEditedAnalyses; }
  Status Process() override;
  // One round: every nest's innermost candidate. |*deferred| is set when a
  // nest has another candidate for the next round; on the |last_round| it
  // gets a NestedLoopBatched remark instead.
  Status ProcessRound(bool last_round, bool* deferred);

  // One shuffled piece of a loaded value: the indices that reach it from
  // the loaded composite, its type, and how it travels between lanes.
  struct Leaf {
    enum class Carry {
      kAsIs,   // 32-bit scalars and vectors, bools
      kBits,   // bitcast to |words| uints: 64-bit scalars, 16-bit pairs, 8-bit quads
      kFloat,  // a 16-bit float as a 32-bit one (exact)
      kUInt,   // an 8/16-bit unsigned integer zero-extended to 32 bits
      kSInt,   // an 8/16-bit signed integer sign-extended to 32 bits
    };
    std::vector<uint32_t> path;
    uint32_t type = 0;
    Carry carry = Carry::kAsIs;
    uint32_t components = 1;  // 32-bit words moved
  };

 private:
  // Whether the batch may read the owning lane with a broadcast (SPIR-V 1.5
  // and later, SPIR-V output) rather than a shuffle.
  bool CanBroadcast() const;
  // How a batch reads a slot from the lane that loaded it.
  //   kShuffle: OpGroupNonUniformShuffle (before SPIR-V 1.5, or GLSL/HLSL
  //     output: no broadcast of a dynamically uniform lane there);
  //   kBroadcast: OpGroupNonUniformBroadcast (SPIR-V 1.5+);
  //   kShuffleOrBroadcast: a shuffle when SubgroupSize is kCpuShuffleLanes,
  //     else a broadcast (--assume-driver=cpu, where broadcast is possible);
  //   kShuffleOrFirst: a shuffle at kCpuShuffleLanes, else batches of one
  //     slot read with OpGroupNonUniformBroadcastFirst (the cpu profile
  //     elsewhere).
  // `read=` forces one; where no broadcast is possible "broadcast" becomes
  // kShuffle and "shuffle-or-broadcast" kShuffleOrFirst.
  enum class Read { kShuffle, kBroadcast, kShuffleOrBroadcast, kShuffleOrFirst };
  Read ChooseRead() const;
  // What the applied remark adds for |read| ("" for one read).
  static std::string ReadNote(Read read);
  struct RewriteState;
  // Emits the read of |value| (of |type|) from lane |owner| with |e|, in
  // |s|'s form; 0 when ids ran out.
  uint32_t ReadSlot(Emitter* e, const RewriteState& s, uint32_t type, uint32_t value,
                    uint32_t owner);

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
  // How the rewritten inner loop leaves. kAtHeader and kAtLatch: the loop's
  // one way out is a predictable exit tested by the header's (or the back
  // edge's) own branch; the batch's trip count is computed once in the fill
  // and that branch tests the slot counter against it (one exit, as a hand
  // writes it). kTwoExits: the loop's own exits stay where they are and the
  // back edge also leaves when the batch is used up.
  enum class ExitForm { kTwoExits, kAtHeader, kAtLatch };
  // The cost rule's verdict on a plan (CostRule; kCostNames has each one's
  // remark name). kNotCosted: the analysis refused the loop before it.
  enum class Cost {
    kNotCosted,
    kPays,
    kShortLoop,
    kUnrolledByDriver,
    kTooManyComponents,
    kRegisterPressure,
    kNotProfitable,
  };
  static const char* CostName(Cost cost);
  // Whether a plan with this verdict gets the LiveEstimate remark: the
  // cost rule looked at its registers (it got past the trip-count rules).
  static bool ReportsLiveEstimate(Cost cost);
  // A loop the pass can rewrite, and the loads it batches.
  // The loop's shape (lib/analysis/loops.h) and what the rewrite needs
  // beyond it.
  struct Plan : LoopShape {
    // Induction variables stepped by additions (the ones the fill can
    // compute for a lane's iteration), in header order.
    std::vector<Induction> ivs;
    // The exits the fill evaluates for a lane's iteration (see LoopExit).
    std::vector<LoopExit> exits;
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
    // Loads left out of |batched| because the driver profile scalarizes
    // them (DriverScalarizes), and what they read, for the remarks.
    uint32_t left_to_driver = 0;
    std::string left_to_driver_why;
    // Where the inner loop leaves (see ExitFormOf).
    ExitForm exit_form = ExitForm::kTwoExits;
    Cost cost = Cost::kNotCosted;
    // The loop reads nothing the pass could batch, and calls no function
    // that reads: no remark (NoCandidateLoads).
    bool no_candidates = false;
  };

  // A plan accepted in a round: its loop's depth and program order.
  struct Accepted {
    Plan plan;
    uint32_t depth;
    size_t order;
  };
  // The plans of |plans| rewritten this round: one per nest, innermost
  // first, in program order; the others set |*deferred| (or, on the
  // |last_round|, get a NestedLoopBatched remark).
  std::vector<Accepted> OnePerNest(std::vector<Accepted> plans, bool last_round, bool* deferred);

  // Whether |loop| calls a function that loads buffer memory (the
  // LoadInCallee refusal: |why| and |where| set).
  bool LoadsInCallee(spvtools::opt::Loop& loop, std::string* why,
                     spvtools::opt::Instruction** where);

  // Fills |plan| for |loop|, or returns a missed-remark name and sets |why|
  // (|where| gets the instruction the remark is about).
  std::string Analyze(spvtools::opt::Function* func, spvtools::opt::Loop* loop,
                      const UniformityAnalysis& uniformity, Plan* plan, std::string* why,
                      spvtools::opt::Instruction** where);
  // The block-structure part of Analyze: LoopAnalysis::Shape, and no
  // pointer or descriptor made in a block that does not dominate the back
  // edge used after the loop.
  std::string AnalyzeShape(spvtools::opt::Function* func, spvtools::opt::Loop* loop, Plan* plan,
                           std::string* why, spvtools::opt::Instruction** where);
  struct LoadScan;
  // Looks at one memory read |inst| of |block| in |plan|'s loop: batches it
  // (Plan::batched) or notes in |scan| why not.
  void ConsiderLoad(Plan* plan, spvtools::opt::BasicBlock* block, spvtools::opt::Instruction* inst,
                    const UniformityAnalysis& uniformity, const LoopExits& exits, LoadScan* scan);
  // The batched values of |inst| (|b| with its leaves): the loaded value
  // itself, or the 32-bit conversions of an 8/16-bit one the loop makes;
  // false with |why| when they cannot travel between lanes.
  bool BatchUnits(spvtools::opt::Instruction* inst, const Batched& b, std::vector<Batched>* units,
                  std::string* why);
  // Why |inst|, read ahead of time (Batched::speculative), cannot be
  // batched ("UnprovenBounds" with |why| and |where|), or "".
  std::string SpeculationRefusal(spvtools::opt::Instruction* inst, const Plan& plan,
                                 const std::vector<uint32_t>& operands, bool indexed,
                                 const LoopExits& exits, std::string* why,
                                 spvtools::opt::Instruction** where);
  // Under --assume-driver=radv, removes from |plan| the batched values RADV
  // loads with scalar loads itself (see the pass doc, "Driver profiles"):
  // OpLoads (not image reads) of a uniform buffer, or of a storage buffer
  // that is decorated NonWritable or that no instruction of the module
  // writes. Every batched value has a subgroup-uniform address already.
  void LeaveScalarLoadsToDriver(Plan* plan);
  // Why |read| (an OpLoad) reads memory RADV's scalar loads may read: a
  // description for the remark, or "" when it does not.
  std::string ScalarizableMemory(spvtools::opt::Instruction* read);
  // Variables some instruction of the module writes; |unknown| when a write
  // goes through a pointer or image with no root variable (or an
  // instruction's effect is unknown). Computed once per round.
  struct ModuleWrites {
    bool unknown = false;
    std::unordered_set<uint32_t> roots;
  };
  const ModuleWrites& WrittenByModule();
  // Adds |units| to |plan| (sharing the batch of a read of the same
  // address); the first carries the read's |cost|.
  void AddUnits(Plan* plan, std::vector<Batched> units, uint32_t cost);
  // Plan::recomputed: the loop instructions the fill recomputes.
  void CountRecomputed(Plan* plan);
  // Plan::live, function_live and caller_live.
  void EstimateLive(Plan* plan, const UniformityAnalysis& uniformity);
  // Whether the rewrite pays (see the pass doc); |why| for a refusal.
  Cost CostRule(const Plan& plan, std::string* why);
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
  uint32_t CallerLive(spvtools::opt::Function* func, const UniformityAnalysis& uniformity,
                      int depth = 0);

  // Emits into |block| the test that |inst|'s clone (operands per |map|)
  // reads inside its resource; 0 on failure. Only for Batched::speculative.
  uint32_t BoundsCheck(spvtools::opt::Instruction* inst, const Plan& plan,
                       spvtools::opt::BasicBlock* block,
                       std::unordered_map<uint32_t, uint32_t>* map);
  // Whether BoundsCheck can check |inst|; else |why| says what is missing.
  bool CanCheckBounds(spvtools::opt::Instruction* inst, std::string* why);

  // Rewrites |plan|'s loop; |*outer_header| gets the label of the outer
  // loop over batches it wraps around it. False when ids ran out. The steps
  // below, in order, share a RewriteState; each returns false when ids ran
  // out.
  bool Rewrite(const Plan& plan, uint32_t* outer_header);
  // An OpUndef of |type| (one per type); 0 when ids ran out.
  uint32_t Undef(uint32_t type);
  // The block that enters only the loop (RewriteState::pre): the plan's
  // preheader, or a new one the entries branch to.
  bool MakePreheader(RewriteState* s);
  // The preheader's ballot: ranks, the first lane, the batch size.
  bool EmitBallot(RewriteState* s);
  // The outer loop's header: a phi per header phi.
  bool EmitOuter(RewriteState* s, Emitter* e);
  // The fill: each induction at this lane's iteration (chain_map).
  bool EmitLaneIteration(RewriteState* s);
  // The fill: the exit tests at this lane's iteration, the slot guard.
  bool EmitExitTests(RewriteState* s);
  // The fill, for the one-exit forms: whether the loop ends in this batch
  // (RewriteState::ended) and the inner loop's trip count (::trips).
  bool EmitBatchTrips(RewriteState* s, uint32_t any, uint32_t to_stop);
  // RewriteState::carried.
  bool CarriedTypes(RewriteState* s);
  // The fill's guarded loads (RewriteState::cache), per group of values
  // sharing a guard; EmitLoadGroup emits a group's from |e|'s cursor, which
  // ends at their merge (false on failure); LoadGuard the guard of |b|'s
  // loads emitted into |cur| (0 on failure).
  bool EmitLoads(RewriteState* s, Emitter* e);
  bool EmitLoadGroup(RewriteState* s, const std::vector<size_t>& group, Emitter* e);
  uint32_t LoadGuard(RewriteState* s, const Batched& b, spvtools::opt::BasicBlock* cur);
  // The header: the slot counter, the shuffles, the rebuilt values.
  bool EmitShuffles(RewriteState* s);
  // |b|'s value rebuilt by |h| from its shuffled leaves |taken|.
  uint32_t RebuildValue(Emitter* h, const Batched& b, const std::vector<uint32_t>& taken);
  // The exits and the back edge retargeted to the inner merge.
  bool EmitInnerBackEdge(RewriteState* s);
  // The one-exit forms' counterpart: the loop's branch tests the slot
  // counter against the batch's trip count.
  bool EmitOneExit(RewriteState* s);
  // The inner merge: the phis that carry values out (and, with two exits,
  // RewriteState::ended).
  bool EmitInnerMerge(RewriteState* s, Emitter* im);
  bool EmitOneExitMerge(RewriteState* s);
  bool EmitInnerMergePhis(RewriteState* s, Emitter* im);
  bool RouteMergePhis(RewriteState* s, Emitter* im);
  bool RouteLoopValues(RewriteState* s, Emitter* im);
  // Whether |inst| is used after the loop (outside it, not in the inner
  // merge); ReplaceUsesAfterLoop makes those uses take |through| (false
  // when it is 0).
  bool UsedAfterLoop(RewriteState* s, spvtools::opt::Instruction* inst);
  bool ReplaceUsesAfterLoop(RewriteState* s, spvtools::opt::Instruction* inst, uint32_t through);

  // The form of |plan|'s inner loop (see ExitForm) given its |exits|.
  ExitForm ExitFormOf(const Plan& plan, const LoopExits& exits);
  // Whether |from| ends the loop's top: the blocks from the header to it,
  // each the one successor of the one before and entered only from it, so
  // that every iteration runs them first. The one-exit header form runs
  // them again, with the same values, when a batch ends and the next one
  // starts: they must be blocks for which that changes nothing
  // (RunsTwiceAlike: no writes, barriers, calls, volatile or atomic reads).
  bool TopRepeatable(const Plan& plan, spvtools::opt::BasicBlock* from);
  // Whether |block| only passes a loop exit on: no phi, no instruction with
  // a result or an effect, an OpBranch to the merge block, one predecessor.
  bool IsBreakBlock(const Plan& plan, spvtools::opt::BasicBlock* block);
  bool RunsTwiceAlike(const spvtools::opt::BasicBlock* block);

  // Which loop a remark is about, in terms the user can look up: " [loop
  // %N]" with the input's label (site markers, inputs without lines), "
  // [loop near %N]" when the header is not the input's own (an inlined
  // copy: %N is the input's instruction it starts near), " [loop at line
  // L]" in a module with lines, else " [loop %N]" with the module's own id.
  std::string LoopTag(const spvtools::opt::Loop& loop);

  Params params_;
  std::unique_ptr<LoopAnalysis> loops_;                   // per round
  std::unique_ptr<ModuleWrites> module_writes_;           // per round
  std::unordered_map<uint32_t, uint32_t> function_live_;  // by function id
  std::unordered_map<uint32_t, uint32_t> caller_live_;    // by function id
  // Loop headers done in an earlier round of this run: batched, reported
  // missed, or the outer loop over batches a rewrite made.
  std::unordered_set<uint32_t> handled_headers_;
  bool first_round_ = true;  // ProcessRound on the module as given
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_BATCH_UNIFORM_LOADS_PASS_H_
