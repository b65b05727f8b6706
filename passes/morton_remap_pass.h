// morton-remap: relabel the invocations of a compute workgroup whose
// invocations map to 2-D pixels so that every 4 consecutive lanes cover a
// 2x2 pixel block (16 lanes a 4x4 block, 32 lanes an 8x4 half, 64 lanes an
// 8x8 tile) instead of a strip of a row. From seed 002 (FidelityFX SPD's
// ARmpRed8x8); seed 004 says when it hurts (linear memory).
//
// 2-D workgroups (X x Y x 1, X and Y even) that read LocalInvocationId or
// GlobalInvocationId. Before (8x8; lanes 0..3 are (0,0),(1,0),(2,0),(3,0)):
//   %gid = OpLoad %v3uint %gl_GlobalInvocationID
// After (lanes 0..3 are (0,0),(1,0),(0,1),(1,1)), at every load of an
// identity built-in, in every function the entry point reaches:
//   %l   = OpLoad %uint %gl_LocalInvocationIndex
//   %x   = (l & 1) | ((l >> 2) & 6)          ; | tile_x << 3
//   %y   = ((l >> 1) & 3) | ((l >> 3) & 4)   ; | tile_y << 3
//   %wg  = OpLoad %v3uint %gl_WorkGroupID
//   %gid = (wg.x * X + x, wg.y * Y + y, wg.z)
// with tile = l >> 6 in row order. Tiles are 8 (else 4, else 2) wide and
// high, whichever divides X (Y); the in-tile bit order is always the same
// (x0 y0 y1 x1 x2 y2, bits a dimension lacks skipped). LocalInvocationId
// becomes (x, y, 0) and LocalInvocationIndex y * X + x: the three built-ins
// stay consistent and the program is only relabelled.
//
// Workgroups whose kernel derives 2-D coordinates from the flat index
// itself (a 1-D workgroup; or a 2-D one that reads only the index): the
// lane layout analysis (lib/analysis/lane_layout.h) evaluates the accesses'
// coordinates for every invocation and finds the decomposition — rows of W
// lanes (i % W, i / W, i & (W-1), i >> log2 W), possibly in blocks (SPD's
// 256 = 4 tiles of 8x8). The index becomes P(l) = block base + (y' * W +
// x'), (x', y') the same tile order over the block's W x H grid, so the
// kernel's own split sees 2x2 quads. A kernel that uses its index linearly
// is left alone, and so is one whose lanes already sit on 2x2 blocks.
//
// Legal unless the program depends on which invocations share a subgroup or
// quad (subgroup and quad operations, subgroup built-ins, subgroup-scope
// barriers, cooperative matrices, compute derivatives); `force` overrides.
// Profitable (the default decides) when accesses to tiled memory (2-D
// images and textures) at invocation-dependent 2-D coordinates outweigh
// accesses to linear memory (buffers, texel buffers, shared memory) that
// the remap makes cost more (more 64-byte lines per 4-lane group, more
// bank conflicts per 32-lane wave), each weighted by its loop nest, and
// not when every 2-D access reads the invocation's own texel and feeds only
// commutative reductions (OwnTexelsIntoReductions: the order then changes
// no access's locality).
//
// Capabilities added: none. Built-ins added when missing (and listed in the
// entry point's interface): LocalInvocationIndex, WorkgroupId.
// Analyses needed: def-use, instruction-to-block, dominators, loops,
// uniformity, lane layout. Every refusal is a missed remark;
// docs/passes/morton-remap.md lists the names.
#ifndef WAVEOPT_PASSES_MORTON_REMAP_PASS_H_
#define WAVEOPT_PASSES_MORTON_REMAP_PASS_H_

#include <array>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/lane_layout.h"
#include "passes/wave_pass.h"

namespace waveopt {

class Emitter;

class MortonRemapPass : public WavePass {
 public:
  enum class Mode {
    kProfitable,  // default: legal and the weighted accesses favour tiles
    kAlways,      // whenever legal
    kForce,       // even when the program depends on subgroup membership
  };
  struct Params {
    Mode mode = Mode::kProfitable;
    // workgroup-size=XxYxZ: the size the user promises for a workgroup
    // given by specialization constants (0: no promise).
    uint32_t promised_x = 0, promised_y = 0, promised_z = 0;
  };

  // Accepts "", "always", "force" and "workgroup-size=X[xY[xZ]]".
  static bool ParseParams(const std::string& text, Params* params, std::string* error);
  static bool ValidateParams(const std::string& text, std::string* error) {
    Params p;
    return ParseParams(text, &p, error);
  }

  // How a kernel splits its flat index into 2-D coordinates: blocks of
  // |block| consecutive invocations, each a |width| x |height| grid filled
  // row by row (|transposed|: column by column).
  struct Decomposition {
    uint32_t block = 0, width = 0, height = 0;
    bool transposed = false;
  };

  // The position (|x|, |y|) that index |j| takes in a |w| x |h| grid after
  // the remap (|w|, |h| even): Morton-like order inside tiles of 8 (else 4,
  // else 2) x 8 (4, 2), tiles in row order. The emitted SPIR-V computes the
  // same function; docs and unit tests use this one.
  static void RemapCoords(uint32_t j, uint32_t w, uint32_t h, uint32_t* x, uint32_t* y);
  // The new flat index of invocation |l| for a kernel with decomposition
  // |d| (of a workgroup of |n| invocations).
  static uint32_t RemapIndex(uint32_t l, uint32_t n, const Decomposition& d);

  explicit MortonRemapPass(PassConfig config);

  const char* name() const override { return "morton-remap"; }
  // The analysis contract: def-use, instruction-to-block and decorations
  // stay valid across its rewrites; it adds no block, but the CFG is not claimed: no test has
  // checked it.
  spvtools::opt::IRContext::Analysis GetPreservedAnalyses() override { return kEditedAnalyses; }
  Status Process() override;

 private:
  // The missed remarks (names in kMissedRemarks in the .cpp, and in
  // docs/passes/morton-remap.md).
  enum class Missed {
    kNotCompute,
    kKernelModule,
    kUnsupportedBuiltInUse,
    kNoInvocationIds,
    kAlreadyQuadOrdered,
    kUnsupportedWorkgroupSize,
    kSpecConstantWorkgroupSize,
    kOddWorkgroupSize,
    kLinearIndex,
    kSharedFunctions,
    kUsesSubgroupOps,
    kUsesSubgroupBuiltIn,
    kComputeDerivatives,
    kNotProfitable,
  };

  // The identity built-ins the pass replaces.
  enum IdKind { kLocalId = 0, kGlobalId = 1, kLocalIndex = 2 };

  // One load of an identity built-in to replace.
  struct Site {
    spvtools::opt::Instruction* load = nullptr;
    IdKind kind = kLocalId;
    // -1: the whole value; 0..2: a constant component (access chain);
    // -2: a dynamic component, |index| holds its id.
    int component = -1;
    uint32_t index = 0;
  };

  // The resolved workgroup size of an entry point.
  struct Shape {
    uint32_t x = 0, y = 0, z = 0;
    std::string source;  // how it was found, for remarks
    bool from_spec_constant = false;
    bool promised = false;  // the user's workgroup-size= replaced defaults
    // "8x8x1 workgroup (LocalSize)", for remarks.
    std::string Describe() const;
  };

  // Per-component taint of a value: bit 1 = varies with the invocation's x
  // coordinate (or its linear index), bit 2 = varies with its y coordinate.
  using Taint = std::array<uint8_t, 4>;

  // Weighted accesses of one entry point, by memory kind.
  struct Weights {
    double tiled = 0, linear = 0;
    // Per kind (MemoryKind as index): accesses counted and their weight.
    std::array<uint32_t, 8> count = {};
    std::array<double, 8> weight = {};
    std::string Describe(bool tiled_kinds) const;
    // Both sums and their kinds, for remarks.
    std::string Summary() const;
  };

  // Everything the decision about one entry point needs.
  struct EntryInfo {
    spvtools::opt::Instruction* entry = nullptr;
    spvtools::opt::Function* function = nullptr;
    std::vector<spvtools::opt::Function*> reached;  // program order
    std::vector<Site> sites;
    spvtools::opt::Instruction* first_use = nullptr;  // for remark locations
    Shape shape;
    bool index_path = false;      // the kernel splits the flat index itself
    Decomposition decomposition;  // index path only
  };

  // A missed remark about |info|'s entry point at |where|: the table's text,
  // or |why|.
  void Refuse(Missed missed, const EntryInfo& info, spvtools::opt::Instruction* where);
  void Refuse(Missed missed, const EntryInfo& info, spvtools::opt::Instruction* where,
              const std::string& why);

  // State of one Process call that its entry points share, and what the
  // invocations of one entry point touch (both defined in the .cpp).
  struct Run;
  struct Lanes;

  // How a program depends on subgroup membership.
  struct Dependence {
    Missed name = Missed::kUsesSubgroupOps;
    spvtools::opt::Instruction* where = nullptr;
    std::string why;
  };
  // The relabelling chosen for one entry point.
  struct Plan {
    std::string shape_text;  // Shape::Describe()
    bool dependent = false;  // it depends on subgroup membership (force)
    Dependence dependence;
    std::vector<uint32_t> perm;  // invocation → the one whose work it takes
    std::string layout_text;     // the permutation, for the remark
  };

  // Process's phases, in order. IndexBuiltInVars fills builtin_vars_ and
  // id_vars_.
  void IndexBuiltInVars();
  // The entry points with a function, and per function how many of them
  // reach it.
  std::vector<EntryInfo> EntryPoints(std::unordered_map<uint32_t, uint32_t>* reach_count);
  // Decides about one entry point (every refusal a missed remark) and
  // rewrites it when it qualifies. False when ids ran out.
  bool ProcessEntry(EntryInfo* info, Run* run);
  // Collects |info|'s sites and shape; false (with a remark) when the
  // entry point cannot be remapped whatever its lanes do.
  bool Admit(EntryInfo* info, Run* run, Lanes* lanes);
  // Evaluates what every invocation touches (for |info|'s shape).
  void Analyse(const EntryInfo& info, Run* run, Lanes* lanes);
  // Chooses the grid or index path and evaluates the lanes; false (with a
  // remark) when the kernel has no 2-D access to split (index path,
  // profitable mode), is quad-ordered already, or depends on subgroup
  // membership without force.
  bool EvaluateLanes(EntryInfo* info, Run* run, Lanes* lanes, Plan* plan);
  // Whether some access of |lanes| is quad-ordered already (then with an
  // AlreadyQuadOrdered remark).
  bool QuadOrdered(const EntryInfo& info, Lanes* lanes);
  // The LinearIndex remark: no 2-D access splits the index.
  void RefuseLinearIndex(const EntryInfo& info, const std::string& shape_text);
  // Fills |plan|'s permutation and layout text; false (with a remark) when
  // a side of the grid, or of every split of the index, is odd, or the
  // index is not split at all.
  bool ChoosePermutation(EntryInfo* info, Lanes* lanes, Plan* plan);
  // The index path of ChoosePermutation: the kernel's own split.
  bool IndexPermutation(EntryInfo* info, Lanes* lanes, Plan* plan);
  // The decomposition of |lanes|' tiled accesses that weighs most (the
  // first of equal ones). False when none has even sides; |*odd| is then
  // the last with an odd side (block 0: none).
  bool HeaviestDecomposition(Lanes* lanes, Decomposition* best, Decomposition* odd);
  // The weighed accesses of |lanes| that the permutation |perm| helps
  // (tiled) or hurts (linear).
  Weights WeighAccesses(const EntryInfo& info, Lanes* lanes, const std::vector<uint32_t>& perm);
  // Whether |access| was evaluated on some call path; then |*weight| sums
  // their weights and |*counts| says whether |perm| helps or hurts it.
  bool EvaluatedCounts(const EntryInfo& info, Lanes* lanes, const LaneAccess& access,
                       const std::vector<uint32_t>& perm, double* weight, bool* counts);
  // Whether |perm| helps (tiled) or hurts (linear) the access of |map|.
  bool MapCounts(const EntryInfo& info, const LaneAccess& access, const LaneMap& map,
                 const std::vector<uint32_t>& perm);
  // For an access not evaluated: whether it counts, from what its position
  // is computed from (|taint|).
  bool TaintCounts(const EntryInfo& info, const std::unordered_map<uint32_t, Taint>& taint,
                   const LaneAccess& access);
  // The default mode's decision; false (with a NotProfitable remark) when
  // the 2-D accesses do not outweigh the linear ones or cannot gain.
  bool Profitable(const EntryInfo& info, Lanes* lanes, const Weights& weights,
                  const std::string& counted);
  // The Remapped remark's text.
  std::string AppliedText(const EntryInfo& info, const Plan& plan,
                          const std::string& counted) const;

  // Functions reachable from |func| through OpFunctionCall, |func| first,
  // then in module order.
  std::vector<spvtools::opt::Function*> Reached(spvtools::opt::Function* func);

  // Fills |shape| for |entry|; false with the refusal in |refusal| and
  // |why| when the pass cannot use it.
  bool ResolveShape(spvtools::opt::Instruction* entry, Shape* shape, Missed* refusal,
                    std::string* why);
  // The size the WorkgroupSize built-in gives (it overrides the execution
  // modes); |*found| when there is one. False with |why| when its value is
  // not made of integer constants.
  bool ShapeFromBuiltIn(Shape* shape, bool* found, std::string* why);
  // The size function |func_id|'s LocalSize or LocalSizeId gives, as above.
  bool ShapeFromModes(uint32_t func_id, Shape* shape, bool* found, std::string* why);
  // Replaces a size from specialization constants by the promised
  // workgroup-size=; false with |refusal| and |why| when there is no
  // promise or the literal size contradicts it.
  bool ApplyPromise(Shape* shape, Missed* refusal, std::string* why);
  // The value of the integer constant |id|; sets |*spec| when it is a
  // specialization constant (its default is used). False when |id| is not
  // a plain or specialization scalar integer constant.
  bool ConstantValue(uint32_t id, uint32_t* value, bool* spec);

  // Collects the loads of identity built-ins in |info|'s functions. Returns
  // false with |why| set when a use is not a load or a load through an
  // access chain.
  bool CollectSites(EntryInfo* info, std::string* why);

  // Whether the program depends on subgroup membership; |*dependence|: the
  // first offending instruction in |info|'s functions, or execution mode.
  bool SubgroupDependence(const EntryInfo& info, Dependence* dependence);
  // The DerivativeGroup*NV execution mode of |info|'s entry point, if any.
  bool DerivativeGroupMode(const EntryInfo& info, Dependence* dependence);
  // The Input variables of the subgroup built-ins that name a lane's place
  // in its subgroup → the built-in's name.
  std::unordered_map<uint32_t, const char*> LaneBuiltInVars() const;
  // Whether |inst| depends on subgroup membership (|lane_vars|: from
  // LaneBuiltInVars).
  bool InstructionDependence(spvtools::opt::Instruction* inst,
                             const std::unordered_map<uint32_t, const char*>& lane_vars,
                             Dependence* dependence);

  // Propagates Taint (defined in the .cpp).
  class TaintFlow;
  // Taint of every value of |info|'s functions from the identity built-ins.
  std::unordered_map<uint32_t, Taint> ComputeTaint(const EntryInfo& info);

  // The weight of block |block| of |func|: the product of the trip counts
  // of the loops around it (kUnknownTripWeight for a loop whose count is
  // not a constant).
  double BlockWeight(spvtools::opt::Function* func, spvtools::opt::BasicBlock* block);
  // The weight of call path |frame| of |evaluator|: the block weights of
  // its calls, multiplied.
  double FrameWeight(const InvocationEvaluator& evaluator, uint32_t frame);

  // Per item of |maps|: the block decomposition of a tiled access that is
  // the same in every environment (block 0: none, or not tiled).
  std::vector<Decomposition> TiledDecompositions(LaneMaps* maps);
  // Trip count of the loop headed by |header| in |func| when it is a
  // counted loop with constant bounds; 0 when unknown.
  uint64_t TripCount(spvtools::opt::Function* func, uint32_t header);

  // Whether relabelling cannot change any 2-D access's locality: every
  // 2-D access of the kernel is an OpImageRead or OpImageFetch at, in every
  // environment of |maps|, one position per invocation that no other
  // invocation of the workgroup reads (one texel per invocation, the same
  // for every such access), and every value read flows only into commutative
  // reductions (FeedsOnlyReductions). Then a relabelling changes which
  // invocation reads which texel, never which texels the workgroup reads nor
  // which an invocation reads together. |*what| says what was found.
  bool OwnTexelsIntoReductions(const std::vector<LaneAccess>& accesses, LaneMaps* maps,
                               std::string* what);
  // Whether value |id| (and what is computed from it, through arithmetic,
  // composites and invocation-private variables stored once) is only the
  // value operand of read-modify-write atomics that commute (add, sub, min,
  // max, and, or, xor) or the operand of subgroup Reduce operations: every
  // other use (a store, a branch, a call, an address) may make the result
  // depend on which invocation read which texel.
  bool FeedsOnlyReductions(uint32_t id, int depth);

  // Rewrites every site of |info|. False when ids ran out.
  bool Rewrite(const EntryInfo& info);
  // The Input variable for |builtin|, declared (and named) when missing;
  // added to |entry|'s interface when absent there. 0 when ids ran out.
  uint32_t BuiltInVar(uint32_t builtin, bool vector, spvtools::opt::Instruction* entry);

  Params params_;
  // BuiltIn decoration value → Input variables carrying it, module order.
  std::unordered_map<uint32_t, std::vector<uint32_t>> builtin_vars_;
  // Every Input variable decorated with an identity built-in → its kind.
  std::unordered_map<uint32_t, IdKind> id_vars_;
  std::unordered_map<uint32_t, uint64_t> trip_counts_;  // header → count+1
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_MORTON_REMAP_PASS_H_
