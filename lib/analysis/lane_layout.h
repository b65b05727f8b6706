// Lane layout: which pixel (or element) each invocation of a compute
// workgroup touches, found by evaluating the SPIR-V def chain from the
// invocation's identity to an access's coordinate, concretely, for every
// local invocation index 0..N-1. Passes use it to decide from the
// arithmetic (never from names) whether a kernel's lanes 4k..4k+3 already
// sit on 2x2 pixel blocks, whether a one-dimensional kernel splits its index
// into 2-D coordinates (i % W, i / W, bit fields, tiles), and whether a
// linear access is consecutive along a row.
//
//   InvocationEvaluator   evaluates one value for one invocation, and
//                         whether an invocation executes a block
//                         (Reaches: the execution predicate);
//   CollectLaneAccesses   the memory accesses of an entry point, by kind;
//   EvaluateLaneMap       one access's position for every invocation;
//   LaneMaps              many accesses' maps, evaluated on demand;
//   ClassifyLaneMap       what that map is (2x2 quads, rows of W, ...);
//   FirstQuadOrderedItem  "are this kernel's invocation ids quad-ordered?"
//
// Contract of the evaluator (what a pass may rely on):
//   - Eval() succeeds only when the value is a function of the invocation's
//     identity (LocalInvocationIndex, LocalInvocationId, GlobalInvocationId,
//     WorkgroupId, the WorkgroupSize constant, and — only when LaneEnv names
//     a subgroup size — SubgroupLocalInvocationId, SubgroupId, SubgroupSize,
//     NumSubgroups) and of constants, and then it is the value the module
//     computes, bit for bit (integer wrap-around at the type's width, signed
//     division rounding toward zero, ...). Floating-point values are not
//     evaluated.
//   - Memory: only Function variables are read, and only when exactly one
//     store may write the loaded part and that store dominates the load (or
//     one store per component of a vector); a pointer parameter is followed
//     to the caller's argument when the callee never writes through it.
//     Parameters and call results are evaluated on a call path (a chain of
//     OpFunctionCall from the entry point), so a function called from two
//     places has two values.
//   - Probes (only when a UniformityAnalysis is given and LaneEnv::probes):
//     a value the evaluator cannot compute but that the uniformity analysis
//     proves workgroup-uniform (a push constant, a loop counter of a
//     uniform loop, a specialization constant) becomes a *probe*. Combined
//     only with workgroup-uniform values it stays a probe; next to a value
//     that varies across the workgroup, the operation uses a stand-in: its
//     neutral element for + - | ^, right-shift amounts and divisors (0, 0,
//     1), all ones for &, no bound for min/max/clamp, and 4096 for a
//     multiplier (a left shift by 12): a uniform multiplier is usually a
//     row pitch, and y * pitch + x must keep its rows apart. The result
//     describes the shape of the lane -> value map up to a uniform offset
//     or scale, not the value itself. A result with a probe is never a
//     proof of a value; it is what profitability decisions need.
//   - Control flow: a phi takes the incoming value of the predecessor the
//     invocation came from (Reaches() of the predecessor and the branch
//     it ends with); a phi that a back edge enters (a loop header's) is
//     evaluated only when all its incoming values are the same id. A
//     Function variable stored on several paths takes, per invocation, the
//     value of the last store that invocation executes before the load.
//   - A value the evaluator computes is the same on every execution of its
//     instruction by one invocation: loop-carried values (a loop header's
//     phis, a variable stored in a loop around the load) fail. That is what
//     makes one answer per invocation and block meaningful.
//   - Evaluation never reads undefined values, never divides by zero, and
//     never recurses through a value that depends on itself: those fail.
//
// The execution predicate (Reaches): "does invocation i execute block B at
// least once" is decided through B's control dependences (the branches
// whose outcome decides whether B runs, ControlDependenceAnalysis over the
// post-dominator tree), each one the source block reached and its branch
// condition evaluated for i, recursively, and up the call path to the entry
// point. Nested ifs, short-circuit && and || (a branch and a boolean phi),
// early returns, OpKill/OpTerminateInvocation (exits: the blocks after them
// are not reached from them), OpSwitch and OpSelect/OpAll/OpAny/vector
// comparisons in conditions are all the same question. Three-valued: a
// condition that cannot be evaluated makes the answer kUnknown and names
// the instruction, never "yes". Every loop is assumed to end (a block after
// a loop is reached when the loop is); a branch inside a loop that decides
// whether B runs again (a back edge) does not decide whether it runs once.
// A demoted invocation (OpDemoteToHelperInvocation) still executes the
// blocks after it, as a helper. A function containing a call to a function
// that may not return (OpKill, OpTerminateInvocation, OpUnreachable inside)
// gets kUnknown for its blocks. Answers are cached per (frame, block) for
// the current invocation and environment.
#ifndef WAVEOPT_LIB_ANALYSIS_LANE_LAYOUT_H_
#define WAVEOPT_LIB_ANALYSIS_LANE_LAYOUT_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spvtools {
namespace opt {
class BasicBlock;
class IRContext;
class Instruction;
class Function;
}  // namespace opt
}  // namespace spvtools

namespace waveopt {

class UniformityAnalysis;
struct LaneItem;
struct LaneMap;

// Whether an invocation executes a block (three-valued).
enum class Reach : uint8_t { kNo, kYes, kUnknown };

struct ReachResult {
  Reach reach = Reach::kUnknown;
  // kUnknown: the instruction that could not be evaluated (a branch
  // condition or switch selector, or the innermost value it is computed
  // from; a call that may not return; the block's label when its control
  // flow is not understood). Null otherwise.
  spvtools::opt::Instruction* unknown = nullptr;
};

struct WorkgroupSize {
  uint32_t x = 1, y = 1, z = 1;
  uint32_t Count() const { return x * y * z; }
};

// The environment of one evaluation besides the invocation index.
struct LaneEnv {
  std::array<uint32_t, 3> workgroup_id = {0, 0, 0};
  // 0: the subgroup built-ins are unknown (evaluation through them fails);
  // N: invocation i is lane i % N of subgroup i / N.
  uint32_t subgroup_size = 0;
  // Whether workgroup-uniform unknowns become probes (see the contract).
  bool probes = true;
  // The workgroup id is unknown (|workgroup_id| is ignored): a value is
  // evaluated only where it is the same in every workgroup. WorkgroupId
  // has no known bit; GlobalInvocationId = WorkgroupId * size + local id
  // has its low bits known up to the lowest set bit of the size. Known
  // bits are followed through + - * & | ^ ~, shifts, % and / by powers of
  // two (signed % too, where the sign does not matter: x % 2 == 0), ==,
  // !=, selects and composites: ((gid.x | gid.y) & 1u) == 0u is known for
  // an even workgroup size, gid.x < 100u is not. For questions that must
  // hold in every workgroup (which invocations read which element).
  bool workgroup_unknown = false;
};

// An evaluated value: up to 4 components of an integer or boolean type.
struct LaneValue {
  uint32_t count = 0;                           // components (1 for a scalar)
  uint32_t width = 0;                           // bits per component; 1 for booleans
  std::array<uint64_t, 4> bits = {0, 0, 0, 0};  // zero-extended to 64 bits
  uint8_t probe_mask = 0;                       // bit k: component k is a probe
  // What component k owes to the unknown workgroup id W
  // (LaneEnv::workgroup_unknown). Internal to the evaluator: Eval() never
  // returns a value with an unknown part. Either |unknown|[k] is the mask of
  // the bits that depend on W (the others are |bits|[k]), or, when bit k
  // of |linear| is set, the component is exactly bits[k] + unknown[k] ·
  // W[axis k] modulo 2^width (axis k: bits 2k..2k+1 of |axes|), so that
  // GlobalInvocationId - WorkgroupId · size cancels.
  std::array<uint64_t, 4> unknown = {0, 0, 0, 0};
  uint8_t linear = 0;
  uint8_t axes = 0;
  bool HasUnknown() const { return (unknown[0] | unknown[1] | unknown[2] | unknown[3]) != 0; }
  bool IsLinear(uint32_t k) const { return (linear >> k) & 1u; }
  uint32_t Axis(uint32_t k) const { return (axes >> (2 * k)) & 3u; }
  bool IsProbe(uint32_t k) const { return (probe_mask >> k) & 1u; }
  // Component |k| sign-extended from |width|.
  int64_t Signed(uint32_t k) const;
};

class InvocationEvaluator {
 public:
  // Evaluates values of |entry| (a GLCompute entry point's function) for a
  // workgroup of |size|. |uniformity| may be null (no probes). |context|
  // must outlive this object and must not change while it is used.
  InvocationEvaluator(spvtools::opt::IRContext* context, spvtools::opt::Function* entry,
                      WorkgroupSize size, const UniformityAnalysis* uniformity);
  ~InvocationEvaluator();
  InvocationEvaluator(const InvocationEvaluator&) = delete;
  InvocationEvaluator& operator=(const InvocationEvaluator&) = delete;

  // Call paths are numbered frames: frame 0 is the entry point; every other
  // frame is one OpFunctionCall reached from its parent frame. Frames(f)
  // lists the frames whose function is |f|, in program order (at most 256
  // frames in all; a deeper or wider call graph leaves functions without
  // frames).
  const std::vector<uint32_t>& Frames(const spvtools::opt::Function* f) const;
  spvtools::opt::Function* FrameFunction(uint32_t frame) const;
  // The OpFunctionCall that made |frame| (null for frame 0) and the frame
  // it is in.
  spvtools::opt::Instruction* FrameCall(uint32_t frame) const;
  uint32_t FrameParent(uint32_t frame) const;

  // Evaluates |id| (defined in, or visible to, the function of |frame|) for
  // invocation |index| under |env|. False when it is not a function of the
  // identity and constants (and probes); see the contract above.
  bool Eval(uint32_t frame, uint32_t id, uint32_t index, const LaneEnv& env, LaneValue* out);

  // After Eval() returned false: the instruction whose value could not be
  // evaluated (the innermost one found; never one that was evaluated).
  spvtools::opt::Instruction* FailedAt() const;

  // Whether invocation |index| under |env| executes |block| (a block of the
  // function of |frame|) at least once; see "The execution predicate"
  // above. Only the branches |block| depends on are evaluated.
  ReachResult Reaches(uint32_t frame, const spvtools::opt::BasicBlock* block, uint32_t index,
                      const LaneEnv& env);

  // Whether the module declares SubgroupLocalInvocationId, SubgroupId,
  // SubgroupSize or NumSubgroups (layouts built on them need LaneEnvs with
  // subgroup sizes).
  bool ReadsSubgroupBuiltIns() const;

  WorkgroupSize size() const;

  // One access's position for every invocation, for many (access, frame)
  // pairs at once (one pass over the invocations); see LaneMap.
  std::vector<LaneMap> EvaluateLaneMaps(const std::vector<LaneItem>& items, const LaneEnv& env);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The memory an access touches.
enum class MemoryKind : uint8_t {
  kStorageImage,    // 2-D, 2-D array, cube, rect, 3-D storage image: tiled
  kSampledTexture,  // 2-D, ... image read through a sampler or fetched: tiled
  kTexelBuffer,     // an image of Dim Buffer: linear
  kImage1D,         // a 1-D image: linear
  kStorageBuffer,   // StorageBuffer, Uniform+BufferBlock, PhysicalStorageBuffer
  kUniformBuffer,   // Uniform + Block
  kSharedMemory,    // Workgroup
};

// "storage image", "sampled texture", "texel buffer", "1-D image",
// "storage buffer", "uniform buffer", "shared memory".
const char* MemoryKindName(MemoryKind kind);
// Tiled memory: 2x2 lane blocks match its layout (seed 002).
bool IsTiled(MemoryKind kind);

// One memory access of an entry point whose location may vary.
struct LaneAccess {
  spvtools::opt::Instruction* inst = nullptr;  // the OpImage* instruction, or
                                               // the load/store/atomic
  spvtools::opt::Function* function = nullptr;
  MemoryKind kind = MemoryKind::kStorageBuffer;
  // Image accesses: the coordinate operand. Buffer and shared accesses: the
  // outermost access chain (its indices and its bases' are the position).
  uint32_t location = 0;
  bool is_chain = false;
};

// An access evaluated on one call path (frame) of its function.
struct LaneItem {
  const LaneAccess* access = nullptr;
  uint32_t frame = 0;
};

// Every access in every frame of its function, in order.
std::vector<LaneItem> LaneItems(const InvocationEvaluator& evaluator,
                                const std::vector<LaneAccess>& accesses);

// The accesses in |functions| (the functions an entry point reaches), in
// program order: image reads, writes, fetches, samples, gathers and texel
// pointers; loads, stores and atomics through access chains into storage,
// uniform and shared memory. Accesses through a whole variable (one address
// for every lane) and push constants are not listed.
std::vector<LaneAccess> CollectLaneAccesses(spvtools::opt::IRContext* context,
                                            const std::vector<spvtools::opt::Function*>& functions);

// A position: 2 coordinates for tiled accesses (x, y; the layer and z are
// dropped), the varying indices for linear ones.
using LanePosition = std::array<int64_t, 2>;

// One access's position for invocations 0..N-1 in one frame and env. For a
// chain, the indices that vary across the workgroup are kept (the innermost
// as x, the next as y); for an image, coordinates 0 and 1 (1-D/buffer
// images: 0). Float coordinates of sampled images are traced back through
// conversions and arithmetic with uniform operands to the integer values
// they are computed from. |dims| is 1 or 2.
struct LaneMap {
  bool ok = false;  // every invocation evaluated
  uint32_t dims = 0;
  std::vector<LanePosition> pos;
  // The byte offset each invocation touches, when the memory's layout is
  // known: chains into buffers (Offset / ArrayStride decorations) and
  // shared memory (natural sizes, no padding), texel buffers and 1-D images
  // (the format's texel size). Empty otherwise.
  std::vector<int64_t> bytes;
  // Whether the evaluation read the workgroup id or the subgroup size of
  // its LaneEnv (false: the map is the same for any of them).
  bool reads_workgroup_id = true;
  bool reads_subgroup_size = true;
};
LaneMap EvaluateLaneMap(InvocationEvaluator* evaluator, const LaneAccess& access, uint32_t frame,
                        const LaneEnv& env);

// What a lane -> position map is.
struct LaneLayout {
  bool varies_x = false, varies_y = false;
  // Two lanes of one quad (4k..4k+3) touch different positions.
  bool varies_within_quads = false;
  // 2-D: every quad 4k..4k+3 covers {(a,b), (a+sx,b), (a,b+sy),
  // (a+sx,b+sy)}, sx/sy the map's lattice steps (gcd of the differences).
  // 1-D (a linearised 2-D index): every quad holds {a, a+s, a+t, a+s+t}
  // with the same 0 < s < t, t != 2s. Needs N % 4 == 0.
  bool quad_ordered = false;
  // For quad-ordered 2-D maps: lane ^ 1 is the horizontal neighbour and
  // lane ^ 2 the vertical one in every quad (false: some other order).
  bool standard_quad_order = false;
  int64_t step_x = 0, step_y = 0;
  // 2-D maps that are rows of |block_width| lanes: lanes are split into
  // blocks of |block| consecutive invocations, and lane j of a block sits at
  // the block's origin + ((j % block_width)·sx, (j / block_width)·sy)
  // (|transposed|: + ((j / block_height)·sx, (j % block_height)·sy), columns
  // of block_height lanes). 0 when the map is not such a decomposition. The
  // largest block that fits is reported.
  uint32_t block = 0;
  uint32_t block_width = 0;
  bool transposed = false;
  uint32_t BlockHeight() const { return block_width == 0 ? 0 : block / block_width; }
};
LaneLayout ClassifyLaneMap(const LaneMap& map);

// Memory cost models for linear accesses, over the invocations in the order
// |perm| gives (|perm|[l] = the invocation whose access lane l makes; null:
// the identity).
//  - Seed 004: image and multi-channel buffer accesses are serviced in
//    aligned groups of 4 invocations, single-channel ones coalesced when a
//    group of 4 touches one block of consecutive addresses: the sum over
//    aligned 4-lane groups of the distinct 64-byte lines they touch.
uint64_t LinesPerQuadGroup(const std::vector<int64_t>& bytes, const std::vector<uint32_t>* perm);
//  - Shared memory: 32 banks of 4 bytes; per wave of |wave| lanes, the most
//    distinct dwords any one bank serves (1 = conflict-free), summed over
//    waves.
uint64_t BankConflicts(const std::vector<int64_t>& bytes, const std::vector<uint32_t>* perm,
                       uint32_t wave);

// Whether the positions |pos| of lanes 0..N-1 put every quad on a 2x2 block
// (the 2-D rule of LaneLayout::quad_ordered).
bool QuadOrdered2D(const std::vector<LanePosition>& pos);

// The environments the passes evaluate in (probes on): workgroup ids
// (0,0,0) and (3,5,2), each at subgroup size 0, or at 4, 8, 16, 32 and 64
// when |subgroup_sizes|.
std::vector<LaneEnv> StandardLaneEnvs(bool subgroup_sizes);

// Lane maps of items in environments, evaluated on demand: only the maps
// a question asks for, and those of one environment for many items at once
// (one pass over the invocations, sharing what the items share). The
// accesses the items point to must outlive it.
class LaneMaps {
 public:
  LaneMaps() = default;
  // Every item of |accesses| (LaneItems) in
  // StandardLaneEnvs(evaluator->ReadsSubgroupBuiltIns()).
  LaneMaps(InvocationEvaluator* evaluator, const std::vector<LaneAccess>& accesses);

  const std::vector<LaneEnv>& envs() const { return envs_; }
  const std::vector<LaneItem>& items() const { return items_; }

  // Evaluates those of |items| (indices) not evaluated yet in environment
  // |env|, together.
  void Evaluate(size_t env, const std::vector<size_t>& items);
  // Every item in |env|.
  void EvaluateAll(size_t env);
  // Item |item|'s map in |env| (evaluated now, alone, if it was not).
  const LaneMap& Map(size_t env, size_t item);

 private:
  InvocationEvaluator* evaluator_ = nullptr;
  std::vector<LaneEnv> envs_;
  std::vector<LaneItem> items_;
  std::vector<std::vector<LaneMap>> maps_;  // [env][item]
  std::vector<std::vector<bool>> done_;     // [env][item]
};

// Item |i| is quad-ordered: its map could be evaluated in at least one
// environment, and is quad-ordered in every environment it could be
// evaluated in.
bool ItemQuadOrdered(LaneMaps* maps, size_t i);

// "Are the invocation ids of this kernel quad-ordered?" (what a pass that
// rewrites 2x2 exchanges into quad operations asks): the index of the first
// item of |maps| that is quad-ordered, or -1. A kernel whose lanes 4k..4k+3
// touch a 2x2 block in some access keeps that order on purpose (hand-made
// Morton orders, FidelityFX's ARmp8x8/ARmpRed8x8, quad layouts built from
// the subgroup invocation id). Evaluates every item in the first
// environment, and in each next one only the items still quad-ordered.
int FirstQuadOrderedItem(LaneMaps* maps);

}  // namespace waveopt

#endif  // WAVEOPT_LIB_ANALYSIS_LANE_LAYOUT_H_
