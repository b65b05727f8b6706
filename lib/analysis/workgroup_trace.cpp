// Workgroup trace: see workgroup_trace.h for the contract.
#include "analysis/workgroup_trace.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include "analysis/int_eval.h"
#include "analysis/ir_util.h"
#include "analysis/loops.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/dominator_analysis.h"
#include "source/opt/ir_context.h"
#include "source/util/small_vector.h"

namespace waveopt {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;

namespace {

// Executed instructions one invocation may take, and all of them together.
constexpr uint64_t kInvocationBudget = 50000;
constexpr uint64_t kTotalBudget = 20000000;

// A value of the interpreter.
struct Val {
  enum class Kind : uint8_t {
    kUnknown,   // not a function of the identity and known constants
    kInt,       // integers and booleans (width 1), up to 4 components
    kLoaded,    // the value a load of the traced array read
    kCombined,  // an operation of two such values
    kTainted,   // anything else computed from them
  };
  Kind kind = Kind::kUnknown;
  uint32_t count = 1;
  uint32_t width = 32;
  std::array<uint64_t, 4> bits = {0, 0, 0, 0};
  TraceStoreValue made;  // kLoaded: made.a is the event; kCombined: all
  bool Known() const { return kind == Kind::kInt; }
  bool FromArray() const {
    return kind == Kind::kLoaded || kind == Kind::kCombined || kind == Kind::kTainted;
  }
};

// An instruction's operands, inline (compile time: the interpreter
// evaluates every instruction of every invocation; heap vectors were a
// third of its cost).
using Ids = spvtools::utils::SmallVector<uint32_t, 8>;
using Vals = spvtools::utils::SmallVector<Val, 4>;

Val Unknown() { return Val(); }
Val Tainted() {
  Val v;
  v.kind = Val::Kind::kTainted;
  return v;
}
Val Int(uint64_t bits, uint32_t width, uint32_t count = 1) {
  Val v;
  v.kind = Val::Kind::kInt;
  v.width = width;
  v.count = count;
  v.bits.fill(0);
  for (uint32_t i = 0; i < count; ++i) v.bits[i] = MaskTo(bits, width);
  return v;
}

// Whether |op| combines two values associatively and commutatively (the
// operations a reduction tree may use).
bool IsCombiningOp(spv::Op op) {
  switch (op) {
    case spv::Op::OpIAdd:
    case spv::Op::OpIMul:
    case spv::Op::OpBitwiseAnd:
    case spv::Op::OpBitwiseOr:
    case spv::Op::OpBitwiseXor:
    case spv::Op::OpFAdd:
    case spv::Op::OpFMul:
      return true;
    default:
      return false;
  }
}

// The values of the current invocation by id: a table indexed by id whose
// entries count only when stamped with the current epoch, so that starting
// the next invocation clears nothing (compile time: a hash map allocated a
// node per executed instruction).
class Env {
 public:
  const Val* Find(uint32_t id) const {
    return id < stamps_.size() && stamps_[id] == epoch_ ? &values_[id] : nullptr;
  }
  void Set(uint32_t id, const Val& v) {
    if (id >= stamps_.size()) {
      const size_t n = std::max<size_t>(id + 1, 2 * stamps_.size());
      stamps_.resize(n, 0);
      values_.resize(n);
    }
    stamps_[id] = epoch_;
    values_[id] = v;
  }
  void Clear() { ++epoch_; }

 private:
  std::vector<uint32_t> stamps_;
  std::vector<Val> values_;
  uint32_t epoch_ = 1;
};

}  // namespace

struct WorkgroupTrace::Impl {
  Impl(IRContext* c, Function* e, uint32_t a) : context(c), entry(e), array(a) { FindBuiltIns(); }

  IRContext* context;
  Function* entry;
  uint32_t array;
  std::unordered_map<uint32_t, spv::BuiltIn> builtins;  // input variables
  uint32_t workgroup_size_const = 0;                    // the WorkgroupSize-decorated constant

  // The current run.
  TraceConfig config;
  uint32_t size[3] = {1, 1, 1};
  uint64_t index = 0;          // the invocation
  bool identity_known = true;  // false: builtins of the identity unknown
  Env env;
  Env constants;  // module-level values, per config (Clear() per config)
  // By id, for the whole trace (the module does not change): the root
  // variable of a pointer (when |root_known|), the width of an integer or
  // boolean (scalar or vector) type (0: not looked up, kNotInt: another
  // type).
  static constexpr uint8_t kNotInt = 0xff;
  std::vector<Instruction*> roots;
  std::vector<uint8_t> root_known;
  std::vector<uint8_t> widths;
  // The traced array's levels (ArrayLevels), once.
  bool levels_known = false;
  std::vector<uint32_t> level_lengths;
  uint32_t level_vector_size = 0;
  std::vector<TraceEvent>* events = nullptr;
  uint64_t steps = 0, total_steps = 0;
  std::vector<std::vector<TraceEvent>> all_events;
  // Construct facts: header id -> whether it is clean (see the contract).
  std::unordered_map<uint32_t, bool> clean;

  std::string reason, why;
  Instruction* where = nullptr;

  bool Fail(const std::string& r, const std::string& w, Instruction* at) {
    reason = r;
    why = w;
    where = at;
    return false;
  }

  void FindBuiltIns() {
    for (Instruction& inst : context->annotations()) {
      if (inst.opcode() != spv::Op::OpDecorate ||
          spv::Decoration(inst.GetSingleWordInOperand(1)) != spv::Decoration::BuiltIn) {
        continue;
      }
      const auto b = spv::BuiltIn(inst.GetSingleWordInOperand(2));
      const uint32_t target = inst.GetSingleWordInOperand(0);
      if (b == spv::BuiltIn::WorkgroupSize) {
        workgroup_size_const = target;
      } else {
        builtins[target] = b;
      }
    }
  }

  // ---- constants ----------------------------------------------------------

  // The value of a constant or specialization constant instruction.
  Val Constant(const Instruction* def, int depth) {
    if (const Val* found = constants.Find(def->result_id())) return *found;
    Val v = ComputeConstant(def, depth);
    constants.Set(def->result_id(), v);
    return v;
  }

  Val ComputeConstant(const Instruction* def, int depth) {
    auto* def_use = context->get_def_use_mgr();
    const Instruction* type = def_use->GetDef(def->type_id());
    if (type == nullptr) return Unknown();
    uint32_t width = 32;
    if (type->opcode() == spv::Op::OpTypeInt) width = type->GetSingleWordInOperand(0);
    if (type->opcode() == spv::Op::OpTypeBool) width = 1;
    const bool scalar =
        type->opcode() == spv::Op::OpTypeInt || type->opcode() == spv::Op::OpTypeBool;
    switch (def->opcode()) {
      case spv::Op::OpConstant: {
        if (type->opcode() != spv::Op::OpTypeInt) return Unknown();
        uint64_t value = 0;
        IntConstant(context, def, &value);
        return Int(value, width);
      }
      case spv::Op::OpConstantTrue:
        return Int(1, 1);
      case spv::Op::OpConstantFalse:
        return Int(0, 1);
      case spv::Op::OpConstantNull:
        if (scalar) return Int(0, width);
        return Unknown();
      case spv::Op::OpSpecConstant:
      case spv::Op::OpSpecConstantTrue:
      case spv::Op::OpSpecConstantFalse: {
        uint64_t value = 0;
        if (!SpecValue(def->result_id(), &value) || !scalar) return Unknown();
        return Int(value, width);
      }
      case spv::Op::OpConstantComposite:
      case spv::Op::OpSpecConstantComposite:
        return Composite(def, depth);
      case spv::Op::OpSpecConstantOp:
        return SpecOp(def, depth);
      default:
        return Unknown();
    }
  }

  bool SpecValue(uint32_t id, uint64_t* value) {
    for (Instruction* dec : context->get_decoration_mgr()->GetDecorationsFor(id, false)) {
      if (dec->opcode() == spv::Op::OpDecorate &&
          spv::Decoration(dec->GetSingleWordInOperand(1)) == spv::Decoration::SpecId) {
        auto it = config.spec.find(dec->GetSingleWordInOperand(2));
        if (it == config.spec.end()) return false;
        *value = it->second;
        return true;
      }
    }
    return false;  // a spec constant without an id: never known
  }

  Val Composite(const Instruction* def, int depth) {
    Val v = Int(0, 32, 0);
    if (def->NumInOperands() > 4) return Unknown();
    for (uint32_t i = 0; i < def->NumInOperands(); ++i) {
      const Val c = Get(def->GetSingleWordInOperand(i), depth + 1);
      if (!c.Known() || c.count != 1) return Unknown();
      v.width = c.width;
      v.bits[i] = c.bits[0];
      v.count = i + 1;
    }
    return v;
  }

  Val SpecOp(const Instruction* def, int depth) {
    // The operation's operands follow its opcode literal.
    const auto op = spv::Op(def->GetSingleWordInOperand(0));
    Ids ids;
    for (uint32_t i = 1; i < def->NumInOperands(); ++i) {
      ids.push_back(def->GetSingleWordInOperand(i));
    }
    return Apply(op, def->type_id(), ids, Ids(), nullptr, depth);
  }

  // ---- values -------------------------------------------------------------

  // The value of |id| now: computed already, a constant, or computed on
  // demand from a definition that was not executed by the interpreter
  // (values defined before the start, loop-invariant code of a skipped
  // loop; phis there are unknown).
  Val Get(uint32_t id, int depth = 0) {
    if (const Val* found = env.Find(id)) return *found;
    if (const Val* found = constants.Find(id)) return *found;
    if (depth > 64) return Unknown();
    Instruction* def = context->get_def_use_mgr()->GetDef(id);
    if (def == nullptr) return Unknown();
    if (context->get_instr_block(def) == nullptr) {
      // Module-level: constants (variables are pointers, not values).
      return Constant(def, depth);
    }
    Val v = Pull(def, depth);
    env.Set(id, v);
    return v;
  }

  Val Pull(Instruction* def, int depth) {
    switch (def->opcode()) {
      case spv::Op::OpPhi: {
        // Not run (before the start): known when the phis it takes its
        // values from, through any number of phis, take them all from one
        // value (the SSA rewrite's loop-carried copies of a value made
        // before the loops: a redundant phi web).
        const uint32_t only = OnlyValueOfPhiWeb(context, def);
        return only == 0 ? Unknown() : Get(only, depth + 1);
      }
      case spv::Op::OpFunctionCall:
        return Unknown();
      case spv::Op::OpLoad:
        return LoadValue(def, /*record=*/false);
      default:
        break;
    }
    const Decoded& d = Decode(def);
    return Apply(def->opcode(), def->type_id(), d.ids, d.literals, def, depth);
  }

  // An instruction's in-operands split into ids and literals, once per
  // instruction (compile time: Pull runs for every executed instruction of
  // every invocation).
  struct Decoded {
    Ids ids;
    Ids literals;
  };
  // By unique id; the entries stay where they are while the table grows
  // (Apply holds one while it evaluates operands that are decoded later).
  std::vector<std::unique_ptr<Decoded>> decoded;

  const Decoded& Decode(const Instruction* def) {
    const uint32_t uid = def->unique_id();
    if (uid >= decoded.size()) decoded.resize(std::max<size_t>(uid + 1, 2 * decoded.size()));
    std::unique_ptr<Decoded>& slot = decoded[uid];
    if (slot) return *slot;
    slot = std::make_unique<Decoded>();
    for (uint32_t i = 0; i < def->NumInOperands(); ++i) {
      const auto& operand = def->GetInOperand(i);
      if (spvIsInIdType(operand.type)) {
        slot->ids.push_back(operand.words[0]);
      } else {
        slot->literals.push_back(operand.words[0]);
      }
    }
    return *slot;
  }

  // The builtin input |b| of the current invocation, component |k|.
  Val BuiltIn(spv::BuiltIn b, uint32_t type_id) {
    const Instruction* type = context->get_def_use_mgr()->GetDef(type_id);
    const uint32_t count = type != nullptr && type->opcode() == spv::Op::OpTypeVector
                               ? type->GetSingleWordInOperand(1)
                               : 1;
    if (!identity_known) return Unknown();
    switch (b) {
      case spv::BuiltIn::LocalInvocationIndex:
        return Int(index, 32);
      case spv::BuiltIn::LocalInvocationId: {
        Val v = Int(0, 32, count);
        v.bits[0] = index % size[0];
        if (count > 1) v.bits[1] = index / size[0] % size[1];
        if (count > 2) v.bits[2] = index / (uint64_t{size[0]} * size[1]);
        return v;
      }
      default:
        return Unknown();
    }
  }

  // The value a load reads: an input builtin, the traced array (an event
  // when |record|), or unknown memory.
  Val LoadValue(Instruction* load, bool record) {
    const uint32_t ptr = load->GetSingleWordInOperand(0);
    Instruction* root = Root(ptr);
    if (root == nullptr) return Unknown();
    if (root->result_id() == array) {
      if (!record) return Unknown();  // not executed: no event
      TraceEvent e;
      if (!Element(ptr, load, &e.element, &e.row, &e.component)) return Val();
      e.kind = TraceEvent::Kind::kLoad;
      e.inst = load;
      events->push_back(e);
      Val v;
      v.kind = Val::Kind::kLoaded;
      v.made.kind = TraceStoreValue::Kind::kCopy;
      v.made.a = static_cast<uint32_t>(events->size() - 1);
      return v;
    }
    auto b = builtins.find(root->result_id());
    if (b == builtins.end()) return Unknown();
    Val whole = BuiltIn(b->second, load->type_id());
    if (root->result_id() == ptr) return whole;
    // A component through an access chain.
    Instruction* chain = context->get_def_use_mgr()->GetDef(ptr);
    if (chain->opcode() != spv::Op::OpAccessChain &&
        chain->opcode() != spv::Op::OpInBoundsAccessChain) {
      return Unknown();
    }
    if (chain->NumInOperands() != 2 || chain->GetSingleWordInOperand(0) != root->result_id()) {
      return Unknown();
    }
    Val vb = BuiltIn(b->second, root->type_id() == 0 ? 0 : PointeeType(root));
    const Val k = Get(chain->GetSingleWordInOperand(1));
    if (!vb.Known() || !k.Known() || k.bits[0] >= vb.count) return Unknown();
    return Int(vb.bits[k.bits[0]], vb.width);
  }

  // RootVariable(context, ptr), looked up once per id.
  Instruction* Root(uint32_t ptr) {
    if (ptr >= roots.size()) {
      const size_t n = std::max<size_t>(ptr + 1, context->module()->IdBound());
      roots.resize(n, nullptr);
      root_known.resize(n, 0);
    }
    if (!root_known[ptr]) {
      roots[ptr] = RootVariable(context, ptr);
      root_known[ptr] = 1;
    }
    return roots[ptr];
  }

  // The component width of integer or boolean type |type_id| (a scalar or
  // a vector of them); kNotInt for other types, 32 for none.
  uint8_t TypeWidth(uint32_t type_id) {
    if (type_id >= widths.size()) {
      widths.resize(std::max<size_t>(type_id + 1, context->module()->IdBound()), 0);
    }
    uint8_t& w = widths[type_id];
    if (w != 0) return w;
    const Instruction* type = context->get_def_use_mgr()->GetDef(type_id);
    w = 32;
    if (type != nullptr) {
      const Instruction* scalar = type;
      if (type->opcode() == spv::Op::OpTypeVector) {
        scalar = context->get_def_use_mgr()->GetDef(type->GetSingleWordInOperand(0));
      }
      if (scalar->opcode() == spv::Op::OpTypeInt) {
        w = static_cast<uint8_t>(scalar->GetSingleWordInOperand(0));
      } else if (scalar->opcode() == spv::Op::OpTypeBool) {
        w = 1;
      } else {
        w = kNotInt;
      }
    }
    return w;
  }

  uint32_t PointeeType(const Instruction* var) {
    const Instruction* ptr_type = context->get_def_use_mgr()->GetDef(var->type_id());
    return ptr_type->GetSingleWordInOperand(1);
  }

  // The element of the traced array |ptr| points at: the index into its
  // innermost array level, the row (the outer levels' indices, flattened)
  // and the vector component (-1: the whole element); false (Fail) when the
  // access is not to one element or one component of one.
  bool Element(uint32_t ptr, Instruction* at, int64_t* element, int64_t* row = nullptr,
               int32_t* component = nullptr) {
    Instruction* chain = context->get_def_use_mgr()->GetDef(ptr);
    if (chain == nullptr ||
        (chain->opcode() != spv::Op::OpAccessChain &&
         chain->opcode() != spv::Op::OpInBoundsAccessChain) ||
        chain->NumInOperands() < 2 || chain->GetSingleWordInOperand(0) != array) {
      return Fail("UnsupportedAccess", "the array is accessed other than one element at a time",
                  at);
    }
    if (!levels_known) {
      ArrayLevels(&level_lengths, &level_vector_size);
      levels_known = true;
    }
    const std::vector<uint32_t>& lengths = level_lengths;  // outer first
    const uint32_t vector_size = level_vector_size;
    const size_t indices = chain->NumInOperands() - 1;
    if (lengths.empty() || indices < lengths.size() ||
        indices > lengths.size() + (vector_size != 0 ? 1 : 0)) {
      return Fail("UnsupportedAccess", "the array is accessed other than one element at a time",
                  at);
    }
    std::vector<int64_t> idx;
    for (size_t k = 0; k < indices; ++k) {
      const Val v = Get(chain->GetSingleWordInOperand(static_cast<uint32_t>(k + 1)));
      if (v.FromArray()) {
        return Fail("IndexFromArray", "an index into the array depends on values read from it", at);
      }
      if (!v.Known()) {
        return Fail("UnknownIndex",
                    "an index into the array is not a function of the invocation's "
                    "identity and constants",
                    at);
      }
      idx.push_back(SignExtend(v.bits[0], v.width));
    }
    return Flatten(lengths, vector_size, idx, at, element, row, component);
  }

  // The lengths of the traced array's levels (outer first) and the size of
  // its vector elements (0: scalars).
  void ArrayLevels(std::vector<uint32_t>* lengths, uint32_t* vector_size) {
    auto* def_use = context->get_def_use_mgr();
    const Instruction* type = def_use->GetDef(PointeeType(def_use->GetDef(array)));
    while (type != nullptr && type->opcode() == spv::Op::OpTypeArray) {
      lengths->push_back(type->GetSingleWordInOperand(1));
      type = def_use->GetDef(type->GetSingleWordInOperand(0));
    }
    *vector_size = type != nullptr && type->opcode() == spv::Op::OpTypeVector
                       ? type->GetSingleWordInOperand(1)
                       : 0;
  }

  // |idx| (one index per level, then the component) as element, row and
  // component; outer indices and components must be in bounds (the
  // innermost index is checked by the caller's replay).
  bool Flatten(const std::vector<uint32_t>& lengths, uint32_t vector_size,
               const std::vector<int64_t>& idx, Instruction* at, int64_t* element, int64_t* row,
               int32_t* component) {
    int64_t flat = 0;
    for (size_t k = 0; k + 1 < lengths.size(); ++k) {
      const Val n = Get(lengths[k]);
      if (!n.Known()) {
        return Fail("UnknownIndex", "an outer length of the array is not known", at);
      }
      if (idx[k] < 0 || static_cast<uint64_t>(idx[k]) >= n.bits[0]) {
        return Fail("OutOfBounds", "an index into an outer level of the array is out of bounds",
                    at);
      }
      if (static_cast<uint64_t>(flat) > (uint64_t{1} << 40) / n.bits[0]) {
        return Fail("UnsupportedType", "the array has too many rows to number", at);
      }
      flat = flat * static_cast<int64_t>(n.bits[0]) + idx[k];
    }
    *element = idx[lengths.size() - 1];
    if (row != nullptr) *row = flat;
    int32_t c = -1;
    if (idx.size() > lengths.size()) {
      if (idx.back() < 0 || static_cast<uint64_t>(idx.back()) >= vector_size) {
        return Fail("OutOfBounds", "a component past the end of a vector element is accessed", at);
      }
      c = static_cast<int32_t>(idx.back());
    }
    if (component != nullptr) *component = c;
    return true;
  }

  // Applies |op| to the values of |ids| (|literals| for composite
  // extracts, shuffles, ext numbers).
  Val Apply(spv::Op op, uint32_t type_id, const Ids& ids, const Ids& literals,
            const Instruction* inst, int depth) {
    Vals in;
    bool from_array = false;
    for (uint32_t id : ids) {
      in.push_back(Get(id, depth + 1));
      if (in[in.size() - 1].FromArray()) from_array = true;
    }
    if (from_array) return Combine(op, in, literals, inst);
    const uint8_t type_width = TypeWidth(type_id);
    if (type_width == kNotInt) return Unknown();  // floats and others are not evaluated
    const uint32_t width = type_width;
    // GLSL.std.450 integer instructions are not evaluated: the import was
    // always an unknown operand here (FindIntOp has them, should they be).
    if (op == spv::Op::OpExtInst) return Unknown();
    return ApplyInt(op, width, in, literals);
  }

  // A value computed from values read from the array: a combining operation
  // of two loaded values, or tainted.
  Val Combine(spv::Op op, const Vals& in, const Ids& literals, const Instruction* inst) {
    uint32_t ext = 0;
    Vals operands = in;
    if (op == spv::Op::OpExtInst) {
      if (inst == nullptr || literals.empty() || !IsGlslStd450(context, inst)) return Tainted();
      ext = literals[0];
      if (!IsGlslMinMax(ext) || operands.size() != 3) return Tainted();
      operands.erase(operands.begin(), operands.begin() + 1);  // the import
    } else if (!IsCombiningOp(op)) {
      return Tainted();
    }
    if (operands.size() != 2 || operands[0].kind != Val::Kind::kLoaded ||
        operands[1].kind != Val::Kind::kLoaded) {
      return Tainted();
    }
    Val v;
    v.kind = Val::Kind::kCombined;
    v.made.kind = TraceStoreValue::Kind::kCombined;
    v.made.op = static_cast<uint32_t>(op);
    v.made.ext = ext;
    v.made.a = operands[0].made.a;
    v.made.b = operands[1].made.a;
    return v;
  }

  Val ApplyInt(spv::Op op, uint32_t width, const Vals& in, const Ids& literals) {
    for (const Val& v : in) {
      if (!v.Known()) return Unknown();
    }
    switch (op) {
      case spv::Op::OpCopyObject:
        return in.size() == 1 ? in[0] : Unknown();
      case spv::Op::OpCompositeExtract: {
        if (in.size() != 1 || literals.size() != 1 || literals[0] >= in[0].count) {
          return Unknown();
        }
        return Int(in[0].bits[literals[0]], in[0].width);
      }
      case spv::Op::OpCompositeConstruct: {
        if (in.empty() || in.size() > 4) return Unknown();
        Val v = Int(0, in[0].width, static_cast<uint32_t>(in.size()));
        for (size_t k = 0; k < in.size(); ++k) {
          if (in[k].count != 1) return Unknown();
          v.bits[k] = in[k].bits[0];
        }
        return v;
      }
      case spv::Op::OpVectorShuffle: {
        if (in.size() != 2 || literals.empty() || literals.size() > 4) return Unknown();
        Val v = Int(0, in[0].width, static_cast<uint32_t>(literals.size()));
        for (size_t k = 0; k < literals.size(); ++k) {
          const uint32_t c = literals[k];
          if (c < in[0].count) {
            v.bits[k] = in[0].bits[c];
          } else if (c - in[0].count < in[1].count) {
            v.bits[k] = in[1].bits[c - in[0].count];
          } else {
            return Unknown();
          }
        }
        return v;
      }
      case spv::Op::OpSelect: {
        if (in.size() != 3) return Unknown();
        Val v = in[1];
        for (uint32_t k = 0; k < v.count; ++k) {
          const bool c = in[0].bits[in[0].count == 1 ? 0 : k] & 1;
          v.bits[k] = c ? in[1].bits[k] : in[2].bits[k];
        }
        return v;
      }
      case spv::Op::OpAll:
      case spv::Op::OpAny: {
        if (in.size() != 1) return Unknown();
        bool all = true, any = false;
        for (uint32_t k = 0; k < in[0].count; ++k) {
          const bool b = (in[0].bits[k] & 1) != 0;
          all = all && b;
          any = any || b;
        }
        return Int((op == spv::Op::OpAll ? all : any) ? 1 : 0, 1);
      }
      default:
        break;
    }
    return Fold(FindIntOp(op), width, in);
  }

  // |entry| (null: not an integer operation) component-wise on known
  // operands; a scalar operand serves every component (bit-field offsets
  // and counts). |width|: the result's.
  Val Fold(const IntOp* entry, uint32_t width, const Vals& in) {
    if (entry == nullptr || in.size() != entry->arity) return Unknown();
    const uint32_t operand_width = in[0].width;
    if (entry->op == spv::Op::OpBitcast && operand_width != width) return Unknown();
    for (const Val& v : in) {
      if (v.count != in[0].count && v.count != 1) return Unknown();
    }
    Val v = Int(0, entry->result == IntResult::kBool ? 1 : width, in[0].count);
    for (uint32_t k = 0; k < in[0].count; ++k) {
      uint64_t x[4] = {0, 0, 0, 0};
      for (size_t i = 0; i < in.size(); ++i) x[i] = in[i].bits[in[i].count == 1 ? 0 : k];
      if (!FoldInt(*entry, x, operand_width, width, &v.bits[k])) return Unknown();
    }
    return v;
  }

  // ---- constructs ---------------------------------------------------------

  // Whether the construct headed by |header| (merge |merge|) has no access
  // to the array, no barrier, no call, no return: it can be skipped.
  bool Clean(BasicBlock* header, uint32_t merge, bool loop) {
    auto found = clean.find(header->id());
    if (found != clean.end()) return found->second;
    spvtools::opt::DominatorAnalysis* dom = context->GetDominatorAnalysis(entry);
    BasicBlock* merge_block = context->get_instr_block(merge);
    bool ok = true;
    for (BasicBlock& block : *entry) {
      if (!dom->Dominates(header, &block) ||
          (merge_block != nullptr && dom->Dominates(merge_block, &block))) {
        continue;
      }
      if (&block == header && !loop) continue;
      for (Instruction& inst : block) {
        const spv::Op op = inst.opcode();
        if (op == spv::Op::OpControlBarrier || op == spv::Op::OpFunctionCall ||
            op == spv::Op::OpReturn || op == spv::Op::OpReturnValue || op == spv::Op::OpKill ||
            op == spv::Op::OpUnreachable || op == spv::Op::OpTerminateInvocation) {
          ok = false;
        }
        if (TouchesArray(&inst)) ok = false;
      }
    }
    clean[header->id()] = ok;
    return ok;
  }

  bool TouchesArray(const Instruction* inst) {
    const spv::Op op = inst->opcode();
    if (op == spv::Op::OpLoad || op == spv::Op::OpStore || op == spv::Op::OpCopyMemory ||
        spvOpcodeIsAtomicOp(op)) {
      Instruction* root = Root(inst->GetSingleWordInOperand(0));
      if (root != nullptr && root->result_id() == array) return true;
      if (op == spv::Op::OpCopyMemory) {
        root = Root(inst->GetSingleWordInOperand(1));
        if (root != nullptr && root->result_id() == array) return true;
      }
    }
    return false;
  }

  // ---- execution ----------------------------------------------------------

  // Executes one non-terminator instruction; false (Fail) when the
  // invocation cannot be followed.
  bool Execute(Instruction* inst) {
    const spv::Op op = inst->opcode();
    switch (op) {
      case spv::Op::OpPhi:
      case spv::Op::OpSelectionMerge:
      case spv::Op::OpLoopMerge:
      case spv::Op::OpLine:
      case spv::Op::OpNoLine:
      case spv::Op::OpNop:
        return true;
      case spv::Op::OpLoad:
        env.Set(inst->result_id(), LoadValue(inst, /*record=*/true));
        return reason.empty();
      case spv::Op::OpStore:
        return Store(inst);
      case spv::Op::OpControlBarrier: {
        TraceEvent e;
        e.kind = TraceEvent::Kind::kBarrier;
        e.inst = inst;
        events->push_back(e);
        return true;
      }
      case spv::Op::OpFunctionCall:
        return Fail("CallInTree", "the code after the barrier calls a function", inst);
      default:
        break;
    }
    if (spvOpcodeIsAtomicOp(op) || op == spv::Op::OpMemoryBarrier || op == spv::Op::OpImageWrite ||
        op == spv::Op::OpCopyMemory || op == spv::Op::OpCopyMemorySized) {
      if (TouchesArray(inst)) {
        return Fail("UnsupportedAccess", "the array is accessed by an atomic or a memory copy",
                    inst);
      }
      TraceEvent e;
      e.kind = TraceEvent::Kind::kMemoryWrite;
      e.inst = inst;
      events->push_back(e);
      if (inst->result_id() != 0) env.Set(inst->result_id(), Unknown());
      return true;
    }
    if (spvOpcodeIsNonUniformGroupOperation(op)) {
      TraceEvent e;
      e.kind = TraceEvent::Kind::kSubgroupOp;
      e.inst = inst;
      events->push_back(e);
      bool from_array = false;
      inst->ForEachInId([&](const uint32_t* id) {
        if (Get(*id).FromArray()) from_array = true;
      });
      env.Set(inst->result_id(), from_array ? Tainted() : Unknown());
      return true;
    }
    if (inst->result_id() != 0) env.Set(inst->result_id(), Pull(inst, 0));
    return true;
  }

  bool Store(Instruction* store) {
    const uint32_t ptr = store->GetSingleWordInOperand(0);
    Instruction* root = Root(ptr);
    const Val value = Get(store->GetSingleWordInOperand(1));
    if (root == nullptr || root->result_id() != array) {
      TraceEvent e;
      e.kind = TraceEvent::Kind::kMemoryWrite;
      e.inst = store;
      // Function variables are the invocation's own (code not in SSA
      // form): not a write anyone else sees.
      if (root != nullptr &&
          spv::StorageClass(root->GetSingleWordInOperand(0)) == spv::StorageClass::Function) {
        return true;
      }
      events->push_back(e);
      return true;
    }
    TraceEvent e;
    e.kind = TraceEvent::Kind::kStore;
    e.inst = store;
    if (!Element(ptr, store, &e.element, &e.row, &e.component)) return false;
    if (value.kind == Val::Kind::kCombined || value.kind == Val::Kind::kLoaded) {
      e.value = value.made;
    } else {
      e.value.kind = TraceStoreValue::Kind::kOther;
      e.value.id = store->GetSingleWordInOperand(1);
    }
    events->push_back(e);
    return true;
  }

  // Enters |block| from |pred| (null: from a skipped construct): its phis.
  // The phis read their operands before any of them is set.
  void EnterBlock(BasicBlock* block, BasicBlock* pred) {
    phi_values.clear();
    for (Instruction& phi : *block) {
      if (phi.opcode() != spv::Op::OpPhi) break;
      Val v;
      for (uint32_t i = 0; pred != nullptr && i + 1 < phi.NumInOperands(); i += 2) {
        if (phi.GetSingleWordInOperand(i + 1) == pred->id()) {
          v = Get(phi.GetSingleWordInOperand(i));
        }
      }
      phi_values.emplace_back(phi.result_id(), v);
    }
    for (auto& [id, v] : phi_values) env.Set(id, v);
  }
  std::vector<std::pair<uint32_t, Val>> phi_values;  // EnterBlock's scratch

  // The block control goes to from |block|'s terminator (null at a return);
  // |*skipped| is set when a construct was skipped.
  bool Next(BasicBlock* block, BasicBlock** next, bool* skipped, bool* done) {
    Instruction* term = block->terminator();
    *skipped = false;
    *done = false;
    BasicBlock* target = nullptr;
    switch (term->opcode()) {
      case spv::Op::OpReturn:
      case spv::Op::OpReturnValue:
        *done = true;
        return true;
      case spv::Op::OpBranch:
        target = context->get_instr_block(term->GetSingleWordInOperand(0));
        break;
      case spv::Op::OpBranchConditional:
      case spv::Op::OpSwitch: {
        const Val c = Get(term->GetSingleWordInOperand(0));
        if (c.FromArray()) {
          return Fail("BranchOnArrayValue", "a branch depends on values read from the array", term);
        }
        if (!c.Known()) {
          uint64_t outcome = 0;
          const Uniform u = UniformOutcome(block, term, &outcome);
          if (u == Uniform::kPending) {
            pending_branch = term->GetSingleWordInOperand(0);
            return Fail("UniformBranch",
                        "a branch around accesses to the array depends on a value "
                        "the same for the whole workgroup (a push constant, a "
                        "uniform buffer or the workgroup's id)",
                        term);
          }
          if (u == Uniform::kNo) return SkipOrFail(block, next, skipped);
          target = context->get_instr_block(BranchTarget(term, outcome));
          break;
        }
        target = context->get_instr_block(BranchTarget(term, c.bits[0]));
        break;
      }
      default:
        return Fail("UnsupportedControlFlow", "an invocation ends other than by returning", term);
    }
    *next = target;
    return true;
  }

  uint32_t BranchTarget(const Instruction* term, uint64_t value) {
    if (term->opcode() == spv::Op::OpBranchConditional) {
      return term->GetSingleWordInOperand((value & 1) ? 1 : 2);
    }
    for (uint32_t i = 2; i + 1 < term->NumInOperands(); i += 2) {
      if (term->GetSingleWordInOperand(i) == static_cast<uint32_t>(value)) {
        return term->GetSingleWordInOperand(i + 1);
      }
    }
    return term->GetSingleWordInOperand(1);  // the default
  }

  // Whether the unknown condition of |term| (ending |block|) is taken the
  // way config.branches says (kAssigned, |*outcome| set), must be assigned
  // first (kPending), or is not a uniform branch the trace follows (kNo:
  // a construct that touches nothing traced is skipped as before).
  enum class Uniform { kNo, kAssigned, kPending };
  Uniform UniformOutcome(BasicBlock* block, const Instruction* term, uint64_t* outcome) {
    if (term->opcode() != spv::Op::OpBranchConditional) return Uniform::kNo;
    Instruction* merge = block->GetMergeInst();
    if (merge != nullptr && merge->opcode() == spv::Op::OpSelectionMerge &&
        Clean(block, merge->GetSingleWordInOperand(0), false)) {
      return Uniform::kNo;
    }
    const uint32_t cond = term->GetSingleWordInOperand(0);
    if (!DispatchInvariant(cond, 0)) return Uniform::kNo;
    auto it = config.branches.find(cond);
    if (it == config.branches.end()) return Uniform::kPending;
    *outcome = it->second;
    return Uniform::kAssigned;
  }

  // Whether |id| has one value for every invocation of the workgroup and
  // every evaluation: computed (without memory other than read-only
  // blocks) from constants, specialization constants, push constants,
  // uniform buffer blocks, WorkgroupId and NumWorkgroups. Memoized.
  bool DispatchInvariant(uint32_t id, int depth) {
    auto found = invariant.find(id);
    if (found != invariant.end()) return found->second;
    if (depth > 32) return false;
    const bool v = ComputeDispatchInvariant(id, depth);
    invariant[id] = v;
    return v;
  }
  bool ComputeDispatchInvariant(uint32_t id, int depth) {
    Instruction* def = context->get_def_use_mgr()->GetDef(id);
    if (def == nullptr) return false;
    const spv::Op op = def->opcode();
    if (context->get_instr_block(def) == nullptr) {
      // Module level: constants and the read-only variables.
      if (spvOpcodeIsConstant(op) || op == spv::Op::OpExtInstImport) return true;
      if (op != spv::Op::OpVariable) return false;
      const auto sc = spv::StorageClass(def->GetSingleWordInOperand(0));
      if (sc == spv::StorageClass::PushConstant) return true;
      if (sc == spv::StorageClass::Uniform) return IsUniformBlock(def);
      if (sc == spv::StorageClass::Input) {
        auto b = builtins.find(id);
        return b != builtins.end() &&
               (b->second == spv::BuiltIn::WorkgroupId || b->second == spv::BuiltIn::NumWorkgroups);
      }
      return false;
    }
    switch (op) {
      case spv::Op::OpPhi: {
        const uint32_t only = OnlyValueOfPhiWeb(context, def);
        return only != 0 && DispatchInvariant(only, depth + 1);
      }
      case spv::Op::OpLoad:
      case spv::Op::OpAccessChain:
      case spv::Op::OpInBoundsAccessChain:
      case spv::Op::OpCompositeExtract:
      case spv::Op::OpCompositeConstruct:
      case spv::Op::OpCopyObject:
      case spv::Op::OpExtInst:
      case spv::Op::OpSelect:
      case spv::Op::OpBitcast:
        break;
      default:
        if (!IsPureArithmetic(op)) return false;
        break;
    }
    bool all = true;
    def->ForEachInId([&](const uint32_t* in) {
      if (all && !DispatchInvariant(*in, depth + 1)) all = false;
    });
    return all;
  }
  // Integer, boolean, float and conversion arithmetic (no memory, no
  // invocation-dependent operation).
  static bool IsPureArithmetic(spv::Op op) {
    if (spvOpcodeIsScalarizable(op) && !spvOpcodeIsNonUniformGroupOperation(op) &&
        !spvOpcodeIsAtomicOp(op)) {
      return true;
    }
    return false;
  }
  // A Uniform variable whose type is a Block (read-only), not a
  // BufferBlock (storage written by shaders).
  bool IsUniformBlock(const Instruction* var) {
    const Instruction* ptr = context->get_def_use_mgr()->GetDef(var->type_id());
    if (ptr == nullptr || ptr->opcode() != spv::Op::OpTypePointer) return false;
    uint32_t type = ptr->GetSingleWordInOperand(1);
    for (;;) {
      const Instruction* t = context->get_def_use_mgr()->GetDef(type);
      if (t == nullptr) return false;
      if (t->opcode() != spv::Op::OpTypeArray && t->opcode() != spv::Op::OpTypeRuntimeArray) break;
      type = t->GetSingleWordInOperand(0);
    }
    bool block = false, buffer_block = false;
    for (Instruction* dec : context->get_decoration_mgr()->GetDecorationsFor(type, false)) {
      if (dec->opcode() != spv::Op::OpDecorate) continue;
      const auto d = spv::Decoration(dec->GetSingleWordInOperand(1));
      if (d == spv::Decoration::Block) block = true;
      if (d == spv::Decoration::BufferBlock) buffer_block = true;
    }
    return block && !buffer_block;
  }
  std::unordered_map<uint32_t, bool> invariant;
  uint32_t pending_branch = 0;

  bool SkipOrFail(BasicBlock* block, BasicBlock** next, bool* skipped) {
    Instruction* merge = block->GetMergeInst();
    if (merge == nullptr || merge->opcode() != spv::Op::OpSelectionMerge ||
        !Clean(block, merge->GetSingleWordInOperand(0), false)) {
      return Fail("UnknownBranch",
                  "a branch around accesses to the array (or barriers) depends "
                  "on values other than the invocation's identity and constants",
                  block->terminator());
    }
    *next = context->get_instr_block(merge->GetSingleWordInOperand(0));
    *skipped = true;
    return true;
  }

  // Runs the current invocation from |start|.
  bool RunInvocation(Instruction* start) {
    BasicBlock* block = context->get_instr_block(start);
    auto it = BasicBlock::iterator(start);
    for (;;) {
      for (; it != block->end(); ++it) {
        if (&*it == block->terminator()) break;
        if (++steps > kInvocationBudget || ++total_steps > kTotalBudget) {
          return Fail("TraceTooLong", "following every invocation takes too many steps", start);
        }
        if (!Execute(&*it)) return false;
      }
      BasicBlock* next = nullptr;
      bool skipped = false, done = false;
      if (!Next(block, &next, &skipped, &done)) return false;
      if (done) return true;
      if (next == nullptr) {
        return Fail("UnsupportedControlFlow", "a branch target is missing", block->terminator());
      }
      BasicBlock* pred = skipped ? nullptr : block;
      // A loop entered from outside that touches nothing traced: skipped.
      if (Instruction* lm = next->GetLoopMergeInst()) {
        auto* loops = context->GetLoopDescriptor(entry);
        spvtools::opt::Loop* loop = (*loops)[next->id()];
        const bool from_outside = loop == nullptr || pred == nullptr || !loop->IsInsideLoop(pred);
        if (from_outside && Clean(next, lm->GetSingleWordInOperand(0), true)) {
          next = context->get_instr_block(lm->GetSingleWordInOperand(0));
          pred = nullptr;
        }
      }
      EnterBlock(next, pred);
      block = next;
      it = block->begin();
    }
  }
};

WorkgroupTrace::WorkgroupTrace(IRContext* context, Function* entry, uint32_t array)
    : impl_(std::make_unique<Impl>(context, entry, array)) {}

WorkgroupTrace::~WorkgroupTrace() = default;

bool WorkgroupTrace::WorkgroupCount(const TraceConfig& config, uint32_t size[3]) {
  Impl& m = *impl_;
  m.config = config;
  m.constants.Clear();
  m.env.Clear();
  m.identity_known = false;
  if (m.workgroup_size_const != 0) {
    const Val v = m.Get(m.workgroup_size_const);
    if (!v.Known() || v.count != 3) return false;
    for (int k = 0; k < 3; ++k) size[k] = static_cast<uint32_t>(v.bits[k]);
    return size[0] > 0 && size[1] > 0 && size[2] > 0;
  }
  for (Instruction& mode : m.context->module()->execution_modes()) {
    if (mode.GetSingleWordInOperand(0) != m.entry->result_id()) continue;
    const auto kind = spv::ExecutionMode(mode.GetSingleWordInOperand(1));
    if (kind == spv::ExecutionMode::LocalSize) {
      for (uint32_t k = 0; k < 3; ++k) size[k] = mode.GetSingleWordInOperand(2 + k);
      return size[0] > 0 && size[1] > 0 && size[2] > 0;
    }
    if (kind == spv::ExecutionMode::LocalSizeId) {
      for (uint32_t k = 0; k < 3; ++k) {
        const Val v = m.Get(mode.GetSingleWordInOperand(2 + k));
        if (!v.Known() || v.bits[0] == 0 || v.bits[0] > 65536) return false;
        size[k] = static_cast<uint32_t>(v.bits[0]);
      }
      return true;
    }
  }
  return false;
}

bool WorkgroupTrace::Reaches(Instruction* start, const TraceConfig& config) {
  Impl& m = *impl_;
  m.config = config;
  m.constants.Clear();
  m.env.Clear();
  m.identity_known = false;
  spvtools::opt::DominatorAnalysis* dom = m.context->GetDominatorAnalysis(m.entry);
  BasicBlock* target = m.context->get_instr_block(start);
  for (BasicBlock* b = dom->ImmediateDominator(target); b != nullptr;
       b = dom->ImmediateDominator(b)) {
    Instruction* term = b->terminator();
    if (term->opcode() != spv::Op::OpBranchConditional) continue;
    BasicBlock* t = m.context->get_instr_block(term->GetSingleWordInOperand(1));
    BasicBlock* f = m.context->get_instr_block(term->GetSingleWordInOperand(2));
    const bool via_t = dom->Dominates(t, target) && t != b;
    const bool via_f = dom->Dominates(f, target) && f != b;
    if (via_t == via_f) continue;
    const Val c = m.Get(term->GetSingleWordInOperand(0));
    if (c.Known() && ((c.bits[0] & 1) != 0) != via_t) return false;
  }
  return true;
}

bool WorkgroupTrace::Run(Instruction* start, const TraceConfig& config, std::string* reason,
                         std::string* why, Instruction** where) {
  Impl& m = *impl_;
  uint32_t size[3];
  if (!WorkgroupCount(config, size)) {
    *reason = "UnknownWorkgroupSize";
    *why = "the workgroup size is not known";
    *where = start;
    return false;
  }
  m.config = config;
  m.constants.Clear();
  for (int k = 0; k < 3; ++k) m.size[k] = size[k];
  const uint64_t count = uint64_t{size[0]} * size[1] * size[2];
  m.all_events.assign(count, {});
  m.total_steps = 0;
  m.reason.clear();
  m.pending_branch = 0;
  m.identity_known = true;
  for (uint64_t i = 0; i < count; ++i) {
    m.index = i;
    m.env.Clear();
    m.steps = 0;
    m.events = &m.all_events[i];
    if (!m.RunInvocation(start)) {
      *reason = m.reason;
      *why = m.why;
      *where = m.where;
      m.all_events.clear();
      return false;
    }
  }
  return true;
}

const std::vector<std::vector<TraceEvent>>& WorkgroupTrace::events() const {
  return impl_->all_events;
}

uint32_t WorkgroupTrace::PendingBranch() const { return impl_->pending_branch; }

bool WorkgroupTrace::EvalFor(uint32_t id, uint32_t index, const TraceConfig& config,
                             uint64_t* value) {
  Impl& m = *impl_;
  uint32_t size[3];
  if (!WorkgroupCount(config, size)) return false;
  m.config = config;
  for (int k = 0; k < 3; ++k) m.size[k] = size[k];
  m.env.Clear();
  m.index = index;
  m.identity_known = true;
  const Val v = m.Get(id);
  if (!v.Known() || v.count != 1) return false;
  *value = v.bits[0];
  return true;
}

}  // namespace waveopt
