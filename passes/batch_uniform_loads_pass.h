// batch-uniform-loads: a loop whose lanes all load the same element each
// iteration (tiled lighting's light list, seed 000) loads one element per
// lane per batch instead, and each iteration takes its element from the lane
// that holds it.
//
// Before (SSA; every lane loads lights[start + i] in every iteration):
//   %header: %i = OpPhi %uint %start %pre %i_next %latch
//            OpLoopMerge %merge %latch None
//   %check:  %c = OpULessThan %bool %i %end        ; subgroup-uniform
//            OpBranchConditional %c %body %merge
//   %body:   %p = OpAccessChain %ptr %lights %int_0 %i
//            %L = OpLoad %v4float %p
//
// After (ranks and the batch size come from the ballot of the lanes that
// entered the loop; right for any subgroup size and any active set): the
// loop becomes the inner loop of an outer loop over batches.
//   %pre:    %ballot = OpGroupNonUniformBallot %v4uint %subgroup %true
//            %batch  = OpGroupNonUniformBallotBitCount Reduce %ballot
//            %rank   = OpGroupNonUniformBallotBitCount ExclusiveScan %ballot
//   %outer:  %i0 = OpPhi %uint %start %pre %i_out %outer_latch  ; batch start
//            (one such phi per header phi of the loop)
//            OpLoopMerge %merge %outer_latch None
//   %fill:   %ir = %i0 + %rank * step; if (%ir is an iteration that runs)
//            %own = OpLoad %v4float (address at %ir)       ; lane's element
//   %filled: %cache = OpPhi (%own or null)                  ; fixed per batch
//   %header: %i = OpPhi %uint %i0 %filled %i_next %latch
//            %k = OpPhi %uint %uint_0 %filled %k_next %latch ; slot in batch
//            OpLoopMerge %inner_merge %latch None
//   %check:  OpBranchConditional %c %body %inner_merge
//   %body:   %owner = %first + %k (lanes consecutive) or
//                     OpGroupNonUniformBallotFindLSB (Ballot (%rank == %k))
//            %L' = OpGroupNonUniformShuffle %v4float %cache %owner
//                  (OpGroupNonUniformBroadcast with a dynamic id on 1.5+)
//            %k_next = %k + 1
//            ... the body, with %L replaced by %L'.
//   %latch:  OpBranchConditional (%k_next < %batch) %header %inner_merge
//   %inner_merge: %i_out = OpPhi (%i from %check, %i_next from %latch)
//            %ended = OpPhi (true from %check, false from %latch)
//   %outer_latch: OpBranchConditional %ended %merge %outer
//
// The element is taken at the top of the iteration, where every lane of the
// loop is active, so loads in divergent parts of the body batch too. Values
// of the loop used after it are its header's, which still dominate the
// merge. Structs, arrays, vectors and matrices travel leaf by leaf; 64-bit
// leaves as 32-bit halves.
//
// Capabilities added: GroupNonUniformBallot, GroupNonUniformShuffle (before
// SPIR-V 1.5). Analyses: UniformityAnalysis, LoopDescriptor, dominators.
#ifndef WAVEOPT_PASSES_BATCH_UNIFORM_LOADS_PASS_H_
#define WAVEOPT_PASSES_BATCH_UNIFORM_LOADS_PASS_H_

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
    uint32_t min_trip = 2;  // skip loops known to run fewer times
  };
  // Accepts "min-trip=N".
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

 private:
  // A loop the pass can rewrite, and the loads it batches.
  struct Plan {
    spvtools::opt::Function* function = nullptr;
    spvtools::opt::Loop* loop = nullptr;
    spvtools::opt::BasicBlock* preheader = nullptr;
    spvtools::opt::BasicBlock* latch = nullptr;
    spvtools::opt::BasicBlock* body = nullptr;  // first block after the exit test
    spvtools::opt::BasicBlock* exit_block = nullptr;  // the exit test's block
    spvtools::opt::Instruction* iv = nullptr;   // the induction phi
    int64_t step = 0;
    spvtools::opt::Instruction* compare = nullptr;  // the exit test
    bool continue_when_true = true;  // the test's true edge stays in the loop
    std::vector<spvtools::opt::Instruction*> loads;  // every batched load, program order
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

  // Whether |id| is computed only from |iv|, values defined outside |loop|
  // and constants, through the operations the rewrite can recompute.
  bool IsAddressOf(uint32_t id, spvtools::opt::Loop& loop, uint32_t iv,
                   bool* uses_iv, int depth);

  // Whether |id| has the same value in every iteration of |loop|: defined
  // outside it, or recomputable from such values and loads of memory the
  // loop cannot change.
  bool IsInvariantExpr(uint32_t id, spvtools::opt::Loop& loop, int depth);

  // Whether |inst| (a load in the loop) may see a write made in the loop:
  // stores/atomics to its variable, barriers, calls that do either.
  std::string MemoryHazard(spvtools::opt::Loop& loop,
                           spvtools::opt::Instruction* load, std::string* why);

  // Clones the in-loop part of |id|'s computation before the end of |block|
  // with |iv| replaced by |replacement|; memoised in |map|. 0 on failure.
  // |in_loop| holds the ids of the loop's blocks (taken before the rewrite
  // added any).
  uint32_t CloneAt(uint32_t id, uint32_t iv, uint32_t replacement,
                   const std::unordered_set<uint32_t>& in_loop,
                   spvtools::opt::BasicBlock* block,
                   std::unordered_map<uint32_t, uint32_t>* map);

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
    std::unordered_set<uint32_t> roots;  // written variables
    bool aliased = false;  // a written variable is decorated Aliased
  };
  const LoopWrites& WritesOf(spvtools::opt::Loop& loop);

  Params params_;
  std::unordered_map<uint32_t, std::vector<spvtools::opt::BasicBlock*>>
      loop_blocks_;  // by header id
  std::unordered_map<uint32_t, LoopWrites> loop_writes_;  // by header id
  // Loop headers done in an earlier round of this run: batched, reported
  // missed, or the outer loop over batches a rewrite made.
  std::unordered_set<uint32_t> handled_headers_;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_BATCH_UNIFORM_LOADS_PASS_H_
