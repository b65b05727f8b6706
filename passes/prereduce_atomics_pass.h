// prereduce-atomics: one atomic per address per subgroup instead of one per
// lane, with every lane's returned value rebuilt.
//
// Before (every active lane issues the atomic; same-address atomics
// serialise in the memory system):
//   %old = OpAtomicIAdd %uint %counter %scope %relaxed %v
//
// After, address uniform across the subgroup (cases A and B):
//   %sum    = OpGroupNonUniformIAdd %uint %subgroup Reduce %v
//             (A, uniform %v: %v * BallotBitCount Reduce (Ballot true))
//   %excl   = OpGroupNonUniformIAdd %uint %subgroup ExclusiveScan %v
//   %elect  = OpGroupNonUniformElect %bool %subgroup
//             OpSelectionMerge %merge None
//             OpBranchConditional %elect %single %merge
//   %single: %one = OpAtomicIAdd %uint %counter %scope %relaxed %sum
//   %merge:  %phi = OpPhi %uint %one %single %zero %pre
//            %base = OpGroupNonUniformBroadcastFirst %uint %subgroup %phi
//            %old  = OpIAdd %uint %base %excl     ; only where %old is used
//
// Consecutive case A/B atomics of one block (outside fragment shaders) share
// one elected branch, as hand-written code does: every reduction first, one
// OpGroupNonUniformElect whose lane issues the atomics in program order,
// then every lane's returned values. What sat between them moves above the
// reductions when it neither uses an earlier atomic's result nor touches
// memory other invocations can see (JoinsPrevious says exactly what); what
// uses a result stays below the branch.
//
// Divergent address into a small set (case C, a histogram), uniform integer
// value: the lanes that share the index are found without a loop, by one
// ballot per bit the index can have (WaveMatch from ballots: a lane's peers
// are the active lanes whose bit agrees with its own, for every bit); the
// lowest peer issues the atomic with the peer count, and the others get its
// returned value by OpGroupNonUniformShuffle from that lane.
// Divergent value (or a float): a loop peels one distinct index per
// iteration (BroadcastFirst of the index among the lanes not yet done); the
// lanes holding that index run the rewrite above among themselves; the loop
// ends when OpGroupNonUniformAll says every lane is done (a subgroup-uniform
// exit).
//
// 64-bit divergent values without 64-bit subgroup arithmetic (the default;
// `extended-types` uses it instead): Add/Sub reduce three 32-bit pieces that
// cannot overflow over 128 lanes (bits 0-15, 16-31 and the high word, whose
// sum only matters modulo 2^32) in one v3uint OpGroupNonUniformIAdd and join
// them in 64-bit scalar arithmetic:
//   %p   = OpCompositeConstruct %v3uint %lo_0_15 %lo_16_31 %hi
//   %s   = OpGroupNonUniformIAdd %v3uint %subgroup Reduce %p
//   %sum = s.x + (s.y << 16) + (s.z << 32)        ; OpUConvert/shift/OpIAdd
// And/Or/Xor work per 32-bit half (one v2uint group op). Min/Max reduce the
// high half, then the low halves of the lanes whose high half won; returned
// values come from three exclusive max-scans over segment-tagged keys (the
// proof is in docs/design/prereduce-atomics.md).
//
// Fragment shaders: the rewrite runs under `if (!helper)` so helper lanes
// neither count nor get elected (OpIsHelperInvocationEXT where the module
// has the demote capability, else the HelperInvocation built-in, which is
// exact when no lane can be demoted); helper lanes' results are 0 (a helper's
// atomic returns an undefined value).
//
// Capabilities added: GroupNonUniform, GroupNonUniformBallot,
// GroupNonUniformArithmetic (divergent values), GroupNonUniformVote (case C's
// loop), GroupNonUniformShuffle (case C matched, result used).
// Analyses needed: UniformityAnalysis (lib/analysis), dominators, CFG.
// Every refusal is a missed remark; docs/passes/prereduce-atomics.md lists
// the names.
#ifndef WAVEOPT_PASSES_PREREDUCE_ATOMICS_PASS_H_
#define WAVEOPT_PASSES_PREREDUCE_ATOMICS_PASS_H_

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/wave_pass.h"

namespace waveopt {

class Emitter;
class UniformityAnalysis;

class PrereduceAtomicsPass : public WavePass {
 public:
  // Groups of execution models, for `stages=`.
  enum StageBits : uint32_t {
    kStageCompute = 1u << 0,  // GLCompute
    kStageMesh = 1u << 1,     // Task and Mesh (NV and EXT)
    kStageFragment = 1u << 2,
    kStageVertex = 1u << 3,
    kStageTessellation = 1u << 4,  // control and evaluation
    kStageGeometry = 1u << 5,
    kStageRayTracing = 1u << 6,  // ray generation, hits, miss, callable
    kStageAll = (1u << 7) - 1,
  };

  struct Params {
    uint32_t max_bins = 32;       // case C: largest provable index range
    bool extended_types = false;  // allow 64-bit subgroup arithmetic
    bool float_reassoc = false;   // allow float atomics (changes rounding)
    // Stages whose subgroup operations the target device supports
    // (Vulkan's subgroupSupportedStages); compute is the only one Vulkan
    // guarantees.
    uint32_t stages = kStageCompute | kStageMesh | kStageFragment;
  };

  // Accepts "max-bins=N" (1..128), "extended-types", "float-reassoc" and
  // "stages=S+S+..." (compute, mesh, fragment, vertex, tessellation,
  // geometry, raytracing, all).
  static bool ParseParams(const std::string& text, Params* params, std::string* error);
  static bool ValidateParams(const std::string& text, std::string* error) {
    Params p;
    return ParseParams(text, &p, error);
  }

  explicit PrereduceAtomicsPass(PassConfig config);

  const char* name() const override { return "prereduce-atomics"; }
  // The analysis contract: def-use, instruction-to-block and decorations
  // stay valid across its rewrites; it adds branches around the atomics: the CFG and dominators are
  // not kept.
  spvtools::opt::IRContext::Analysis GetPreservedAnalyses() override { return kEditedAnalyses; }
  Status Process() override;

 private:
  enum class Shape { kUniformAddress, kSmallBinSet };

  // The names of the pass's remarks (kReasonNames in the .cpp spells
  // each one; docs/passes/prereduce-atomics.md explains them). kNone: no
  // refusal.
  enum class Reason {
    kNone,
    // Missed.
    kUnsupportedAtomicOp,
    kFloatAtomic,
    kUnsupportedType,
    kNonRelaxedSemantics,
    kVolatileAtomic,
    kUnsupportedStorageClass,
    kUnsupportedStage,
    kStageNotPromised,
    kMixedStageFunction,
    kAlreadyPreReduced,
    kUnsupportedControlFlow,
    kNotExpressibleInHlsl,
    kDivergentAddress,
    kDistinctAddresses,
    kDriverPreReduces,
    kNotProfitableOnCpu,
    // Applied.
    kUniformAddressUniformValue,
    kUniformAddressDivergentValue,
    kSmallBinSet,
    kCount,
  };
  static const char* ReasonName(Reason reason);
  // Emits the remark |reason| about |atomic| in |func|.
  void EmitReason(RemarkKind kind, Reason reason, const spvtools::opt::Function* func,
                  const spvtools::opt::Instruction* atomic, const std::string& message) {
    EmitRemark(kind, ReasonName(reason), func, atomic, message);
  }

  // One atomic to rewrite, decided before any rewriting starts.
  struct Candidate {
    spvtools::opt::Instruction* atomic = nullptr;
    spvtools::opt::Function* function = nullptr;
    Shape shape = Shape::kUniformAddress;
    bool uniform_value = false;  // the operand is the same in every lane
    bool result_used = false;
    uint32_t bin_index = 0;  // kSmallBinSet: the divergent index id
    uint64_t bin_bound = 0;  // kSmallBinSet: it is in [0, bin_bound)
    bool matched = false;    // kSmallBinSet: peers by ballots, no loop
    bool fragment = false;   // runs in fragment shaders: helpers kept out
    bool split64 = false;    // 64-bit divergent value as 32-bit pieces
    // Shares the elected branch of the candidate before it (same block);
    // |hoist| are the instructions between the two that move above the
    // group's reductions, in program order.
    bool joins_previous = false;
    std::vector<spvtools::opt::Instruction*> hoist;
  };

  // The lanes an atomic is combined over when they are fewer than the
  // active lanes (case C matched): every id is per lane.
  struct Peers {
    uint32_t count = 0;        // uint: how many lanes share this lane's index
    uint32_t rank = 0;         // uint: how many of them have a lower lane id
    uint32_t is_leader = 0;    // bool: rank == 0
    uint32_t leader_lane = 0;  // uint: the lowest peer's lane id (0: unused)
  };

  // Everything the rewrite of one atomic needs to know about its operation.
  struct OpInfo {
    spv::Op op = spv::Op::OpNop;  // original opcode
    uint32_t type_id = 0;
    uint32_t width = 32;
    bool is_signed = false;
    uint32_t value_id = 0;  // 0 for increment/decrement
  };

  // One atomic of an elected branch: its operation and, as the emission
  // goes, its operands, its single atomic and each lane's returned value.
  struct Elected {
    spvtools::opt::Instruction* atomic = nullptr;
    OpInfo info;
    bool uniform_value = false;
    bool want_result = false;
    uint32_t total = 0;   // the single atomic's operand
    uint32_t prefix = 0;  // what the lanes before this one contributed
    uint32_t single = 0;  // the single atomic's result
    uint32_t result = 0;  // each lane's returned value (0 if not wanted)
  };

  // Returns the missed remark when |atomic| (in |func|) cannot be
  // rewritten, with |why| set; otherwise kNone and |cand| filled.
  Reason Classify(spvtools::opt::Function* func, spvtools::opt::Instruction* atomic,
                  const UniformityAnalysis& uniformity, Candidate* cand, std::string* why);
  // Classify's phases, in order (each returns kNone or the refusal, with
  // |why| set). The operation: which atomic, of which type, and its
  // memory semantics.
  Reason OperationRefusal(spvtools::opt::Instruction* atomic, std::string* why);
  // Where it sits: the storage class, the stages that run |func| (sets
  // |*fragment|), a dominating election, a loop header.
  Reason PlaceRefusal(spvtools::opt::Function* func, spvtools::opt::Instruction* atomic,
                      bool* fragment, std::string* why);
  // Fills |cand| for an atomic that passed the two above.
  void Describe(spvtools::opt::Function* func, spvtools::opt::Instruction* atomic, bool fragment,
                const UniformityAnalysis& uniformity, Candidate* cand);
  // --emit=hlsl: what HLSL cannot spell of |cand|'s rewrite.
  Reason HlslRefusal(const Candidate& cand, std::string* why);
  // The address: uniform (case A/B) or a small bin set (case C), else the
  // refusal.
  Reason ShapeOf(const UniformityAnalysis& uniformity, Candidate* cand, std::string* why);

  // Returns the missed remark when a stage that runs |func| cannot be
  // promised subgroup operations, or when |func| runs in fragment and other
  // stages; otherwise kNone and |*fragment| tells whether it runs in
  // fragment shaders.
  Reason StageRefusal(spvtools::opt::Function* func, bool* fragment, std::string* why);

  // Whether |block| can only be reached by a single lane of its subgroup
  // because a dominating branch tests OpGroupNonUniformElect.
  bool UnderElect(spvtools::opt::Function* func, spvtools::opt::BasicBlock* block);
  // |cond| is `exclusive ballot bit count == 0`: true in one lane of each
  // set of lanes the ballot describes (the matched case C's leader test).
  bool IsLowestOfBallotSet(spvtools::opt::Instruction* cond);

  // Exclusive upper bound of the values |id| can take when it is provably in
  // [0, bound), else 0.
  uint64_t IndexBound(uint32_t id, int depth);
  // The width of integer type |type_id|, 0 for other types.
  uint32_t IntWidth(uint32_t type_id);

  // The divergent index of |pointer| for case C: set |index| and return
  // true when the pointer is an access chain whose base and other indices are
  // subgroup-uniform and exactly one index is divergent and provably in a
  // range of at most max_bins values. |why| explains a false.
  bool FindBinIndex(uint32_t pointer, const UniformityAnalysis& uniformity, uint32_t* index,
                    uint64_t* bound, std::string* why);

  // Whether |id| is (a uniform offset of) an invocation's own index
  // (LocalInvocationIndex, SubgroupLocalInvocationId, the x of
  // LocalInvocationId/GlobalInvocationId), looking through Function
  // variables stored once: lanes then rarely share an address and a peel
  // loop would run about once per lane.
  bool IsInvocationIndex(uint32_t id, const UniformityAnalysis& uniformity, int depth);

  // --assume-driver: the missed remark when the assumed driver measurably
  // does |cand| itself (kDriverPreReduces: RADV, 32-bit integer cases A and
  // B outside fragment shaders) or when it measured as a loss there
  // (kNotProfitableOnCpu: cases A and C on lavapipe), with |why| set;
  // otherwise kNone. The evidence is in docs/design/prereduce-atomics.md.
  Reason DriverProfileRefusal(const Candidate& cand, std::string* why);

  void EmitApplied(const Candidate& cand);
  // When |id| is an OpLoad of a Function variable that is stored exactly
  // once and otherwise only loaded, the stored value's id; else 0.
  // (Unoptimised front-end output keeps every local in such a variable.)
  uint32_t StoredOnce(uint32_t id);

  // Whether |cand| can share the elected branch of |group|, the candidates
  // already joined that end at the one before it: both case A/B outside
  // fragment shaders in the same block, and every instruction between them
  // either uses (through SSA values or invocation-private variables) a
  // result of the group's atomics and stays below the branch, or is free of
  // side effects and of reads of memory other invocations can write and
  // moves above it; |cand|'s own operands may not use a group's result. Sets
  // |cand->hoist|.
  bool JoinsPrevious(const std::vector<Candidate>& group, Candidate* cand);
  // Whether --only-rewrite selects the deferred |group| (.cpp).
  bool GroupSelected(const std::vector<Candidate>& group);
  // Classifies |atomics| (in program order), emits each one's remark, and
  // returns the candidates to rewrite, one vector per shared elected branch.
  // Under --assume-driver=radv, atomics RADV pre-reduces itself are
  // rewritten only as a group of two or more with unused results (one
  // election where RADV makes one per atomic); alone, or with a used
  // result, they are left to the driver (DriverPreReduces).
  std::vector<std::vector<Candidate>> Groups(
      const std::vector<std::pair<spvtools::opt::Function*, spvtools::opt::Instruction*>>& atomics);

  // The atomic's operation, type and operand.
  OpInfo InfoOf(spvtools::opt::Instruction* atomic);

  // Rewrites |group| (one candidate, or several that join the first).
  bool Rewrite(const std::vector<Candidate>& group);
  // Rewrite's start: |e|'s cursor (at the group's first atomic) gets a
  // block of its own where control flow can go, with what sat between the
  // group's atomics and moves above them; returns the block that follows
  // the atomic (the rewrite's merge), null when ids ran out.
  spvtools::opt::BasicBlock* OpenSite(const std::vector<Candidate>& group, Emitter* e);
  // The rewrite of |group| (|info| is its first atomic's) from |e|'s cursor
  // for its shape, merging into |post| (a new block when null); |*result|
  // is the first atomic's rebuilt returned value where the cursor ends.
  bool EmitShape(const std::vector<Candidate>& group, const OpInfo& info, Emitter* e,
                 spvtools::opt::BasicBlock* post, uint32_t* result);

  // Emits at the end of |pre| (no terminator yet) the subgroup reductions of
  // |group|'s operands, one OpGroupNonUniformElect selection whose single
  // lane issues every atomic's replacement in order, from |e|'s cursor,
  // merging into |merge| (a new block when null); inserts the rebuild of
  // each lane's returned values at the start of the merge (after its phis,
  // where the cursor ends) and sets each element's |result|. Returns false
  // when ids ran out. With |peers| (|group| has one element), the operand is
  // uniform and an integer, and the lanes combined are each lane's peers
  // instead of the active lanes: the leader issues the atomic and the old
  // value comes from its lane.
  // The per-index loop of a histogram-style |cand| from |e|'s cursor,
  // merging into |post| (a new block when null); |*result| is the rebuilt
  // returned value where the cursor ends.
  bool EmitIndexLoop(const Candidate& cand, const OpInfo& info, Emitter* e,
                     spvtools::opt::BasicBlock* post, uint32_t* result);
  bool EmitElectedAtomics(Emitter* e, spvtools::opt::BasicBlock* merge, std::vector<Elected>* group,
                          const Peers* peers = nullptr);
  // Emits with |e| |item|'s total and, when wanted, its prefix.
  bool EmitOperands(Emitter* e, Elected* item, const Peers* peers);
  // EmitOperands of a float atomic (float-reassoc): the group operation,
  // with -0.0 kept where every lane adds -0.0.
  void EmitFloatOperands(Emitter* e, const OpInfo& info, bool want_result, uint32_t* total,
                         uint32_t* prefix);
  // EmitOperands of a uniform value: from the count of lanes (or of
  // |peers|) and each lane's rank among them.
  void EmitUniformOperands(Emitter* e, const OpInfo& info, bool want_result, const Peers* peers,
                           uint32_t* total, uint32_t* prefix);
  // Emits with |m| (at the start of the merge block, after the phis of the
  // group) |item|'s returned value from |phi|, the elected lane's result.
  uint32_t EmitRebuild(Emitter* m, const Elected& item, uint32_t elect, uint32_t phi,
                       const Peers* peers);

  // Emits with |e| the subgroup reduction (|*total|) and, when
  // |want_result|, the exclusive scan (|*prefix|) of |info|'s divergent
  // 64-bit operand with 32-bit group operations only. False when ids ran out.
  bool EmitSplit64(Emitter* e, const OpInfo& info, bool want_result, uint32_t* total,
                   uint32_t* prefix);

  // Emits with |e| a bool that is true in helper invocations of the
  // fragment shaders that run |func|: OpIsHelperInvocationEXT when the
  // module has the demote capability, else a load of the HelperInvocation
  // built-in (added, and listed by those entry points, when missing). 0 when
  // ids ran out.
  uint32_t EmitIsHelper(Emitter* e, spvtools::opt::Function* func);

  // Emits at the end of |pre| the peer set of every lane by its |index| in
  // [0, |bound|): one ballot per index bit.
  bool EmitPeers(spvtools::opt::BasicBlock* pre, uint32_t index, uint64_t bound,
                 bool want_leader_lane, Peers* peers);

  Params params_;
  // Function id -> the OpEntryPoint instructions whose call graph reaches
  // it, in module order.
  std::unordered_map<uint32_t, std::vector<spvtools::opt::Instruction*>> entries_of_;
  // Entry point function ids whose call graph already uses subgroup
  // operations (so the device supports them in that stage).
  std::unordered_set<uint32_t> entries_with_subgroup_ops_;
  uint32_t helper_var_ = 0;  // the HelperInvocation built-in, once found
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_PREREDUCE_ATOMICS_PASS_H_
