// workgroup-reduce: a reduction tree over a shared (Workgroup) array becomes
// subgroup reductions with one shared slot per subgroup (seed 001, "Group
// Wave Index"), or no shared memory at all when the workgroup is one
// subgroup.
//
// Before (GLSL; ggml's sum_rows, soft_max, norm, ...: the loop form, or the
// same steps unrolled, before or after spirv-opt -O):
//   tmp[tid] = v;                                    // S0
//   barrier();                                       // B0
//   for (uint s = N / 2; s > 0; s >>= 1) {
//     if (tid < s) tmp[tid] = tmp[tid] OP tmp[tid + s];
//     barrier();
//   }
//   ... = tmp[0];                                    // the readers
//
// After (generic form, right for any subgroup size and partial subgroups):
//   %r     = OpGroupNonUniform<OP> Reduce %v         ; per subgroup
//   %e     = OpGroupNonUniformElect
//            OpBranchConditional %e %slot %join      ; tmp[SubgroupId] = %r
//   %join: OpControlBarrier                          ; (B0's operands)
//   loop:  %total = identity OP tmp[0] OP ... OP tmp[slots - 1]
//          (every invocation, in order: a uniform loop; slots =
//          NumSubgroups, + 1 when NumSubgroups * SubgroupSize < invocations,
//          where lavapipe rounds NumSubgroups down: not emitted when the
//          workgroup is a constant multiple of 128 or under
//          --assume-driver=radv)
//   ... = %total                                     ; the readers
// (fold=rank instead: lane i of the active ones folds slots i, i + active,
// ... and a second OpGroupNonUniform<OP> Reduce makes the total.)
// Single-subgroup form (the workgroup is provably one subgroup: a
// --subgroup-size= promise, the RADV profile's waves of 32 or more, or a
// run-time test NumSubgroups == 1 choosing between the two forms):
//   %total = OpGroupNonUniform<OP> Reduce %v         ; no store, no barrier
// Without S0 right before B0 (the values are accumulated in the array), the
// forms start with B0 and a load of tmp[LocalInvocationIndex], and the
// generic form has a barrier before the slots are written.
//
// Legality is decided by running the kernel: WorkgroupTrace
// (lib/analysis/workgroup_trace.h) follows every invocation from B0 for the
// workgroup size (and, for a specialization-constant size, for every power
// of two from 2 to 1024: other sizes take the original code, kept behind a
// run-time test); the pass replays the barrier phases with the multiset of
// original elements each element holds, and rewrites only when every step
// combines two loaded elements with one associative and commutative
// operation, no invocation touches an element another writes in the same
// phase, the tree leaves exactly every element 0..M-1 once in the element
// the readers read, and no later load reads a partial value. See
// docs/passes/workgroup-reduce.md for the remarks, options and cost rule.
// Arrays of arrays (each row its own tree, all rewritten under one barrier)
// and vector elements: workgroup_reduce_rows.h.
//
// Capabilities added: GroupNonUniform, GroupNonUniformArithmetic.
#ifndef WAVEOPT_PASSES_WORKGROUP_REDUCE_PASS_H_
#define WAVEOPT_PASSES_WORKGROUP_REDUCE_PASS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "passes/emitter.h"
#include "passes/wave_pass.h"
#include "passes/workgroup_reduce_reason.h"

namespace waveopt {

class WorkgroupTrace;
struct TraceConfig;

// The operation a tree's step combines two elements with (ext: an
// OpExtInst's GLSL.std.450 number); OpNop where not one known operation.
struct StepOp {
  spv::Op op = spv::Op::OpNop;
  uint32_t ext = 0;
};

// Whether |func| runs a barrier and stores into a shared array a
// combination of two of its elements (a candidate tree's step): the pass
// follows trees only in an entry point's own function, so -O's inliner
// inlines the calls of such functions.
bool HoldsWorkgroupTreeStep(spvtools::opt::IRContext* context, spvtools::opt::Function* func);

class WorkgroupReducePass : public WavePass {
  using Reason = WorkgroupReduceReason;

 public:
  struct Params {
    // Float add/mul/min/max trees too: a subgroup reduction groups the
    // values differently (sums round differently; min/max may return the
    // other zero of +-0.0 or another NaN). The option prereduce-atomics'
    // float atomics share.
    bool float_reassoc = false;
    // Skip the cost rule (legality still applies).
    bool always = false;
    // Which form: the cost rule's, kGeneric ("generic": never the
    // single-subgroup form), kRuntime ("runtime": the NumSubgroups == 1 test
    // whenever it can hold).
    enum class FormParam { kCostRule, kGeneric, kRuntime };
    FormParam form = FormParam::kCostRule;
    // How every invocation folds the slots: "" (the cost rule: "serial"
    // under --assume-driver=radv for up to 256 invocations, else "rank"),
    // "serial" (every invocation reads every slot in order: one uniform
    // loop, no second reduction), "rank" (each active lane reads every
    // |active|-th slot from its ballot rank on, then a second subgroup
    // reduction; see the pass doc).
    enum class FoldParam { kCostRule, kSerial, kRank };
    FoldParam fold = FoldParam::kCostRule;
    // Fold the slots right after their barrier, never where the result is
    // used; keep every slots' barrier.
    bool no_sink = false;
  };
  // Accepts "float-reassoc,always,form=generic|runtime,fold=serial|rank,
  // no-sink".
  static bool ParseParams(const std::string& text, Params* params, std::string* error);
  static bool ValidateParams(const std::string& text, std::string* error) {
    Params p;
    return ParseParams(text, &p, error);
  }

  explicit WorkgroupReducePass(PassConfig config);
  ~WorkgroupReducePass() override;
  const char* name() const override { return "workgroup-reduce"; }
  // The analysis contract: def-use, instruction-to-block and decorations
  // stay valid across its rewrites; it replaces trees with new blocks: the CFG, dominators and
  // loops are not kept.
  spvtools::opt::IRContext::Analysis GetPreservedAnalyses() override { return kEditedAnalyses; }
  Status Process() override;

  // The analysis result; public for the helpers in the .cpp.
  struct Tree;
  struct Spine;

 private:
  friend class PairTree;  // arg-max pairs: workgroup_reduce_pass_impl.h
  // One round: the first tree of the module that can be rewritten is;
  // every candidate before it gets its remark. |*changed| is set when a
  // tree was rewritten (the caller runs another round).
  Status Round(bool* changed);
  // Records |tree|'s step stores (before its rewrite): Candidates passes
  // over them where the rewrite keeps the original.
  void RecordSteps(const Tree& tree);
  // The candidates of |func|: barriers outside loops right before a phase
  // that stores a combination of two elements of a Workgroup array into
  // it; |vars| gets each one's array.
  void Candidates(spvtools::opt::Function* func, std::vector<spvtools::opt::Instruction*>* barriers,
                  std::vector<uint32_t>* vars, std::vector<StepOp>* ops);
  // The steps of the tree a barrier may start (its |spine|): the array
  // they combine elements of (0: none), the spine item of the last one,
  // and their operation (OpNop: copies, several operations or arrays).
  struct SpineSteps {
    uint32_t var = 0;
    size_t last = 0;
    StepOp op;
  };
  SpineSteps ScanSteps(spvtools::opt::Function* func, const Spine& spine);
  // A float tree without --float-reassoc, refused before any trace: kNone
  // when it is not one (or the opt-in is given).
  Reason RefuseFloatUntraced(WorkgroupTrace* trace, const std::vector<TraceConfig>& configs,
                             Tree* tree, std::string* why);
  static std::string FloatReassociationText(spv::Op op, uint32_t ext);
  // The applied remark's words for |tree|'s form and fold (after PlanSink).
  std::string DescribeForm(const Tree& tree);
  // Analyses the tree from |barrier| over |var|; kNone (|tree| filled) or
  // a missed remark's reason with |why| and |where|.
  Reason Analyze(spvtools::opt::Function* func, spvtools::opt::Instruction* barrier, uint32_t var,
                 Tree* tree, std::string* why, spvtools::opt::Instruction** where);
  // Traces the kernel under each of |configs| and replays the tree in each
  // trace: kNone or a reason (kUnreached: no configuration reaches it).
  Reason TraceConfigs(WorkgroupTrace* trace, const std::vector<TraceConfig>& configs, Tree* tree,
                      std::string* why, spvtools::opt::Instruction** where);
  // Whether loads after the tree read its result in some configurations
  // and other values in others (Tree::store_back): kNone, with the store
  // back planned when one invocation does every access after the tree.
  Reason PlanStoreBack(Tree* tree, std::string* why, spvtools::opt::Instruction** where);
  // Tree::store_back: |results| (one per row) stored into their result
  // elements by the one invocation that reads them, at |e|'s cursor.
  struct Emission;
  bool EmitStoreBack(const Tree& tree, const Emission& em, const std::vector<uint32_t>& results,
                     Emitter* e);
  // A phi of the tree's region that only copies a value made before it:
  // that value (else 0); ForwardCopies gives its uses after the region
  // the value before the rewrite.
  uint32_t CopiedInto(const Tree& tree, const spvtools::opt::Instruction& inst);
  void ForwardCopies(const Tree& tree);
  // A value made in the tree that is used after it; null when none is.
  spvtools::opt::Instruction* ValueEscaping(const Tree& tree);
  // The configurations to trace: the specialization constant that sizes
  // the workgroup (or the array) at every power of two from 2 to 1024, or
  // the one configuration of constants. False (with |why|) when the
  // workgroup size depends on more than one of them.
  bool Configs(WorkgroupTrace* trace, spvtools::opt::Instruction* barrier, uint32_t var, Tree* tree,
               std::vector<TraceConfig>* configs, std::string* why);
  // Replays one configuration's trace (see the header comment); kNone or
  // a missed remark's reason.
  Reason Replay(const WorkgroupTrace& trace, const Spine& spine, Tree* tree, uint64_t workgroup,
                std::string* why, spvtools::opt::Instruction** where);
  // The init store S0 right before |barrier|, when it stores each
  // invocation's value into its own element (LocalInvocationIndex) in every
  // configuration; null otherwise.
  spvtools::opt::Instruction* ForwardableStore(WorkgroupTrace* trace,
                                               spvtools::opt::Instruction* barrier, uint32_t var,
                                               const std::vector<TraceConfig>& configs);
  // The element type and the operation's legality; kNone or a reason.
  Reason CheckOperation(Tree* tree, std::string* why);
  // Which form, and whether it pays (see the pass doc); kNone or a reason.
  Reason ChooseForm(Tree* tree, std::string* why);

  // Where the generic form folds the slots when not right after their
  // barrier (see the pass doc, "Where the slots are folded"): sets
  // |tree|'s sink, the invocations that reach it, and the fold loop of an
  // earlier tree it joins.
  void PlanSink(Tree* tree);
  // How many invocations of |tree|'s workgroup may execute |block| (a
  // branch the evaluator cannot decide counts as taken).
  uint64_t InvocationsReaching(const Tree& tree, spvtools::opt::BasicBlock* block);

  // Rewrites |tree|; false when ids ran out.
  bool Rewrite(Tree* tree);
  bool SplitRegion(Tree* tree, Emission* em);
  // Rewrite's and RewriteRows' shared start: the region split out, then
  // the new code opened in front of it (an if on the fast test, |keep|,
  // where the original stays).
  bool PrepareEmission(Tree* tree, Emission* em);
  bool OpenRewrite(Tree* tree, const Emission& em, Emitter* e, Emitter::If* keep);
  bool EmitContribution(Tree* tree, Emission* em, Emitter* e, uint32_t* x);
  // The generic form from |e|'s cursor on: |*total| is the workgroup's
  // result where the cursor ends (0 when folded at the sink).
  bool EmitGeneric(Tree* tree, Emission* em, uint32_t x, Emitter* e, uint32_t* total);
  // A slot loop emitted where the result is used, which a later tree's
  // fold may join (block and value ids).
  struct FoldLoop {
    uint32_t function = 0;
    uint32_t from = 0, header = 0, body = 0, cont = 0;  // cont: after it
    uint32_t index = 0;                                 // the slot index phi
    bool rank = false;
  };
  // The fold of the slots into |acc| from |e|'s cursor on (the cursor ends
  // after the loop); |*loop| (when not null) gets its ids. |rank|: from the
  // lane's rank among the active lanes by their count (the caller reduces
  // |acc| over the subgroup), else every slot.
  bool EmitSlotLoop(Tree* tree, Emission* em, Emitter* e, bool rank, uint32_t* acc, FoldLoop* loop);
  // One iteration's work of a slot loop, at |e|: returns |acc| OP
  // tmp[|index|].
  uint32_t EmitSlotStep(Tree* tree, Emission* em, Emitter* e, uint32_t acc, uint32_t index);
  // The fold emitted at |tree|'s sink (or joined to an earlier tree's loop
  // there); |*total| is the workgroup's result.
  bool EmitSunkFold(Tree* tree, Emission* em, uint32_t* total);
  bool JoinFoldLoop(Tree* tree, Emission* em, const FoldLoop& loop, uint32_t* total);
  // Removes the slots' barriers of rewritten trees that the next barrier
  // makes redundant (RedundantBarrier, lib/analysis/barriers.h).
  void MergeBarriers();
  // After the barrier at the end of |join| went: the elected slot store of
  // |var| before it moves into the next tree's elected branch, when only
  // code that does not touch |var| lies between them (one election, as
  // hand writes it). False when the shape is not found (nothing changed).
  bool MergeElections(spvtools::opt::BasicBlock* join, uint32_t var);
  // How the generic form folds the slots: the fold= parameter, else the
  // cost rule (see the pass doc): serially, by rank, or by a test of the
  // subgroup size choosing between the two.
  enum class FoldKind { kSerial, kRank, kBySubgroupSize };
  FoldKind ChooseFold(const Tree& tree) const;
  // The fold of |tree|'s slots from |e|'s cursor on: |*total| is the
  // workgroup's result where the cursor ends (a block without terminator
  // yet); |*loop| (when not null) gets the slot loop's ids when the fold
  // is one loop.
  bool EmitFold(Tree* tree, Emission* em, Emitter* e, uint32_t* total, FoldLoop* loop);
  // The number of slots the subgroups wrote, emitted at the end of |e|.
  uint32_t SlotCount(const Tree& tree, Emitter* e, uint32_t size_var, uint32_t count_var);
  // The chosen form from |e|'s cursor on; |*result| where the cursor ends.
  bool EmitForms(Tree* tree, Emission* em, Emitter* e, uint32_t* result);
  // Joins the new code at |e|'s cursor (holding |result|) to the region's
  // end (the merge of |*keep| when the original region stays), and
  // replaces the tree's readers.
  bool FinishRegion(Tree* tree, Emission* em, uint32_t result, Emitter* e, Emitter::If* keep);
  // Removes the original tree's region (the rewrite replaced it).
  void RemoveRegion(const Tree& tree, const Emission& em);
  // Whether the new code may run instead of a region that stays: the
  // workgroup size is one the pass traced, one subgroup where needed.
  uint32_t EmitFastTest(const Tree* tree, Emitter* e);
  // |fast| && each specialization constant == its value (what the rewrite
  // assumed; the driver folds the test when it creates the pipeline).
  uint32_t EmitSpecValuesTest(const std::vector<std::pair<uint32_t, uint64_t>>& specs,
                              uint32_t fast, Emitter* e);
  // WavePass::BuiltInInput for the entry point being rewritten (the pair
  // and row rewrites reach it through the pass).
  uint32_t BuiltInVariable(spv::BuiltIn builtin);
  // The workgroup's invocation count as a value (constants, or the
  // specialization constants that size it); 0 when ids ran out.
  uint32_t WorkgroupCountValue(Emitter* e);
  // The value of the specialization constant |spec| in the function: read
  // through the WorkgroupSize composite when it is one of its components
  // (SPIRV-Cross declares no name for those; GLSL reads gl_WorkGroupSize),
  // else |spec| itself.
  // Replaces a reader in a loop over rows (a reader of every row in
  // |rows|) with the result of the row its indices give (of |values|);
  // where |taken| (the rewrite ran, when the original is kept) is false,
  // with the element it read. False when ids ran out.
  bool ReplaceDynamicReader(const Tree& tree, spvtools::opt::Instruction* reader,
                            const std::vector<uint64_t>& rows, const std::vector<uint32_t>& values,
                            uint32_t taken);
  uint32_t SpecConstantValue(Emitter* e, uint32_t spec);
  // Whether the workgroup is one subgroup: NumSubgroups == 1 and
  // SubgroupSize >= the invocation count (lavapipe rounds NumSubgroups down
  // for workgroups that are not a multiple of the subgroup size).
  uint32_t OneSubgroupTest(Emitter* e);
  // The combining operation of |tree| applied to |a| and |b| by |e|.
  uint32_t EmitCombine(const Tree& tree, Emitter* e, uint32_t a, uint32_t b);
  // The identity element of |tree|'s operation, of its element type.
  uint32_t Identity(const Tree& tree, Emitter* e);

  // Rows (workgroup_reduce_rows.h; defined at the end of the .cpp): every
  // row replayed on its own, the same tree in each, all rewritten under
  // one barrier.
  Reason ReplayRows(const WorkgroupTrace& trace, Tree* tree, uint64_t workgroup, std::string* why,
                    spvtools::opt::Instruction** where);
  bool RewriteRows(Tree* tree);
  // Every row's S0 (see ForwardableStore): |tree|'s row_stores and
  // init_store (the first of them), or nothing.
  void ForwardRowStores(WorkgroupTrace* trace, const std::vector<TraceConfig>& configs, Tree* tree);
  // Whether |index| is each invocation's own index in every configuration.
  bool IndexIsInvocation(WorkgroupTrace* trace, const std::vector<TraceConfig>& configs,
                         uint32_t index);
  // Every row's result (the chosen form) from |e|'s cursor on.
  bool EmitRowsForms(Tree* tree, Emission* em, Emitter* e, std::vector<uint32_t>* results);
  // The generic form from the rows' subgroup reductions |reduced|.
  bool EmitRowsGeneric(Tree* tree, Emission* em, Emitter* e, const std::vector<uint32_t>& reduced,
                       std::vector<uint32_t>* totals);
  bool EmitRowsFold(Tree* tree, Emission* em, Emitter* e, std::vector<uint32_t>* totals);
  // One loop folding every row's slots (see EmitSlotLoop).
  bool EmitRowsSlotLoop(Tree* tree, Emission* em, Emitter* e, bool rank,
                        std::vector<uint32_t>* accs);
  // A pointer to element |index| (an id) of row |row|.
  uint32_t RowElement(const Tree& tree, const Emission& em, Emitter* e, uint64_t row,
                      uint32_t index);
  bool FinishRows(Tree* tree, Emission* em, const std::vector<uint32_t>& results, Emitter* e,
                  Emitter::If* keep);

  Params params_;
  spvtools::opt::Instruction* entry_point_ = nullptr;  // OpEntryPoint
  uint32_t tree_function_id_ = 0;                      // its function
  // Candidates already reported or rewritten (unique ids of their B0).
  std::unordered_set<uint32_t> handled_;
  std::unordered_set<uint32_t> rewritten_steps_;  // RecordSteps
  // The sunk slot loops emitted so far, and the slots' barriers (unique
  // ids, in the order emitted) with the array each one's tree reduces.
  std::vector<FoldLoop> fold_loops_;
  std::vector<std::pair<uint32_t, uint32_t>> slot_barriers_;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_WORKGROUP_REDUCE_PASS_H_
