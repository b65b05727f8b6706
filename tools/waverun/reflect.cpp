// Reflection over the module's words. This file includes the SPIR-V headers
// and nothing from glslang (the two projects' spirv.hpp share an include
// guard but differ).
#include "tools/waverun/reflect.h"

#include "lib/sim/binary.h"

#define SPV_ENABLE_UTILITY_CODE
#include <algorithm>
#include <functional>
#include <set>
#include <spirv/unified1/spirv.hpp>
#include <unordered_map>
#include <utility>

namespace waverun {
namespace {

struct Inst {
  uint32_t op = 0;
  uint32_t type = 0;
  uint32_t result = 0;
  const uint32_t* ops = nullptr;  // operands after type and result
  uint32_t num_ops = 0;
  bool in_function = false;
};

struct Deco {
  std::vector<std::pair<uint32_t, uint32_t>> list;  // (decoration, first argument)
  bool Has(uint32_t d) const {
    for (const auto& x : list) {
      if (x.first == d) return true;
    }
    return false;
  }
  uint32_t Get(uint32_t d, uint32_t fallback = 0) const {
    for (const auto& x : list) {
      if (x.first == d) return x.second;
    }
    return fallback;
  }
};

using waveopt::sim::LiteralString;

class Reflector {
 public:
  Reflector(const std::vector<uint32_t>& words, const std::map<uint32_t, uint64_t>& constants,
            bool acceleration_structures)
      : words_(words), spec_(constants), acceleration_structures_(acceleration_structures) {}

  bool Run(ModuleInterface* iface, std::string* error);

 private:
  // Run's steps.
  void WorkgroupSize(ModuleInterface* iface);
  void SpecConstants(ModuleInterface* iface);
  bool VariableResource(const Inst& in, ModuleInterface* iface, Resource* out, View* out_view,
                        std::string* error);
  bool ImageResource(const Inst& t, const Inst& image_type, const Deco& d, const std::string& where,
                     Resource* out, View* view, std::string* error);
  bool MergeResource(const Resource& r, View view, Resource* out, std::string* error);
  void ImageAtomics(ModuleInterface* iface);
  bool Parse(std::string* error);
  const Inst* Def(uint32_t id) const {
    auto it = def_.find(id);
    return it == def_.end() ? nullptr : &insts_[it->second];
  }
  const Deco& DecoOf(uint32_t id) const {
    static const Deco kNone;
    auto it = deco_.find(id);
    return it == deco_.end() ? kNone : it->second;
  }
  const Deco& MemberDeco(uint32_t id, uint32_t member) const {
    static const Deco kNone;
    auto it = member_deco_.find({id, member});
    return it == member_deco_.end() ? kNone : it->second;
  }
  std::string NameOf(uint32_t id) const {
    auto it = names_.find(id);
    return it == names_.end() ? std::string() : it->second;
  }
  // The value of a scalar (spec) constant; false when |id| is not one.
  bool ConstValue(uint32_t id, uint64_t* value, int depth = 0) const;
  uint32_t Opcode(uint32_t id) const {
    const Inst* d = Def(id);
    return d ? d->op : 0;
  }
  // Bytes of |type| in explicitly laid out memory.
  bool SizeOf(uint32_t type, uint64_t* size, std::string* error, int depth = 0) const;
  // Appends the scalar fields of |type| at |offset| to |out|.
  bool Fields(uint32_t type, uint64_t offset, std::vector<Field>* out, std::string* error,
              int depth = 0);
  // Fields' cases: a struct's members, an array's elements (as counted
  // fields where each element is one scalar or vector per field), and
  // |lines| matrix columns or rows of |per| |scalar|s |stride| bytes apart.
  bool StructFields(uint32_t type, const Inst& t, uint64_t offset, std::vector<Field>* out,
                    std::string* error, int depth);
  bool ArrayFields(uint32_t type, const Inst& t, uint64_t offset, std::vector<Field>* out,
                   std::string* error, int depth);
  static void MatrixLines(const Inst& scalar, uint64_t offset, uint32_t lines, uint32_t stride,
                          uint32_t per, std::vector<Field>* out);
  // |f|'s kind and bytes from the scalar type |s|.
  static void SetScalar(const Inst* s, Field* f);
  bool Layout(uint32_t block_type, BufferLayout* out, std::string* error);
  bool PointerField(uint32_t pointee_type, uint64_t offset, std::vector<Field>* out,
                    std::string* error);
  void FindAddressMembers();
  std::string TypeName(uint32_t type) const;
  void Facts(ModuleInterface* iface);
  void IdDims(ModuleInterface* iface);
  void AtomicOrder(ModuleInterface* iface);
  // Fragment entry points: the color outputs; fails on inputs at locations.
  bool FragmentInterface(ModuleInterface* iface, std::string* error) const;

  const std::vector<uint32_t>& words_;
  const std::map<uint32_t, uint64_t>& spec_;
  std::vector<Inst> insts_;
  std::unordered_map<uint32_t, size_t> def_;
  std::unordered_map<uint32_t, Deco> deco_;
  std::map<std::pair<uint32_t, uint32_t>, Deco> member_deco_;
  std::unordered_map<uint32_t, std::string> names_;
  std::set<uint32_t> used_ids_;  // ids referenced inside functions
  uint32_t entry_ = 0;
  std::string entry_name_;
  uint32_t entry_model_ = spv::ExecutionModelGLCompute;
  bool acceleration_structures_ = false;   // reflect them (isa) rather than fail
  std::vector<uint32_t> entry_interface_;  // the entry point's interface ids
  uint32_t local_size_[3] = {1, 1, 1};
  uint32_t local_size_id_[3] = {0, 0, 0};
  bool has_loops_ = false;
  bool uses_psb_ = false;
  std::vector<uint32_t> capabilities_;
  // (struct type, member) of integer fields holding device addresses -> the
  // PhysicalStorageBuffer pointer type they are converted to.
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> address_members_;
  // Pointees being collected (PhysicalStorageBuffer pointer fields).
  std::vector<Pointee>* pointees_ = nullptr;
  std::string pointer_label_;  // label of the block whose fields are being laid out
  uint32_t pointer_depth_ = 0;
};

bool Reflector::Parse(std::string* error) {
  bool in_function = false;
  bool found = false;
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> modes;
  bool ok = waveopt::sim::ReadBinary(
      words_,
      [&](const waveopt::sim::BinaryInstruction& bi) {
        Inst in;
        in.op = bi.op;
        in.type = bi.type;
        in.result = bi.result;
        in.ops = bi.ops;
        in.num_ops = bi.num_ops;
        uint32_t op = bi.op;
        uint32_t wc = bi.word_count;
        const uint32_t* w = bi.words;
        if (op == spv::OpFunction) in_function = true;
        in.in_function = in_function;
        if (op == spv::OpFunctionEnd) in_function = false;
        switch (op) {
          case spv::OpName:
            if (wc >= 3) names_[w[0]] = LiteralString(w + 1, wc - 2);
            break;
          case spv::OpEntryPoint:
            if (wc >= 4 && !found &&
                (w[0] == spv::ExecutionModelGLCompute || w[0] == spv::ExecutionModelFragment)) {
              found = true;
              entry_model_ = w[0];
              entry_ = w[1];
              entry_name_ = LiteralString(w + 2, wc - 3);
              // The interface ids follow the name's words (the last holds its NUL).
              uint32_t k = 2;
              while (k < wc - 1 && (w[k] >> 24) != 0) ++k;
              for (++k; k < wc - 1; ++k) entry_interface_.push_back(w[k]);
            }
            break;
          case spv::OpExecutionMode:
          case spv::OpExecutionModeId:
            if (wc >= 3) modes.push_back({w[0], std::vector<uint32_t>(w + 1, w + wc - 1)});
            break;
          case spv::OpDecorate:
          case spv::OpDecorateId:
            if (wc >= 3) deco_[w[0]].list.push_back({w[1], wc > 3 ? w[2] : 0});
            break;
          case spv::OpMemberDecorate:
            if (wc >= 4) member_deco_[{w[0], w[1]}].list.push_back({w[2], wc > 4 ? w[3] : 0});
            break;
          case spv::OpLoopMerge:
            has_loops_ = true;
            break;
          case spv::OpCapability:
            if (wc >= 2) capabilities_.push_back(w[0]);
            break;
          default:
            break;
        }
        if (in.result != 0) def_[in.result] = insts_.size();
        if (in_function) {
          for (uint32_t j = 0; j < in.num_ops; ++j) used_ids_.insert(in.ops[j]);
        }
        if (op == spv::OpTypePointer && wc >= 4 && w[1] == spv::StorageClassPhysicalStorageBuffer) {
          uses_psb_ = true;
        }
        insts_.push_back(in);
        return true;
      },
      error);
  if (!ok) return false;
  if (!found) {
    *error =
        "the module has no GLCompute or Fragment entry point (waverun runs compute and "
        "fragment shaders)";
    return false;
  }
  for (const auto& m : modes) {
    if (m.first != entry_ || m.second.size() < 4) continue;
    if (m.second[0] == spv::ExecutionModeLocalSize) {
      for (int d = 0; d < 3; ++d) local_size_[d] = m.second[1 + d];
    } else if (m.second[0] == spv::ExecutionModeLocalSizeId) {
      for (int d = 0; d < 3; ++d) local_size_id_[d] = m.second[1 + d];
    }
  }
  return true;
}

bool Reflector::ConstValue(uint32_t id, uint64_t* value, int depth) const {
  const Inst* d = Def(id);
  if (!d || depth > 32) return false;
  switch (d->op) {
    case spv::OpConstant:
    case spv::OpSpecConstant: {
      uint64_t v = d->num_ops > 0 ? d->ops[0] : 0;
      if (d->num_ops > 1) v |= uint64_t{d->ops[1]} << 32;
      if (d->op == spv::OpSpecConstant && DecoOf(id).Has(spv::DecorationSpecId)) {
        auto it = spec_.find(DecoOf(id).Get(spv::DecorationSpecId));
        if (it != spec_.end()) v = it->second;
      }
      *value = v;
      return true;
    }
    case spv::OpConstantTrue:
    case spv::OpConstantFalse:
    case spv::OpSpecConstantTrue:
    case spv::OpSpecConstantFalse: {
      bool v = d->op == spv::OpConstantTrue || d->op == spv::OpSpecConstantTrue;
      if ((d->op == spv::OpSpecConstantTrue || d->op == spv::OpSpecConstantFalse) &&
          DecoOf(id).Has(spv::DecorationSpecId)) {
        auto it = spec_.find(DecoOf(id).Get(spv::DecorationSpecId));
        if (it != spec_.end()) v = it->second != 0;
      }
      *value = v;
      return true;
    }
    case spv::OpConstantNull:
      *value = 0;
      return true;
    case spv::OpSpecConstantOp: {
      if (d->num_ops < 2) return false;
      uint32_t op = d->ops[0];
      uint64_t a = 0, b = 0;
      if (!ConstValue(d->ops[1], &a, depth + 1)) return false;
      if (d->num_ops > 2 && !ConstValue(d->ops[2], &b, depth + 1)) return false;
      switch (op) {
        case spv::OpIAdd:
          *value = a + b;
          break;
        case spv::OpISub:
          *value = a - b;
          break;
        case spv::OpIMul:
          *value = a * b;
          break;
        case spv::OpUDiv:
          *value = b ? a / b : 0;
          break;
        case spv::OpSDiv:
          *value = b ? static_cast<uint64_t>(static_cast<int64_t>(a) / static_cast<int64_t>(b)) : 0;
          break;
        case spv::OpUMod:
          *value = b ? a % b : 0;
          break;
        case spv::OpShiftLeftLogical:
          *value = a << (b & 63);
          break;
        case spv::OpShiftRightLogical:
          *value = a >> (b & 63);
          break;
        case spv::OpBitwiseAnd:
          *value = a & b;
          break;
        case spv::OpBitwiseOr:
          *value = a | b;
          break;
        case spv::OpUConvert:
        case spv::OpSConvert:
        case spv::OpBitcast:
          *value = a;
          break;
        default:
          return false;
      }
      *value &= 0xffffffffu;
      return true;
    }
    default:
      return false;
  }
}

std::string Reflector::TypeName(uint32_t type) const {
  const Inst* t = Def(type);
  if (!t) return "?";
  switch (t->op) {
    case spv::OpTypeBool:
      return "bool";
    case spv::OpTypeInt:
      return std::string(t->ops[1] ? "int" : "uint") + std::to_string(t->ops[0]);
    case spv::OpTypeFloat:
      return "float" + std::to_string(t->ops[0]);
    case spv::OpTypeVector:
      return TypeName(t->ops[0]) + "x" + std::to_string(t->ops[1]);
    case spv::OpTypeMatrix:
      return TypeName(t->ops[0]) + "[" + std::to_string(t->ops[1]) + "]";
    case spv::OpTypeArray:
      return TypeName(t->ops[0]) + "[N]";
    case spv::OpTypeRuntimeArray:
      return TypeName(t->ops[0]) + "[]";
    case spv::OpTypeStruct: {
      std::string n = NameOf(type);
      return n.empty() ? "struct" : n;
    }
    case spv::OpTypePointer:
      return "pointer";
    default:
      return "?";
  }
}

bool Reflector::SizeOf(uint32_t type, uint64_t* size, std::string* error, int depth) const {
  const Inst* t = Def(type);
  if (!t || depth > 64) {
    *error = "malformed type %" + std::to_string(type);
    return false;
  }
  switch (t->op) {
    case spv::OpTypeBool:
      *size = 4;
      return true;
    case spv::OpTypeInt:
    case spv::OpTypeFloat:
      *size = t->ops[0] / 8;
      return true;
    case spv::OpTypePointer:
      *size = 8;
      return true;
    case spv::OpTypeVector: {
      uint64_t c;
      if (!SizeOf(t->ops[0], &c, error, depth + 1)) return false;
      *size = c * t->ops[1];
      return true;
    }
    case spv::OpTypeMatrix: {
      // Columns (or rows) at MatrixStride: the caller's member decides; the
      // largest extent is columns x stride, approximated by a tight 16-byte stride.
      const Inst* col = Def(t->ops[0]);
      uint64_t c;
      if (!col || !SizeOf(t->ops[0], &c, error, depth + 1)) return false;
      *size = ((c + 15) / 16) * 16 * t->ops[1];
      return true;
    }
    case spv::OpTypeArray: {
      uint64_t n = 0, e = 0;
      if (!ConstValue(t->ops[1], &n)) {
        *error = "an array length that is not a constant";
        return false;
      }
      uint32_t stride = DecoOf(type).Get(spv::DecorationArrayStride);
      if (stride == 0 && !SizeOf(t->ops[0], &e, error, depth + 1)) return false;
      *size = n * (stride ? stride : e);
      return true;
    }
    case spv::OpTypeRuntimeArray:
      *size = 0;
      return true;
    case spv::OpTypeStruct: {
      uint64_t end = 0, off = 0;
      for (uint32_t m = 0; m < t->num_ops; ++m) {
        uint64_t ms;
        const Deco& md = MemberDeco(type, m);
        if (md.Has(spv::DecorationOffset)) off = md.Get(spv::DecorationOffset);
        if (Opcode(t->ops[m]) == spv::OpTypeMatrix && md.Has(spv::DecorationMatrixStride)) {
          const Inst* mt = Def(t->ops[m]);
          const Inst* col = Def(mt->ops[0]);
          uint32_t ms_stride = md.Get(spv::DecorationMatrixStride);
          uint32_t lines = md.Has(spv::DecorationRowMajor) ? col->ops[1] : mt->ops[1];
          ms = uint64_t{ms_stride} * lines;
        } else if (!SizeOf(t->ops[m], &ms, error, depth + 1)) {
          return false;
        }
        end = std::max(end, off + ms);
        off += ms;
      }
      *size = end;
      return true;
    }
    default:
      *size = 0;
      return true;
  }
}

bool Reflector::Fields(uint32_t type, uint64_t offset, std::vector<Field>* out, std::string* error,
                       int depth) {
  const Inst* t = Def(type);
  if (!t || depth > 64) {
    *error = "malformed type %" + std::to_string(type);
    return false;
  }
  if (out->size() > (1u << 20)) return true;  // enough to fill by
  switch (t->op) {
    case spv::OpTypeBool:
    case spv::OpTypeInt:
    case spv::OpTypeFloat: {
      Field f;
      SetScalar(t, &f);
      f.offset = static_cast<uint32_t>(offset);
      out->push_back(f);
      return true;
    }
    case spv::OpTypeVector: {
      const Inst* s = Def(t->ops[0]);
      if (!s) return true;
      Field f;
      SetScalar(s, &f);
      f.offset = static_cast<uint32_t>(offset);
      f.count = t->ops[1];
      f.stride = f.bytes;
      out->push_back(f);
      return true;
    }
    case spv::OpTypePointer:
      if (t->ops[0] != spv::StorageClassPhysicalStorageBuffer) return true;
      return PointerField(t->ops[1], offset, out, error);
    case spv::OpTypeStruct:
      return StructFields(type, *t, offset, out, error, depth);
    case spv::OpTypeMatrix: {
      // Outside a struct member (arrays of matrices): column-major, 16-byte columns.
      const Inst* col = Def(t->ops[0]);
      const Inst* sc = col ? Def(col->ops[0]) : nullptr;
      if (!sc) return true;
      MatrixLines(*sc, offset, t->ops[1], 16, col->ops[1], out);
      return true;
    }
    case spv::OpTypeArray:
    case spv::OpTypeRuntimeArray:
      return ArrayFields(type, *t, offset, out, error, depth);
    default:
      return true;
  }
}

void Reflector::SetScalar(const Inst* s, Field* f) {
  if (s->op == spv::OpTypeBool) {
    f->kind = Field::Kind::kBool;
    f->bytes = 4;
  } else if (s->op == spv::OpTypeFloat) {
    f->kind = Field::Kind::kFloat;
    f->bytes = s->ops[0] / 8;
  } else {
    f->kind = s->ops[1] ? Field::Kind::kSint : Field::Kind::kUint;
    f->bytes = s->ops[0] / 8;
  }
}

void Reflector::MatrixLines(const Inst& scalar, uint64_t offset, uint32_t lines, uint32_t stride,
                            uint32_t per, std::vector<Field>* out) {
  for (uint32_t l = 0; l < lines; ++l) {
    Field f;
    SetScalar(&scalar, &f);
    f.offset = static_cast<uint32_t>(offset + uint64_t{l} * stride);
    f.count = per;
    f.stride = f.bytes;
    out->push_back(f);
  }
}

bool Reflector::StructFields(uint32_t type, const Inst& t, uint64_t offset, std::vector<Field>* out,
                             std::string* error, int depth) {
  // Member Offsets are relative to the struct, which itself lies at
  // |offset| (a nested struct, an element of an array of structs).
  uint64_t off = offset;
  for (uint32_t m = 0; m < t.num_ops; ++m) {
    const Deco& md = MemberDeco(type, m);
    if (md.Has(spv::DecorationOffset)) off = offset + md.Get(spv::DecorationOffset);
    uint32_t mt = t.ops[m];
    auto address = address_members_.find({type, m});
    if (address != address_members_.end()) {
      if (!PointerField(address->second, off, out, error)) return false;
      off += 8;
      continue;
    }
    if (Opcode(mt) == spv::OpTypeMatrix) {
      const Inst* mi = Def(mt);
      const Inst* col = Def(mi->ops[0]);
      const Inst* sc = col ? Def(col->ops[0]) : nullptr;
      if (!sc) continue;
      uint32_t stride = md.Get(spv::DecorationMatrixStride, 16);
      bool row_major = md.Has(spv::DecorationRowMajor);
      uint32_t cols = mi->ops[1], rows = col->ops[1];
      uint32_t lines = row_major ? rows : cols, per = row_major ? cols : rows;
      MatrixLines(*sc, off, lines, stride, per, out);
      off += uint64_t{stride} * lines;
      continue;
    }
    if (!Fields(mt, off, out, error, depth + 1)) return false;
    uint64_t ms;
    if (!SizeOf(mt, &ms, error)) return false;
    off += ms;
  }
  return true;
}

bool Reflector::ArrayFields(uint32_t type, const Inst& t, uint64_t offset, std::vector<Field>* out,
                            std::string* error, int depth) {
  // A runtime array inside a layout: one element.
  uint64_t n = 1;
  if (t.op == spv::OpTypeArray && !ConstValue(t.ops[1], &n)) {
    *error = "an array length that is not a constant";
    return false;
  }
  uint32_t stride = DecoOf(type).Get(spv::DecorationArrayStride);
  if (stride == 0) {
    uint64_t e;
    if (!SizeOf(t.ops[0], &e, error)) return false;
    stride = static_cast<uint32_t>(e);
  }
  // Every element's pointer points at the first element's pointee.
  std::vector<Field> inner;
  if (!Fields(t.ops[0], 0, &inner, error, depth + 1)) return false;
  bool compressible = true;
  for (const Field& f : inner) compressible = compressible && f.count == 1;
  if (compressible) {
    for (Field f : inner) {
      f.offset += static_cast<uint32_t>(offset);
      f.count = static_cast<uint32_t>(std::min<uint64_t>(n, UINT32_MAX));
      f.stride = stride;
      out->push_back(f);
    }
    return true;
  }
  for (uint64_t i = 0; i < n && out->size() < (1u << 20); ++i) {
    for (Field f : inner) {
      f.offset += static_cast<uint32_t>(offset + i * stride);
      out->push_back(f);
    }
  }
  return true;
}

bool Reflector::PointerField(uint32_t pointee_type, uint64_t offset, std::vector<Field>* out,
                             std::string* error) {
  Field f;
  f.kind = Field::Kind::kPointer;
  f.bytes = 8;
  f.offset = static_cast<uint32_t>(offset);
  if (pointees_ && pointer_depth_ < 2) {
    Pointee p;
    p.label = pointer_label_ + "+" + std::to_string(offset);
    p.depth = pointer_depth_ + 1;
    f.pointee = static_cast<int>(pointees_->size());
    pointees_->push_back(p);
    // Lay out the pointee (its own pointer fields one level deeper).
    std::string saved_label = pointer_label_;
    uint32_t saved_depth = pointer_depth_;
    pointer_label_ = p.label + ">";
    pointer_depth_ = p.depth;
    BufferLayout layout;
    bool ok = Layout(pointee_type, &layout, error);
    pointer_label_ = saved_label;
    pointer_depth_ = saved_depth;
    if (!ok) return false;
    (*pointees_)[static_cast<size_t>(f.pointee)].layout = std::move(layout);
  }
  out->push_back(f);
  return true;
}

// Integer fields that hold device addresses: 64-bit integers (or pairs of
// 32-bit ones) in push constants or buffers that reach OpConvertUToPtr (or
// a bitcast to a pointer) through arithmetic, conversions, phis, selects
// and local variables. Found before the layouts, which then treat such a
// member as a pointer to the converted pointer's type.
void Reflector::FindAddressMembers() {
  std::map<uint32_t, std::vector<uint32_t>> stores;  // local variable -> stored values
  std::function<uint32_t(uint32_t, int)> root = [&](uint32_t ptr, int depth) -> uint32_t {
    const Inst* d = Def(ptr);
    if (!d || depth > 64) return 0;
    if (d->op == spv::OpVariable) return ptr;
    if ((d->op == spv::OpAccessChain || d->op == spv::OpInBoundsAccessChain ||
         d->op == spv::OpCopyObject) &&
        d->num_ops >= 1) {
      return root(d->ops[0], depth + 1);
    }
    return 0;
  };
  for (const Inst& in : insts_) {
    if (in.in_function && in.op == spv::OpStore && in.num_ops >= 2) {
      uint32_t var = root(in.ops[0], 0);
      if (var) stores[var].push_back(in.ops[1]);
    }
  }
  for (const Inst& conv : insts_) {
    if (!conv.in_function || conv.num_ops < 1) continue;
    bool to_ptr = conv.op == spv::OpConvertUToPtr;
    if (conv.op == spv::OpBitcast) {
      const Inst* rt = Def(conv.type);
      to_ptr = rt && rt->op == spv::OpTypePointer;
    }
    if (!to_ptr) continue;
    const Inst* pt = Def(conv.type);
    if (!pt || pt->op != spv::OpTypePointer || pt->num_ops < 2 ||
        pt->ops[0] != spv::StorageClassPhysicalStorageBuffer) {
      continue;
    }
    std::vector<uint32_t> work = {conv.ops[0]};
    std::set<uint32_t> seen;
    while (!work.empty() && seen.size() < 4096) {
      uint32_t id = work.back();
      work.pop_back();
      if (!seen.insert(id).second) continue;
      const Inst* d = Def(id);
      if (!d) continue;
      switch (d->op) {
        case spv::OpIAdd:
        case spv::OpISub:
        case spv::OpIMul:
        case spv::OpUConvert:
        case spv::OpSConvert:
        case spv::OpBitcast:
        case spv::OpCopyObject:
        case spv::OpBitwiseAnd:
        case spv::OpBitwiseOr:
        case spv::OpShiftLeftLogical:
          for (uint32_t k = 0; k < d->num_ops; ++k) work.push_back(d->ops[k]);
          break;
        case spv::OpSelect:
          if (d->num_ops >= 3) {
            work.push_back(d->ops[1]);
            work.push_back(d->ops[2]);
          }
          break;
        case spv::OpPhi:
          for (uint32_t k = 0; k < d->num_ops; k += 2) work.push_back(d->ops[k]);
          break;
        case spv::OpLoad: {
          if (d->num_ops < 1) break;
          uint32_t var = root(d->ops[0], 0);
          const Inst* v = Def(var);
          if (!v || v->num_ops < 1) break;
          uint32_t sc = v->ops[0];
          if (sc == spv::StorageClassFunction || sc == spv::StorageClassPrivate) {
            for (uint32_t value : stores[var]) work.push_back(value);
            break;
          }
          if (sc != spv::StorageClassPushConstant && sc != spv::StorageClassUniform &&
              sc != spv::StorageClassStorageBuffer) {
            break;
          }
          // The struct member the access chain ends in.
          const Inst* chain = Def(d->ops[0]);
          const Inst* vt = Def(v->type);
          if (!chain || !vt || vt->op != spv::OpTypePointer || vt->num_ops < 2) break;
          if (chain->op != spv::OpAccessChain && chain->op != spv::OpInBoundsAccessChain) break;
          uint32_t type = vt->ops[1];
          std::pair<uint32_t, uint32_t> member{0, 0};
          bool ok = true;
          for (uint32_t k = 1; k < chain->num_ops && ok; ++k) {
            const Inst* ti = Def(type);
            if (!ti) {
              ok = false;
            } else if (ti->op == spv::OpTypeStruct) {
              uint64_t idx;
              ok = ConstValue(chain->ops[k], &idx) && idx < ti->num_ops;
              if (ok) {
                member = {type, static_cast<uint32_t>(idx)};
                type = ti->ops[idx];
              }
            } else if (ti->op == spv::OpTypeArray || ti->op == spv::OpTypeRuntimeArray ||
                       ti->op == spv::OpTypeVector) {
              type = ti->ops[0];
              member = {0, 0};
            } else {
              ok = false;
            }
          }
          const Inst* ft = Def(type);
          bool wide = ft && ((ft->op == spv::OpTypeInt && ft->ops[0] == 64) ||
                             (ft->op == spv::OpTypeVector && ft->ops[1] == 2));
          if (ok && member.first != 0 && wide && !address_members_.count(member)) {
            address_members_[member] = pt->ops[1];
          }
          break;
        }
        default:
          break;
      }
    }
  }
}

bool Reflector::Layout(uint32_t block_type, BufferLayout* out, std::string* error) {
  const Inst* t = Def(block_type);
  if (!t) {
    *error = "malformed block type";
    return false;
  }
  out->type_name = TypeName(block_type);
  if (t->op != spv::OpTypeStruct) {
    // A pointee that is not a struct (a pointer to float, to an array): the
    // whole type is the element of an implied array.
    uint64_t size;
    if (!SizeOf(block_type, &size, error)) return false;
    uint32_t stride = size == 0 ? 4 : static_cast<uint32_t>(size);
    if (t->op == spv::OpTypeRuntimeArray) {
      uint32_t s = DecoOf(block_type).Get(spv::DecorationArrayStride);
      uint64_t e;
      if (!SizeOf(t->ops[0], &e, error)) return false;
      stride = s ? s : static_cast<uint32_t>(e);
      if (!Fields(t->ops[0], 0, &out->element_fields, error)) return false;
    } else if (!Fields(block_type, 0, &out->element_fields, error)) {
      return false;
    }
    out->array_stride = stride == 0 ? 4 : stride;
    out->runtime_array = true;
    out->type_name += "[]";
    return true;
  }
  uint32_t members = t->num_ops;
  uint64_t total;
  if (!SizeOf(block_type, &total, error)) return false;
  out->head_bytes = total;
  if (members > 0) {
    uint32_t last = t->ops[members - 1];
    const Inst* lt = Def(last);
    uint64_t last_off = MemberDeco(block_type, members - 1).Get(spv::DecorationOffset);
    if (lt && (lt->op == spv::OpTypeArray || lt->op == spv::OpTypeRuntimeArray)) {
      uint32_t stride = DecoOf(last).Get(spv::DecorationArrayStride);
      uint64_t e = 0;
      if (!SizeOf(lt->ops[0], &e, error)) return false;
      if (stride == 0) stride = static_cast<uint32_t>(e);
      uint64_t n = 0;
      bool runtime = lt->op == spv::OpTypeRuntimeArray;
      if (runtime || ConstValue(lt->ops[1], &n)) {
        out->head_bytes = last_off;
        out->array_stride = stride;
        out->runtime_array = runtime;
        out->array_length = static_cast<uint32_t>(std::min<uint64_t>(n, UINT32_MAX));
        out->type_name = TypeName(lt->ops[0]) + (runtime ? "[]" : "[" + std::to_string(n) + "]");
        // Head fields: every member but the last.
        uint64_t off = 0;
        for (uint32_t m = 0; m + 1 < members; ++m) {
          const Deco& md = MemberDeco(block_type, m);
          if (md.Has(spv::DecorationOffset)) off = md.Get(spv::DecorationOffset);
          std::vector<Field> fs;
          // Lay the member out as a one-member view of the struct.
          if (Opcode(t->ops[m]) == spv::OpTypeMatrix) {
            // Matrices need the member's decorations: lay out the whole struct
            // and keep the fields below the array.
            std::vector<Field> all;
            if (!Fields(block_type, 0, &all, error)) return false;
            out->head_fields.clear();
            for (const Field& f : all) {
              if (f.offset < last_off) out->head_fields.push_back(f);
            }
            break;
          }
          auto address = address_members_.find({block_type, m});
          if (address != address_members_.end()) {
            if (!PointerField(address->second, off, &out->head_fields, error)) return false;
            off += 8;
            continue;
          }
          if (!Fields(t->ops[m], off, &out->head_fields, error)) return false;
          uint64_t ms;
          if (!SizeOf(t->ops[m], &ms, error)) return false;
          off += ms;
        }
        if (!Fields(lt->ops[0], 0, &out->element_fields, error)) return false;
        return true;
      }
    }
  }
  return Fields(block_type, 0, &out->head_fields, error);
}

// Facts for --auto: which invocation id components the module reads, and
// which bindings depend on the order atomics return their values.
void Reflector::Facts(ModuleInterface* iface) {
  IdDims(iface);
  AtomicOrder(iface);
}

// How many dimensions of the invocation and workgroup ids the module reads.
void Reflector::IdDims(ModuleInterface* iface) {
  // Built-in variables.
  std::set<uint32_t> id_vars;
  for (const Inst& in : insts_) {
    if (in.op != spv::OpVariable) continue;
    const Deco& d = DecoOf(in.result);
    if (!d.Has(spv::DecorationBuiltIn)) continue;
    uint32_t b = d.Get(spv::DecorationBuiltIn);
    if (b == spv::BuiltInGlobalInvocationId || b == spv::BuiltInWorkgroupId ||
        b == spv::BuiltInLocalInvocationId) {
      id_vars.insert(in.result);
    }
  }
  uint32_t dims = 1;
  std::set<uint32_t> id_values;  // loads of a whole id vector
  for (const Inst& in : insts_) {
    if (!in.in_function) continue;
    if ((in.op == spv::OpAccessChain || in.op == spv::OpInBoundsAccessChain) && in.num_ops >= 2 &&
        id_vars.count(in.ops[0])) {
      uint64_t c;
      if (ConstValue(in.ops[1], &c)) dims = std::max<uint32_t>(dims, static_cast<uint32_t>(c) + 1);
    } else if (in.op == spv::OpLoad && in.num_ops >= 1 && id_vars.count(in.ops[0])) {
      id_values.insert(in.result);
    }
  }
  for (const Inst& in : insts_) {
    if (!in.in_function) continue;
    if (in.op == spv::OpCompositeExtract && in.num_ops >= 2 && id_values.count(in.ops[0])) {
      dims = std::max<uint32_t>(dims, in.ops[1] + 1);
    } else if (in.op == spv::OpVectorShuffle && in.num_ops >= 3 &&
               (id_values.count(in.ops[0]) || id_values.count(in.ops[1]))) {
      for (uint32_t k = 2; k < in.num_ops; ++k) {
        if (in.ops[k] < 3 && id_values.count(in.ops[0]))
          dims = std::max<uint32_t>(dims, in.ops[k] + 1);
      }
    }
  }
  iface->facts.id_dims = std::min<uint32_t>(dims, 3);
}

// The bindings an atomic's returned value reaches (atomic_order): atomic
// results, followed through arithmetic, conversions, composites, phis,
// selects, subgroup operations and Function/Private variables.
void Reflector::AtomicOrder(ModuleInterface* iface) {
  std::map<uint32_t, uint32_t> tainted;  // id -> the atomic it comes from
  for (const Inst& in : insts_) {
    if (!in.in_function || in.result == 0) continue;
    switch (in.op) {
      case spv::OpAtomicIAdd:
      case spv::OpAtomicISub:
      case spv::OpAtomicIIncrement:
      case spv::OpAtomicIDecrement:
        tainted[in.result] = in.result;
        break;
      default:
        break;
    }
  }
  if (tainted.empty()) return;
  // The variable a pointer comes from.
  std::function<uint32_t(uint32_t, int)> root = [&](uint32_t ptr, int depth) -> uint32_t {
    const Inst* d = Def(ptr);
    if (!d || depth > 64) return 0;
    if (d->op == spv::OpVariable) return ptr;
    if ((d->op == spv::OpAccessChain || d->op == spv::OpInBoundsAccessChain ||
         d->op == spv::OpPtrAccessChain || d->op == spv::OpInBoundsPtrAccessChain ||
         d->op == spv::OpCopyObject) &&
        d->num_ops >= 1) {
      return root(d->ops[0], depth + 1);
    }
    return 0;
  };
  auto storage_of = [&](uint32_t var) -> uint32_t {
    const Inst* v = Def(var);
    return v && v->op == spv::OpVariable && v->num_ops >= 1 ? v->ops[0] : 0;
  };
  std::map<uint32_t, uint32_t> tainted_vars;  // Function/Private variables holding a result
  auto mark_binding = [&](uint32_t var, const std::string& why) {
    const Deco& d = DecoOf(var);
    if (!d.Has(spv::DecorationBinding)) return;
    std::pair<uint32_t, uint32_t> key{d.Get(spv::DecorationDescriptorSet),
                                      d.Get(spv::DecorationBinding)};
    if (!iface->facts.atomic_order.count(key)) iface->facts.atomic_order[key] = why;
  };
  for (int round = 0; round < 16; ++round) {
    size_t before = tainted.size() + tainted_vars.size();
    for (const Inst& in : insts_) {
      if (!in.in_function) continue;
      auto first_taint = [&](uint32_t from) -> uint32_t {
        for (uint32_t k = from; k < in.num_ops; ++k) {
          auto it = tainted.find(in.ops[k]);
          if (it != tainted.end()) return it->second;
        }
        return 0;
      };
      switch (in.op) {
        case spv::OpIAdd:
        case spv::OpISub:
        case spv::OpIMul:
        case spv::OpUDiv:
        case spv::OpSDiv:
        case spv::OpUMod:
        case spv::OpSMod:
        case spv::OpSRem:
        case spv::OpShiftLeftLogical:
        case spv::OpShiftRightLogical:
        case spv::OpShiftRightArithmetic:
        case spv::OpBitwiseAnd:
        case spv::OpBitwiseOr:
        case spv::OpBitwiseXor:
        case spv::OpBitcast:
        case spv::OpUConvert:
        case spv::OpSConvert:
        case spv::OpCopyObject:
        case spv::OpCompositeExtract:
        case spv::OpCompositeConstruct:
        case spv::OpCompositeInsert:
        case spv::OpSelect:
        case spv::OpConvertUToF:
        case spv::OpConvertSToF:
        case spv::OpExtInst:
        case spv::OpGroupNonUniformBroadcast:
        case spv::OpGroupNonUniformBroadcastFirst:
        case spv::OpGroupNonUniformShuffle:
        case spv::OpGroupNonUniformIAdd: {
          uint32_t t = first_taint(in.op == spv::OpSelect ? 1 : 0);
          if (t && !tainted.count(in.result)) tainted[in.result] = t;
          break;
        }
        case spv::OpPhi: {
          for (uint32_t k = 0; k < in.num_ops; k += 2) {
            auto it = tainted.find(in.ops[k]);
            if (it != tainted.end() && !tainted.count(in.result)) tainted[in.result] = it->second;
          }
          break;
        }
        case spv::OpStore: {
          if (in.num_ops < 2) break;
          auto it = tainted.find(in.ops[1]);
          if (it == tainted.end()) break;
          uint32_t var = root(in.ops[0], 0);
          uint32_t sc = storage_of(var);
          if (sc == spv::StorageClassFunction || sc == spv::StorageClassPrivate) {
            if (!tainted_vars.count(var)) tainted_vars[var] = it->second;
          } else if (sc == spv::StorageClassStorageBuffer || sc == spv::StorageClassUniform) {
            mark_binding(var, "an atomic's returned value is stored into it");
          }
          break;
        }
        case spv::OpLoad: {
          if (in.num_ops < 1) break;
          uint32_t var = root(in.ops[0], 0);
          auto it = tainted_vars.find(var);
          if (it != tainted_vars.end() && !tainted.count(in.result))
            tainted[in.result] = it->second;
          break;
        }
        case spv::OpAccessChain:
        case spv::OpInBoundsAccessChain:
        case spv::OpPtrAccessChain:
        case spv::OpInBoundsPtrAccessChain: {
          if (!first_taint(1)) break;
          uint32_t var = root(in.ops[0], 0);
          uint32_t sc = storage_of(var);
          if (sc == spv::StorageClassStorageBuffer || sc == spv::StorageClassUniform) {
            mark_binding(var, "an atomic's returned value indexes it (an append buffer)");
          }
          break;
        }
        case spv::OpImageWrite: {
          if (in.num_ops < 3) break;
          if (!tainted.count(in.ops[1]) && !tainted.count(in.ops[2])) break;
          const Inst* img = Def(in.ops[0]);
          if (img && img->op == spv::OpLoad) {
            mark_binding(root(img->ops[0], 0),
                         "an atomic's returned value addresses or is written to it");
          }
          break;
        }
        default:
          break;
      }
    }
    if (tainted.size() + tainted_vars.size() == before) break;
  }
}

bool Reflector::FragmentInterface(ModuleInterface* iface, std::string* error) const {
  for (uint32_t id : entry_interface_) {
    const Inst* v = Def(id);
    if (!v || v->op != spv::OpVariable || v->num_ops < 1) continue;
    uint32_t storage = v->ops[0];
    if (storage != spv::StorageClassInput && storage != spv::StorageClassOutput) continue;
    const Deco& d = DecoOf(id);
    if (d.Has(spv::DecorationBuiltIn) || !d.Has(spv::DecorationLocation)) continue;
    std::string name = NameOf(id);
    std::string what = std::string(storage == spv::StorageClassInput ? "input" : "output") +
                       (name.empty() ? std::string() : " '" + name + "'") + " at location " +
                       std::to_string(d.Get(spv::DecorationLocation));
    const Inst* pt = Def(v->type);
    const Inst* t =
        pt && pt->op == spv::OpTypePointer && pt->num_ops >= 2 ? Def(pt->ops[1]) : nullptr;
    uint32_t array = 1;
    uint64_t length = 0;
    if (storage == spv::StorageClassInput && t && t->op == spv::OpTypeArray && t->num_ops >= 2 &&
        ConstValue(t->ops[1], &length) && length >= 1 && length <= 32) {
      array = static_cast<uint32_t>(length);
      t = Def(t->ops[0]);
    }
    uint32_t count = 1;
    if (t && t->op == spv::OpTypeVector && t->num_ops >= 2) {
      count = t->ops[1];
      t = Def(t->ops[0]);
    }
    bool ok = t && (t->op == spv::OpTypeFloat || t->op == spv::OpTypeInt) && t->num_ops >= 1 &&
              t->ops[0] == 32;
    if (!ok) {
      *error = "fragment " + what + ": only 32-bit scalar and vector " +
               (storage == spv::StorageClassInput ? "inputs (and arrays of them)" : "outputs") +
               " are supported";
      return false;
    }
    ComponentType type = t->op == spv::OpTypeFloat           ? ComponentType::kFloat
                         : t->num_ops >= 2 && t->ops[1] != 0 ? ComponentType::kInt
                                                             : ComponentType::kUint;
    if (storage == spv::StorageClassInput) {
      FragmentInput in;
      in.location = d.Get(spv::DecorationLocation);
      in.component = d.Get(spv::DecorationComponent);
      in.count = count;
      in.array = array;
      in.type = type;
      in.interpolation = d.Has(spv::DecorationFlat) || type != ComponentType::kFloat
                             ? FragmentInput::Interpolation::kFlat
                         : d.Has(spv::DecorationNoPerspective)
                             ? FragmentInput::Interpolation::kNoPerspective
                             : FragmentInput::Interpolation::kSmooth;
      in.name = name;
      iface->fragment_inputs.push_back(in);
      continue;
    }
    ColorOutput out;
    out.location = d.Get(spv::DecorationLocation);
    out.type = type;
    out.name = name;
    bool merged = false;
    for (const ColorOutput& o : iface->color_outputs) {
      if (o.location != out.location) continue;
      if (o.type != out.type) {
        *error = "fragment " + what + ": outputs of different types share the location";
        return false;
      }
      merged = true;
    }
    if (!merged) iface->color_outputs.push_back(out);
  }
  std::sort(iface->color_outputs.begin(), iface->color_outputs.end(),
            [](const ColorOutput& a, const ColorOutput& b) { return a.location < b.location; });
  std::sort(iface->fragment_inputs.begin(), iface->fragment_inputs.end(),
            [](const FragmentInput& a, const FragmentInput& b) {
              return a.location != b.location ? a.location < b.location : a.component < b.component;
            });
  return true;
}

bool Reflector::Run(ModuleInterface* iface, std::string* error) {
  if (!Parse(error)) return false;
  iface->entry_point = entry_name_;
  iface->stage = entry_model_ == spv::ExecutionModelFragment ? Stage::kFragment : Stage::kCompute;
  if (iface->stage == Stage::kFragment && !FragmentInterface(iface, error)) return false;
  iface->has_loops = has_loops_;
  iface->uses_device_addresses = uses_psb_;
  iface->capabilities = capabilities_;
  WorkgroupSize(iface);
  SpecConstants(iface);
  pointees_ = &iface->pointees;
  FindAddressMembers();
  if (!address_members_.empty()) iface->uses_device_addresses = true;
  // Resources: one per binding, a view per variable bound there.
  std::map<std::pair<uint32_t, uint32_t>, Resource> by_key;
  for (const Inst& in : insts_) {
    if (in.op != spv::OpVariable || in.in_function || in.num_ops < 1) continue;
    Resource r;
    View view;
    if (!VariableResource(in, iface, &r, &view, error)) return false;
    if (view.variable == 0) continue;  // not a descriptor
    r.name = view.name;
    auto key = std::make_pair(r.set, r.binding);
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      r.views.push_back(std::move(view));
      by_key[key] = std::move(r);
    } else if (!MergeResource(r, std::move(view), &it->second, error)) {
      return false;
    }
  }
  for (auto& kv : by_key) {
    Resource& r = kv.second;
    for (const View& v : r.views) {
      r.writable = r.writable || v.writable;
      r.used = r.used || v.used;
    }
    iface->resources.push_back(std::move(r));
  }
  ImageAtomics(iface);
  Facts(iface);
  return true;
}

void Reflector::WorkgroupSize(ModuleInterface* iface) {
  // Workgroup size: the WorkgroupSize built-in, else LocalSizeId, else LocalSize.
  for (int d = 0; d < 3; ++d) iface->local_size[d] = local_size_[d] == 0 ? 1 : local_size_[d];
  if (local_size_id_[0] != 0) {
    for (int d = 0; d < 3; ++d) {
      uint64_t v;
      if (ConstValue(local_size_id_[d], &v)) iface->local_size[d] = static_cast<uint32_t>(v);
    }
  }
  for (const Inst& in : insts_) {
    if ((in.op == spv::OpConstantComposite || in.op == spv::OpSpecConstantComposite) &&
        DecoOf(in.result).Get(spv::DecorationBuiltIn, ~0u) == spv::BuiltInWorkgroupSize &&
        in.num_ops >= 3) {
      for (int d = 0; d < 3; ++d) {
        uint64_t v;
        if (ConstValue(in.ops[d], &v)) iface->local_size[d] = static_cast<uint32_t>(v);
      }
    }
  }
  for (int d = 0; d < 3; ++d) {
    if (iface->local_size[d] == 0) iface->local_size[d] = 1;
  }
}

void Reflector::SpecConstants(ModuleInterface* iface) {
  for (const Inst& in : insts_) {
    if (in.op != spv::OpSpecConstant && in.op != spv::OpSpecConstantTrue &&
        in.op != spv::OpSpecConstantFalse) {
      continue;
    }
    const Deco& d = DecoOf(in.result);
    if (!d.Has(spv::DecorationSpecId)) continue;
    SpecConstant sc;
    sc.constant_id = d.Get(spv::DecorationSpecId);
    const Inst* t = Def(in.type);
    sc.bytes =
        t && (t->op == spv::OpTypeInt || t->op == spv::OpTypeFloat) && t->ops[0] == 64 ? 8 : 4;
    sc.integer = t && t->op == spv::OpTypeInt;
    if (in.op == spv::OpSpecConstant) {
      sc.default_bits = in.num_ops > 0 ? in.ops[0] : 0;
      if (sc.bytes == 8 && in.num_ops > 1) sc.default_bits |= uint64_t{in.ops[1]} << 32;
    } else {
      sc.default_bits = in.op == spv::OpSpecConstantTrue ? 1 : 0;
    }
    sc.smallest_default = sc.largest_default = sc.default_bits;
    bool dup = false;
    for (SpecConstant& o : iface->spec_constants) {
      if (o.constant_id != sc.constant_id) continue;
      dup = true;
      o.defaults_differ = o.defaults_differ || o.default_bits != sc.default_bits;
      o.smallest_default = std::min(o.smallest_default, sc.default_bits);
      o.largest_default = std::max(o.largest_default, sc.default_bits);
    }
    if (!dup) iface->spec_constants.push_back(sc);
  }
  std::sort(
      iface->spec_constants.begin(), iface->spec_constants.end(),
      [](const SpecConstant& a, const SpecConstant& b) { return a.constant_id < b.constant_id; });
}

// The resource and view of the module variable |in| (view.variable stays 0
// for a variable that is no descriptor; push constants go to |iface|).
bool Reflector::VariableResource(const Inst& in, ModuleInterface* iface, Resource* out,
                                 View* out_view, std::string* error) {
  uint32_t storage = in.ops[0];
  if (storage != spv::StorageClassUniformConstant && storage != spv::StorageClassUniform &&
      storage != spv::StorageClassStorageBuffer && storage != spv::StorageClassPushConstant) {
    return true;
  }
  const Inst* pt = Def(in.type);
  if (!pt || pt->op != spv::OpTypePointer || pt->num_ops < 2) {
    *error = "malformed variable %" + std::to_string(in.result);
    return false;
  }
  uint32_t type = pt->ops[1];
  std::string name = NameOf(in.result);
  if (storage == spv::StorageClassPushConstant) {
    uint64_t size;
    if (!SizeOf(type, &size, error)) return false;
    iface->push_constant_bytes = static_cast<uint32_t>(size);
    pointer_label_ = "push";
    pointer_depth_ = 0;
    iface->push_fields.clear();
    return Fields(type, 0, &iface->push_fields, error);
  }
  const Deco& d = DecoOf(in.result);
  uint32_t set = d.Get(spv::DecorationDescriptorSet), binding = d.Get(spv::DecorationBinding);
  std::string where = "binding " + std::to_string(set) + "." + std::to_string(binding) +
                      (name.empty() ? std::string() : " ('" + name + "')");
  // Descriptor arrays.
  Resource& r = *out;
  View& view = *out_view;
  r.set = set;
  r.binding = binding;
  uint64_t count = 1;
  while (Opcode(type) == spv::OpTypeArray || Opcode(type) == spv::OpTypeRuntimeArray) {
    const Inst* at = Def(type);
    r.descriptor_array = true;
    if (at->op == spv::OpTypeRuntimeArray) {
      count = 0;
    } else {
      uint64_t n;
      if (!ConstValue(at->ops[1], &n)) {
        *error = where + ": a descriptor array whose length is not a constant";
        return false;
      }
      count = count == 0 ? 0 : count * n;
    }
    type = at->ops[0];
  }
  r.descriptor_count = static_cast<uint32_t>(std::min<uint64_t>(count, 1u << 16));
  const Inst* t = Def(type);
  if (!t) {
    *error = where + ": malformed type";
    return false;
  }
  view.variable = in.result;
  view.name = name;
  view.used = used_ids_.count(in.result) > 0;
  const Inst* image = nullptr;
  switch (t->op) {
    case spv::OpTypeStruct: {
      const Deco& td = DecoOf(type);
      bool ssbo = storage == spv::StorageClassStorageBuffer || td.Has(spv::DecorationBufferBlock);
      r.kind = ssbo ? ResourceKind::kStorageBuffer : ResourceKind::kUniformBuffer;
      if (view.name.empty()) view.name = NameOf(type);
      bool all_readonly = t->num_ops > 0;
      for (uint32_t m = 0; m < t->num_ops; ++m) {
        all_readonly = all_readonly && MemberDeco(type, m).Has(spv::DecorationNonWritable);
      }
      view.writable = ssbo && !d.Has(spv::DecorationNonWritable) && !all_readonly;
      pointer_label_ = std::to_string(set) + "." + std::to_string(binding);
      pointer_depth_ = 0;
      if (!Layout(type, &view.layout, error)) {
        *error = where + ": " + *error;
        return false;
      }
      break;
    }
    case spv::OpTypeImage:
      image = t;
      break;
    case spv::OpTypeSampledImage:
      image = Def(t->ops[0]);
      if (!image || image->op != spv::OpTypeImage) {
        *error = where + ": malformed sampled image type";
        return false;
      }
      break;
    case spv::OpTypeSampler:
      r.kind = ResourceKind::kSampler;
      break;
    case spv::OpTypeAccelerationStructureKHR:
      if (acceleration_structures_) {
        r.kind = ResourceKind::kAccelerationStructure;
        break;
      }
      *error = where + ": acceleration structures (ray queries) are not supported";
      return false;
    default:
      *error = where + ": unsupported descriptor type (opcode " + std::to_string(t->op) + ")";
      return false;
  }
  return !image || ImageResource(*t, *image, d, where, &r, &view, error);
}

// The kind, dimension, texel type and format of an image (or sampled
// image |t|) descriptor.
bool Reflector::ImageResource(const Inst& t, const Inst& image_type, const Deco& d,
                              const std::string& where, Resource* out, View* view,
                              std::string* error) {
  Resource& r = *out;
  const Inst* image = &image_type;
  if (image->num_ops < 7) {
    *error = where + ": malformed image type";
    return false;
  }
  uint32_t dim = image->ops[1], arrayed = image->ops[3], ms = image->ops[4];
  uint32_t sampled = image->ops[5], format = image->ops[6];
  if (dim == spv::DimSubpassData) {
    *error = where + (entry_model_ == spv::ExecutionModelFragment
                          ? std::string(": input attachments (subpass inputs) are not "
                                        "supported: waverun draws with color attachments only")
                          : std::string(": input attachments (subpass inputs) exist only in "
                                        "fragment shaders; this is a compute shader"));
    return false;
  }
  if (ms) {
    *error = where + ": multisampled images are not supported";
    return false;
  }
  if (dim == spv::DimRect || dim > spv::DimBuffer) {
    *error = where + ": unsupported image dimension " + std::to_string(dim);
    return false;
  }
  r.dim = dim == spv::Dim1D     ? ImageDim::k1D
          : dim == spv::Dim2D   ? ImageDim::k2D
          : dim == spv::Dim3D   ? ImageDim::k3D
          : dim == spv::DimCube ? ImageDim::kCube
                                : ImageDim::kBuffer;
  r.arrayed = arrayed != 0;
  const Inst* st = Def(image->ops[0]);
  r.sampled_type = !st || st->op == spv::OpTypeFloat ? ComponentType::kFloat
                   : st->ops[1]                      ? ComponentType::kInt
                                                     : ComponentType::kUint;
  bool combined = t.op == spv::OpTypeSampledImage;
  if (sampled == 2) {
    r.kind =
        dim == spv::DimBuffer ? ResourceKind::kStorageTexelBuffer : ResourceKind::kStorageImage;
    r.format = waveopt::sim::TexelFormatFromSpirv(format);
    view->writable = !d.Has(spv::DecorationNonWritable);
  } else if (sampled == 1) {
    r.kind = dim == spv::DimBuffer ? ResourceKind::kUniformTexelBuffer
             : combined            ? ResourceKind::kSampledImage
                                   : ResourceKind::kSeparateImage;
    r.format = waveopt::sim::TexelFormatFromSpirv(format);
  } else {
    *error = where + ": an image whose use (sampled or storage) is not known at compile time";
    return false;
  }
  return true;
}

// |r| (its one view |view|) bound where |e| is: the same kind, one format.
bool Reflector::MergeResource(const Resource& r, View view, Resource* out, std::string* error) {
  Resource& e = *out;
  const uint32_t set = r.set, binding = r.binding;
  if (e.kind != r.kind || (!IsBufferKind(r.kind) && r.kind != ResourceKind::kSampler &&
                           (e.dim != r.dim || e.arrayed != r.arrayed))) {
    *error = "binding " + std::to_string(set) + "." + std::to_string(binding) +
             ": variables of different kinds share it ('" + e.name +
             "': " + ResourceKindName(e.kind) + ", '" + r.name + "': " + ResourceKindName(r.kind) +
             "); the spec line 'separate-kinds' (or --auto) gives each kind its own binding";
    return false;
  }
  if (r.format != e.format) {
    if (e.format == ImageFormat::kUnknown) {
      e.format = r.format;
    } else if (r.format != ImageFormat::kUnknown) {
      *error = "binding " + std::to_string(set) + "." + std::to_string(binding) +
               ": variables declare different formats (" + GetFormatInfo(e.format).name + ", " +
               GetFormatInfo(r.format).name + ")";
      return false;
    }
  }
  e.descriptor_array = e.descriptor_array || r.descriptor_array;
  if (r.descriptor_count == 0 || e.descriptor_count == 0) {
    e.descriptor_count = 0;
  } else {
    e.descriptor_count = std::max(e.descriptor_count, r.descriptor_count);
  }
  e.views.push_back(std::move(view));
  return true;
}

// Image atomics: OpImageTexelPointer of a variable (or of an element).
void Reflector::ImageAtomics(ModuleInterface* iface) {
  for (const Inst& in : insts_) {
    if (in.op != spv::OpImageTexelPointer || in.num_ops < 1) continue;
    uint32_t p = in.ops[0];
    for (int depth = 0; depth < 8; ++depth) {
      const Inst* d = Def(p);
      if (!d || d->op == spv::OpVariable) break;
      if (d->num_ops < 1) break;
      p = d->ops[0];
    }
    const Deco& d = DecoOf(p);
    for (Resource& r : iface->resources) {
      if (r.set == d.Get(spv::DecorationDescriptorSet) &&
          r.binding == d.Get(spv::DecorationBinding)) {
        r.image_atomics = true;
      }
    }
  }
}

}  // namespace

const char* ResourceKindName(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::kStorageBuffer:
      return "storage buffer";
    case ResourceKind::kUniformBuffer:
      return "uniform buffer";
    case ResourceKind::kStorageImage:
      return "storage image";
    case ResourceKind::kSampledImage:
      return "combined image sampler";
    case ResourceKind::kSeparateImage:
      return "sampled image";
    case ResourceKind::kSampler:
      return "sampler";
    case ResourceKind::kUniformTexelBuffer:
      return "uniform texel buffer";
    case ResourceKind::kStorageTexelBuffer:
      return "storage texel buffer";
    case ResourceKind::kAccelerationStructure:
      return "acceleration structure";
  }
  return "?";
}

const char* ImageDimName(ImageDim dim, bool arrayed) {
  switch (dim) {
    case ImageDim::k1D:
      return arrayed ? "1-D array" : "1-D";
    case ImageDim::k2D:
      return arrayed ? "2-D array" : "2-D";
    case ImageDim::k3D:
      return "3-D";
    case ImageDim::kCube:
      return arrayed ? "cube array" : "cube";
    case ImageDim::kBuffer:
      return "buffer";
  }
  return "?";
}

const BufferLayout& Resource::layout() const {
  size_t best = 0;
  for (size_t i = 1; i < views.size(); ++i) {
    if (views[i].layout.array_stride > views[best].layout.array_stride) best = i;
  }
  return views[best].layout;
}

bool UsesRayQueries(const std::vector<uint32_t>& words) {
  bool uses = false;
  std::string error;
  waveopt::sim::ReadBinary(
      words,
      [&](const waveopt::sim::BinaryInstruction& bi) {
        uses = uses || bi.op == spv::OpTypeAccelerationStructureKHR ||
               (bi.op == spv::OpCapability && bi.word_count >= 2 &&
                bi.words[0] == spv::CapabilityRayQueryKHR);
        return !uses;
      },
      &error);
  return uses;
}

bool SeparateBindingKinds(std::vector<uint32_t>* words, std::string* error) {
  std::vector<uint32_t>& w = *words;
  struct TypeInfo {
    uint32_t op = 0;
    uint32_t a = 0, b = 0;  // pointer: (storage, pointee); array: element; image: dim, sampled
  };
  std::map<uint32_t, TypeInfo> types;
  std::map<uint32_t, uint32_t> var_type;    // variable -> its pointer type
  std::map<uint32_t, size_t> binding_word;  // variable -> index of its Binding literal
  std::set<uint32_t> buffer_blocks;         // structs decorated BufferBlock
  bool ok = waveopt::sim::ReadBinary(
      w,
      [&](const waveopt::sim::BinaryInstruction& bi) {
        uint32_t op = bi.op, wc = bi.word_count;
        size_t i = bi.word;
        const uint32_t* o = bi.words;
        switch (op) {
          case spv::OpDecorate:
            if (wc >= 4 && o[1] == spv::DecorationBinding) binding_word[o[0]] = i + 3;
            if (wc >= 3 && o[1] == spv::DecorationBufferBlock) buffer_blocks.insert(o[0]);
            break;
          case spv::OpTypePointer:
            if (wc >= 4) types[o[0]] = {op, o[1], o[2]};
            break;
          case spv::OpTypeArray:
          case spv::OpTypeRuntimeArray:
            if (wc >= 3) types[o[0]] = {op, o[1], 0};
            break;
          case spv::OpTypeSampledImage:
            if (wc >= 3) types[o[0]] = {op, o[1], 0};
            break;
          case spv::OpTypeImage:
            if (wc >= 9) types[o[0]] = {op, o[2], o[6]};
            break;
          case spv::OpTypeStruct:
          case spv::OpTypeSampler:
          case spv::OpTypeAccelerationStructureKHR:
            if (wc >= 2) types[o[0]] = {op, 0, 0};
            break;
          case spv::OpVariable:
            if (wc >= 4) var_type[o[1]] = o[0];
            break;
          default:
            break;
        }
        return true;
      },
      error);
  if (!ok) return false;
  for (const auto& vb : binding_word) {
    auto vt = var_type.find(vb.first);
    if (vt == var_type.end()) continue;  // a Binding on something else: spirv-val's business
    auto pt = types.find(vt->second);
    if (pt == types.end() || pt->second.op != spv::OpTypePointer) continue;
    uint32_t storage = pt->second.a, type = pt->second.b;
    for (int depth = 0; depth < 8; ++depth) {
      auto at = types.find(type);
      if (at == types.end() ||
          (at->second.op != spv::OpTypeArray && at->second.op != spv::OpTypeRuntimeArray)) {
        break;
      }
      type = at->second.a;
    }
    auto t = types.find(type);
    if (t == types.end()) continue;
    ResourceKind kind;
    uint32_t image = 0;
    switch (t->second.op) {
      case spv::OpTypeStruct:
        kind = storage == spv::StorageClassStorageBuffer || buffer_blocks.count(type)
                   ? ResourceKind::kStorageBuffer
                   : ResourceKind::kUniformBuffer;
        break;
      case spv::OpTypeSampler:
        kind = ResourceKind::kSampler;
        break;
      case spv::OpTypeSampledImage:
        kind = ResourceKind::kSampledImage;
        image = t->second.a;
        break;
      case spv::OpTypeImage:
        image = type;
        kind = t->second.b == 2 ? ResourceKind::kStorageImage : ResourceKind::kSeparateImage;
        break;
      default:
        continue;  // ReflectModule says what it cannot bind
    }
    if (image != 0) {
      auto it = types.find(image);
      if (it != types.end() && it->second.op == spv::OpTypeImage &&
          it->second.a == spv::DimBuffer) {
        kind = it->second.b == 2 ? ResourceKind::kStorageTexelBuffer
                                 : ResourceKind::kUniformTexelBuffer;
      }
    }
    uint32_t& binding = w[vb.second];
    if (binding >= (1u << 28)) {
      *error = "binding " + std::to_string(binding) + " is too large to separate by kind";
      return false;
    }
    binding = binding * 8 + static_cast<uint32_t>(kind);
  }
  return true;
}

bool ReflectModule(const std::vector<uint32_t>& words,
                   const std::map<uint32_t, uint64_t>& constants, ModuleInterface* iface,
                   std::string* error, bool acceleration_structures) {
  *iface = ModuleInterface();
  Reflector r(words, constants, acceleration_structures);
  return r.Run(iface, error);
}

namespace {

// Pointee indices in |fields| through |remap| (MergeInterfaces).
void RemapFields(const std::vector<int>& remap, std::vector<Field>* fields) {
  for (Field& f : *fields) {
    if (f.pointee >= 0) f.pointee = remap[static_cast<size_t>(f.pointee)];
  }
}

// b's pointees into |out| (a copy of a): new indices after a's, unless a
// has one with the same label. Returns b's index -> out's.
std::vector<int> MergePointees(const ModuleInterface& a, const ModuleInterface& b,
                               ModuleInterface* out) {
  std::vector<int> remap(b.pointees.size(), -1);
  for (size_t i = 0; i < b.pointees.size(); ++i) {
    for (size_t j = 0; j < a.pointees.size(); ++j) {
      if (a.pointees[j].label == b.pointees[i].label) remap[i] = static_cast<int>(j);
    }
    if (remap[i] < 0) {
      remap[i] = static_cast<int>(out->pointees.size());
      out->pointees.push_back(b.pointees[i]);
    }
  }
  for (size_t i = a.pointees.size(); i < out->pointees.size(); ++i) {
    RemapFields(remap, &out->pointees[i].layout.head_fields);
    RemapFields(remap, &out->pointees[i].layout.element_fields);
  }
  return remap;
}

// The second module's |rb| into the first's |ra| on the same binding:
// false when they disagree on kind, image shape, format or array length.
bool MergeSharedBinding(const Resource& rb, Resource* ra, std::string* error) {
  std::string where = "binding " + std::to_string(rb.set) + "." + std::to_string(rb.binding);
  if (ra->kind != rb.kind) {
    *error = where + " is a " + ResourceKindName(ra->kind) + " in the first module and a " +
             ResourceKindName(rb.kind) + " in the second";
    return false;
  }
  if (!IsBufferKind(rb.kind) && rb.kind != ResourceKind::kSampler &&
      (ra->dim != rb.dim || ra->arrayed != rb.arrayed)) {
    *error = where + " is a " + ImageDimName(ra->dim, ra->arrayed) +
             " image in the first "
             "module and a " +
             ImageDimName(rb.dim, rb.arrayed) + " image in the second";
    return false;
  }
  if (ra->format != rb.format) {
    if (ra->format == ImageFormat::kUnknown) {
      ra->format = rb.format;
    } else if (rb.format != ImageFormat::kUnknown) {
      *error = where + " has format " + GetFormatInfo(ra->format).name +
               " in the first module and " + GetFormatInfo(rb.format).name + " in the second";
      return false;
    }
  }
  if (ra->descriptor_array != rb.descriptor_array || ra->descriptor_count != rb.descriptor_count) {
    *error = where + " is a descriptor array of a different length in the two modules";
    return false;
  }
  ra->writable = ra->writable || rb.writable;
  ra->used = ra->used || rb.used;
  ra->image_atomics = ra->image_atomics || rb.image_atomics;
  for (const View& v : rb.views) {
    bool same = false;
    for (const View& w : ra->views) {
      same = same || (w.layout.type_name == v.layout.type_name &&
                      w.layout.head_bytes == v.layout.head_bytes &&
                      w.layout.array_stride == v.layout.array_stride && w.writable == v.writable);
    }
    if (!same) ra->views.push_back(v);
  }
  return true;
}

// b's resources into |out|, their fields' pointees through |remap|; sorted.
bool MergeResources(const ModuleInterface& b, const std::vector<int>& remap, ModuleInterface* out,
                    std::string* error) {
  for (const Resource& rb : b.resources) {
    Resource* ra = nullptr;
    for (Resource& r : out->resources) {
      if (r.set == rb.set && r.binding == rb.binding) ra = &r;
    }
    Resource copy = rb;
    for (View& v : copy.views) {
      RemapFields(remap, &v.layout.head_fields);
      RemapFields(remap, &v.layout.element_fields);
    }
    if (!ra) {
      out->resources.push_back(copy);
      continue;
    }
    if (!MergeSharedBinding(copy, ra, error)) return false;
  }
  std::sort(out->resources.begin(), out->resources.end(), [](const Resource& x, const Resource& y) {
    return std::make_pair(x.set, x.binding) < std::make_pair(y.set, y.binding);
  });
  return true;
}

// b's specialization constants into |out|'s (defaults: their range); sorted.
void MergeSpecConstants(const ModuleInterface& b, ModuleInterface* out) {
  for (const SpecConstant& sc : b.spec_constants) {
    bool found = false;
    for (SpecConstant& o : out->spec_constants) {
      if (o.constant_id != sc.constant_id) continue;
      found = true;
      o.defaults_differ =
          o.defaults_differ || sc.defaults_differ || o.default_bits != sc.default_bits;
      o.smallest_default = std::min(o.smallest_default, sc.smallest_default);
      o.largest_default = std::max(o.largest_default, sc.largest_default);
    }
    if (!found) out->spec_constants.push_back(sc);
  }
  std::sort(
      out->spec_constants.begin(), out->spec_constants.end(),
      [](const SpecConstant& x, const SpecConstant& y) { return x.constant_id < y.constant_id; });
}

// b's color outputs (a location's type must agree) and fragment inputs into
// |out|'s; sorted.
bool MergeFragmentInterface(const ModuleInterface& b, ModuleInterface* out, std::string* error) {
  for (const ColorOutput& o : b.color_outputs) {
    bool found = false;
    for (const ColorOutput& x : out->color_outputs) {
      if (x.location != o.location) continue;
      found = true;
      if (x.type != o.type) {
        *error = "color output location " + std::to_string(o.location) +
                 " has different types in the two modules";
        return false;
      }
    }
    if (!found) out->color_outputs.push_back(o);
  }
  std::sort(out->color_outputs.begin(), out->color_outputs.end(),
            [](const ColorOutput& x, const ColorOutput& y) { return x.location < y.location; });
  for (const FragmentInput& in : b.fragment_inputs) {
    bool found = false;
    for (const FragmentInput& x : out->fragment_inputs) {
      found = found || (x.location == in.location && x.component == in.component);
    }
    if (!found) out->fragment_inputs.push_back(in);
  }
  std::sort(out->fragment_inputs.begin(), out->fragment_inputs.end(),
            [](const FragmentInput& x, const FragmentInput& y) {
              return x.location != y.location ? x.location < y.location : x.component < y.component;
            });
  return true;
}

}  // namespace

bool MergeInterfaces(const ModuleInterface& a, const ModuleInterface& b, ModuleInterface* out,
                     std::string* error) {
  if (a.stage != b.stage) {
    *error = std::string("the first module is a ") +
             (a.stage == Stage::kFragment ? "fragment" : "compute") + " shader, the second a " +
             (b.stage == Stage::kFragment ? "fragment" : "compute") + " shader";
    return false;
  }
  *out = a;
  const std::vector<int> remap = MergePointees(a, b, out);
  if (!MergeResources(b, remap, out, error)) return false;
  if (b.push_constant_bytes > out->push_constant_bytes) {
    out->push_constant_bytes = b.push_constant_bytes;
    out->push_fields = b.push_fields;
    RemapFields(remap, &out->push_fields);
  }
  MergeSpecConstants(b, out);
  for (const auto& kv : b.facts.atomic_order) {
    if (!out->facts.atomic_order.count(kv.first)) out->facts.atomic_order[kv.first] = kv.second;
  }
  out->has_loops = a.has_loops || b.has_loops;
  out->uses_device_addresses = a.uses_device_addresses || b.uses_device_addresses;
  for (uint32_t c : b.capabilities) {
    if (std::find(out->capabilities.begin(), out->capabilities.end(), c) ==
        out->capabilities.end()) {
      out->capabilities.push_back(c);
    }
  }
  out->facts.id_dims = std::max(a.facts.id_dims, b.facts.id_dims);
  return MergeFragmentInterface(b, out, error);
}

}  // namespace waverun
