// quad-exchange: a value each invocation writes to shared memory only so
// that the invocations of its 2x2 quad can read it becomes quad operations
// (seed 002, "QUAD OPERATIONS": mip 1 -> mip 2 of a downsampler without LDS).
//
// Before (glslang, after morton-remap made lanes 4k..4k+3 a 2x2 block):
//
//   %p  = OpAccessChain %ptr %tile %y %x          ; tile[y][x] = m1
//         OpStore %p %m1
//         OpControlBarrier %uint_2 %uint_2 %uint_264
//   ...                                           ; (lanes with x, y even)
//   %q  = OpAccessChain %ptr %tile %y %x1         ; tile[y][x + 1]
//   %r  = OpLoad %v4float %q
//
// After:
//
//   ; entry block: the run-time check and the relabelled identity
//   %full = OpIEqual %bool (NumSubgroups * SubgroupSize) %uint_64
//   %al4  = OpIEqual %bool (SubgroupSize & 3) %uint_0
//   %fast = OpLogicalAnd %bool %full %al4
//   %I    = OpSelect %uint %fast (SubgroupId * SubgroupSize +
//                                 SubgroupLocalInvocationId)
//                                %LocalInvocationIndex
//   ; every LocalInvocationIndex / LocalInvocationId / GlobalInvocationId
//   ; load becomes a function of %I (I % X, I / X % Y, I / (X·Y); + the
//   ; workgroup's origin)
//   ...
//           OpSelectionMerge %rest None
//           OpBranchConditional %fast %rest %slow
//   %slow = OpLabel                               ; the original round trip
//           OpStore %p %m1
//           OpControlBarrier %uint_2 %uint_2 %uint_264
//           OpBranch %rest
//   %rest = OpLabel
//   %h    = OpGroupNonUniformQuadSwap %v4float %uint_3 %m1 %uint_0
//   ...
//           OpSelectionMerge %m None              ; at each read
//           OpBranchConditional %fast %m %load
//   %load = OpLabel
//   %r0   = OpLoad %v4float %q
//           OpBranch %m
//   %m    = OpLabel
//   %r    = OpPhi %v4float %h %pred %r0 %load
//
// Why this is right for every implementation: Vulkan relates neither
// SubgroupLocalInvocationId nor SubgroupId to LocalInvocationIndex. When
// every subgroup is full (NumSubgroups · SubgroupSize == workgroup size),
// SubgroupId · SubgroupSize + SubgroupLocalInvocationId is a permutation of
// 0..N-1, so giving each invocation that index as its identity only
// relabels the program (the pass refuses programs that depend on subgroup
// membership); with SubgroupSize a multiple of 4, relabelled indices
// 4k..4k+3 are one quad. Otherwise (partial subgroups, sizes 1 and 2) the
// identity is the original one and the shared-memory path runs; the check
// is workgroup-uniform, so its barrier stays in uniform control flow. The
// quad operations run right after the (skipped) barrier, where every
// invocation is active, so a writer that leaves before the read still
// delivers its value.
//
// Capabilities added: GroupNonUniform, GroupNonUniformQuad. Analyses:
// InvocationEvaluator (lib/analysis/lane_layout.h) evaluates every store
// and read index for each invocation, in any workgroup, and its execution
// predicate says which invocations execute each read (a read whose
// execution it cannot evaluate is refused, never assumed); the dominator
// and post-dominator trees. Remarks: docs/passes/quad-exchange.md.
#ifndef WAVEOPT_PASSES_QUAD_EXCHANGE_PASS_H_
#define WAVEOPT_PASSES_QUAD_EXCHANGE_PASS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/lane_layout.h"
#include "passes/wave_pass.h"

namespace waveopt {

class Emitter;

class QuadExchangePass : public WavePass {
 public:
  // "" or "full-subgroups": the user promises that every subgroup of the
  // pipeline is full and its size a multiple of 4 (Vulkan:
  // VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT with a
  // required subgroup size of 4 or more). Then no run-time check is
  // emitted, and the store, the barrier, the reads and the array go.
  static bool ValidateParams(const std::string& text, std::string* error);

  explicit QuadExchangePass(PassConfig config)
      : WavePass(std::move(config)), full_subgroups_(this->config().params == "full-subgroups") {}

  const char* name() const override { return "quad-exchange"; }
  // The analysis contract: def-use, instruction-to-block and decorations
  // stay valid across its rewrites; it adds branches: the CFG and dominators are not kept.
  spvtools::opt::IRContext::Analysis GetPreservedAnalyses() override { return kEditedAnalyses; }
  Status Process() override;

  // How one read gets its value in the quad path: the writer is lane
  // (i ^ |xor_mask|) of every reading lane i (a swap; 0: the lane itself),
  // or quad lane |broadcast| (|is_broadcast|).
  struct QuadSource {
    bool is_broadcast = false;
    uint32_t xor_mask = 0;
    uint32_t broadcast = 0;
  };

 private:
  // Why a candidate is refused: the missed remark's name is the reason's
  // name in this list (docs/passes/quad-exchange.md's table), about in the
  // order Process and Analyze's phases test them.
// clang-format off
#define WAVEOPT_QUAD_EXCHANGE_REASONS(X) \
  X(NotExpressibleInHlsl) \
  X(UsesSubgroupOps) \
  X(OtherAccessesNeedBarrier) \
  X(UnknownWorkgroupSize) \
  X(UsedInOtherFunction) \
  X(UnsupportedAccess) \
  X(NoStore) \
  X(SecondWrite) \
  X(UnsupportedElementType) \
  X(PartialElement) \
  X(NoRead) \
  X(NoBarrier) \
  X(BarrierInLoop) \
  X(DivergentExitBetween) \
  X(BarrierNotReachedByAll) \
  X(ReadBeforeBarrier) \
  X(ReadInLoopHeader) \
  X(IdentityInCallee) \
  X(UnsupportedIdentityUse) \
  X(WorkgroupNotMultipleOf4) \
  X(OutOfBounds) \
  X(IndexNotLocal) \
  X(IndexNotEvaluated) \
  X(ConflictingWrites) \
  X(GuardNotEvaluable) \
  X(ReadsUnwritten) \
  X(ReadAcrossQuads) \
  X(NotQuadOrdered) \
  X(MixedQuadLanes)
  // clang-format on
  enum class Reason {
    kNone,
#define WAVEOPT_QUAD_EXCHANGE_REASON_ENUM(name) k##name,
    WAVEOPT_QUAD_EXCHANGE_REASONS(WAVEOPT_QUAD_EXCHANGE_REASON_ENUM)
#undef WAVEOPT_QUAD_EXCHANGE_REASON_ENUM
  };
  // The remark name of |reason| ("" for kNone).
  static const char* ReasonName(Reason reason);

  // A candidate refused: |reason|, the remark's sentence |why| and the
  // instruction it is about, |where| (may be null).
  struct Refusal {
    Reason reason = Reason::kNone;
    std::string why;
    spvtools::opt::Instruction* where = nullptr;
    bool refused() const { return reason != Reason::kNone; }
  };

  // One read of the shared array and how it is served.
  struct Read {
    spvtools::opt::Instruction* load = nullptr;
    QuadSource source;
  };

  // A proven candidate: one shared variable of an entry point.
  struct Candidate {
    spvtools::opt::Function* function = nullptr;
    spvtools::opt::Instruction* entry = nullptr;  // OpEntryPoint
    spvtools::opt::Instruction* var = nullptr;
    spvtools::opt::Instruction* store = nullptr;
    spvtools::opt::Instruction* barrier = nullptr;
    std::vector<Read> reads;  // program order
    WorkgroupSize size;
    // Identity built-in loads to relabel (whole loads and loads through
    // constant-index access chains), program order.
    std::vector<spvtools::opt::Instruction*> identity_loads;
  };

  // What Analyze's first phases learn about the shared variable.
  struct Accesses {
    std::string var_name;  // quoted, for remarks
    // Its loads and stores through access chains, in def-use order.
    std::vector<spvtools::opt::Instruction*> stores, loads;
    uint32_t value_type = 0;  // the stored value's type
  };

  // Process's phases. The GLCompute entry points and their functions.
  std::vector<std::pair<spvtools::opt::Instruction*, spvtools::opt::Function*>> ComputeEntries();
  // The Workgroup variables |f| uses.
  std::vector<spvtools::opt::Instruction*> SharedVars(spvtools::opt::Function* f);
  // "the module declares the capability X" for the first capability whose
  // operations depend on subgroup membership, or "".
  std::string MembershipText();
  // Decide for entry point |c|'s |f| using shared variables |vars|
  // (|membership|: MembershipText()): fills |c| or returns the refusal.
  Refusal AnalyzeEntry(spvtools::opt::Function* f,
                       const std::vector<spvtools::opt::Instruction*>& vars,
                       const std::string& membership, Candidate* c);
  // The applied remark's sentence for |c|.
  std::string ExchangedText(const Candidate& c);

  // Analyses |var| in |function| in the phases below, in order; fills |c|
  // or returns the refusal.
  Refusal Analyze(spvtools::opt::Function* function, spvtools::opt::Instruction* var, Candidate* c);
  // Collect: the loads and stores of |c|'s variable, each of a whole leaf
  // element through one access chain based on the variable itself.
  Refusal CollectAccesses(const Candidate& c, Accesses* a);
  // Decide: exactly one store, of an integer or float element, read whole
  // by at least one load; sets |c|'s store and |a|'s value type.
  Refusal CheckStoreAndLoads(Candidate* c, Accesses* a);
  // Collect: the last control barrier after the store (which runs once);
  // sets |c|'s barrier.
  Refusal FindBarrier(const Accesses& a, Candidate* c);
  // Decide: the barrier is a workgroup barrier of shared memory only, out
  // of loops, reached by every invocation right after the store.
  Refusal CheckBarrier(const Accesses& a, const Candidate& c);
  // Decide: no memory barrier, call or other shared variable of the
  // function relies on the barrier.
  Refusal CheckOtherMemory(const Candidate& c);
  // Decide: every read comes after the barrier, none in a loop header.
  Refusal CheckReads(const Accesses& a, const Candidate& c);
  // Collect: the identity built-ins' loads (only in this function, whole or
  // through constant-index chains, 32-bit unsigned), in program order.
  Refusal CollectIdentityLoads(Candidate* c);
  // The identity loads of built-in variable |v| into |c|; the refusal's
  // reason and |where| for one it cannot relabel.
  Reason CollectIdentityLoadsOf(spvtools::opt::Instruction* v, Candidate* c,
                                spvtools::opt::Instruction** where);
  // Evaluate: the element each invocation writes and reads, and how each
  // read is served; fills |c|'s reads.
  Refusal EvaluateAccesses(const Accesses& a, Candidate* c);

  // The evaluation of one candidate's indices and read guards: every
  // invocation, in any workgroup (LaneEnv::workgroup_unknown).
  struct Lanes {
    InvocationEvaluator* eval = nullptr;
    LaneEnv env;
    spvtools::opt::Instruction* var = nullptr;  // the shared array
    uint32_t value_type = 0;                    // its element type
    std::string var_name;                       // quoted, for remarks
  };
  // The writer of each element the store writes (|writer|: element ->
  // invocation), or ConflictingWrites / an index refusal.
  Refusal EvaluateWriters(Lanes* lanes, spvtools::opt::Instruction* store,
                          std::unordered_map<int64_t, uint32_t>* writer);
  // The flat element an access touches for one invocation: |index| >= 0,
  // or out of bounds, or not evaluated (|unknown| names what could not be,
  // |index_id| the index it was computing, when it is one).
  struct Element {
    int64_t index = -1;
    bool out_of_bounds = false;
    spvtools::opt::Instruction* unknown = nullptr;
    uint32_t index_id = 0;
  };
  Element ElementOf(Lanes* lanes, spvtools::opt::Instruction* access, uint32_t i);
  // The refusal for an element |e| of |access| that is not an index
  // (OutOfBounds, IndexNotLocal, IndexNotEvaluated) for invocation |i|.
  Refusal IndexRefusal(const Lanes& lanes, const Element& e, spvtools::opt::Instruction* access,
                       uint32_t i);
  // How read |load| is served (|read|), from the invocations that execute
  // it (the lane layout analysis's execution predicate) and the writer of
  // each one's element; or the refusal. An invocation whose execution
  // cannot be evaluated must be servable as if it read (then the rewrite is
  // right either way); where it is not, the unknown decides and the read is
  // refused, GuardNotEvaluable.
  Refusal AnalyzeRead(Lanes* lanes, const std::unordered_map<int64_t, uint32_t>& writer,
                      spvtools::opt::Instruction* load, Read* read);
  // GuardNotEvaluable for invocation |i| whose execution of read |load| is
  // |reach|, not known: "and if it does, |then|".
  Refusal GuardRefusal(const Lanes& lanes, spvtools::opt::Instruction* load, uint32_t i,
                       const ReachResult& reach, const std::string& then);
  // ReadAcrossQuads or NotQuadOrdered for |reader| reading |writer|'s
  // element with |load|.
  Refusal AcrossQuads(spvtools::opt::Function* function, const Lanes* lanes,
                      spvtools::opt::Instruction* load, uint32_t reader, uint32_t writer);
  // "OpPhi %name" for a remark.
  std::string InstText(const spvtools::opt::Instruction* inst);

  // The workgroup size of entry point |entry|, or the refusal.
  Refusal ResolveSize(spvtools::opt::Instruction* entry, WorkgroupSize* size);

  // Whether the def chain of |id| may reach WorkgroupId, GlobalInvocationId,
  // NumWorkgroups, memory other than Function variables, a function
  // parameter or a call (values that need not be a function of the
  // invocation's place in its workgroup). Used only to name a refusal.
  bool MayDependOnWorkgroup(uint32_t id);

  // Whether |c| is rewritten without the run-time check: the
  // full-subgroups promise, or --assume-driver=radv with a workgroup of a
  // multiple of 64 invocations (RADV forms compute waves of 32 or 64
  // consecutive LocalInvocationIndex values, so every wave is full at
  // either wave size; docs/design/quad-exchange.md).
  bool FullSubgroups(const Candidate& c) const;

  // Rewrites |c| in the phases below. False when ids ran out (the module is
  // then invalid; the pass returns Failure).
  bool Rewrite(const Candidate& c);
  // The entry block's values: the relabelled LocalInvocationIndex, the
  // run-time check and the local and global ids made from the index.
  struct Identity {
    uint32_t u32 = 0;    // the 32-bit uint type
    uint32_t index = 0;  // the relabelled index (behind the check)
    uint32_t fast = 0;   // the run-time check; 0 under the promise
    uint32_t local[3] = {0, 0, 0}, global[3] = {0, 0, 0};
    uint32_t local_vec = 0, global_vec = 0;
  };
  // Declares the subgroup built-ins and emits |id|'s index and, without
  // |promise|, its check, with |e|.
  bool EmitIdentity(const Candidate& c, bool promise, Emitter* e, Identity* id);
  // The check that every subgroup is full with a multiple of 4 lanes, from
  // SubgroupSize |ss| and NumSubgroups |ns| (|u32|, |boolean|: types).
  uint32_t EmitFullCheck(const Candidate& c, uint32_t ss, uint32_t ns, uint32_t u32,
                         uint32_t boolean, Emitter* e);
  // The local and global ids |c|'s identity loads need, from |id|'s index.
  bool EmitInvocationIds(const Candidate& c, Emitter* e, Identity* id);
  // Each identity load of |c| takes its relabelled value and goes.
  void ReplaceIdentityLoads(const Candidate& c, const Identity& id);
  // Where the quad operations go (before |quad_at| in |rest|): after the
  // barrier under |promise|; else after the store and barrier, moved into
  // a branch that runs when |fast| is false.
  bool GuardSharedPath(const Candidate& c, bool promise, uint32_t fast,
                       spvtools::opt::BasicBlock** rest, spvtools::opt::Instruction** quad_at);
  // One quad operation per distinct source of |c|'s reads; |sources|: the
  // value each read takes, in |c.reads|' order.
  bool EmitQuadOps(const Candidate& c, spvtools::opt::BasicBlock* rest,
                   spvtools::opt::Instruction* quad_at, std::vector<uint32_t>* sources);
  // Under the promise: the reads take |sources|; the store, the barrier,
  // the reads, their access chains and the array go.
  void RemoveSharedPath(const Candidate& c, const std::vector<uint32_t>& sources);
  // Removes |var| (name, decorations, interface) once nothing reads it.
  void RemoveIfUnused(spvtools::opt::Instruction* var);
  // Without the promise: each read becomes a phi of its source when |fast|
  // and of the load, moved into a branch, otherwise.
  bool GuardReads(const Candidate& c, uint32_t fast, const std::vector<uint32_t>& sources);

  // The full-subgroups promise.
  bool full_subgroups_ = false;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_QUAD_EXCHANGE_PASS_H_
