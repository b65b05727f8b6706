// Lane layout (see lane_layout.h for the contract).
//
// The evaluator is a memoised recursive interpreter over the def chain of a
// value, for one invocation at a time: constants, the identity built-ins
// (from the invocation index, the workgroup size and LaneEnv), integer and
// boolean arithmetic, composites, Function variables with one dominating
// store (or, per invocation, the last store it executes), phis (by the
// predecessor the invocation came from), parameters and call results on a
// call path. Anything else fails, or becomes a probe when the uniformity
// analysis proves it workgroup-uniform. Values are kept as 64-bit words
// masked to their width.
//
// The execution predicate (Reach) is evaluated on demand, memoised per
// (frame, block) next to the values: a block's control dependences, each
// one's source block (recursively) and the condition of its branch.
#include "analysis/lane_layout.h"

#include <algorithm>
#include <list>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analysis/int_eval.h"
#include "analysis/ir_util.h"
#include "analysis/uniformity.h"
#include "source/opcode.h"
#include "source/opt/cfg.h"
#include "source/opt/control_dependence.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/def_use_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/function.h"
#include "source/opt/instruction.h"
#include "source/opt/ir_context.h"
#include "source/opt/loop_descriptor.h"
#include "source/opt/module.h"
#include "source/opt/type_manager.h"

namespace waveopt {

namespace {

using spv::Op;
using spvtools::opt::BasicBlock;
using spvtools::opt::ControlDependence;
using spvtools::opt::ControlDependenceAnalysis;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;

constexpr uint32_t kMaxFrames = 256;
constexpr uint32_t kMaxDepth = 200;  // recursion guard of one evaluation
constexpr uint32_t kMaxLanes = 1024;

// What an evaluation read besides the module: the invocation's index, the
// subgroup size (LaneEnv), the workgroup id (LaneEnv).
constexpr uint8_t kReadsIndex = 1;
constexpr uint8_t kReadsSubgroupSize = 2;
constexpr uint8_t kReadsWorkgroupId = 4;

uint64_t Mask(uint32_t width) { return width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1); }

bool IsChain(Op op) {
  return op == Op::OpAccessChain || op == Op::OpInBoundsAccessChain || op == Op::OpPtrAccessChain ||
         op == Op::OpInBoundsPtrAccessChain;
}

// Opcodes whose in-operand 1 is the coordinate of an image access.
bool IsImageAccess(Op op) {
  switch (op) {
    case Op::OpImageRead:
    case Op::OpImageWrite:
    case Op::OpImageFetch:
    case Op::OpImageGather:
    case Op::OpImageDrefGather:
    case Op::OpImageTexelPointer:
    case Op::OpImageSparseRead:
    case Op::OpImageSparseFetch:
    case Op::OpImageSparseGather:
    case Op::OpImageSparseDrefGather:
      return true;
    default:
      return spvOpcodeIsImageSample(op);
  }
}

bool IsSampling(Op op) {
  return spvOpcodeIsImageSample(op) || op == Op::OpImageGather || op == Op::OpImageDrefGather ||
         op == Op::OpImageSparseGather || op == Op::OpImageSparseDrefGather;
}

int64_t Gcd(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// The bits of |u| and every bit above its lowest one, within |width|:
// what a carry from an unknown bit may change.
uint64_t Upward(uint64_t u, uint32_t width) {
  if (u == 0) return 0;
  return Mask(width) & ~((u & (~u + 1)) - 1);
}

// Component |sk| of |src| becomes component |dk| of |dst| (its bits,
// probe flag and unknown part).
void CopyComponent(LaneValue* dst, uint32_t dk, const LaneValue& src, uint32_t sk) {
  dst->bits[dk] = src.bits[sk];
  dst->unknown[dk] = src.unknown[sk];
  const uint8_t bit = static_cast<uint8_t>(1u << dk);
  dst->probe_mask = static_cast<uint8_t>((dst->probe_mask & ~bit) | (src.IsProbe(sk) ? bit : 0));
  dst->linear = static_cast<uint8_t>((dst->linear & ~bit) | (src.IsLinear(sk) ? bit : 0));
  const uint8_t axis_mask = static_cast<uint8_t>(3u << (2 * dk));
  dst->axes = static_cast<uint8_t>((dst->axes & ~axis_mask) | (src.Axis(sk) << (2 * dk)));
}

// |*out| = a scalar of |width| bits holding |v| (not masked), nothing else
// set: LaneValue{} and the fields, without a temporary (compile time: the
// replay's folds write one per invocation).
void SetScalar(LaneValue* out, uint64_t v, uint32_t width) {
  out->count = 1;
  out->width = width;
  out->bits = {v, 0, 0, 0};
  out->probe_mask = 0;
  out->unknown = {0, 0, 0, 0};
  out->linear = 0;
  out->axes = 0;
}

// |*out| = LaneValue{} with |count| and |width|, the same way.
void SetEmpty(LaneValue* out, uint32_t count, uint32_t width) {
  SetScalar(out, 0, width);
  out->count = count;
}

// Component |k| of |v| as known bits and a mask of unknown ones (a linear
// component bits + c·W: every bit from c's lowest set bit up is unknown).
void ToMask(LaneValue* v, uint32_t k) {
  if (!v->IsLinear(k)) return;
  v->unknown[k] = Upward(v->unknown[k], v->width);
  v->bits[k] &= ~v->unknown[k];
  v->linear = static_cast<uint8_t>(v->linear & ~(1u << k));
}

// Sets component |k| of |v| to bits + c·W[axis] (just |bits| when c is 0).
void SetLinear(LaneValue* v, uint32_t k, uint64_t bits, uint64_t c, uint32_t axis) {
  const uint64_t m = Mask(v->width);
  v->bits[k] = bits & m;
  v->unknown[k] = c & m;
  const uint8_t bit = static_cast<uint8_t>(1u << k);
  v->linear = static_cast<uint8_t>(v->unknown[k] != 0 ? v->linear | bit : v->linear & ~bit);
  const uint8_t axis_mask = static_cast<uint8_t>(3u << (2 * k));
  v->axes = static_cast<uint8_t>((v->axes & ~axis_mask) | (axis << (2 * k)));
}

ReachResult Known(bool yes) { return ReachResult{yes ? Reach::kYes : Reach::kNo, nullptr}; }

ReachResult Unknown(const Instruction* why) {
  return ReachResult{Reach::kUnknown, const_cast<Instruction*>(why)};
}

// Kleene's three-valued and/or; an unknown result keeps the first unknown
// operand's instruction.
ReachResult And(const ReachResult& a, const ReachResult& b) {
  if (a.reach == Reach::kNo || b.reach == Reach::kNo) return Known(false);
  if (a.reach == Reach::kYes && b.reach == Reach::kYes) return Known(true);
  return a.reach == Reach::kUnknown ? a : b;
}

ReachResult Or(const ReachResult& a, const ReachResult& b) {
  if (a.reach == Reach::kYes || b.reach == Reach::kYes) return Known(true);
  if (a.reach == Reach::kNo && b.reach == Reach::kNo) return Known(false);
  return a.reach == Reach::kUnknown ? a : b;
}

// Instructions after which an invocation does not go on in this function
// and does not return to its caller.
bool Stops(Op op) {
  return op == Op::OpKill || op == Op::OpTerminateInvocation || op == Op::OpUnreachable ||
         op == Op::OpTerminateRayKHR || op == Op::OpIgnoreIntersectionKHR;
}

}  // namespace

int64_t LaneValue::Signed(uint32_t k) const { return SignExtend(bits[k], width); }

const char* MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kStorageImage:
      return "storage image";
    case MemoryKind::kSampledTexture:
      return "sampled texture";
    case MemoryKind::kTexelBuffer:
      return "texel buffer";
    case MemoryKind::kImage1D:
      return "1-D image";
    case MemoryKind::kStorageBuffer:
      return "storage buffer";
    case MemoryKind::kUniformBuffer:
      return "uniform buffer";
    case MemoryKind::kSharedMemory:
      return "shared memory";
  }
  return "memory";
}

bool IsTiled(MemoryKind kind) {
  return kind == MemoryKind::kStorageImage || kind == MemoryKind::kSampledTexture;
}

// ---------------------------------------------------------------------------
// The evaluator.

struct InvocationEvaluator::Impl {
  struct Frame {
    uint32_t parent = 0;
    Instruction* call = nullptr;  // null for frame 0
    Function* function = nullptr;
  };
  // A store that may write (part of) a Function variable.
  struct Store {
    Instruction* inst = nullptr;  // null: the variable's initializer
    std::vector<uint32_t> path;   // constant indices below the variable
    uint32_t value = 0;
  };
  struct VarInfo {
    bool ok = true;
    std::vector<Store> stores;
  };
  // The memo of one (frame, id) for the current invocation and
  // environment: a value (ids of values) or a Reaches answer (labels).
  // Slots persist across invocations; the epochs say whether one is
  // current, so starting over for the next invocation clears nothing, and
  // an answer that did not read the invocation's index (|deps|) stays
  // current for the next invocation in the same environment.
  struct Memo {
    uint32_t env_epoch = 0;
    uint32_t lane_epoch = 0;
    uint8_t deps = 0;   // kReads* bits of what the answer read
    bool busy = false;  // being computed: a question that depends on itself
    bool ok = false;
    bool done = false;
    LaneValue value;
    Instruction* fail = nullptr;  // !ok: what could not be evaluated
    ReachResult reach;
  };
  // Per function: control dependences and block positions in structured
  // order (built when a question first needs them).
  struct FlowInfo {
    ControlDependenceAnalysis cda;
    // Block id → position in structured order (dominators first, a
    // construct's blocks before its merge block, a loop's body before its
    // continue target): on any path that takes no back edge, the order of
    // execution.
    std::unordered_map<uint32_t, uint32_t> order;
    Instruction* stopping_call = nullptr;  // a call that may not return
    // (from, to) → whether a path leads from block |from| to block |to|.
    std::unordered_map<uint64_t, bool> path;
  };

  IRContext* context;
  Function* entry;
  WorkgroupSize size;
  const UniformityAnalysis* uniformity;

  std::vector<Frame> frames;
  std::unordered_map<const Function*, std::vector<uint32_t>> frames_of;
  std::unordered_map<uint64_t, uint32_t> child;       // (frame, call id) → frame
  std::unordered_map<uint32_t, uint32_t> builtin_of;  // Input var → BuiltIn
  std::unordered_map<uint32_t, bool> is_workgroup_size;
  std::unordered_map<uint32_t, VarInfo> vars;
  std::unordered_map<uint32_t, bool> read_only_params;
  std::unordered_map<uint32_t, uint32_t> return_value;  // function → id or 0
  std::unordered_map<const Function*, std::unique_ptr<FlowInfo>> flow;
  std::unordered_map<const Function*, bool> may_stop;
  uint32_t glsl_std = 0;
  static constexpr uint32_t kShapeUnknown = ~0u;
  std::vector<std::pair<uint32_t, uint32_t>> shapes;  // TypeShape's cache

  // The current evaluation.
  uint32_t index = ~0u;
  LaneEnv env;
  bool env_valid = false;
  // (frame, id) → slot in |memo|: per frame, a vector indexed by id
  // (made when the frame is first evaluated; frame 0's apart).
  std::vector<uint32_t> slot0;
  std::vector<std::vector<uint32_t>> frame_slots;
  // id → definition (the def-use manager's map, read once per id).
  std::vector<Instruction*> defs;
  std::vector<Memo> memo = std::vector<Memo>(1);  // slot 0: none
  uint32_t env_epoch = 1, lane_epoch = 1;
  uint8_t deps = 0;  // what the current evaluation has read so far
  uint32_t depth = 0;
  Instruction* fail_at = nullptr;  // the last failure's innermost culprit

  Impl(IRContext* c, Function* e, WorkgroupSize s, const UniformityAnalysis* u)
      : context(c), entry(e), size(s), uniformity(u) {
    for (Instruction& a : context->module()->annotations()) {
      if (a.opcode() != Op::OpDecorate ||
          a.GetSingleWordInOperand(1) != static_cast<uint32_t>(spv::Decoration::BuiltIn)) {
        continue;
      }
      const uint32_t target = a.GetSingleWordInOperand(0);
      const uint32_t builtin = a.GetSingleWordInOperand(2);
      if (builtin == static_cast<uint32_t>(spv::BuiltIn::WorkgroupSize)) {
        is_workgroup_size[target] = true;
      }
      Instruction* def = context->get_def_use_mgr()->GetDef(target);
      if (def != nullptr && def->opcode() == Op::OpVariable) {
        builtin_of[target] = builtin;
      }
    }
    glsl_std = context->get_feature_mgr()->GetExtInstImportId_GLSLstd450();
    // Frames: depth-first from the entry, calls in program order.
    frames.push_back(Frame{0, nullptr, entry});
    std::vector<uint32_t> work = {0};
    while (!work.empty()) {
      const uint32_t f = work.back();
      work.pop_back();
      std::vector<uint32_t> kids;
      frames[f].function->ForEachInst([&](Instruction* inst) {
        if (inst->opcode() != Op::OpFunctionCall) return;
        if (frames.size() >= kMaxFrames) return;
        Function* callee = context->GetFunction(inst->GetSingleWordInOperand(0));
        if (callee == nullptr) return;
        const uint32_t id = static_cast<uint32_t>(frames.size());
        frames.push_back(Frame{f, inst, callee});
        child[(uint64_t{f} << 32) | inst->result_id()] = id;
        kids.push_back(id);
      });
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
        work.push_back(*it);
      }
    }
    // Frames in program order: by (function order, then creation order).
    for (uint32_t f = 0; f < frames.size(); ++f) {
      frames_of[frames[f].function].push_back(f);
    }
  }

  // Shape of an integer/boolean scalar or vector type.
  bool TypeShape(uint32_t type_id, uint32_t* count, uint32_t* width) {
    // Cached per type id: (count, width), count 0 for other types.
    if (type_id < shapes.size() && shapes[type_id].first != kShapeUnknown) {
      *count = shapes[type_id].first;
      *width = shapes[type_id].second;
      return *count != 0;
    }
    const bool ok = ComputeTypeShape(type_id, count, width);
    if (type_id >= shapes.size()) {
      shapes.resize(std::max<size_t>(type_id + 1, context->module()->IdBound()),
                    {kShapeUnknown, 0});
    }
    shapes[type_id] = {ok ? *count : 0, ok ? *width : 0};
    return ok;
  }

  // From the type's instruction (compile time: the type manager costs more
  // to build than an evaluation that needs nothing else from it).
  bool ComputeTypeShape(uint32_t type_id, uint32_t* count, uint32_t* width) {
    const Instruction* type = Def(type_id);
    if (type == nullptr) return false;
    *count = 1;
    if (type->opcode() == Op::OpTypeVector) {
      *count = type->GetSingleWordInOperand(1);
      type = Def(type->GetSingleWordInOperand(0));
      if (type == nullptr || *count > 4) return false;
    }
    if (type->opcode() == Op::OpTypeInt) {
      *width = type->GetSingleWordInOperand(0);
      return *width <= 64;
    }
    if (type->opcode() == Op::OpTypeBool) {
      *width = 1;
      return true;
    }
    return false;
  }

  bool Constant(uint32_t id, uint64_t* value) {
    uint32_t width = 0;
    if (!ScalarConstant(context, Def(id), value, &width)) {
      return false;
    }
    *value &= Mask(width);
    return true;
  }

  // Starts the memo over when the invocation or the environment changes.
  void Select(uint32_t new_index, const LaneEnv& new_env) {
    if (env_valid && index == new_index && env.workgroup_id == new_env.workgroup_id &&
        env.subgroup_size == new_env.subgroup_size && env.probes == new_env.probes &&
        env.workgroup_unknown == new_env.workgroup_unknown) {
      return;
    }
    const bool same_env = env_valid && env.workgroup_id == new_env.workgroup_id &&
                          env.subgroup_size == new_env.subgroup_size &&
                          env.probes == new_env.probes &&
                          env.workgroup_unknown == new_env.workgroup_unknown;
    if (!same_env) ++env_epoch;
    ++lane_epoch;
    index = new_index;
    env = new_env;
    env_valid = true;
  }

  // The definition of |id| (the context does not change while this lives).
  Instruction* Def(uint32_t id) {
    if (id >= defs.size()) {
      defs.resize(std::max<size_t>(id + 1, context->module()->IdBound()), nullptr);
    }
    Instruction*& def = defs[id];
    if (def == nullptr) def = context->get_def_use_mgr()->GetDef(id);
    return def;
  }

  // The memo slot of (|frame|, |id|), current for this invocation (a new
  // one when it was not: not done, no value).
  Memo& Slot(uint32_t frame, uint32_t id) { return memo[SlotIndex(frame, id)]; }

  // The dominator analysis of |func| (the context's, looked up once per
  // function in a row).
  spvtools::opt::DominatorAnalysis* Dominators(const Function* func) {
    if (func != dom_function) {
      dom_function = func;
      dom_analysis = context->GetDominatorAnalysis(func);
    }
    return dom_analysis;
  }
  const Function* dom_function = nullptr;
  spvtools::opt::DominatorAnalysis* dom_analysis = nullptr;

  // Whether |param| is a parameter of |func|, at |*position|.
  bool ParamPosition(Function* func, const Instruction* param, uint32_t* position) {
    auto cached = param_position.find(param);
    if (cached != param_position.end() && cached->second.first == func) {
      *position = cached->second.second;
      return true;
    }
    uint32_t i = 0;
    bool found = false;
    func->ForEachParam([&](Instruction* p) {
      if (p == param) {
        *position = i;
        found = true;
      }
      ++i;
    });
    if (found) param_position[param] = {func, *position};
    return found;
  }
  std::unordered_map<const Instruction*, std::pair<const Function*, uint32_t>> param_position;

  // Slot()'s index in |memo| (stable while |memo| grows).
  uint32_t SlotIndex(uint32_t frame, uint32_t id) {
    uint32_t* slot = nullptr;
    if (frame == 0 && id < slot0.size()) {
      slot = &slot0[id];
    } else {
      if (frame >= frame_slots.size()) frame_slots.resize(frame + 1);
      std::vector<uint32_t>& of_frame = frame == 0 ? slot0 : frame_slots[frame];
      if (id >= of_frame.size()) {
        of_frame.resize(std::max<size_t>(id + 1, context->module()->IdBound()), 0);
      }
      slot = &of_frame[id];
    }
    if (*slot == 0) {
      *slot = static_cast<uint32_t>(memo.size());
      memo.emplace_back();
    }
    Memo& m = memo[*slot];
    const bool current = m.env_epoch == env_epoch &&
                         (m.lane_epoch == lane_epoch || (m.done && !(m.deps & kReadsIndex)));
    if (!current) {
      m = Memo{};
      m.env_epoch = env_epoch;
      m.lane_epoch = lane_epoch;
    }
    return *slot;
  }

  bool Eval(uint32_t frame, uint32_t id, LaneValue* out) {
    if (replay.active) {
      const int32_t e = replay.Entry(frame, id);
      if (e >= 0 && replay.Ready(e)) {
        *out = replay.value[e];
        deps |= replay.deps[e];
        return true;
      }
    }
    const uint64_t key = (uint64_t{frame} << 32) | id;
    if (recording && reader != kNoReader) read_by[reader].push_back(key);
    const uint32_t slot = SlotIndex(frame, id);
    {
      Memo& m = memo[slot];
      deps |= m.deps;
      if (m.done && m.ok) {
        *out = m.value;
        return true;
      }
      // Failed, or in progress (a value that depends on itself).
      if (m.done || m.busy) {
        fail_at = m.fail != nullptr ? m.fail : context->get_def_use_mgr()->GetDef(id);
        return false;
      }
      if (depth >= kMaxDepth) {
        fail_at = context->get_def_use_mgr()->GetDef(id);
        return false;
      }
      m.busy = true;
    }
    const uint8_t outer_deps = deps;
    deps = 0;
    ++depth;
    LaneValue v;
    fail_at = nullptr;
    const uint64_t outer_reader = reader;
    reader = key;
    bool ok = Compute(frame, id, &v);
    reader = outer_reader;
    --depth;
    if (!ok) ok = Probe(id, &v);
    if (!ok && fail_at == nullptr) {
      fail_at = context->get_def_use_mgr()->GetDef(id);
    }
    Memo& m = memo[slot];  // (|memo| may have grown; the slot is current)
    m.busy = false;
    m.done = true;
    m.deps = deps;
    deps |= outer_deps;
    m.ok = ok;
    if (ok) {
      m.value = v;
      *out = v;
    } else {
      m.fail = fail_at;
    }
    return ok;
  }

  // ---- Lane replay (EvaluateLaneMaps).
  //
  // After an access's position was evaluated for the first invocation, the
  // values it was computed from that read the invocation's index (a plan's
  // nodes, operands first) are computed again for each next invocation,
  // their operands read from here: the nodes computed for this invocation,
  // and the values that did not read the index (the leaves: the same for
  // every invocation, as the memo keeps them). No memo slot and no
  // recursion per operand; integer operations, component extracts,
  // constructs and copies of values without probes or unknown bits are
  // folded here as Compute() folds them, every other node by Compute()
  // itself. Whatever Compute() reads that is not here (a phi's branches, a
  // call's callee) goes through Eval() and the memo as before, for this
  // invocation, so a replayed value is the value Eval() computes; a node
  // that fails sends the whole position to Eval() for that invocation.
  struct ReplayNode {
    enum class Kind : uint8_t {
      kCompute,
      kBuiltIn,
      kCopy,
      kExtract,
      kConstruct,
      kInsert,
      kShuffle,
      kUnary,
      kBinary,
      kBitField
    };
    Kind kind = Kind::kCompute;
    uint32_t frame = 0, id = 0;
    const IntOp* entry = nullptr;
    const void* rule = nullptr;         // kBinary: its ProbeRule
    bool uniform = false;               // kBinary: both operands workgroup-uniform
    uint32_t count = 0, width = 0;      // the result's shape
    uint32_t k = ~0u;                   // kExtract, kInsert, kBuiltIn: the component (~0u: all)
    uint32_t builtin = 0, pointee = 0;  // kBuiltIn: the variable's
    std::vector<uint32_t> components;   // kShuffle
    std::vector<int32_t> operands;      // entries
  };
  struct Replay {
    bool active = false;
    std::vector<std::vector<int32_t>> slot;  // [frame][id] → entry, -1: none
    std::vector<LaneValue> value;
    std::vector<uint8_t> deps;
    std::vector<uint32_t> stamp;  // == lane: computed for this invocation
    std::vector<ReplayNode> node;
    uint32_t lane = 1;
    static constexpr uint32_t kLeaf = ~0u;
    int32_t Entry(uint32_t frame, uint32_t id) const {
      return frame < slot.size() && id < slot[frame].size() ? slot[frame][id] : -1;
    }
    bool Ready(int32_t e) const { return stamp[e] == kLeaf || stamp[e] == lane; }
    std::vector<std::pair<uint32_t, uint32_t>> added;  // (frame, id), for Reset()
    // Empty again, keeping the slot tables (compile time: EvaluateLaneMaps
    // runs once per item and environment in some questions).
    void Reset() {
      for (const auto& [frame, id] : added) slot[frame][id] = -1;
      added.clear();
      value.clear();
      deps.clear();
      stamp.clear();
      node.clear();
      active = false;
      lane = 1;
    }
    int32_t Add(uint32_t frame, uint32_t id, uint32_t bound) {
      if (frame >= slot.size()) slot.resize(frame + 1);
      if (slot[frame].size() < bound) slot[frame].resize(bound, -1);
      const int32_t e = static_cast<int32_t>(value.size());
      slot[frame][id] = e;
      added.push_back({frame, id});
      value.emplace_back();
      deps.push_back(0);
      stamp.push_back(0);
      node.emplace_back();
      return e;
    }
  };
  Replay replay;
  // While |recording| (the first invocation of EvaluateLaneMaps): the
  // values each value's Compute() read through Eval(), by (frame << 32 |
  // id): a plan's operands, besides a value's own (a load's stored value,
  // a phi's incoming value and branch conditions).
  static constexpr uint64_t kNoReader = ~uint64_t{0};
  bool recording = false;
  uint64_t reader = kNoReader;
  std::unordered_map<uint64_t, std::vector<uint64_t>> read_by;
  // One position part's plan: its nodes' entries, operands first.
  struct ReplayPlan {
    bool ok = false;
    uint32_t frame = 0, id = 0;
    std::vector<int32_t> nodes;
  };

  // The plan of (|frame|, |id|), right after Eval() of it for an
  // invocation: false when it was not evaluated.
  bool Plan(uint32_t frame, uint32_t id, ReplayPlan* plan, uint32_t depth = 0) {
    if (replay.Entry(frame, id) >= 0) return true;  // a leaf, or a node planned already
    if (depth > kMaxDepth) return false;
    Instruction* def = Def(id);
    if (def == nullptr || def->type_id() == 0 || def->opcode() == Op::OpLabel) return false;
    const Memo& m = memo[SlotIndex(frame, id)];
    if (!m.done || !m.ok) return false;
    const bool leaf = !(m.deps & kReadsIndex);
    const int32_t e = replay.Add(frame, id, context->module()->IdBound());
    replay.deps[e] = m.deps;
    if (leaf) {
      replay.value[e] = m.value;
      replay.stamp[e] = Replay::kLeaf;
      return true;
    }
    // Operands first (one met again on a cycle through a phi is left to
    // Eval()): a parameter's is the call's argument, a call's the callee's
    // return value.
    auto read = read_by.find((uint64_t{frame} << 32) | id);
    uint32_t other_frame = 0, other_id = 0;
    if (read != read_by.end()) {
      for (uint64_t k : read->second) {
        Plan(static_cast<uint32_t>(k >> 32), static_cast<uint32_t>(k), plan, depth + 1);
      }
    } else if (CrossFrame(frame, def, &other_frame, &other_id)) {
      Plan(other_frame, other_id, plan, depth + 1);
    } else {
      def->ForEachInId([&](const uint32_t* op) { Plan(frame, *op, plan, depth + 1); });
    }
    ReplayNode n = Classify(frame, def);
    n.frame = frame;
    n.id = id;
    replay.node[e] = std::move(n);
    plan->nodes.push_back(e);
    return true;
  }

  // The value a parameter (the call's argument) or a call (the callee's
  // return value) is, as Compute() reads it.
  bool CrossFrame(uint32_t frame, Instruction* def, uint32_t* other_frame, uint32_t* other_id) {
    if (def->opcode() == Op::OpFunctionParameter) {
      uint32_t position = 0;
      if (frame == 0 || !ParamPosition(frames[frame].function, def, &position)) return false;
      Instruction* call = frames[frame].call;
      if (position + 1 >= call->NumInOperands()) return false;
      *other_frame = frames[frame].parent;
      *other_id = call->GetSingleWordInOperand(position + 1);
      return true;
    }
    if (def->opcode() == Op::OpFunctionCall) {
      auto it = child.find((uint64_t{frame} << 32) | def->result_id());
      if (it == child.end()) return false;
      *other_frame = it->second;
      *other_id = ReturnValue(frames[it->second].function);
      return *other_id != 0;
    }
    return false;
  }

  // Whether |load| reads a whole Function variable whose last store before
  // it dominance alone decides (ReachingStore), storing the value
  // |*value|: what Load() evaluates for every invocation.
  bool StoredValue(uint32_t* frame, Instruction* load, uint32_t* value) {
    // Through read-only pointer parameters to the caller's variable, as
    // Load() follows them.
    Instruction* at = load;
    Instruction* var = Def(load->GetSingleWordInOperand(0));
    for (int guard = 0; guard < 32 && var != nullptr && var->opcode() == Op::OpFunctionParameter;
         ++guard) {
      uint32_t position = 0;
      if (*frame == 0 || !ParamReadOnly(var->result_id()) ||
          !ParamPosition(frames[*frame].function, var, &position)) {
        return false;
      }
      Instruction* call = frames[*frame].call;
      if (position + 1 >= call->NumInOperands()) return false;
      var = Def(call->GetSingleWordInOperand(position + 1));
      at = call;
      *frame = frames[*frame].parent;
    }
    if (var == nullptr || var->opcode() != Op::OpVariable ||
        static_cast<spv::StorageClass>(var->GetSingleWordInOperand(0)) !=
            spv::StorageClass::Function) {
      return false;
    }
    const VarInfo& info = Var(var);
    const std::vector<uint32_t> path;
    const Store* latest = nullptr;
    if (!info.ok || !ReachingStore(*frame, info, path, at, &latest)) return false;
    auto cached = static_stores.find(std::make_tuple(&info, at, path));
    if (cached == static_stores.end() || cached->second != latest || !latest->path.empty()) {
      return false;
    }
    *value = latest->value;
    return true;
  }

  // How a node is replayed: the kinds of Compute() that read only their
  // operands, with every operand an entry; kCompute otherwise.
  ReplayNode Classify(uint32_t frame, Instruction* def) {
    ReplayNode n;
    if (!TypeShape(def->type_id(), &n.count, &n.width)) return n;
    std::vector<std::pair<uint32_t, uint32_t>> reads;  // (frame, id)
    const ReplayNode::Kind kind = KindOf(frame, def, &n, &reads);
    for (const auto& [f, id] : reads) {
      const int32_t e = replay.Entry(f, id);
      if (e < 0) return n;
      n.operands.push_back(e);
    }
    n.kind = kind;
    return n;
  }

  // The kind of |def| (its shape in |n|), the values its fold reads and
  // its other facts in |n|; kCompute when Compute() is left to decide.
  ReplayNode::Kind KindOf(uint32_t frame, Instruction* def, ReplayNode* n,
                          std::vector<std::pair<uint32_t, uint32_t>>* reads) {
    using Kind = ReplayNode::Kind;
    const Op op = def->opcode();
    uint32_t from_frame = 0, from_id = 0;
    if (CopiedValue(frame, def, &from_frame, &from_id)) {
      reads->push_back({from_frame, from_id});
      return Kind::kCopy;
    }
    if (op == Op::OpLoad) return BuiltInLoad(def, n) ? Kind::kBuiltIn : Kind::kCompute;
    auto read = [&](uint32_t first, uint32_t end) {
      for (uint32_t i = first; i < end; ++i)
        reads->push_back({frame, def->GetSingleWordInOperand(i)});
    };
    if (op == Op::OpCopyObject || op == Op::OpCopyLogical) {
      read(0, 1);
      return Kind::kCopy;
    }
    if (op == Op::OpCompositeExtract) {
      // CompositeExtract()'s component of an integer or boolean vector.
      uint32_t c = 0, w = 0;
      Instruction* composite = Def(def->GetSingleWordInOperand(0));
      if (def->NumInOperands() != 2 || n->count != 1 || composite == nullptr ||
          !TypeShape(composite->type_id(), &c, &w)) {
        return Kind::kCompute;
      }
      n->k = def->GetSingleWordInOperand(1);
      read(0, 1);
      return Kind::kExtract;
    }
    if (op == Op::OpVectorShuffle) {
      if (2 + n->count > def->NumInOperands()) return Kind::kCompute;
      for (uint32_t k = 0; k < n->count; ++k) {
        n->components.push_back(def->GetSingleWordInOperand(2 + k));
      }
      read(0, 2);
      return Kind::kShuffle;
    }
    if (op == Op::OpCompositeConstruct) {
      read(0, def->NumInOperands());
      return Kind::kConstruct;
    }
    if (op == Op::OpCompositeInsert) {
      // Structural()'s component of an integer or boolean vector.
      if (def->NumInOperands() != 3) return Kind::kCompute;
      n->k = def->GetSingleWordInOperand(2);
      read(0, 2);
      return Kind::kInsert;
    }
    const IntOp* entry = FindIntOp(op);
    if (entry == nullptr || def->NumInOperands() != entry->arity) return Kind::kCompute;
    const ProbeRule* rule = ProbeRuleOf(op);
    if (entry->arity == 2 && rule == nullptr) return Kind::kCompute;  // BinaryOp() refuses
    n->entry = entry;
    read(0, entry->arity);
    if (entry->arity == 1) return Kind::kUnary;
    if (entry->arity > 2) return Kind::kBitField;
    n->rule = rule;
    n->uniform = Uniform(def->GetSingleWordInOperand(0)) && Uniform(def->GetSingleWordInOperand(1));
    if (rule->compare) n->width = 1;
    return Kind::kBinary;
  }

  // The value a parameter (the call's argument), a call (the callee's
  // return value) or a load StoredValue() follows is a copy of.
  bool CopiedValue(uint32_t frame, Instruction* def, uint32_t* from_frame, uint32_t* from_id) {
    if (CrossFrame(frame, def, from_frame, from_id)) return true;
    *from_frame = frame;
    return def->opcode() == Op::OpLoad && StoredValue(from_frame, def, from_id);
  }

  // Load() of a built-in variable, or of one component of it by a
  // constant index: its facts in |n|.
  bool BuiltInLoad(Instruction* load, ReplayNode* n) {
    Instruction* ptr = Def(load->GetSingleWordInOperand(0));
    uint64_t c = 0;
    if (ptr != nullptr &&
        (ptr->opcode() == Op::OpAccessChain || ptr->opcode() == Op::OpInBoundsAccessChain)) {
      if (ptr->NumInOperands() != 2 || !Constant(ptr->GetSingleWordInOperand(1), &c)) return false;
      n->k = static_cast<uint32_t>(c);
      ptr = Def(ptr->GetSingleWordInOperand(0));
    }
    if (ptr == nullptr || ptr->opcode() != Op::OpVariable ||
        static_cast<spv::StorageClass>(ptr->GetSingleWordInOperand(0)) !=
            spv::StorageClass::Input) {
      return false;
    }
    auto b = builtin_of.find(ptr->result_id());
    if (b == builtin_of.end()) return false;
    n->builtin = b->second;
    n->pointee = Def(ptr->type_id())->GetSingleWordInOperand(1);
    return true;
  }

  // Without unknown bits (probes allowed).
  static bool AllKnown(const LaneValue& v) { return v.linear == 0 && !v.HasUnknown(); }

  // |n|'s value from its operands' (Compute()'s, where they are plain):
  // false when Compute() must decide.
  bool Fold(const ReplayNode& n, LaneValue* out) {
    // An operand another part computes, when that part stopped (its item
    // failed, or its plan did for this invocation): Compute() reads it
    // through Eval().
    const LaneValue* in[kMaxFoldOperands];
    if (n.operands.size() > kMaxFoldOperands) return false;
    for (size_t i = 0; i < n.operands.size(); ++i) {
      if (!replay.Ready(n.operands[i])) return false;
      in[i] = &replay.value[n.operands[i]];
    }
    return FoldFrom(n, in, index, out);
  }

  // A construct of more operands has more than four components, which
  // Append() refuses.
  static constexpr size_t kMaxFoldOperands = 16;

  // Fold() of |n| for invocation |lane|, its operands' values in |in|.
  bool FoldFrom(const ReplayNode& n, const LaneValue* const* in, uint32_t lane, LaneValue* out) {
    using Kind = ReplayNode::Kind;
    switch (n.kind) {
      case Kind::kCompute:
        return false;
      case Kind::kBuiltIn:
        return FoldBuiltIn(n, lane, out);
      case Kind::kCopy:
        *out = *in[0];
        return true;
      case Kind::kExtract: {
        const LaneValue& v = *in[0];
        if (n.k >= v.count) return false;
        // Scalar(0, v.width), then CopyComponent(out, 0, v, n.k).
        SetScalar(out, v.bits[n.k], v.width);
        out->unknown[0] = v.unknown[n.k];
        out->probe_mask = v.IsProbe(n.k) ? 1 : 0;
        out->linear = v.IsLinear(n.k) ? 1 : 0;
        out->axes = static_cast<uint8_t>(v.Axis(n.k));
        return true;
      }
      case Kind::kConstruct:
        return FoldConstruct(n, in, out);
      case Kind::kInsert: {
        // Structural(): the composite with component k the object's.
        if (n.k >= in[1]->count || in[0]->count != 1) return false;
        *out = *in[1];
        CopyComponent(out, n.k, *in[0], 0);
        return true;
      }
      case Kind::kShuffle:
        return ShuffleValues(*in[0], *in[1], n.components.data(), n.count, n.width, out);
      case Kind::kBitField:
        return FoldBitField(n, in, out);
      case Kind::kUnary:
        return FoldUnary(n, *in[0], out);
      case Kind::kBinary: {
        // BinaryOp() without unknown bits.
        const LaneValue& a = *in[0];
        const LaneValue& b = *in[1];
        if (!AllKnown(a) || !AllKnown(b)) return false;
        if (n.count == 1 && a.count == 1 && b.count == 1 && (a.probe_mask | b.probe_mask) == 0) {
          return ScalarBinary(*n.entry, a, b, n.width, out);
        }
        return BinaryValues(*n.entry, *static_cast<const ProbeRule*>(n.rule), n.uniform, a, b,
                            n.count, n.width, out);
      }
    }
    return false;
  }

  // FoldFrom()'s cases with values of their own, apart (compile time: its
  // frame stays small).
  bool FoldBuiltIn(const ReplayNode& n, uint32_t lane, LaneValue* out) {
    // Load(): the variable, or one component of it.
    if (n.k == ~0u) return BuiltInAt(lane, n.builtin, n.pointee, out);
    LaneValue whole;
    if (!BuiltInAt(lane, n.builtin, n.pointee, &whole) || n.k >= whole.count) return false;
    *out = Scalar(0, whole.width);
    CopyComponent(out, 0, whole, n.k);
    return true;
  }
  static bool FoldConstruct(const ReplayNode& n, const LaneValue* const* in, LaneValue* out) {
    LaneValue r;
    r.width = n.width;
    for (size_t i = 0; i < n.operands.size(); ++i) {
      if (!Append(&r, *in[i], n.count)) return false;
    }
    if (r.count != n.count) return false;
    *out = r;
    return true;
  }
  bool FoldBitField(const ReplayNode& n, const LaneValue* const* in, LaneValue* out) {
    // Operand() would refuse unknown bits.
    if (n.operands.size() > 4) return false;
    for (size_t i = 0; i < n.operands.size(); ++i) {
      if (!AllKnown(*in[i])) return false;
    }
    return BitFieldValues(*n.entry, in, n.count, n.width, out);
  }

  // BinaryValues() of two plain scalars (no probe), without its general
  // loop: the replay's commonest fold.
  static bool ScalarBinary(const IntOp& entry, const LaneValue& a, const LaneValue& b,
                           uint32_t width, LaneValue* out) {
    const uint64_t in[2] = {a.bits[0], b.bits[0]};
    uint64_t z = 0;
    if (!FoldInt(entry, in, a.width, a.width, &z)) return false;
    SetScalar(out, z & Mask(width), width);
    return true;
  }

  // Unary() of |a| without unknown bits.
  static bool FoldUnary(const ReplayNode& n, const LaneValue& a, LaneValue* out) {
    const Op op = n.entry->op;
    if (!AllKnown(a) || a.count != n.count) return false;
    if (op == Op::OpBitcast && a.width != n.width) return false;
    if (a.probe_mask != 0 && (op == Op::OpBitReverse || op == Op::OpBitCount)) return false;
    LaneValue r;
    r.count = n.count;
    r.width = n.width;
    r.probe_mask = a.probe_mask;
    for (uint32_t k = 0; k < n.count; ++k) {
      uint64_t z = 0;
      FoldInt(*n.entry, &a.bits[k], a.width, n.width, &z);
      r.bits[k] = z & Mask(n.width);
    }
    *out = r;
    return true;
  }

  // The batch: the plans' nodes that fold for every invocation, computed
  // node by node over all invocations before the per-invocation loop
  // (compile time: that loop's bookkeeping per node and invocation was
  // most of the replay). A node is batched when every operand is a leaf or
  // batched and its fold succeeds for every invocation; its values are
  // then the ones RunPlan() would give, invocation by invocation.
  struct Batch {
    enum State : uint8_t { kUnseen, kBatched, kFailed };
    // One node's values for every invocation (index 0 unused). |plain|
    // when each is plain (IsPlain) with the same count, width and axes:
    // then |bits|[lane * count + k], else |values|[lane].
    struct Node {
      bool plain = false;
      uint32_t count = 0, width = 0;
      uint8_t axes = 0;
      std::vector<uint64_t> bits;
      std::vector<LaneValue> values;
    };
    std::vector<State> state;   // [entry]
    std::vector<Node> nodes;    // [entry]
    std::vector<uint8_t> deps;  // [entry], batched nodes: what Fold()'s value read
    size_t budget = 0;          // values left to hold
  };
  Batch batch;
  // Values the batch holds at most (about 23 MB as LaneValues); nodes past
  // it replay per invocation.
  static constexpr size_t kMaxBatchValues = size_t{1} << 18;

  // No probe and nothing unknown, no bits past its components: the
  // fields Batch::Node keeps give it back exactly.
  static bool IsPlain(const LaneValue& v) {
    if (v.probe_mask != 0 || v.linear != 0 || v.HasUnknown() || v.count == 0 || v.count > 4) {
      return false;
    }
    for (uint32_t k = v.count; k < 4; ++k) {
      if (v.bits[k] != 0) return false;
    }
    return true;
  }

  // A plain operand: its components for invocation l are At(l, k).
  struct PlainView {
    const uint64_t* bits = nullptr;  // per invocation, or null: |one| for all
    const uint64_t* one = nullptr;
    uint32_t count = 0, width = 0;
    uint8_t axes = 0;
    uint8_t probe = 0;  // a leaf's probe components (BatchPlain() substitutes them)
    uint64_t At(uint32_t l, uint32_t k) const { return bits ? bits[l * count + k] : one[k]; }
    uint32_t Axis(uint32_t k) const { return (axes >> (2 * k)) & 3u; }
  };
  bool Plain(int32_t e, PlainView* v) const {
    if (replay.stamp[e] == Replay::kLeaf) {
      const LaneValue& leaf = replay.value[e];
      *v = PlainView{nullptr, leaf.bits.data(), leaf.count, leaf.width, leaf.axes, leaf.probe_mask};
      LaneValue without = leaf;
      without.probe_mask = 0;
      return IsPlain(without);
    }
    const Batch::Node& b = batch.nodes[e];
    *v = PlainView{b.bits.data(), nullptr, b.count, b.width, b.axes};
    return b.plain;
  }

  // Batches the nodes of |plans| for invocations 1..|lanes|-1; (*roots)[i][p]:
  // the entry of part p of item i when its value is a leaf or batched,
  // else -1.
  void BatchPlans(const std::vector<std::vector<ReplayPlan>>& plans, uint32_t lanes,
                  std::vector<std::vector<int32_t>>* roots) {
    batch.state.assign(replay.node.size(), Batch::kUnseen);
    batch.nodes.assign(replay.node.size(), {});
    batch.deps.assign(replay.node.size(), 0);
    batch.budget = kMaxBatchValues;
    roots->assign(plans.size(), {});
    for (size_t i = 0; i < plans.size(); ++i) {
      (*roots)[i].assign(plans[i].size(), -1);
      for (size_t p = 0; p < plans[i].size(); ++p) {
        const ReplayPlan& plan = plans[i][p];
        if (!plan.ok || !Foldable(plan)) continue;
        for (int32_t e : plan.nodes) BatchNode(e, lanes);
        const int32_t root = replay.Entry(plan.frame, plan.id);
        if (root >= 0 && BatchReady(root)) (*roots)[i][p] = root;
      }
    }
  }

  // Whether every node of |plan| may fold (no kCompute node, no operand
  // that may not): only such plans are batched, whole.
  bool Foldable(const ReplayPlan& plan) {
    for (int32_t e : plan.nodes) {
      if (batch.state[e] == Batch::kFailed) return false;
      const ReplayNode& n = replay.node[e];
      bool ok = n.kind != ReplayNode::Kind::kCompute;
      for (int32_t o : n.operands) {
        ok = ok && (replay.stamp[o] == Replay::kLeaf || batch.state[o] != Batch::kFailed);
      }
      if (!ok) {
        batch.state[e] = Batch::kFailed;
        return false;
      }
    }
    return true;
  }

  bool BatchReady(int32_t e) const {
    return replay.stamp[e] == Replay::kLeaf || batch.state[e] == Batch::kBatched;
  }
  uint8_t BatchDeps(int32_t e) const {
    return replay.stamp[e] == Replay::kLeaf ? replay.deps[e] : batch.deps[e];
  }
  // Entry |e|'s value for invocation |lane| (in |*tmp| when it is kept
  // plain).
  const LaneValue& BatchValue(int32_t e, uint32_t lane, LaneValue* tmp) const {
    if (replay.stamp[e] == Replay::kLeaf) return replay.value[e];
    const Batch::Node& b = batch.nodes[e];
    if (!b.plain) return b.values[lane];
    SetEmpty(tmp, b.count, b.width);
    for (uint32_t k = 0; k < b.count; ++k) tmp->bits[k] = b.bits[lane * b.count + k];
    tmp->axes = b.axes;
    return *tmp;
  }

  void BatchNode(int32_t e, uint32_t lanes) {
    if (batch.state[e] != Batch::kUnseen) return;
    batch.state[e] = Batch::kFailed;
    const ReplayNode& n = replay.node[e];
    if (n.kind == ReplayNode::Kind::kCompute || n.operands.size() > kMaxFoldOperands ||
        batch.budget < lanes) {
      return;
    }
    for (int32_t o : n.operands) {
      if (!BatchReady(o)) return;
    }
    Batch::Node& out = batch.nodes[e];
    const int plain = n.kind == ReplayNode::Kind::kBuiltIn
                          ? BatchPlainBuiltIn(n, lanes, &out, &batch.deps[e])
                          : BatchPlain(n, lanes, &out, &batch.deps[e]);
    if (plain == 0) out = Batch::Node();
    if (plain < 0 || (plain == 0 && !BatchFolds(n, lanes, &out, &batch.deps[e]))) {
      out = Batch::Node();
      return;
    }
    batch.budget -= lanes;
    batch.state[e] = Batch::kBatched;
  }

  // FoldFrom() over plain operands for every invocation, for the kinds
  // whose values stay plain: 1 done, 0 not such a node, -1 a fold failed.
  int BatchPlain(const ReplayNode& n, uint32_t lanes, Batch::Node* out, uint8_t* deps_out) {
    using Kind = ReplayNode::Kind;
    if (n.kind != Kind::kCopy && n.kind != Kind::kExtract && n.kind != Kind::kConstruct &&
        n.kind != Kind::kInsert && n.kind != Kind::kShuffle && n.kind != Kind::kUnary &&
        n.kind != Kind::kBinary) {
      return 0;
    }
    PlainView in[kMaxFoldOperands];
    uint8_t probes = 0;
    for (size_t i = 0; i < n.operands.size(); ++i) {
      if (!Plain(n.operands[i], &in[i])) return 0;
      probes |= in[i].probe;
    }
    uint64_t neutral[2][4];
    if (probes != 0 && !SubstituteProbes(n, in, neutral)) return 0;
    if (!PlainShape(n, in, out)) return -1;
    out->plain = true;
    out->bits.assign(size_t{lanes} * out->count, 0);
    if (!PlainLanes(n, in, lanes, Mask(out->width), out)) return -1;
    for (int32_t o : n.operands) *deps_out |= BatchDeps(o);
    return 1;
  }

  // BatchPlain() of a built-in load (FoldBuiltIn()), where no component
  // owes anything to an unknown workgroup id.
  int BatchPlainBuiltIn(const ReplayNode& n, uint32_t lanes, Batch::Node* out, uint8_t* deps_out) {
    uint32_t count = 0, width = 0;
    if (!TypeShape(n.pointee, &count, &width) || width == 1 || count > 3) return 0;
    const bool whole = n.k == ~0u;
    if (!whole && n.k >= count) return 0;
    const uint64_t m = Mask(width);
    *out = Batch::Node{true, whole ? count : 1, width, 0, {}, {}};
    for (uint32_t k = 0; k < count; ++k) {
      if (whole) out->axes |= static_cast<uint8_t>(k << (2 * k));
    }
    if (!whole) out->axes = static_cast<uint8_t>(n.k);
    out->bits.assign(size_t{lanes} * out->count, 0);
    // LocalInvocationId of invocation 1, then counted up (compile time: no
    // division per invocation).
    uint32_t local[3] = {1 % size.x, (1 / size.x) % size.y, 1 / (size.x * size.y)};
    for (uint32_t l = 1; l < lanes; ++l) {
      uint64_t v[3] = {0, 0, 0}, coef[3] = {0, 0, 0};
      deps = 0;
      if (!BuiltInParts(n.builtin, l, local, v, coef)) return 0;
      if (++local[0] == size.x) {
        local[0] = 0;
        if (++local[1] == size.y) {
          local[1] = 0;
          ++local[2];
        }
      }
      if (((coef[0] | coef[1] | coef[2]) & m) != 0) return 0;
      *deps_out = deps;
      for (uint32_t k = 0; k < out->count; ++k) {
        out->bits[l * out->count + k] = v[whole ? k : n.k] & m;
      }
    }
    return 1;
  }

  // A binary operation's probe operands as Binary() takes them: each probe
  // component its side's neutral element (a broadcast |neutral| row);
  // false when BatchPlain() leaves the node to FoldFrom() (another kind,
  // both operands workgroup-uniform, two probes in one component, a side
  // without a neutral element, shapes Binary() refuses).
  static bool SubstituteProbes(const ReplayNode& n, PlainView* in, uint64_t neutral[2][4]) {
    if (n.kind != ReplayNode::Kind::kBinary || n.uniform) return false;
    if (in[0].count != n.count || in[1].count != n.count) return false;
    const auto* rule = static_cast<const ProbeRule*>(n.rule);
    for (uint32_t k = 0; k < n.count; ++k) {
      if (((in[0].probe & in[1].probe) >> k) & 1u) return false;
    }
    for (int side = 0; side < 2; ++side) {
      PlainView& v = in[side];
      if (v.probe == 0) continue;
      for (uint32_t k = 0; k < v.count; ++k) {
        neutral[side][k] = v.one[k];
        if (((v.probe >> k) & 1u) &&
            !NeutralValue(side == 0 ? rule->a : rule->b, v.width, &neutral[side][k])) {
          return false;
        }
      }
      v.one = neutral[side];
      v.probe = 0;
    }
    return true;
  }

  // The count, width and axes of BatchPlain()'s values; false when
  // FoldFrom() fails for any invocation on operands of these shapes.
  static bool PlainShape(const ReplayNode& n, const PlainView* in, Batch::Node* out) {
    using Kind = ReplayNode::Kind;
    const PlainView& a = in[0];
    out->count = n.count;
    out->width = n.width;
    out->axes = 0;
    switch (n.kind) {
      case Kind::kCopy:
        *out = Batch::Node{false, a.count, a.width, a.axes, {}, {}};
        return true;
      case Kind::kExtract:
        *out = Batch::Node{false, 1, a.width, static_cast<uint8_t>(a.Axis(n.k)), {}, {}};
        return n.k < a.count;
      case Kind::kConstruct: {
        uint32_t total = 0;
        for (size_t i = 0; i < n.operands.size(); ++i) {
          for (uint32_t k = 0; k < in[i].count; ++k, ++total) {
            if (total >= n.count) return false;  // Append()
            out->axes |= static_cast<uint8_t>(in[i].Axis(k) << (2 * total));
          }
        }
        return total == n.count;
      }
      case Kind::kShuffle:
        for (uint32_t k = 0; k < n.count; ++k) {
          const uint32_t c = n.components[k];
          const PlainView& src = c < a.count ? a : in[1];
          const uint32_t j = c < a.count ? c : c - a.count;
          if (j >= src.count) return false;  // includes 0xFFFFFFFF
          out->axes |= static_cast<uint8_t>(src.Axis(j) << (2 * k));
        }
        return true;
      case Kind::kInsert: {
        const PlainView& composite = in[1];
        if (n.k >= composite.count || a.count != 1) return false;
        const uint8_t mask = static_cast<uint8_t>(3u << (2 * n.k));
        *out =
            Batch::Node{false,
                        composite.count,
                        composite.width,
                        static_cast<uint8_t>((composite.axes & ~mask) | (a.Axis(0) << (2 * n.k))),
                        {},
                        {}};
        return true;
      }
      case Kind::kUnary:
        return a.count == n.count && (n.entry->op != Op::OpBitcast || a.width == n.width);
      case Kind::kBinary:
        return a.count == n.count && in[1].count == n.count;
      default:
        return false;
    }
  }

  // Where each result component of a copy, extract, insert, construct or
  // shuffle comes from: component |from|[k] of |src|[k]; false for other
  // kinds. |c|: the result's components (PlainShape()).
  static bool Picks(const ReplayNode& n, const PlainView* in, uint32_t c, const PlainView** src,
                    uint32_t* from) {
    using Kind = ReplayNode::Kind;
    const PlainView& a = in[0];
    uint32_t total = 0;
    switch (n.kind) {
      case Kind::kCopy:
      case Kind::kExtract:
        for (uint32_t k = 0; k < c; ++k) {
          src[k] = &a;
          from[k] = n.kind == Kind::kCopy ? k : n.k;
        }
        return true;
      case Kind::kShuffle:
        for (uint32_t k = 0; k < c; ++k) {
          const uint32_t j = n.components[k];
          src[k] = j < a.count ? &a : &in[1];
          from[k] = j < a.count ? j : j - a.count;
        }
        return true;
      case Kind::kInsert:
        for (uint32_t k = 0; k < c; ++k) {
          src[k] = k == n.k ? &a : &in[1];
          from[k] = k == n.k ? 0 : k;
        }
        return true;
      case Kind::kConstruct:
        for (size_t i = 0; i < n.operands.size(); ++i) {
          for (uint32_t k = 0; k < in[i].count; ++k, ++total) {
            src[total] = &in[i];
            from[total] = k;
          }
        }
        return true;
      default:
        return false;
    }
  }

  // BatchPlain()'s components for invocations 1..|lanes|-1 in |out|
  // (|m|: the result's mask); false when a fold fails.
  static bool PlainLanes(const ReplayNode& n, const PlainView* in, uint32_t lanes, uint64_t m,
                         Batch::Node* out) {
    const PlainView& a = in[0];
    const uint32_t c = out->count;
    uint64_t* r = out->bits.data();
    const PlainView* src[4];
    uint32_t from[4];
    if (Picks(n, in, c, src, from)) {
      for (uint32_t l = 1; l < lanes; ++l) {
        for (uint32_t k = 0; k < c; ++k) r[l * c + k] = src[k]->At(l, from[k]);
      }
      return true;
    }
    const bool binary = n.kind == ReplayNode::Kind::kBinary;
    for (uint32_t l = 1; l < lanes; ++l) {
      for (uint32_t k = 0; k < c; ++k) {
        const uint64_t x[2] = {a.At(l, k), binary ? in[1].At(l, k) : 0};
        uint64_t z = 0;
        // FoldUnary() keeps 0 where the fold fails; Binary() fails.
        const bool ok = FoldInt(*n.entry, x, a.width, binary ? a.width : n.width, &z);
        if (binary && !ok) return false;
        r[l * c + k] = z & m;
      }
    }
    return true;
  }

  // FoldFrom() for every invocation; the values kept plain when all are
  // with one count, width and axes.
  bool BatchFolds(const ReplayNode& n, uint32_t lanes, Batch::Node* out, uint8_t* deps_out) {
    const LaneValue* in[kMaxFoldOperands];
    LaneValue tmp[kMaxFoldOperands];
    out->values.resize(lanes);
    bool plain = lanes > 1;
    for (uint32_t l = 1; l < lanes; ++l) {
      for (size_t k = 0; k < n.operands.size(); ++k) {
        in[k] = &BatchValue(n.operands[k], l, &tmp[k]);
      }
      deps = 0;
      LaneValue& v = out->values[l];
      if (!FoldFrom(n, in, l, &v)) return false;
      for (int32_t o : n.operands) deps |= BatchDeps(o);
      if (l > 1 && deps != *deps_out) return false;
      *deps_out = deps;
      const LaneValue& first = out->values[1];
      plain = plain && IsPlain(v) && v.count == first.count && v.width == first.width &&
              v.axes == first.axes;
    }
    if (!plain) return true;
    const LaneValue first = out->values[1];
    std::vector<uint64_t> bits(size_t{lanes} * first.count, 0);
    for (uint32_t l = 1; l < lanes; ++l) {
      for (uint32_t k = 0; k < first.count; ++k) bits[l * first.count + k] = out->values[l].bits[k];
    }
    *out = Batch::Node{true, first.count, first.width, first.axes, std::move(bits), {}};
    return true;
  }

  // Part values from the batch: (*raw)[l] for invocations 1..|lanes|-1
  // of component |k| of |root|; false when some invocation's value has
  // unknown bits or no component |k| (the part then replays per
  // invocation, where Eval() decides those).
  bool BatchRaw(int32_t root, uint32_t k, uint32_t lanes, std::vector<int64_t>* raw) const {
    PlainView v;
    if (Plain(root, &v)) {
      if (k >= v.count) return false;
      for (uint32_t l = 1; l < lanes; ++l) (*raw)[l] = SignExtend(v.At(l, k), v.width);
      return true;
    }
    LaneValue tmp;
    for (uint32_t l = 1; l < lanes; ++l) {
      const LaneValue& value = BatchValue(root, l, &tmp);
      if (value.HasUnknown() || k >= value.count) return false;
    }
    for (uint32_t l = 1; l < lanes; ++l) {
      const LaneValue& value = BatchValue(root, l, &tmp);
      (*raw)[l] = value.IsProbe(k) ? 0 : value.Signed(k);
    }
    return true;
  }

  void ClearBatch() {
    batch.state.clear();
    batch.nodes.clear();
    batch.deps.clear();
  }

  // Replays |plan| for the current invocation (Select()ed): false when a
  // node fails (Eval() then decides).
  bool RunPlan(const ReplayPlan& plan, LaneValue* out, uint8_t* read) {
    for (int32_t e : plan.nodes) {
      if (replay.stamp[e] == replay.lane) continue;  // another part's node
      const ReplayNode& n = replay.node[e];
      LaneValue* v = &replay.value[e];
      deps = 0;
      if (Fold(n, v)) {
        for (int32_t o : n.operands) deps |= replay.deps[o];
      } else {
        deps = 0;
        depth = 0;
        fail_at = nullptr;
        if (!Compute(n.frame, n.id, v)) return false;
      }
      replay.deps[e] = deps;
      replay.stamp[e] = replay.lane;
    }
    const int32_t root = replay.Entry(plan.frame, plan.id);
    if (root < 0 || !replay.Ready(root)) return false;
    *out = replay.value[root];
    *read = replay.deps[root];
    return true;
  }

  // ---- The execution predicate.

  // Whether |func| may not return to its caller: it contains, or calls a
  // function that contains, an instruction after which the invocation
  // stops.
  bool MayStop(const Function* func) {
    auto it = may_stop.find(func);
    if (it != may_stop.end()) return it->second;
    may_stop[func] = true;  // recursion (invalid in shaders): assume so
    bool stops = false;
    func->WhileEachInst([&](const Instruction* inst) {
      if (Stops(inst->opcode())) {
        stops = true;
      } else if (inst->opcode() == Op::OpFunctionCall) {
        const Function* callee = context->GetFunction(inst->GetSingleWordInOperand(0));
        stops = callee == nullptr || MayStop(callee);
      }
      return !stops;
    });
    may_stop[func] = stops;
    return stops;
  }

  FlowInfo& Flow(Function* func) {
    std::unique_ptr<FlowInfo>& info = flow[func];
    if (info != nullptr) return *info;
    info = std::make_unique<FlowInfo>();
    info->cda.ComputeControlDependenceGraph(*context->cfg(),
                                            *context->GetPostDominatorAnalysis(func));
    std::list<BasicBlock*> order;
    context->cfg()->ComputeStructuredOrder(func, &*func->begin(), &order);
    uint32_t n = 0;
    for (BasicBlock* b : order) info->order[b->id()] = n++;
    func->WhileEachInst([&](Instruction* inst) {
      if (inst->opcode() == Op::OpFunctionCall) {
        const Function* callee = context->GetFunction(inst->GetSingleWordInOperand(0));
        if (callee == nullptr || MayStop(callee)) info->stopping_call = inst;
      }
      return info->stopping_call == nullptr;
    });
    return *info;
  }

  // Whether a path leads from |from| to |to| (blocks of |func|).
  bool Path(Function* func, const BasicBlock* from, const BasicBlock* to) {
    FlowInfo& info = Flow(func);
    const uint64_t key = (uint64_t{from->id()} << 32) | to->id();
    auto it = info.path.find(key);
    if (it != info.path.end()) return it->second;
    std::set<uint32_t> seen = {from->id()};
    std::vector<const BasicBlock*> work = {from};
    bool found = from == to;
    while (!work.empty() && !found) {
      const BasicBlock* b = work.back();
      work.pop_back();
      b->ForEachSuccessorLabel([&](const uint32_t succ) {
        const BasicBlock* next = context->cfg()->block(succ);
        if (found || !seen.insert(succ).second) return;
        found = next == to;
        work.push_back(next);
      });
    }
    info.path[key] = found;
    return found;
  }

  // Whether the current invocation executes |block| of |frame|'s function.
  ReachResult Reaches(uint32_t frame, const BasicBlock* block) {
    {
      Memo& m = Slot(frame, block->id());
      deps |= m.deps;
      if (m.done) return m.reach;
      // In progress: the question depends on itself.
      if (m.busy || depth >= kMaxDepth) return Unknown(block->GetLabelInst());
      m.busy = true;
    }
    const uint8_t outer_deps = deps;
    deps = 0;
    ++depth;
    const ReachResult r = ComputeReach(frame, block);
    --depth;
    Memo& m = Slot(frame, block->id());
    m.busy = false;
    m.done = true;
    m.deps = deps;
    deps |= outer_deps;
    m.reach = r;
    return r;
  }

  // |block| runs when one of its control dependences fires: the source
  // block runs and takes the branch edge the dependence goes through (the
  // pseudo-entry dependence: the frame is entered). A source that |block|
  // dominates runs only after |block| has: it decides whether |block| runs
  // again, not whether it runs once.
  ReachResult ComputeReach(uint32_t frame, const BasicBlock* block) {
    Function* func = frames[frame].function;
    FlowInfo& info = Flow(func);
    if (info.stopping_call != nullptr) return Unknown(info.stopping_call);
    if (!info.cda.HasBlock(block->id())) {
      return Unknown(block->GetLabelInst());
    }
    auto* dom = Dominators(func);
    ReachResult r = Known(false);
    for (const ControlDependence& dep : info.cda.GetDependenceSources(block->id())) {
      ReachResult here;
      if (dep.source_bb_id() == ControlDependenceAnalysis::kPseudoEntryBlock) {
        here = EntersFrame(frame);
      } else {
        const BasicBlock* source = context->cfg()->block(dep.source_bb_id());
        if (dom->Dominates(block, source)) continue;
        here = Reaches(frame, source);
        if (here.reach != Reach::kNo) {
          here = And(here, Takes(frame, source, dep.branch_target_bb_id()));
        }
      }
      r = Or(r, here);
      if (r.reach == Reach::kYes) break;
    }
    return r;
  }

  // Whether the current invocation enters |frame|: its call is reached.
  ReachResult EntersFrame(uint32_t frame) {
    if (frame == 0) return Known(true);
    Instruction* call = frames[frame].call;
    return Reaches(frames[frame].parent, context->get_instr_block(call));
  }

  // Whether the current invocation, having reached |source|, leaves it to
  // |target|.
  ReachResult Takes(uint32_t frame, const BasicBlock* source, uint32_t target) {
    const Instruction* term = source->terminator();
    auto* def_use = context->get_def_use_mgr();
    switch (term->opcode()) {
      case Op::OpBranch:
        return Known(term->GetSingleWordInOperand(0) == target);
      case Op::OpBranchConditional: {
        const uint32_t t = term->GetSingleWordInOperand(1);
        const uint32_t f = term->GetSingleWordInOperand(2);
        if (target != t && target != f) return Known(false);
        if (t == f) return Known(true);
        const uint32_t cond = term->GetSingleWordInOperand(0);
        LaneValue c;
        if (!Eval(frame, cond, &c)) return Unknown(fail_at);
        if (c.count != 1 || c.IsProbe(0) || c.HasUnknown()) {
          return Unknown(def_use->GetDef(cond));
        }
        return Known((c.bits[0] != 0 ? t : f) == target);
      }
      case Op::OpSwitch: {
        const uint32_t selector = term->GetSingleWordInOperand(0);
        LaneValue v;
        if (!Eval(frame, selector, &v)) return Unknown(fail_at);
        if (v.count != 1 || v.IsProbe(0) || v.HasUnknown()) {
          return Unknown(def_use->GetDef(selector));
        }
        uint32_t chosen = term->GetSingleWordInOperand(1);  // the default
        for (uint32_t i = 2; i + 1 < term->NumInOperands(); i += 2) {
          const auto& words = term->GetInOperand(i).words;
          uint64_t literal = words[0];
          if (words.size() > 1) literal |= uint64_t{words[1]} << 32;
          if ((literal & Mask(v.width)) == v.bits[0]) {
            chosen = term->GetSingleWordInOperand(i + 1);
            break;
          }
        }
        return Known(chosen == target);
      }
      default:
        return Known(false);  // returns, kills: no edge
    }
  }

  // The value of |phi| for the current invocation: the incoming value of
  // the one predecessor it came from.
  bool Phi(uint32_t frame, Instruction* phi, LaneValue* out) {
    const uint32_t first = phi->GetSingleWordInOperand(0);
    bool same = true;
    for (uint32_t i = 0; i < phi->NumInOperands(); i += 2) {
      same &= phi->GetSingleWordInOperand(i) == first;
    }
    if (same) return Eval(frame, first, out);
    const BasicBlock* block = context->get_instr_block(phi);
    auto* dom = Dominators(frames[frame].function);
    uint32_t chosen = 0;
    for (uint32_t i = 0; i + 1 < phi->NumInOperands(); i += 2) {
      const BasicBlock* pred = context->cfg()->block(phi->GetSingleWordInOperand(i + 1));
      // A back edge: the value of an earlier iteration.
      if (pred == nullptr || dom->Dominates(block, pred)) return false;
      ReachResult r = Reaches(frame, pred);
      if (r.reach != Reach::kNo) r = And(r, Takes(frame, pred, block->id()));
      if (r.reach == Reach::kNo) continue;
      if (r.reach == Reach::kUnknown) {
        fail_at = r.unknown;
        return false;
      }
      if (chosen != 0) return false;  // two ways in at once: not one run
      chosen = phi->GetSingleWordInOperand(i);
    }
    // Not reached: no value.
    return chosen != 0 && Eval(frame, chosen, out);
  }

  // A probe for a workgroup-uniform value the evaluator cannot compute.
  bool Probe(uint32_t id, LaneValue* out) {
    if (!env.probes || uniformity == nullptr) return false;
    Instruction* def = Def(id);
    if (def == nullptr || def->opcode() == Op::OpUndef) return false;
    if (uniformity->ValueLevel(id) != Uniformity::kWorkgroupUniform) {
      return false;
    }
    uint32_t count = 0, width = 0;
    if (!TypeShape(def->type_id(), &count, &width)) return false;
    *out = LaneValue{};
    out->count = count;
    out->width = width;
    out->probe_mask = static_cast<uint8_t>((1u << count) - 1);
    return true;
  }

  // Whether |id| is the same in every invocation of the workgroup.
  bool Uniform(uint32_t id) const {
    return uniformity != nullptr && uniformity->ValueLevel(id) == Uniformity::kWorkgroupUniform;
  }

  LaneValue Scalar(uint64_t v, uint32_t width) {
    LaneValue r;
    r.count = 1;
    r.width = width;
    r.bits[0] = v & Mask(width);
    return r;
  }

  // The value of identity built-in |builtin| (loaded as |type_id|).
  bool BuiltIn(uint32_t builtin, uint32_t type_id, LaneValue* out) {
    return BuiltInAt(index, builtin, type_id, out);
  }
  // BuiltIn() for invocation |l| (the environment Select()ed).
  bool BuiltInAt(uint32_t l, uint32_t builtin, uint32_t type_id, LaneValue* out) {
    uint32_t count = 0, width = 0;
    if (!TypeShape(type_id, &count, &width) || width == 1) return false;
    uint64_t v[3] = {0, 0, 0};
    uint64_t coef[3] = {0, 0, 0};
    const uint32_t local[3] = {l % size.x, (l / size.x) % size.y, l / (size.x * size.y)};
    if (!BuiltInParts(builtin, l, local, v, coef) || count > 3) return false;
    SetEmpty(out, count, width);
    for (uint32_t k = 0; k < count; ++k) SetLinear(out, k, v[k], coef[k], k);
    return true;
  }

  // The components |v| of identity built-in |builtin| for invocation |l|,
  // and |coef|, what they owe to the unknown workgroup id (LaneValue);
  // false when it is not one, or the subgroup size is unknown.
  // |local|: its LocalInvocationId.
  bool BuiltInParts(uint32_t builtin, uint32_t l, const uint32_t* local, uint64_t* v,
                    uint64_t* coef) {
    const uint32_t dims[3] = {size.x, size.y, size.z};
    const uint32_t s = env.subgroup_size;
    const bool wg_unknown = env.workgroup_unknown;
    switch (static_cast<spv::BuiltIn>(builtin)) {
      case spv::BuiltIn::LocalInvocationIndex:
        deps |= kReadsIndex;
        v[0] = l;
        break;
      case spv::BuiltIn::LocalInvocationId:
        deps |= kReadsIndex;
        for (int k = 0; k < 3; ++k) v[k] = local[k];
        break;
      case spv::BuiltIn::GlobalInvocationId:
        deps |= kReadsIndex | kReadsWorkgroupId;
        for (int k = 0; k < 3; ++k) {
          const uint64_t wg = wg_unknown ? 0 : env.workgroup_id[k];
          v[k] = wg * dims[k] + local[k];
          coef[k] = wg_unknown ? dims[k] : 0;
        }
        break;
      case spv::BuiltIn::WorkgroupId:
        deps |= kReadsWorkgroupId;
        for (int k = 0; k < 3; ++k) {
          v[k] = wg_unknown ? 0 : env.workgroup_id[k];
          coef[k] = wg_unknown ? 1 : 0;
        }
        break;
      case spv::BuiltIn::SubgroupLocalInvocationId:
        deps |= kReadsIndex | kReadsSubgroupSize;
        if (s == 0) return false;
        v[0] = l % s;
        break;
      case spv::BuiltIn::SubgroupId:
        deps |= kReadsIndex | kReadsSubgroupSize;
        if (s == 0) return false;
        v[0] = l / s;
        break;
      case spv::BuiltIn::SubgroupSize:
        deps |= kReadsSubgroupSize;
        if (s == 0) return false;
        v[0] = s;
        break;
      case spv::BuiltIn::NumSubgroups:
        deps |= kReadsSubgroupSize;
        if (s == 0) return false;
        v[0] = (size.Count() + s - 1) / s;
        break;
      default:
        return false;
    }
    return true;
  }

  // The single OpReturnValue operand of |func|, 0 when there is not
  // exactly one.
  uint32_t ReturnValue(Function* func) {
    auto it = return_value.find(func->result_id());
    if (it != return_value.end()) return it->second;
    uint32_t value = 0;
    int count = 0;
    func->ForEachInst([&](Instruction* inst) {
      if (inst->opcode() == Op::OpReturnValue) {
        ++count;
        value = inst->GetSingleWordInOperand(0);
      }
    });
    if (count != 1) value = 0;
    return_value[func->result_id()] = value;
    return value;
  }

  // Whether pointer |ptr| (a parameter, or a chain of one) is only read:
  // loads, constant-or-not access chains that are only read, and calls
  // that pass it to read-only parameters.
  bool OnlyRead(uint32_t ptr, int depth_left) {
    if (depth_left <= 0) return false;
    auto* def_use = context->get_def_use_mgr();
    return def_use->WhileEachUse(ptr, [&](Instruction* user, uint32_t operand_index) {
      const Op op = user->opcode();
      if (op == Op::OpLoad) return true;
      if (op == Op::OpName || op == Op::OpDecorate) return true;
      if (IsChain(op) && operand_index == 2) {
        return OnlyRead(user->result_id(), depth_left - 1);
      }
      if (op == Op::OpExtInst && IsDebugExtInst(user)) return true;
      if (op == Op::OpFunctionCall && operand_index >= 3) {
        Function* callee = context->GetFunction(user->GetSingleWordInOperand(0));
        if (callee == nullptr) return false;
        uint32_t i = 0;
        uint32_t param = 0;
        callee->ForEachParam([&](Instruction* p) {
          if (i++ == operand_index - 3) param = p->result_id();
        });
        return param != 0 && ParamReadOnly(param, depth_left - 1);
      }
      return false;
    });
  }

  bool ParamReadOnly(uint32_t param, int depth_left = 8) {
    auto it = read_only_params.find(param);
    if (it != read_only_params.end()) return it->second;
    const bool ok = OnlyRead(param, depth_left);
    read_only_params[param] = ok;
    return ok;
  }

  bool IsDebugExtInst(Instruction* inst) {
    Instruction* set = context->get_def_use_mgr()->GetDef(inst->GetSingleWordInOperand(0));
    if (set == nullptr || set->opcode() != Op::OpExtInstImport) return false;
    const std::string name = set->GetInOperand(0).AsString();
    return name.rfind("NonSemantic.", 0) == 0 || name == "OpenCL.DebugInfo.100";
  }

  // The stores of Function variable |var| (whole or through constant
  // chains); ok == false when anything else may write it.
  const VarInfo& Var(Instruction* var) {
    auto it = vars.find(var->result_id());
    if (it != vars.end()) return it->second;
    VarInfo info;
    if (var->NumInOperands() > 1) {
      info.stores.push_back(Store{nullptr, {}, var->GetSingleWordInOperand(1)});
    }
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> work = {{var->result_id(), {}}};
    auto* def_use = context->get_def_use_mgr();
    while (!work.empty() && info.ok) {
      const uint32_t ptr = work.back().first;
      const std::vector<uint32_t> path = std::move(work.back().second);
      work.pop_back();
      def_use->ForEachUse(ptr, [&](Instruction* user, uint32_t operand_index) {
        if (!info.ok) return;
        const Op op = user->opcode();
        if (op == Op::OpLoad || op == Op::OpName || op == Op::OpDecorate) {
          return;
        }
        if (op == Op::OpStore && operand_index == 0) {
          info.stores.push_back(Store{user, path, user->GetSingleWordInOperand(1)});
          return;
        }
        if (op == Op::OpCopyMemory && operand_index == 1) return;  // source
        if ((op == Op::OpAccessChain || op == Op::OpInBoundsAccessChain) && operand_index == 2) {
          std::vector<uint32_t> sub = path;
          bool constant = true;
          for (uint32_t i = 1; i < user->NumInOperands(); ++i) {
            uint64_t c = 0;
            if (!Constant(user->GetSingleWordInOperand(i), &c)) {
              constant = false;
              break;
            }
            sub.push_back(static_cast<uint32_t>(c));
          }
          if (constant) {
            work.push_back({user->result_id(), sub});
          } else if (!OnlyRead(user->result_id(), 8)) {
            info.ok = false;  // a write at a dynamic index
          }
          return;
        }
        if (op == Op::OpExtInst && IsDebugExtInst(user)) return;
        if (op == Op::OpFunctionCall && operand_index >= 3) {
          Function* callee = context->GetFunction(user->GetSingleWordInOperand(0));
          uint32_t i = 0, param = 0;
          if (callee != nullptr) {
            callee->ForEachParam([&](Instruction* p) {
              if (i++ == operand_index - 3) param = p->result_id();
            });
          }
          if (param == 0 || !ParamReadOnly(param)) info.ok = false;
          return;
        }
        info.ok = false;
      });
    }
    return vars[var->result_id()] = std::move(info);
  }

  // Whether some loop contains both |a| and |b| (|b| may run again before
  // |a|).
  bool SharesLoop(Function* func, Instruction* a, Instruction* b) {
    auto* loops = context->GetLoopDescriptor(func);
    BasicBlock* block_b = context->get_instr_block(b);
    for (spvtools::opt::Loop* loop = (*loops)[context->get_instr_block(a)]; loop != nullptr;
         loop = loop->GetParent()) {
      if (loop->IsInsideLoop(block_b)) return true;
    }
    return false;
  }

  static bool IsPrefix(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
  }

  // The store of |info| overlapping |path| whose value the current
  // invocation sees at |at|. Among the overlapping stores that dominate
  // |at| (dominators form a chain), the last one; a store on some paths
  // only (neither before |at| on every path nor after it) counts when the
  // invocation executes it (Reaches), and the last executed one wins, in
  // structured order (FlowInfo::order). A store in a loop that also
  // contains |at| could be an earlier iteration's: that fails, as does a
  // store the invocation may or may not execute.
  bool ReachingStore(uint32_t frame, const VarInfo& info, const std::vector<uint32_t>& path,
                     Instruction* at, const Store** out) {
    Function* func = frames[frame].function;
    // Decided by dominance alone (no store on some paths only): the same
    // answer for every invocation and frame, kept (compile time: loads of
    // Function variables, once per invocation).
    auto key = std::make_tuple(&info, at, path);
    auto cached = static_stores.find(key);
    if (cached != static_stores.end()) {
      *out = cached->second;
      return *out != nullptr;
    }
    auto* dom = Dominators(func);
    const Store* latest = nullptr;
    std::vector<const Store*> maybe;
    for (const Store& s : info.stores) {
      if (!IsPrefix(s.path, path) && !IsPrefix(path, s.path)) continue;
      if (s.inst == nullptr || dom->Dominates(s.inst, at)) {
        if (latest == nullptr || latest->inst == nullptr ||
            (s.inst != nullptr && dom->Dominates(latest->inst, s.inst))) {
          latest = &s;
        }
      } else if (SharesLoop(func, at, s.inst)) {
        static_stores[key] = nullptr;
        return false;
      } else if (!dom->Dominates(at, s.inst)) {
        maybe.push_back(&s);
      }
    }
    if (maybe.empty()) static_stores[key] = latest;
    if (!maybe.empty()) {
      FlowInfo& flow_info = Flow(func);
      // (block position in structured order, instruction in the block);
      // the initializer comes first, an unreachable block last.
      auto position = [&](const Instruction* inst) {
        if (inst == nullptr) return std::make_pair(int64_t{-1}, int64_t{0});
        const BasicBlock* b = context->get_instr_block(const_cast<Instruction*>(inst));
        auto it = flow_info.order.find(b->id());
        int64_t k = 0;
        for (const Instruction& i : *b) {
          if (&i == inst) break;
          ++k;
        }
        return std::make_pair(it == flow_info.order.end() ? INT64_MAX : int64_t{it->second}, k);
      };
      const auto at_position = position(at);
      const BasicBlock* at_block = context->get_instr_block(at);
      for (const Store* s : maybe) {
        const auto here = position(s->inst);
        // Runs after |at|, or on no way to it.
        if (here >= at_position || !Path(func, context->get_instr_block(s->inst), at_block)) {
          continue;
        }
        const ReachResult r = Reaches(frame, context->get_instr_block(s->inst));
        if (r.reach == Reach::kUnknown) {
          fail_at = r.unknown;
          return false;
        }
        if (r.reach == Reach::kNo) continue;
        if (latest == nullptr || here > position(latest->inst)) latest = s;
      }
    }
    *out = latest;
    return latest != nullptr;
  }

  std::map<std::tuple<const VarInfo*, const Instruction*, std::vector<uint32_t>>, const Store*>
      static_stores;

  // The value of |path| below Function variable |var| at |at| (in the
  // function of |frame|), of type |type_id|.
  bool LoadVar(uint32_t frame, Instruction* var, const std::vector<uint32_t>& path, Instruction* at,
               uint32_t type_id, LaneValue* out) {
    const VarInfo& info = Var(var);
    if (!info.ok) return false;
    const Store* latest = nullptr;
    if (!ReachingStore(frame, info, path, at, &latest)) return false;
    if (IsPrefix(latest->path, path)) {
      std::vector<uint32_t> rest(path.begin() + latest->path.size(), path.end());
      return Extract(frame, latest->value, rest, out);
    }
    // Stored component by component: a vector built from its parts.
    const auto* type = context->get_type_mgr()->GetType(type_id);
    if (type == nullptr || type->AsVector() == nullptr) return false;
    const uint32_t n = type->AsVector()->element_count();
    const uint32_t elem = context->get_type_mgr()->GetId(type->AsVector()->element_type());
    if (n > 4 || elem == 0) return false;
    LaneValue r;
    r.count = n;
    for (uint32_t k = 0; k < n; ++k) {
      std::vector<uint32_t> sub = path;
      sub.push_back(k);
      LaneValue c;
      if (!LoadVar(frame, var, sub, at, elem, &c) || c.count != 1) {
        return false;
      }
      r.width = c.width;
      CopyComponent(&r, k, c, 0);
    }
    *out = r;
    return true;
  }

  // Component |path| of value |id|.
  bool Extract(uint32_t frame, uint32_t id, std::vector<uint32_t> path, LaneValue* out) {
    for (int guard = 0; guard < 16 && !path.empty(); ++guard) {
      Instruction* def = Def(id);
      if (def == nullptr) return false;
      uint32_t count = 0, width = 0;
      if (TypeShape(def->type_id(), &count, &width)) {
        // A vector: evaluate it and take the component.
        if (path.size() != 1 || path[0] >= count) return false;
        LaneValue v;
        if (!Eval(frame, id, &v)) return false;
        LaneValue r = Scalar(0, v.width);
        CopyComponent(&r, 0, v, path[0]);
        *out = r;
        return true;
      }
      if (def->opcode() == Op::OpCompositeConstruct || def->opcode() == Op::OpConstantComposite) {
        if (path[0] >= def->NumInOperands()) return false;
        id = def->GetSingleWordInOperand(path[0]);
        path.erase(path.begin());
        continue;
      }
      if (def->opcode() == Op::OpCompositeInsert) {
        std::vector<uint32_t> at;
        for (uint32_t i = 2; i < def->NumInOperands(); ++i) {
          at.push_back(def->GetSingleWordInOperand(i));
        }
        if (IsPrefix(at, path)) {
          id = def->GetSingleWordInOperand(0);
          path.erase(path.begin(), path.begin() + at.size());
          continue;
        }
        if (IsPrefix(path, at)) return false;
        id = def->GetSingleWordInOperand(1);
        continue;
      }
      return false;
    }
    if (!path.empty()) return false;
    return Eval(frame, id, out);
  }

  // The value loaded by |load| (in |frame|'s function).
  bool Load(uint32_t frame, Instruction* load, LaneValue* out) {
    std::vector<uint32_t> path;
    uint32_t ptr = load->GetSingleWordInOperand(0);
    Instruction* at = load;
    for (int guard = 0; guard < 32; ++guard) {
      Instruction* def = Def(ptr);
      if (def == nullptr) return false;
      const Op op = def->opcode();
      if (op == Op::OpAccessChain || op == Op::OpInBoundsAccessChain) {
        std::vector<uint32_t> indices;
        for (uint32_t i = 1; i < def->NumInOperands(); ++i) {
          LaneValue v;
          if (!Eval(frame, def->GetSingleWordInOperand(i), &v) || v.count != 1 ||
              v.probe_mask != 0 || v.HasUnknown()) {
            return false;
          }
          indices.push_back(static_cast<uint32_t>(v.bits[0]));
        }
        path.insert(path.begin(), indices.begin(), indices.end());
        ptr = def->GetSingleWordInOperand(0);
        continue;
      }
      if (op == Op::OpCopyObject) {
        ptr = def->GetSingleWordInOperand(0);
        continue;
      }
      if (op == Op::OpFunctionParameter) {
        if (frame == 0 || !ParamReadOnly(def->result_id())) return false;
        uint32_t position = 0;
        const bool found = ParamPosition(frames[frame].function, def, &position);
        Instruction* call = frames[frame].call;
        if (!found || position + 1 >= call->NumInOperands()) return false;
        ptr = call->GetSingleWordInOperand(position + 1);
        at = call;
        frame = frames[frame].parent;
        continue;
      }
      if (op != Op::OpVariable) return false;
      const auto sc = static_cast<spv::StorageClass>(def->GetSingleWordInOperand(0));
      if (sc == spv::StorageClass::Input) {
        auto b = builtin_of.find(def->result_id());
        if (b == builtin_of.end()) return false;
        Instruction* ptr_type = Def(def->type_id());
        const uint32_t pointee = ptr_type->GetSingleWordInOperand(1);
        LaneValue whole;
        if (!BuiltIn(b->second, pointee, &whole)) return false;
        if (path.empty()) {
          *out = whole;
          return true;
        }
        if (path.size() != 1 || path[0] >= whole.count) return false;
        *out = Scalar(0, whole.width);
        CopyComponent(out, 0, whole, path[0]);
        return true;
      }
      if (sc != spv::StorageClass::Function) return false;
      return LoadVar(frame, def, path, at, load->type_id(), out);
    }
    return false;
  }

  // What a probe becomes next to a value that varies across the workgroup.
  // A uniform multiplier (or left shift) of a lane-varying value is usually
  // a row pitch: it becomes kPitch (2^12), so y * pitch + x keeps its rows
  // apart; 1 would fold them onto each other.
  enum class Neutral { kZero, kOne, kPitch, kPitchShift, kAllOnes, kNone };

  // The value of neutral element |n| for an operand of |w| bits; false
  // for kNone.
  static bool NeutralValue(Neutral n, uint32_t w, uint64_t* v) {
    switch (n) {
      case Neutral::kZero:
        *v = 0;
        return true;
      case Neutral::kOne:
        *v = 1;
        return true;
      case Neutral::kPitch:
        *v = uint64_t{1} << 12;
        return true;
      case Neutral::kPitchShift:
        *v = 12;
        return true;
      case Neutral::kAllOnes:
        *v = Mask(w);
        return true;
      case Neutral::kNone:
        return false;
    }
    return false;
  }

  // Component-wise |fn| over |a| and |b| into a value of |count| x |width|.
  // A probe operand takes the neutral element |na| / |nb|; two probes give
  // a probe.
  template <typename Fn>
  bool Binary(const LaneValue& a, const LaneValue& b, uint32_t count, uint32_t width, Neutral na,
              Neutral nb, Fn fn, LaneValue* out) {
    if (a.count != count || b.count != count) return false;
    LaneValue r;
    r.count = count;
    r.width = width;
    auto neutral = NeutralValue;
    for (uint32_t k = 0; k < count; ++k) {
      if (a.IsProbe(k) && b.IsProbe(k)) {
        r.probe_mask |= static_cast<uint8_t>(1u << k);
        continue;
      }
      uint64_t x = a.bits[k], y = b.bits[k];
      if (a.IsProbe(k) && !neutral(na, a.width, &x)) return false;
      if (b.IsProbe(k) && !neutral(nb, b.width, &y)) return false;
      uint64_t z = 0;
      if (!fn(x, y, a.width, b.width, &z)) return false;
      r.bits[k] = z & Mask(width);
    }
    *out = r;
    return true;
  }

  // Binary |op| over operands some of whose bits are unknown
  // (LaneValue::unknown): the result's known bits and which bits are
  // unknown. False when the result needs an unknown bit in a way this does
  // not follow (comparisons, divisions by other numbers, shift amounts).
  bool KnownBits(Op op, const LaneValue& a, const LaneValue& b, uint32_t count, uint32_t width,
                 LaneValue* out) {
    if ((a.probe_mask | b.probe_mask) != 0 || a.count != count || b.count != count) {
      return false;
    }
    const uint64_t m = Mask(width);
    LaneValue r;
    r.count = count;
    r.width = width;
    for (uint32_t k = 0; k < count; ++k) {
      if (LinearBinary(op, a, b, k, &r)) continue;
      LaneValue ma = a, mb = b;
      ToMask(&ma, k);
      ToMask(&mb, k);
      const uint64_t ux = ma.unknown[k], uy = mb.unknown[k];
      const uint64_t x = ma.bits[k] & ~ux, y = mb.bits[k] & ~uy;
      const uint64_t sign = uint64_t{1} << (a.width - 1);
      // A divisor or shift amount must be known.
      const bool y_power_of_two = uy == 0 && y != 0 && (y & (y - 1)) == 0;
      uint64_t z = 0, u = 0;
      switch (op) {
        case Op::OpIAdd:
          z = x + y;
          u = Upward(ux | uy, width);
          break;
        case Op::OpISub:
          z = x - y;
          u = Upward(ux | uy, width);
          break;
        case Op::OpIMul:
          // x·c with c known: the unknown part moves up by c's trailing
          // zero bits (WorkgroupId · 8 keeps its low 3 bits known).
          z = x * y;
          if (uy == 0 || ux == 0) {
            const uint64_t c = uy == 0 ? y : x;
            u = c == 0 ? 0 : Upward(ux | uy, width) << __builtin_ctzll(c);
          } else {
            u = Upward(ux | uy, width);
          }
          break;
        case Op::OpBitwiseAnd:
          z = x & y;
          u = (ux & (y | uy)) | (uy & (x | ux));  // unknown & known 0 = 0
          break;
        case Op::OpBitwiseOr:
          z = x | y;
          u = (ux & ~y) | (uy & ~x);  // unknown | known 1 = 1
          break;
        case Op::OpBitwiseXor:
          z = x ^ y;
          u = ux | uy;
          break;
        case Op::OpShiftLeftLogical:
          if (uy != 0 || y >= a.width) return false;
          z = x << y;
          u = ux << y;
          break;
        case Op::OpShiftRightLogical:
          if (uy != 0 || y >= a.width) return false;
          z = x >> y;
          u = ux >> y;
          break;
        case Op::OpShiftRightArithmetic:
          if (uy != 0 || y >= a.width) return false;
          z = static_cast<uint64_t>(SignExtend(x, a.width) >> y);
          u = ux >> y;
          // An unknown sign fills the top |y| bits.
          if ((ux & sign) != 0) u |= Mask(a.width) & ~(Mask(a.width) >> y);
          break;
        case Op::OpUMod:
          if (!y_power_of_two) return false;
          z = x & (y - 1);
          u = ux & (y - 1);
          break;
        case Op::OpUDiv:
          if (!y_power_of_two) return false;
          z = x >> __builtin_ctzll(y);
          u = ux >> __builtin_ctzll(y);
          break;
        case Op::OpSRem:
        case Op::OpSMod: {
          // By a positive power of two 2^p: the remainder's low p bits are
          // x's; SMod's are all of it, SRem's sign follows x unless they
          // are 0 (x % 2 == 0 for any x).
          if (!y_power_of_two || (y & sign) != 0 || (ux & (y - 1)) != 0) {
            return false;
          }
          const uint64_t low = x & (y - 1);
          z = low;
          if (op == Op::OpSRem && low != 0) {
            if ((ux & sign) != 0) {
              u = m & ~(y - 1);
            } else if ((x & sign) != 0) {
              z = low - y;
            }
          }
          break;
        }
        default:
          return false;
      }
      r.unknown[k] = u & m;
      r.bits[k] = z & m & ~r.unknown[k];
    }
    *out = r;
    return true;
  }

  // Component |k| of |a| op |b| into |r| when both are linear in the same
  // axis of the unknown workgroup id (or known) and |op| keeps that:
  // + and -, · and << by a known value. False otherwise.
  static bool LinearBinary(Op op, const LaneValue& a, const LaneValue& b, uint32_t k,
                           LaneValue* r) {
    const bool la = a.IsLinear(k) || a.unknown[k] == 0;
    const bool lb = b.IsLinear(k) || b.unknown[k] == 0;
    const uint64_t ca = a.unknown[k], cb = b.unknown[k];
    if (!la || !lb || (ca != 0 && cb != 0 && a.Axis(k) != b.Axis(k))) {
      return false;
    }
    const uint32_t axis = ca != 0 ? a.Axis(k) : b.Axis(k);
    const uint64_t x = a.bits[k], y = b.bits[k];
    switch (op) {
      case Op::OpIAdd:
        SetLinear(r, k, x + y, ca + cb, axis);
        return true;
      case Op::OpISub:
        SetLinear(r, k, x - y, ca - cb, axis);
        return true;
      case Op::OpIMul:
        if (cb == 0) {
          SetLinear(r, k, x * y, ca * y, axis);
        } else if (ca == 0) {
          SetLinear(r, k, x * y, x * cb, axis);
        } else {
          return false;
        }
        return true;
      case Op::OpShiftLeftLogical:
        if (cb != 0 || y >= a.width) return false;
        SetLinear(r, k, x << y, ca << y, axis);
        return true;
      default:
        return false;
    }
  }

  // ==, != over operands with unknown bits: known when a known bit
  // differs, or when both owe the same multiple of the same workgroup id
  // component (then the rest decides).
  bool KnownEquality(Op op, const LaneValue& a, const LaneValue& b, uint32_t count,
                     LaneValue* out) {
    if ((op != Op::OpIEqual && op != Op::OpINotEqual) || (a.probe_mask | b.probe_mask) != 0 ||
        a.count != count || b.count != count) {
      return false;
    }
    LaneValue r;
    r.count = count;
    r.width = 1;
    for (uint32_t k = 0; k < count; ++k) {
      if (a.IsLinear(k) && b.IsLinear(k) && a.Axis(k) == b.Axis(k) &&
          a.unknown[k] == b.unknown[k]) {
        const bool equal = ((a.bits[k] ^ b.bits[k]) & Mask(a.width)) == 0;
        r.bits[k] = (op == Op::OpIEqual) == equal ? 1 : 0;
        continue;
      }
      LaneValue ma = a, mb = b;
      ToMask(&ma, k);
      ToMask(&mb, k);
      const uint64_t u = ma.unknown[k] | mb.unknown[k];
      const bool differ = ((ma.bits[k] ^ mb.bits[k]) & ~u & Mask(a.width)) != 0;
      if (!differ && u != 0) return false;
      r.bits[k] = (op == Op::OpIEqual) != differ ? 1 : 0;
    }
    *out = r;
    return true;
  }

  // An operand of |def|, also one with bits that depend on the unknown
  // workgroup id (LaneValue::unknown).
  bool Partial(uint32_t frame, const Instruction* def, uint32_t i, LaneValue* v) {
    return Eval(frame, def->GetSingleWordInOperand(i), v);
  }
  // An operand of |def| with every bit known.
  bool Operand(uint32_t frame, Instruction* def, uint32_t i, LaneValue* v) {
    if (!Partial(frame, def, i, v)) return false;
    if (!v->HasUnknown()) return true;
    fail_at = def;  // needs bits that differ between workgroups
    return false;
  }

  // The result type of the instruction being computed: |count| components
  // of |width| bits when |shaped| (an integer or boolean scalar or vector).
  struct Shape {
    bool shaped = false;
    uint32_t count = 0, width = 0;
  };

  // The value of |id| in |frame|, by phase: values that are not computed
  // (constants, composites, copies, loads, parameters, calls, phis), then
  // the operations of the integer table (analysis/int_eval.h) by arity,
  // and the rest on integers and booleans.
  bool Compute(uint32_t frame, uint32_t id, LaneValue* out) {
    Instruction* def = Def(id);
    if (def == nullptr) return false;
    Shape shape;
    shape.shaped = def->type_id() != 0 && TypeShape(def->type_id(), &shape.count, &shape.width);
    if (!is_workgroup_size.empty() && is_workgroup_size.count(id) && shape.shaped &&
        shape.count == 3 && shape.width > 1) {
      *out = LaneValue{};
      out->count = 3;
      out->width = shape.width;
      out->bits = {size.x, size.y, size.z, 0};
      return true;
    }
    bool handled = true;
    const bool ok = Structural(frame, def, shape, out, &handled);
    if (handled) return ok;
    if (!shape.shaped) return false;
    const Op op = def->opcode();
    switch (op) {
      case Op::OpAll:
      case Op::OpAny:
        return AllAny(frame, def, shape, out);
      case Op::OpSelect:
        return SelectOp(frame, def, shape, out);
      case Op::OpExtInst:
        return GlslStd(frame, def, shape.count, shape.width, out);
      default:
        break;
    }
    const IntOp* entry = FindIntOp(op);
    if (entry == nullptr) return false;
    if (entry->arity == 1) return Unary(frame, def, *entry, shape, out);
    if (entry->arity == 2) return BinaryOp(frame, def, *entry, shape, out);
    return BitField(frame, def, *entry, shape, out);
  }

  // Constants, composites, copies, loads, parameters, calls and phis;
  // |*handled| false for any other instruction.
  bool Structural(uint32_t frame, Instruction* def, const Shape& shape, LaneValue* out,
                  bool* handled) {
    const uint32_t id = def->result_id();
    switch (def->opcode()) {
      case Op::OpConstant: {
        uint64_t v = 0;
        if (!Constant(id, &v)) return false;
        *out = Scalar(v, shape.width);
        return true;
      }
      case Op::OpConstantTrue:
      case Op::OpConstantFalse:
        *out = Scalar(def->opcode() == Op::OpConstantTrue ? 1 : 0, 1);
        return true;
      case Op::OpConstantNull:
        if (!shape.shaped) return false;
        *out = LaneValue{};
        out->count = shape.count;
        out->width = shape.width;
        return true;
      case Op::OpConstantComposite:
      case Op::OpCompositeConstruct:
        return Construct(frame, def, shape, out);
      case Op::OpCompositeExtract:
        return CompositeExtract(frame, def, shape, out);
      case Op::OpCompositeInsert: {
        if (!shape.shaped || def->NumInOperands() != 3) return false;
        LaneValue obj, comp;
        if (!Partial(frame, def, 0, &obj) || !Partial(frame, def, 1, &comp)) {
          return false;
        }
        const uint32_t k = def->GetSingleWordInOperand(2);
        if (k >= comp.count || obj.count != 1) return false;
        CopyComponent(&comp, k, obj, 0);
        *out = comp;
        return true;
      }
      case Op::OpVectorShuffle:
        return Shuffle(frame, def, shape, out);
      case Op::OpVectorExtractDynamic: {
        LaneValue v, i;
        if (!Partial(frame, def, 0, &v) || !Operand(frame, def, 1, &i)) {
          return false;
        }
        if (i.probe_mask != 0 || i.bits[0] >= v.count) return false;
        *out = Scalar(0, v.width);
        CopyComponent(out, 0, v, static_cast<uint32_t>(i.bits[0]));
        return true;
      }
      case Op::OpCopyObject:
      case Op::OpCopyLogical:
        return Partial(frame, def, 0, out);
      case Op::OpLoad:
        return shape.shaped && Load(frame, def, out);
      case Op::OpFunctionParameter:
        return Parameter(frame, def, out);
      case Op::OpFunctionCall: {
        auto it = child.find((uint64_t{frame} << 32) | id);
        if (it == child.end()) return false;
        const uint32_t ret = ReturnValue(frames[it->second].function);
        return ret != 0 && Eval(it->second, ret, out);
      }
      case Op::OpPhi:
        return Phi(frame, def, out);
      default:
        *handled = false;
        return false;
    }
  }

  bool Construct(uint32_t frame, Instruction* def, const Shape& shape, LaneValue* out) {
    if (!shape.shaped) return false;
    LaneValue r;
    r.width = shape.width;
    for (uint32_t i = 0; i < def->NumInOperands(); ++i) {
      LaneValue part;
      if (!Partial(frame, def, i, &part) || !Append(&r, part, shape.count)) return false;
    }
    if (r.count != shape.count) return false;
    *out = r;
    return true;
  }

  // Appends |part|'s components to |r|, |count| at most in all.
  static bool Append(LaneValue* r, const LaneValue& part, uint32_t count) {
    for (uint32_t k = 0; k < part.count; ++k) {
      if (r->count >= count) return false;
      CopyComponent(r, r->count, part, k);
      ++r->count;
    }
    return true;
  }

  bool CompositeExtract(uint32_t frame, Instruction* def, const Shape& shape, LaneValue* out) {
    if (!shape.shaped) return false;
    uint32_t vcount = 0, vwidth = 0;
    Instruction* composite = Def(def->GetSingleWordInOperand(0));
    if (def->NumInOperands() == 2 && shape.count == 1 && composite != nullptr &&
        TypeShape(composite->type_id(), &vcount, &vwidth)) {
      // A component of an integer or boolean vector.
      LaneValue v;
      const uint32_t k = def->GetSingleWordInOperand(1);
      if (!Partial(frame, def, 0, &v) || k >= v.count) return false;
      *out = Scalar(0, v.width);
      CopyComponent(out, 0, v, k);
      return true;
    }
    std::vector<uint32_t> path;
    for (uint32_t i = 1; i < def->NumInOperands(); ++i) {
      path.push_back(def->GetSingleWordInOperand(i));
    }
    return Extract(frame, def->GetSingleWordInOperand(0), path, out);
  }

  bool Shuffle(uint32_t frame, Instruction* def, const Shape& shape, LaneValue* out) {
    if (!shape.shaped) return false;
    LaneValue a, b;
    if (!Partial(frame, def, 0, &a) || !Partial(frame, def, 1, &b)) return false;
    uint32_t components[4];
    for (uint32_t k = 0; k < shape.count; ++k) {
      if (k >= 4 || 2 + k >= def->NumInOperands()) return false;
      components[k] = def->GetSingleWordInOperand(2 + k);
    }
    return ShuffleValues(a, b, components, shape.count, shape.width, out);
  }

  // OpVectorShuffle of |a| and |b|: |count| |components| of |width| bits.
  static bool ShuffleValues(const LaneValue& a, const LaneValue& b, const uint32_t* components,
                            uint32_t count, uint32_t width, LaneValue* out) {
    LaneValue r;
    r.count = count;
    r.width = width;
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t c = components[k];
      const LaneValue& src = c < a.count ? a : b;
      const uint32_t j = c < a.count ? c : c - a.count;
      if (j >= src.count) return false;  // includes 0xFFFFFFFF
      CopyComponent(&r, k, src, j);
    }
    *out = r;
    return true;
  }

  // A parameter: the caller's argument, in the caller's frame.
  bool Parameter(uint32_t frame, Instruction* def, LaneValue* out) {
    if (frame == 0) return false;
    uint32_t position = 0;
    const bool found = ParamPosition(frames[frame].function, def, &position);
    Instruction* call = frames[frame].call;
    if (!found || position + 1 >= call->NumInOperands()) return false;
    return Eval(frames[frame].parent, call->GetSingleWordInOperand(position + 1), out);
  }

  bool AllAny(uint32_t frame, Instruction* def, const Shape& shape, LaneValue* out) {
    LaneValue a;
    if (!Operand(frame, def, 0, &a) || a.probe_mask != 0 || shape.count != 1) {
      return false;
    }
    bool all = true, any = false;
    for (uint32_t k = 0; k < a.count; ++k) {
      all &= a.bits[k] != 0;
      any |= a.bits[k] != 0;
    }
    *out = Scalar(def->opcode() == Op::OpAll ? all : any, 1);
    return true;
  }

  // The table's unary operations (negations, bit counts and reversals,
  // conversions and bitcasts).
  bool Unary(uint32_t frame, Instruction* def, const IntOp& entry, const Shape& shape,
             LaneValue* out) {
    const Op op = entry.op;
    const uint32_t count = shape.count, width = shape.width;
    LaneValue a;
    if (!Partial(frame, def, 0, &a) || a.count != count) return false;
    if (op == Op::OpBitcast && a.width != width) return false;
    // Unknown bits: these carry them; the others need every bit.
    if (a.HasUnknown() && (a.probe_mask != 0 || op == Op::OpLogicalNot || op == Op::OpBitReverse ||
                           op == Op::OpBitCount)) {
      fail_at = def;
      return false;
    }
    LaneValue r;
    r.count = count;
    r.width = width;
    r.probe_mask = a.probe_mask;
    for (uint32_t k = 0; k < count; ++k) {
      // Linear in the workgroup id: -(x + cW) = -x - cW, ~ = - - 1,
      // and a bitcast or truncation keeps it modulo 2^width.
      if (a.IsLinear(k) && (op == Op::OpSNegate || op == Op::OpNot || op == Op::OpBitcast ||
                            (op == Op::OpUConvert && width <= a.width))) {
        const uint64_t c = a.unknown[k];
        const bool negate = op == Op::OpSNegate || op == Op::OpNot;
        SetLinear(&r, k,
                  op == Op::OpSNegate ? ~a.bits[k] + 1
                  : op == Op::OpNot   ? ~a.bits[k]
                                      : a.bits[k],
                  negate ? ~c + 1 : c, a.Axis(k));
        continue;
      }
      ToMask(&a, k);
      const uint64_t u = a.unknown[k];
      const uint64_t sign = uint64_t{1} << (a.width - 1);
      r.unknown[k] = (op == Op::OpSNegate                       ? Upward(u, width)
                      : op == Op::OpSConvert && (u & sign) != 0 ? u | ~Mask(a.width)
                                                                : u) &
                     Mask(width);
      if (a.IsProbe(k) && (op == Op::OpBitReverse || op == Op::OpBitCount)) {
        return false;
      }
      uint64_t z = 0;
      FoldInt(entry, &a.bits[k], a.width, width, &z);
      r.bits[k] = z & Mask(width) & ~r.unknown[k];
    }
    *out = r;
    return true;
  }

  // The neutral elements a probe operand of binary |op| takes (left and
  // right), and whether |op| is a comparison (its unknown bits are
  // followed by KnownEquality, not KnownBits).
  struct ProbeRule {
    Op op;
    Neutral a, b;
    bool compare;
  };
  static const ProbeRule* ProbeRuleOf(Op op) {
    using N = Neutral;
    static const ProbeRule kRules[] = {
        {Op::OpIAdd, N::kZero, N::kZero, false},
        {Op::OpISub, N::kZero, N::kZero, false},
        {Op::OpIMul, N::kPitch, N::kPitch, false},
        {Op::OpUDiv, N::kNone, N::kOne, false},
        {Op::OpUMod, N::kNone, N::kNone, false},
        {Op::OpSDiv, N::kNone, N::kOne, false},
        {Op::OpSRem, N::kNone, N::kNone, false},
        {Op::OpSMod, N::kNone, N::kNone, false},
        {Op::OpShiftLeftLogical, N::kNone, N::kPitchShift, false},
        {Op::OpShiftRightLogical, N::kNone, N::kZero, false},
        {Op::OpShiftRightArithmetic, N::kNone, N::kZero, false},
        {Op::OpBitwiseAnd, N::kAllOnes, N::kAllOnes, false},
        {Op::OpLogicalAnd, N::kAllOnes, N::kAllOnes, false},
        {Op::OpBitwiseOr, N::kZero, N::kZero, false},
        {Op::OpLogicalOr, N::kZero, N::kZero, false},
        {Op::OpBitwiseXor, N::kZero, N::kZero, false},
        {Op::OpLogicalNotEqual, N::kZero, N::kZero, false},
        {Op::OpLogicalEqual, N::kNone, N::kNone, true},
        {Op::OpIEqual, N::kNone, N::kNone, true},
        {Op::OpINotEqual, N::kNone, N::kNone, true},
        {Op::OpULessThan, N::kNone, N::kNone, true},
        {Op::OpULessThanEqual, N::kNone, N::kNone, true},
        {Op::OpUGreaterThan, N::kNone, N::kNone, true},
        {Op::OpUGreaterThanEqual, N::kNone, N::kNone, true},
        {Op::OpSLessThan, N::kNone, N::kNone, true},
        {Op::OpSLessThanEqual, N::kNone, N::kNone, true},
        {Op::OpSGreaterThan, N::kNone, N::kNone, true},
        {Op::OpSGreaterThanEqual, N::kNone, N::kNone, true},
    };
    for (const ProbeRule& rule : kRules) {
      if (rule.op == op) return &rule;
    }
    return nullptr;
  }

  // The table's binary operations. A probe combined only with
  // workgroup-uniform values stays a probe (size - 1 is as unknown as
  // size); combined with a value that varies across the workgroup it takes
  // the operation's neutral element.
  bool BinaryOp(uint32_t frame, Instruction* def, const IntOp& entry, const Shape& shape,
                LaneValue* out) {
    const ProbeRule* rule = ProbeRuleOf(entry.op);
    if (rule == nullptr) return false;
    const uint32_t count = shape.count;
    const uint32_t width = rule->compare ? 1 : shape.width;
    LaneValue a, b;
    if (!Partial(frame, def, 0, &a) || !Partial(frame, def, 1, &b)) return false;
    if (a.HasUnknown() || b.HasUnknown()) {
      if (rule->compare ? KnownEquality(entry.op, a, b, count, out)
                        : KnownBits(entry.op, a, b, count, width, out)) {
        return true;
      }
      fail_at = def;
      return false;
    }
    const bool uniform = (a.probe_mask | b.probe_mask) != 0 &&
                         Uniform(def->GetSingleWordInOperand(0)) &&
                         Uniform(def->GetSingleWordInOperand(1));
    return BinaryValues(entry, *rule, uniform, a, b, count, width, out);
  }

  // BinaryOp() of |a| and |b| without unknown bits, |uniform| when both
  // operands are workgroup-uniform.
  bool BinaryValues(const IntOp& entry, const ProbeRule& rule, bool uniform, const LaneValue& a,
                    const LaneValue& b, uint32_t count, uint32_t width, LaneValue* out) {
    if ((a.probe_mask | b.probe_mask) != 0 && uniform) {
      *out = LaneValue{};
      out->count = count;
      out->width = width;
      out->probe_mask = static_cast<uint8_t>((1u << count) - 1);
      return true;
    }
    return Binary(
        a, b, count, width, rule.a, rule.b,
        [&entry](uint64_t x, uint64_t y, uint32_t wx, uint32_t, uint64_t* z) {
          const uint64_t in[2] = {x, y};
          return FoldInt(entry, in, wx, wx, z);
        },
        out);
  }

  bool SelectOp(uint32_t frame, Instruction* def, const Shape& shape, LaneValue* out) {
    LaneValue c, a, b;
    if (!Operand(frame, def, 0, &c) || !Partial(frame, def, 1, &a) || !Partial(frame, def, 2, &b)) {
      return false;
    }
    if (a.count != shape.count || b.count != shape.count) return false;
    LaneValue r;
    r.count = shape.count;
    r.width = shape.width;
    for (uint32_t k = 0; k < shape.count; ++k) {
      const uint32_t ck = c.count == 1 ? 0 : k;
      if (ck >= c.count || c.IsProbe(ck)) return false;
      const LaneValue& src = c.bits[ck] ? a : b;
      CopyComponent(&r, k, src, k);
    }
    *out = r;
    return true;
  }

  // OpBitFieldInsert, OpBitFieldSExtract, OpBitFieldUExtract: the offset
  // and count are scalars.
  bool BitField(uint32_t frame, Instruction* def, const IntOp& entry, const Shape& shape,
                LaneValue* out) {
    if (entry.arity > 4) return false;
    LaneValue in[4];
    const LaneValue* operands[4];
    for (uint32_t i = 0; i < entry.arity; ++i) {
      if (!Operand(frame, def, i, &in[i])) return false;
      operands[i] = &in[i];
    }
    return BitFieldValues(entry, operands, shape.count, shape.width, out);
  }

  // BitField() of known |operands| (|entry|.arity of them).
  static bool BitFieldValues(const IntOp& entry, const LaneValue* const* operands, uint32_t count,
                             uint32_t width, LaneValue* out) {
    for (uint32_t i = 0; i < entry.arity; ++i) {
      if (operands[i]->probe_mask != 0) return false;
    }
    if (operands[0]->count != count) return false;
    LaneValue r;
    r.count = count;
    r.width = width;
    for (uint32_t k = 0; k < count; ++k) {
      uint64_t x[4] = {operands[0]->bits[k], 0, 0, 0};
      for (uint32_t i = 1; i < entry.arity; ++i) {
        x[i] = operands[i]->bits[entry.arity == 4 && i == 1 ? k : 0];  // the insert
      }
      if (!FoldInt(entry, x, width, width, &r.bits[k])) return false;
    }
    *out = r;
    return true;
  }

  // GLSL.std.450 integer instructions.
  bool GlslStd(uint32_t frame, Instruction* def, uint32_t count, uint32_t width, LaneValue* out) {
    if (glsl_std == 0 || def->GetSingleWordInOperand(0) != glsl_std) {
      return false;
    }
    const uint32_t inst = def->GetSingleWordInOperand(1);
    std::vector<LaneValue> args;
    bool all_uniform = true, any_probe = false;
    for (uint32_t i = 2; i < def->NumInOperands(); ++i) {
      LaneValue v;
      if (!Eval(frame, def->GetSingleWordInOperand(i), &v) || v.count != count) {
        return false;
      }
      if (v.HasUnknown()) {
        fail_at = def;
        return false;
      }
      all_uniform &= Uniform(def->GetSingleWordInOperand(i));
      any_probe |= v.probe_mask != 0;
      args.push_back(v);
    }
    if (any_probe && all_uniform) {
      *out = LaneValue{};
      out->count = count;
      out->width = width;
      out->probe_mask = static_cast<uint8_t>((1u << count) - 1);
      return true;
    }
    // min/max/clamp against a uniform unknown bound: the bound does not
    // bind (its neutral element); anything else with a probe fails.
    const bool bounds =
        inst == 38 || inst == 39 || inst == 41 || inst == 42 || inst == 44 || inst == 45;
    if (any_probe) {
      if (!bounds || args[0].probe_mask != 0) return false;
      if (inst == 44 || inst == 45) {
        if (args.size() != 3) return false;
        LaneValue r = args[0];
        for (uint32_t k = 0; k < count; ++k) {
          const bool low = !args[1].IsProbe(k), high = !args[2].IsProbe(k);
          if (inst == 44) {
            if (low) r.bits[k] = std::max(r.bits[k], args[1].bits[k]);
            if (high) r.bits[k] = std::min(r.bits[k], args[2].bits[k]);
          } else {
            int64_t v = r.Signed(k);
            if (low) v = std::max(v, args[1].Signed(k));
            if (high) v = std::min(v, args[2].Signed(k));
            r.bits[k] = static_cast<uint64_t>(v) & Mask(width);
          }
        }
        *out = r;
        return true;
      }
      if (args.size() != 2) return false;
      LaneValue r = args[0];
      for (uint32_t k = 0; k < count; ++k) {
        if (args[1].IsProbe(k)) continue;
        const bool is_min = inst == 38 || inst == 39;
        if (inst == 38 || inst == 41) {
          r.bits[k] =
              is_min ? std::min(r.bits[k], args[1].bits[k]) : std::max(r.bits[k], args[1].bits[k]);
        } else {
          const int64_t a = r.Signed(k), b = args[1].Signed(k);
          r.bits[k] = static_cast<uint64_t>(is_min ? std::min(a, b) : std::max(a, b)) & Mask(width);
        }
      }
      *out = r;
      return true;
    }
    const IntOp* entry = FindIntOp(Op::OpExtInst, inst);
    if (entry == nullptr || args.size() != entry->arity) return false;
    LaneValue r;
    r.count = count;
    r.width = width;
    for (uint32_t k = 0; k < count; ++k) {
      uint64_t x[3] = {0, 0, 0};
      for (size_t i = 0; i < args.size(); ++i) x[i] = args[i].bits[k];
      if (!FoldInt(*entry, x, width, width, &r.bits[k])) return false;
    }
    *out = r;
    return true;
  }

  // The integer value component |k| of float (or integer) value |id| is
  // computed from: through float conversions, composites, shuffles, and
  // arithmetic whose other operands are workgroup-uniform.
  bool IntegerSource(uint32_t id, uint32_t k, uint32_t* src, uint32_t* comp) {
    auto* def_use = context->get_def_use_mgr();
    auto* types = context->get_type_mgr();
    for (int guard = 0; guard < 32; ++guard) {
      Instruction* def = def_use->GetDef(id);
      if (def == nullptr || def->type_id() == 0) return false;
      uint32_t count = 0, width = 0;
      if (TypeShape(def->type_id(), &count, &width)) {
        if (width == 1) return false;
        if (count == 1) k = 0;
        if (k >= count) return false;
        *src = id;
        *comp = k;
        return true;
      }
      const auto* type = types->GetType(def->type_id());
      const auto* vec = type != nullptr ? type->AsVector() : nullptr;
      const bool is_float =
          type != nullptr && (type->AsFloat() != nullptr ||
                              (vec != nullptr && vec->element_type()->AsFloat() != nullptr));
      if (!is_float) return false;
      const uint32_t n = vec != nullptr ? vec->element_count() : 1;
      auto size_of = [&](uint32_t operand_id) -> uint32_t {
        Instruction* d = def_use->GetDef(operand_id);
        const auto* t = d ? types->GetType(d->type_id()) : nullptr;
        if (t == nullptr) return 0;
        return t->AsVector() ? t->AsVector()->element_count() : 1;
      };
      switch (def->opcode()) {
        case Op::OpConvertUToF:
        case Op::OpConvertSToF:
        case Op::OpCopyObject:
        case Op::OpFNegate:
          id = def->GetSingleWordInOperand(0);
          continue;
        case Op::OpCompositeConstruct: {
          uint32_t at = 0;
          bool found = false;
          for (uint32_t i = 0; i < def->NumInOperands() && !found; ++i) {
            const uint32_t part = def->GetSingleWordInOperand(i);
            const uint32_t m = size_of(part);
            if (k < at + m) {
              id = part;
              k -= at;
              found = true;
            }
            at += m;
          }
          if (!found) return false;
          continue;
        }
        case Op::OpVectorShuffle: {
          const uint32_t a = def->GetSingleWordInOperand(0);
          const uint32_t na = size_of(a);
          if (k + 2 >= def->NumInOperands()) return false;
          const uint32_t c = def->GetSingleWordInOperand(2 + k);
          if (c == 0xFFFFFFFFu) return false;
          id = c < na ? a : def->GetSingleWordInOperand(1);
          k = c < na ? c : c - na;
          continue;
        }
        case Op::OpFAdd:
        case Op::OpFSub:
        case Op::OpFMul:
        case Op::OpFDiv:
        case Op::OpVectorTimesScalar:
        case Op::OpExtInst: {
          // Exactly one operand that is not workgroup-uniform.
          uint32_t first = def->opcode() == Op::OpExtInst ? 2 : 0;
          uint32_t varying = 0;
          int count_varying = 0;
          for (uint32_t i = first; i < def->NumInOperands(); ++i) {
            const uint32_t o = def->GetSingleWordInOperand(i);
            if (uniformity == nullptr ||
                uniformity->ValueLevel(o) != Uniformity::kWorkgroupUniform) {
              varying = o;
              ++count_varying;
            }
          }
          if (count_varying != 1) return false;
          if (size_of(varying) == 1) k = 0;
          id = varying;
          continue;
        }
        default:
          (void)n;
          return false;
      }
    }
    return false;
  }
  // The ids (and components) whose values make up one access's position.
  struct Needed {
    std::vector<std::pair<uint32_t, uint32_t>> parts;  // (id, component)
    bool ok = false;
    bool chain = false;
    // Byte offsets: per part, the stride of an array index, or the member
    // offsets of a struct index; |layout| false when unknown.
    bool layout = false;
    std::vector<int64_t> strides;
    std::vector<std::vector<int64_t>> members;
    int64_t texel_bytes = 0;  // image accesses: bytes per texel, 0 unknown
  };

  // The natural size of |type_id| (shared memory: no padding), 0 unknown.
  int64_t NaturalSize(uint32_t type_id, int depth = 0) {
    auto* def_use = context->get_def_use_mgr();
    Instruction* t = def_use->GetDef(type_id);
    if (t == nullptr || depth > 16) return 0;
    switch (t->opcode()) {
      case Op::OpTypeInt:
      case Op::OpTypeFloat:
        return t->GetSingleWordInOperand(0) / 8;
      case Op::OpTypeBool:
        return 4;
      case Op::OpTypeVector:
      case Op::OpTypeMatrix:
        return NaturalSize(t->GetSingleWordInOperand(0), depth + 1) * t->GetSingleWordInOperand(1);
      case Op::OpTypeArray: {
        uint64_t n = 0;
        if (!Constant(t->GetSingleWordInOperand(1), &n)) return 0;
        return NaturalSize(t->GetSingleWordInOperand(0), depth + 1) * static_cast<int64_t>(n);
      }
      case Op::OpTypeStruct: {
        int64_t total = 0;
        for (uint32_t i = 0; i < t->NumInOperands(); ++i) {
          const int64_t m = NaturalSize(t->GetSingleWordInOperand(i), depth + 1);
          if (m == 0) return 0;
          total += m;
        }
        return total;
      }
      default:
        return 0;
    }
  }

  // Strides and member offsets along |chain|'s indices (outermost first),
  // from the pointee type of its root; decorations when |decorated|.
  bool Layout(const std::vector<Instruction*>& chains, uint32_t pointee, bool decorated,
              Needed* n) {
    auto* def_use = context->get_def_use_mgr();
    auto* decorations = context->get_decoration_mgr();
    uint32_t type = pointee;
    auto decoration = [&](uint32_t target, spv::Decoration d, int64_t* v) {
      bool found = false;
      decorations->ForEachDecoration(target, static_cast<uint32_t>(d), [&](const Instruction& a) {
        *v = a.GetSingleWordInOperand(2);
        found = true;
      });
      return found;
    };
    for (Instruction* c : chains) {
      const bool ptr_chain =
          c->opcode() == Op::OpPtrAccessChain || c->opcode() == Op::OpInBoundsPtrAccessChain;
      for (uint32_t i = 1; i < c->NumInOperands(); ++i) {
        Instruction* t = def_use->GetDef(type);
        if (t == nullptr) return false;
        if (ptr_chain && i == 1) {
          // The element operand: steps over whole pointees.
          int64_t stride = 0;
          Instruction* ptr_type = def_use->GetDef(c->type_id());
          if (!(decorated && ptr_type != nullptr &&
                decoration(ptr_type->result_id(), spv::Decoration::ArrayStride, &stride))) {
            stride = NaturalSize(type);
          }
          if (stride == 0) return false;
          n->strides.push_back(stride);
          n->members.push_back({});
          continue;
        }
        switch (t->opcode()) {
          case Op::OpTypeArray:
          case Op::OpTypeRuntimeArray: {
            int64_t stride = 0;
            const uint32_t elem = t->GetSingleWordInOperand(0);
            if (!(decorated && decoration(t->result_id(), spv::Decoration::ArrayStride, &stride))) {
              stride = decorated ? 0 : NaturalSize(elem);
            }
            if (stride == 0) return false;
            n->strides.push_back(stride);
            n->members.push_back({});
            type = elem;
            break;
          }
          case Op::OpTypeVector:
          case Op::OpTypeMatrix: {
            const uint32_t elem = t->GetSingleWordInOperand(0);
            int64_t stride = NaturalSize(elem);
            if (t->opcode() == Op::OpTypeMatrix && decorated) return false;
            if (stride == 0) return false;
            n->strides.push_back(stride);
            n->members.push_back({});
            type = elem;
            break;
          }
          case Op::OpTypeStruct: {
            std::vector<int64_t> offsets;
            int64_t at = 0;
            for (uint32_t m = 0; m < t->NumInOperands(); ++m) {
              int64_t off = at;
              if (decorated) {
                bool found = false;
                for (auto* d : decorations->GetDecorationsFor(t->result_id(), false)) {
                  if (d->opcode() == Op::OpMemberDecorate && d->GetSingleWordInOperand(1) == m &&
                      d->GetSingleWordInOperand(2) ==
                          static_cast<uint32_t>(spv::Decoration::Offset)) {
                    off = d->GetSingleWordInOperand(3);
                    found = true;
                  }
                }
                if (!found) return false;
              }
              offsets.push_back(off);
              at = off + NaturalSize(t->GetSingleWordInOperand(m));
            }
            n->strides.push_back(0);
            n->members.push_back(offsets);
            // The member index is a constant: its type follows below.
            uint64_t member = 0;
            if (!Constant(c->GetSingleWordInOperand(i), &member) || member >= t->NumInOperands()) {
              return false;
            }
            type = t->GetSingleWordInOperand(static_cast<uint32_t>(member));
            break;
          }
          default:
            return false;
        }
      }
    }
    return true;
  }

  // Bytes per texel of an image format (0: unknown).
  static int64_t TexelBytes(spv::ImageFormat f) {
    switch (f) {
      case spv::ImageFormat::R32f:
      case spv::ImageFormat::R32i:
      case spv::ImageFormat::R32ui:
      case spv::ImageFormat::Rgba8:
      case spv::ImageFormat::Rgba8Snorm:
      case spv::ImageFormat::Rgba8ui:
      case spv::ImageFormat::Rgba8i:
      case spv::ImageFormat::Rg16f:
      case spv::ImageFormat::R11fG11fB10f:
      case spv::ImageFormat::Rgb10A2:
        return 4;
      case spv::ImageFormat::Rgba16f:
      case spv::ImageFormat::Rgba16:
      case spv::ImageFormat::Rg32f:
      case spv::ImageFormat::Rgba16ui:
      case spv::ImageFormat::Rgba16i:
        return 8;
      case spv::ImageFormat::Rgba32f:
      case spv::ImageFormat::Rgba32ui:
      case spv::ImageFormat::Rgba32i:
        return 16;
      case spv::ImageFormat::R16f:
      case spv::ImageFormat::R16:
      case spv::ImageFormat::Rg8:
        return 2;
      case spv::ImageFormat::R8:
      case spv::ImageFormat::R8ui:
        return 1;
      default:
        return 4;  // Unknown (sampled): assume 32-bit texels
    }
  }

  // After the first invocation: the plans of the parts of |items| still
  // |ok|; the replay starts.
  void PlanParts(const std::vector<LaneItem>& items, const std::vector<Needed>& needed,
                 const std::vector<bool>& ok, std::vector<std::vector<ReplayPlan>>* plans) {
    recording = false;
    for (size_t i = 0; i < items.size(); ++i) {
      (*plans)[i].resize(needed[i].parts.size());
      for (size_t p = 0; p < needed[i].parts.size() && ok[i]; ++p) {
        ReplayPlan& plan = (*plans)[i][p];
        plan.frame = items[i].frame;
        plan.id = needed[i].parts[p].first;
        plan.ok = Plan(plan.frame, plan.id, &plan);
      }
    }
    replay.active = true;
  }

  // After PlanParts(): batches the plans, and fills (*raw)[i][p] for the
  // invocations after the first of each part of an |ok| item whose plan is
  // batched whole; (*from_batch)[i][p] is then its root's entry, else -1.
  // True when some part is left to replay per invocation.
  bool BatchParts(const std::vector<Needed>& needed,
                  const std::vector<std::vector<ReplayPlan>>& plans, const std::vector<bool>& ok,
                  std::vector<std::vector<std::vector<int64_t>>>* raw,
                  std::vector<std::vector<int32_t>>* from_batch) {
    const uint32_t lanes = size.Count();
    std::vector<std::vector<int32_t>> roots;
    BatchPlans(plans, lanes, &roots);
    bool mixed = false;
    for (size_t i = 0; i < plans.size(); ++i) {
      (*from_batch)[i].assign(plans[i].size(), -1);
      if (!ok[i]) continue;
      for (size_t p = 0; p < plans[i].size(); ++p) {
        const int32_t root = roots[i][p];
        const bool whole =
            root >= 0 && std::all_of(plans[i][p].nodes.begin(), plans[i][p].nodes.end(),
                                     [this](int32_t e) { return BatchReady(e); });
        if (whole && BatchRaw(root, needed[i].parts[p].second, lanes, &(*raw)[i][p])) {
          (*from_batch)[i][p] = root;
        } else {
          mixed = true;
        }
      }
    }
    return mixed;
  }

  // What each item's batched parts read (|from_batch|, BatchParts()),
  // where the per-invocation loop would have replayed them: at the second
  // invocation, unless their item |failed| there (invocation, part) before
  // them.
  void BatchReads(const std::vector<std::vector<int32_t>>& from_batch,
                  const std::vector<std::pair<uint32_t, size_t>>& failed,
                  std::vector<uint8_t>* reads) const {
    for (size_t i = 0; i < from_batch.size(); ++i) {
      for (size_t p = 0; p < from_batch[i].size(); ++p) {
        if (from_batch[i][p] < 0 || (failed[i].first == 1 && failed[i].second < p)) continue;
        (*reads)[i] |= BatchDeps(from_batch[i][p]);
      }
    }
  }

  // What RunPlan() of a batched plan leaves for the parts after it: its
  // nodes' values for the current invocation.
  void StampFromBatch(const ReplayPlan& plan) {
    LaneValue tmp;
    for (int32_t e : plan.nodes) {
      if (replay.stamp[e] == replay.lane) continue;
      replay.value[e] = BatchValue(e, index, &tmp);
      replay.deps[e] = batch.deps[e];
      replay.stamp[e] = replay.lane;
    }
  }

  // The map of a position whose parts evaluated for every invocation:
  // |raw|[part][invocation].
  static void FillMap(const Needed& needed, const std::vector<std::vector<int64_t>>& raw,
                      uint32_t n, LaneMap* out) {
    LaneMap& map = *out;
    map.ok = true;
    map.pos.assign(n, LanePosition{0, 0});
    if (!needed.chain && needed.texel_bytes != 0) {
      map.bytes.resize(n);
      for (uint32_t l = 0; l < n; ++l) {
        map.bytes[l] = raw[0][l] * needed.texel_bytes;
      }
    }
    if (!needed.chain) {
      map.dims = static_cast<uint32_t>(needed.parts.size());
      for (uint32_t l = 0; l < n; ++l) {
        for (size_t p = 0; p < needed.parts.size(); ++p) {
          map.pos[l][p] = raw[p][l];
        }
      }
      return;
    }
    if (needed.layout) {
      map.bytes.assign(n, 0);
      for (size_t p = 0; p < needed.parts.size(); ++p) {
        const auto& members = needed.members[p];
        for (uint32_t l = 0; l < n; ++l) {
          const int64_t v = raw[p][l];
          if (members.empty()) {
            map.bytes[l] += v * needed.strides[p];
          } else if (v >= 0 && static_cast<size_t>(v) < members.size()) {
            map.bytes[l] += members[v];
          }
        }
      }
    }
    // Chains: the varying indices, innermost first.
    std::vector<size_t> varying;
    for (size_t p = needed.parts.size(); p-- > 0;) {
      const auto& vals = raw[p];
      if (std::any_of(vals.begin(), vals.end(), [&](int64_t v) { return v != vals[0]; })) {
        varying.push_back(p);
      }
      if (varying.size() == 2) break;
    }
    map.dims = varying.size() == 2 ? 2 : 1;
    for (uint32_t l = 0; l < n; ++l) {
      for (size_t d = 0; d < varying.size(); ++d) {
        map.pos[l][d] = raw[varying[d]][l];
      }
    }
  }

  Needed NeededParts(const LaneAccess& access) {
    Needed n;
    auto* def_use = context->get_def_use_mgr();
    if (access.is_chain) {
      Instruction* c = def_use->GetDef(access.location);
      std::vector<Instruction*> chains;
      for (int guard = 0; guard < 32 && c != nullptr && IsChain(c->opcode()); ++guard) {
        std::vector<std::pair<uint32_t, uint32_t>> here;
        for (uint32_t i = 1; i < c->NumInOperands(); ++i) {
          here.push_back({c->GetSingleWordInOperand(i), 0});
        }
        n.parts.insert(n.parts.begin(), here.begin(), here.end());
        chains.insert(chains.begin(), c);
        c = def_use->GetDef(c->GetSingleWordInOperand(0));
      }
      n.chain = true;
      n.ok = true;
      Instruction* ptr_type = c != nullptr ? def_use->GetDef(c->type_id()) : nullptr;
      if (ptr_type != nullptr && ptr_type->opcode() == Op::OpTypePointer) {
        const bool shared = access.kind == MemoryKind::kSharedMemory;
        n.layout = Layout(chains, ptr_type->GetSingleWordInOperand(1), !shared, &n);
      }
      if (!n.layout) {
        n.strides.clear();
        n.members.clear();
      }
      return n;
    }
    const uint32_t dims = IsTiled(access.kind) ? 2 : 1;
    if (!IsTiled(access.kind)) {
      Instruction* image = def_use->GetDef(access.inst->GetSingleWordInOperand(0));
      Instruction* t = image ? def_use->GetDef(image->type_id()) : nullptr;
      if (t != nullptr && t->opcode() == Op::OpTypePointer) {
        t = def_use->GetDef(t->GetSingleWordInOperand(1));
      }
      if (t != nullptr && t->opcode() == Op::OpTypeSampledImage) {
        t = def_use->GetDef(t->GetSingleWordInOperand(0));
      }
      if (t != nullptr && t->opcode() == Op::OpTypeImage) {
        n.texel_bytes = TexelBytes(static_cast<spv::ImageFormat>(t->GetSingleWordInOperand(6)));
      }
    }
    for (uint32_t k = 0; k < dims; ++k) {
      uint32_t src = 0, comp = 0;
      if (!IntegerSource(access.location, k, &src, &comp)) return n;
      n.parts.push_back({src, comp});
    }
    n.ok = true;
    return n;
  }
};

InvocationEvaluator::InvocationEvaluator(IRContext* context, Function* entry, WorkgroupSize size,
                                         const UniformityAnalysis* uniformity)
    : impl_(std::make_unique<Impl>(context, entry, size, uniformity)) {}

InvocationEvaluator::~InvocationEvaluator() = default;

const std::vector<uint32_t>& InvocationEvaluator::Frames(const Function* f) const {
  static const std::vector<uint32_t> kNone;
  auto it = impl_->frames_of.find(f);
  return it == impl_->frames_of.end() ? kNone : it->second;
}

Function* InvocationEvaluator::FrameFunction(uint32_t frame) const {
  return frame < impl_->frames.size() ? impl_->frames[frame].function : nullptr;
}

Instruction* InvocationEvaluator::FrameCall(uint32_t frame) const {
  return frame < impl_->frames.size() ? impl_->frames[frame].call : nullptr;
}

uint32_t InvocationEvaluator::FrameParent(uint32_t frame) const {
  return frame < impl_->frames.size() ? impl_->frames[frame].parent : 0;
}

bool InvocationEvaluator::Eval(uint32_t frame, uint32_t id, uint32_t index, const LaneEnv& env,
                               LaneValue* out) {
  Impl& m = *impl_;
  m.fail_at = nullptr;
  m.deps = 0;
  if (frame >= m.frames.size()) return false;
  m.Select(index, env);
  m.depth = 0;
  if (!m.Eval(frame, id, out)) return false;
  if (!out->HasUnknown()) return true;
  // Not the same in every workgroup (as far as the known bits tell).
  m.fail_at = m.context->get_def_use_mgr()->GetDef(id);
  return false;
}

Instruction* InvocationEvaluator::FailedAt() const { return impl_->fail_at; }

ReachResult InvocationEvaluator::Reaches(uint32_t frame, const BasicBlock* block, uint32_t index,
                                         const LaneEnv& env) {
  Impl& m = *impl_;
  if (frame >= m.frames.size() || block == nullptr ||
      block->GetParent() != m.frames[frame].function) {
    return Unknown(nullptr);
  }
  m.Select(index, env);
  m.depth = 0;
  return m.Reaches(frame, block);
}

bool InvocationEvaluator::ReadsSubgroupBuiltIns() const {
  for (const auto& [var, builtin] : impl_->builtin_of) {
    switch (static_cast<spv::BuiltIn>(builtin)) {
      case spv::BuiltIn::SubgroupLocalInvocationId:
      case spv::BuiltIn::SubgroupId:
      case spv::BuiltIn::SubgroupSize:
      case spv::BuiltIn::NumSubgroups:
        return true;
      default:
        break;
    }
  }
  return false;
}

WorkgroupSize InvocationEvaluator::size() const { return impl_->size; }

// ---------------------------------------------------------------------------
// Accesses.

std::vector<LaneAccess> CollectLaneAccesses(IRContext* context,
                                            const std::vector<Function*>& functions) {
  std::vector<LaneAccess> out;
  auto* def_use = context->get_def_use_mgr();
  auto* decorations = context->get_decoration_mgr();
  auto type_of = [&](uint32_t id) -> Instruction* {
    Instruction* d = def_use->GetDef(id);
    return d == nullptr ? nullptr : def_use->GetDef(d->type_id());
  };
  for (Function* func : functions) {
    func->ForEachInst([&](Instruction* inst) {
      const Op op = inst->opcode();
      if (IsImageAccess(op) && inst->NumInOperands() > 1) {
        Instruction* type = type_of(inst->GetSingleWordInOperand(0));
        if (type != nullptr && type->opcode() == Op::OpTypePointer) {
          type = def_use->GetDef(type->GetSingleWordInOperand(1));
        }
        if (type != nullptr && type->opcode() == Op::OpTypeSampledImage) {
          type = def_use->GetDef(type->GetSingleWordInOperand(0));
        }
        if (type == nullptr || type->opcode() != Op::OpTypeImage) return;
        const auto dim = static_cast<spv::Dim>(type->GetSingleWordInOperand(1));
        const uint32_t sampled = type->GetSingleWordInOperand(5);
        LaneAccess a;
        a.inst = inst;
        a.function = func;
        a.location = inst->GetSingleWordInOperand(1);
        switch (dim) {
          case spv::Dim::Buffer:
            a.kind = MemoryKind::kTexelBuffer;
            break;
          case spv::Dim::Dim1D:
            a.kind = MemoryKind::kImage1D;
            break;
          case spv::Dim::Dim2D:
          case spv::Dim::Dim3D:
          case spv::Dim::Cube:
          case spv::Dim::Rect:
            a.kind = IsSampling(op) || sampled == 1 ? MemoryKind::kSampledTexture
                                                    : MemoryKind::kStorageImage;
            break;
          default:
            return;
        }
        out.push_back(a);
        return;
      }
      // Loads, stores and atomics through access chains.
      uint32_t ptr = 0;
      if (op == Op::OpLoad || op == Op::OpStore || spvOpcodeIsAtomicOp(op)) {
        if (inst->NumInOperands() == 0) return;
        ptr = inst->GetSingleWordInOperand(0);
      } else if (op == Op::OpCopyMemory) {
        ptr = inst->GetSingleWordInOperand(0);
      } else {
        return;
      }
      Instruction* chain = def_use->GetDef(ptr);
      if (chain == nullptr || !IsChain(chain->opcode())) return;
      Instruction* root = chain;
      for (int guard = 0; guard < 32 && root != nullptr && IsChain(root->opcode()); ++guard) {
        root = def_use->GetDef(root->GetSingleWordInOperand(0));
      }
      if (root == nullptr) return;
      Instruction* ptr_type = def_use->GetDef(root->type_id());
      if (ptr_type == nullptr || ptr_type->opcode() != Op::OpTypePointer) {
        return;
      }
      const auto sc = static_cast<spv::StorageClass>(ptr_type->GetSingleWordInOperand(0));
      LaneAccess a;
      a.inst = inst;
      a.function = func;
      a.location = chain->result_id();
      a.is_chain = true;
      switch (sc) {
        case spv::StorageClass::StorageBuffer:
        case spv::StorageClass::PhysicalStorageBuffer:
          a.kind = MemoryKind::kStorageBuffer;
          break;
        case spv::StorageClass::Uniform: {
          const uint32_t block = ptr_type->GetSingleWordInOperand(1);
          a.kind =
              decorations->HasDecoration(block, static_cast<uint32_t>(spv::Decoration::BufferBlock))
                  ? MemoryKind::kStorageBuffer
                  : MemoryKind::kUniformBuffer;
          break;
        }
        case spv::StorageClass::Workgroup:
          a.kind = MemoryKind::kSharedMemory;
          break;
        default:
          return;
      }
      out.push_back(a);
    });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Lane maps.

std::vector<LaneMap> InvocationEvaluator::EvaluateLaneMaps(const std::vector<LaneItem>& items,
                                                           const LaneEnv& env) {
  Impl* m = impl_.get();
  std::vector<LaneMap> maps(items.size());
  const uint32_t n = m->size.Count();
  if (n == 0 || n > kMaxLanes) return maps;
  std::vector<Impl::Needed> needed;
  std::vector<std::vector<std::vector<int64_t>>> raw(items.size());
  std::vector<bool> ok(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    needed.push_back(m->NeededParts(*items[i].access));
    ok[i] = needed[i].ok;
    raw[i].assign(needed[i].parts.size(), std::vector<int64_t>(n, 0));
  }
  std::vector<uint8_t> reads(items.size(), 0);
  // The first invocation by Eval(), the others by replaying its plans
  // (Impl::Replay; compile time: Eval() per invocation was most of
  // morton-remap's).
  std::vector<std::vector<Impl::ReplayPlan>> plans(items.size());
  // Parts the batch filled (Impl::Batch), and where each item failed.
  std::vector<std::vector<int32_t>> from_batch(items.size());
  std::vector<std::pair<uint32_t, size_t>> failed(items.size(), {n, 0});
  bool mixed = false;  // some part replays per invocation
  m->replay.Reset();
  m->recording = true;
  m->read_by.clear();
  for (uint32_t l = 0; l < n; ++l) {
    if (l == 1) {
      m->PlanParts(items, needed, ok, &plans);
      mixed = m->BatchParts(needed, plans, ok, &raw, &from_batch);
      if (!mixed) {
        // Nothing left to replay: the state the loop would have left.
        m->Select(n - 1, env);
        break;
      }
    }
    if (l > 0) {
      m->Select(l, env);
      ++m->replay.lane;
    }
    for (size_t i = 0; i < items.size(); ++i) {
      if (!ok[i]) continue;
      for (size_t p = 0; p < needed[i].parts.size() && ok[i]; ++p) {
        if (l > 0 && from_batch[i][p] >= 0) {
          if (mixed) m->StampFromBatch(plans[i][p]);
          continue;
        }
        LaneValue v;
        uint8_t read = 0;
        const bool replayed =
            l > 0 && plans[i][p].ok && m->RunPlan(plans[i][p], &v, &read) && !v.HasUnknown();
        const bool evaluated =
            replayed || Eval(items[i].frame, needed[i].parts[p].first, l, env, &v);
        reads[i] |= replayed ? read : m->deps;
        const uint32_t k = needed[i].parts[p].second;
        if (!evaluated || k >= v.count) {
          ok[i] = false;
          failed[i] = {l, p};
          break;
        }
        // A probe is a uniform unknown: the same for every lane.
        raw[i][p][l] = v.IsProbe(k) ? 0 : v.Signed(k);
      }
    }
  }
  m->BatchReads(from_batch, failed, &reads);
  m->replay.Reset();
  m->ClearBatch();
  m->recording = false;
  m->read_by.clear();
  for (size_t i = 0; i < items.size(); ++i) {
    maps[i].reads_workgroup_id = (reads[i] & kReadsWorkgroupId) != 0;
    maps[i].reads_subgroup_size = (reads[i] & kReadsSubgroupSize) != 0;
    if (ok[i]) Impl::FillMap(needed[i], raw[i], n, &maps[i]);
  }
  return maps;
}

LaneMap EvaluateLaneMap(InvocationEvaluator* evaluator, const LaneAccess& access, uint32_t frame,
                        const LaneEnv& env) {
  LaneItem item;
  item.access = &access;
  item.frame = frame;
  return evaluator->EvaluateLaneMaps({item}, env)[0];
}

std::vector<LaneItem> LaneItems(const InvocationEvaluator& evaluator,
                                const std::vector<LaneAccess>& accesses) {
  std::vector<LaneItem> items;
  for (const LaneAccess& a : accesses) {
    for (uint32_t frame : evaluator.Frames(a.function)) {
      LaneItem item;
      item.access = &a;
      item.frame = frame;
      items.push_back(item);
    }
  }
  return items;
}

uint64_t LinesPerQuadGroup(const std::vector<int64_t>& bytes, const std::vector<uint32_t>* perm) {
  uint64_t total = 0;
  const size_t n = bytes.size();
  for (size_t q = 0; q < n; q += 4) {
    // The distinct lines of (at most) four lanes.
    int64_t lines[4];
    size_t count = 0;
    for (size_t j = q; j < std::min(n, q + 4); ++j) {
      const size_t l = perm ? (*perm)[j] : j;
      const int64_t b = bytes[l];
      const int64_t line = b >= 0 ? b / 64 : -((-b + 63) / 64);
      if (std::find(lines, lines + count, line) == lines + count) lines[count++] = line;
    }
    total += count;
  }
  return total;
}

uint64_t BankConflicts(const std::vector<int64_t>& bytes, const std::vector<uint32_t>* perm,
                       uint32_t wave) {
  uint64_t total = 0;
  const size_t n = bytes.size();
  std::vector<std::pair<int64_t, int64_t>> served;  // (bank, dword) of one wave
  for (size_t w = 0; w < n; w += wave) {
    served.clear();
    for (size_t j = w; j < std::min(n, w + wave); ++j) {
      const size_t l = perm ? (*perm)[j] : j;
      const int64_t dword = bytes[l] >= 0 ? bytes[l] / 4 : -((-bytes[l] + 3) / 4);
      served.push_back({((dword % 32) + 32) % 32, dword});
    }
    std::sort(served.begin(), served.end());
    served.erase(std::unique(served.begin(), served.end()), served.end());
    // The most distinct dwords one bank serves.
    size_t most = 0;
    for (size_t i = 0, run = 0; i < served.size(); ++i) {
      run = i > 0 && served[i].first == served[i - 1].first ? run + 1 : 1;
      most = std::max(most, run);
    }
    total += most;
  }
  return total;
}

bool QuadOrdered2D(const std::vector<LanePosition>& pos) {
  const size_t n = pos.size();
  if (n < 4 || n % 4 != 0) return false;
  int64_t sx = 0, sy = 0;
  for (const LanePosition& p : pos) {
    sx = Gcd(sx, p[0] - pos[0][0]);
    sy = Gcd(sy, p[1] - pos[0][1]);
    if (sx == 1 && sy == 1) break;  // the gcd of 1 and anything
  }
  if (sx == 0 || sy == 0) return false;
  for (size_t q = 0; q < n; q += 4) {
    int64_t a = pos[q][0], b = pos[q][1];
    for (size_t j = 1; j < 4; ++j) {
      a = std::min(a, pos[q + j][0]);
      b = std::min(b, pos[q + j][1]);
    }
    // Each of the four lanes on a different corner of the sx x sy square
    // at (a, b).
    uint32_t corners = 0;
    for (size_t j = 0; j < 4; ++j) {
      const int64_t dx = pos[q + j][0] - a, dy = pos[q + j][1] - b;
      if ((dx != 0 && dx != sx) || (dy != 0 && dy != sy)) return false;
      corners |= 1u << ((dx != 0 ? 1 : 0) + (dy != 0 ? 2 : 0));
    }
    if (corners != 15u) return false;
  }
  return true;
}

namespace {

bool QuadOrdered1D(const std::vector<LanePosition>& pos) {
  const size_t n = pos.size();
  if (n < 4 || n % 4 != 0) return false;
  int64_t s0 = -1, t0 = -1;
  for (size_t q = 0; q < n; q += 4) {
    int64_t v[4] = {pos[q][0], pos[q + 1][0], pos[q + 2][0], pos[q + 3][0]};
    std::sort(v, v + 4);
    const int64_t s = v[1] - v[0], t = v[2] - v[0];
    if (s <= 0 || t <= s || t == 2 * s || v[3] - v[2] != s) return false;
    if (s0 < 0) {
      s0 = s;
      t0 = t;
    } else if (s != s0 || t != t0) {
      return false;
    }
  }
  return true;
}

// Rows of |w| lanes (or, |transposed|, columns of |w| lanes) in blocks of
// |b| lanes, steps |sx|, |sy|.
bool IsBlockDecomposition(const std::vector<LanePosition>& pos, uint32_t b, uint32_t w,
                          bool transposed, int64_t sx, int64_t sy) {
  for (size_t l = 0; l < pos.size(); ++l) {
    const size_t base = l - l % b;
    const size_t j = l % b;
    const int64_t dx = static_cast<int64_t>(transposed ? j / w : j % w) * sx;
    const int64_t dy = static_cast<int64_t>(transposed ? j % w : j / w) * sy;
    if (pos[l][0] != pos[base][0] + dx || pos[l][1] != pos[base][1] + dy) {
      return false;
    }
  }
  return true;
}

}  // namespace

LaneLayout ClassifyLaneMap(const LaneMap& map) {
  LaneLayout layout;
  if (!map.ok || map.pos.empty()) return layout;
  const auto& pos = map.pos;
  const size_t n = pos.size();
  for (size_t l = 0; l < n; ++l) {
    layout.varies_x |= pos[l][0] != pos[0][0];
    layout.varies_y |= pos[l][1] != pos[0][1];
    if (l % 4 != 0 && pos[l] != pos[l - l % 4]) layout.varies_within_quads = true;
  }
  if (map.dims == 1) {
    layout.quad_ordered = QuadOrdered1D(pos);
    return layout;
  }
  int64_t sx = 0, sy = 0;
  for (const LanePosition& p : pos) {
    sx = Gcd(sx, p[0] - pos[0][0]);
    sy = Gcd(sy, p[1] - pos[0][1]);
    if (sx == 1 && sy == 1) break;  // the gcd of 1 and anything
  }
  layout.step_x = sx;
  layout.step_y = sy;
  if (sx == 0 || sy == 0) return layout;
  layout.quad_ordered = QuadOrdered2D(pos);
  if (layout.quad_ordered) {
    layout.standard_quad_order = true;
    for (size_t q = 0; q + 3 < n; q += 4) {
      if (pos[q + 1][1] != pos[q][1] || pos[q + 2][0] != pos[q][0]) {
        layout.standard_quad_order = false;
      }
    }
  }
  // Rows (or columns) of lanes in blocks.
  for (int transposed = 0; transposed < 2; ++transposed) {
    uint32_t w = 1;
    while (w < n && pos[w][0] == pos[0][0] + (transposed ? 0 : static_cast<int64_t>(w) * sx) &&
           pos[w][1] == pos[0][1] + (transposed ? static_cast<int64_t>(w) * sy : 0)) {
      ++w;
    }
    if (w < 2) continue;
    for (uint32_t b = static_cast<uint32_t>(n); b >= 2 * w; --b) {
      if (n % b != 0 || b % w != 0) continue;
      if (IsBlockDecomposition(pos, b, w, transposed != 0, sx, sy)) {
        layout.block = b;
        layout.block_width = transposed ? b / w : w;
        layout.transposed = transposed != 0;
        return layout;
      }
    }
  }
  return layout;
}

std::vector<LaneEnv> StandardLaneEnvs(bool subgroup_sizes) {
  std::vector<LaneEnv> envs;
  const std::array<uint32_t, 3> ids[] = {{0, 0, 0}, {3, 5, 2}};
  const uint32_t none[] = {0};
  const uint32_t sizes[] = {4, 8, 16, 32, 64};
  for (const auto& wg : ids) {
    if (subgroup_sizes) {
      for (uint32_t s : sizes) {
        LaneEnv e;
        e.workgroup_id = wg;
        e.subgroup_size = s;
        envs.push_back(e);
      }
    } else {
      for (uint32_t s : none) {
        LaneEnv e;
        e.workgroup_id = wg;
        e.subgroup_size = s;
        envs.push_back(e);
      }
    }
  }
  return envs;
}

LaneMaps::LaneMaps(InvocationEvaluator* evaluator, const std::vector<LaneAccess>& accesses)
    : evaluator_(evaluator),
      envs_(StandardLaneEnvs(evaluator->ReadsSubgroupBuiltIns())),
      items_(LaneItems(*evaluator, accesses)),
      maps_(envs_.size(), std::vector<LaneMap>(items_.size())),
      done_(envs_.size(), std::vector<bool>(items_.size(), false)) {}

void LaneMaps::Evaluate(size_t env, const std::vector<size_t>& items) {
  std::vector<LaneItem> todo;
  std::vector<size_t> where;
  const LaneEnv& here = envs_[env];
  for (size_t i : items) {
    if (done_[env][i]) continue;
    done_[env][i] = true;
    // The same map as in an environment that differs only in what its
    // evaluation did not read.
    bool copied = false;
    for (size_t e = 0; e < envs_.size() && !copied; ++e) {
      const LaneMap& other = maps_[e][i];
      if (e == env || !done_[e][i] ||
          (other.reads_workgroup_id && envs_[e].workgroup_id != here.workgroup_id) ||
          (other.reads_subgroup_size && envs_[e].subgroup_size != here.subgroup_size) ||
          envs_[e].probes != here.probes || envs_[e].workgroup_unknown != here.workgroup_unknown) {
        continue;
      }
      maps_[env][i] = other;
      copied = true;
    }
    if (copied) continue;
    todo.push_back(items_[i]);
    where.push_back(i);
  }
  if (todo.empty()) return;
  std::vector<LaneMap> maps = evaluator_->EvaluateLaneMaps(todo, envs_[env]);
  for (size_t k = 0; k < where.size(); ++k) {
    maps_[env][where[k]] = std::move(maps[k]);
  }
}

void LaneMaps::EvaluateAll(size_t env) {
  std::vector<size_t> all(items_.size());
  std::iota(all.begin(), all.end(), size_t{0});
  Evaluate(env, all);
}

const LaneMap& LaneMaps::Map(size_t env, size_t item) {
  Evaluate(env, {item});
  return maps_[env][item];
}

namespace {

// ClassifyLaneMap(map).quad_ordered, without the rest.
bool MapQuadOrdered(const LaneMap& map) {
  if (!map.ok || map.pos.empty()) return false;
  return map.dims == 1 ? QuadOrdered1D(map.pos) : QuadOrdered2D(map.pos);
}

}  // namespace

bool ItemQuadOrdered(LaneMaps* maps, size_t i) {
  bool any = false;
  for (size_t e = 0; e < maps->envs().size(); ++e) {
    const LaneMap& map = maps->Map(e, i);
    if (!map.ok) continue;
    if (!MapQuadOrdered(map)) return false;
    any = true;
  }
  return any;
}

int FirstQuadOrderedItem(LaneMaps* maps) {
  // The first environment for a group of items at once, then the others
  // item by item, stopping at the first quad-ordered one. A kernel that
  // keeps a quad order usually shows it in one of its first accesses (the
  // load at the remapped coordinates): the groups double (1, 3, 4, 8...),
  // so that an early quad-ordered item costs little and a kernel with none
  // evaluates each item once.
  const size_t n = maps->items().size();
  if (maps->envs().empty()) return -1;
  for (size_t begin = 0, end = 1; begin < n; begin = end, end = std::max<size_t>(2 * end, 4)) {
    std::vector<size_t> group;
    for (size_t i = begin; i < std::min(end, n); ++i) group.push_back(i);
    maps->Evaluate(0, group);
    for (size_t i : group) {
      if (ItemQuadOrdered(maps, i)) return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace waveopt
