// The executor. Every result id owns `slots` registers per invocation (the
// scalars of its type, flattened; 64 bits each, narrower values zero-
// extended, booleans 0/1, pointers (object << 40 | byte offset)). Registers
// live in one array per workgroup: regs[(slot_base[id] + k) * stride + inv].
//
// A subgroup runs as an explicit state machine (so that a workgroup barrier
// can suspend it): a stack of frames, each holding every lane's next block.
// The scheduler runs the block that comes first in the function's structured
// order among the lanes' next blocks, for all lanes waiting there; a lane
// that takes a loop's back edge waits just after the latch block. Lanes thus
// reconverge at merge blocks and a loop's lanes finish one iteration before
// the next starts, as on lavapipe and GPUs with structured reconvergence.
#include "lib/sim/machine.h"

#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

// ---------------------------------------------------------------------------
// Memory.

namespace {

// Calls part(type, offset, slot) for each part of a value of composite type
// |t| at byte |off| (explicit layout when |expl|): its components, columns
// (elements, row by row within each column, when row-major), elements or
// members. Nothing for other types.
template <typename F>
void ForEachPart(const Instance& I, const TypeInfo& t, bool expl, uint64_t off, F part) {
  switch (t.kind) {
    case TypeKind::kVector: {
      uint32_t cs = I.types[t.elem].width / 8;
      for (uint32_t c = 0; c < t.count; ++c) part(t.elem, off + c * cs, c);
      return;
    }
    case TypeKind::kMatrix: {
      const TypeInfo& col = I.types[t.elem];
      uint32_t rows = col.count;
      uint32_t cs = I.types[col.elem].width / 8;
      if (expl && t.row_major) {
        for (uint32_t c = 0; c < t.count; ++c) {
          for (uint32_t r = 0; r < rows; ++r) {
            part(col.elem, off + uint64_t{r} * t.matrix_stride + c * cs, c * rows + r);
          }
        }
        return;
      }
      uint64_t stride = expl ? t.matrix_stride : col.nsize;
      for (uint32_t c = 0; c < t.count; ++c) part(t.elem, off + c * stride, c * rows);
      return;
    }
    case TypeKind::kArray: {
      const TypeInfo& e = I.types[t.elem];
      uint64_t stride = expl ? (t.array_stride ? t.array_stride : e.esize) : t.nstride;
      for (uint32_t i = 0; i < t.count; ++i) part(t.elem, off + i * stride, i * e.slots);
      return;
    }
    case TypeKind::kStruct:
      for (size_t k = 0; k < t.members.size(); ++k) {
        part(t.members[k], off + (expl ? t.eoffsets[k] : t.noffsets[k]), t.member_slot[k]);
      }
      return;
    default:
      return;
  }
}

}  // namespace

void Machine::LoadValue(uint32_t type, bool expl, const MemObj& o, uint64_t off, uint64_t* out) {
  const TypeInfo& t = I_.types[type];
  switch (t.kind) {
    case TypeKind::kBool: {
      uint32_t v = 0;
      if (race_ && o.tracked) race_->Read(ObjIndex(o), o.data, off, 4, cur_inv_, false);
      std::memcpy(&v, o.data + off, 4);
      out[0] = v != 0;
      return;
    }
    case TypeKind::kInt:
    case TypeKind::kFloat:
    case TypeKind::kPointer: {
      uint64_t v = 0;
      uint32_t bytes = t.kind == TypeKind::kPointer ? 8 : t.width / 8;
      if (race_ && o.tracked) race_->Read(ObjIndex(o), o.data, off, bytes, cur_inv_, false);
      std::memcpy(&v, o.data + off, bytes);
      if (t.kind == TypeKind::kPointer && t.storage == spv::StorageClassPhysicalStorageBuffer) {
        v = RawToPtr(v);
      }
      out[0] = v;
      return;
    }
    default:
      ForEachPart(I_, t, expl, off, [&](uint32_t part, uint64_t at, uint32_t slot) {
        LoadValue(part, expl, o, at, out + slot);
      });
      return;
  }
}

void Machine::StoreValue(uint32_t type, bool expl, MemObj& o, uint64_t off, const uint64_t* in) {
  const TypeInfo& t = I_.types[type];
  switch (t.kind) {
    case TypeKind::kBool: {
      uint32_t v = in[0] != 0;
      WriteBytes(o, off, &v, 4);
      return;
    }
    case TypeKind::kInt:
    case TypeKind::kFloat:
      WriteBytes(o, off, &in[0], t.width / 8);
      return;
    case TypeKind::kPointer: {
      uint64_t v = t.storage == spv::StorageClassPhysicalStorageBuffer ? PtrToRaw(in[0]) : in[0];
      WriteBytes(o, off, &v, 8);
      return;
    }
    default:
      ForEachPart(I_, t, expl, off, [&](uint32_t part, uint64_t at, uint32_t slot) {
        StoreValue(part, expl, o, at, in + slot);
      });
      return;
  }
}

bool Machine::Load(uint32_t ptr_type, uint64_t ptr, uint64_t* out) {
  const TypeInfo& pt = I_.types[ptr_type];
  bool expl = IsExplicitStorage(pt.storage);
  uint64_t off;
  MemObj* o = Obj(ptr, &off);
  if (o != nullptr && o->kind == MemObj::Kind::kNone) {
    return Fail("a load through a null pointer or from an unbound resource");
  }
  uint64_t size = I_.SizeOf(pt.elem, expl);
  if (o != nullptr && o->kind == MemObj::Kind::kTable) {
    return Fail("a load from a whole descriptor array");
  }
  if (o != nullptr && (o->kind == MemObj::Kind::kImage || o->kind == MemObj::Kind::kSampler)) {
    return Fail("a load of data from an image or sampler variable");
  }
  if (o == nullptr || off + size > o->size || off > o->size) {
    if (o != nullptr && o->Robust()) {
      std::fill(out, out + std::max<uint32_t>(I_.types[pt.elem].slots, 1), 0);
    } else {
      I_.Poison(pt.elem, out);
    }
    CountOutOfBounds(o, off, size);
    return true;
  }
  LoadValue(pt.elem, expl, *o, off, out);
  return true;
}

bool Machine::Store(uint32_t ptr_type, uint64_t ptr, const uint64_t* in) {
  const TypeInfo& pt = I_.types[ptr_type];
  bool expl = IsExplicitStorage(pt.storage);
  uint64_t off;
  MemObj* o = Obj(ptr, &off);
  if (o != nullptr && o->kind == MemObj::Kind::kNone) {
    return Fail("a store through a null pointer or to an unbound resource");
  }
  uint64_t size = I_.SizeOf(pt.elem, expl);
  if (o != nullptr && (o->kind == MemObj::Kind::kTable || o->kind == MemObj::Kind::kImage ||
                       o->kind == MemObj::Kind::kSampler || o->kind == MemObj::Kind::kPush)) {
    return Fail("a store to a descriptor or to push constants");
  }
  if (o == nullptr || off + size > o->size || off > o->size) {
    CountOutOfBounds(o, off, size);
    return true;
  }
  StoreValue(pt.elem, expl, *o, off, in);
  return true;
}

bool Machine::AccessChain(const Inst& in, const uint32_t* invs, uint32_t n, bool ptr_chain) {
  const uint32_t* o = in.ops;
  uint32_t base = o[0];
  const TypeInfo& bpt = TypeOf(base);
  bool expl = IsExplicitStorage(bpt.storage);
  uint32_t first = 1;
  uint64_t elem_stride = 0;
  if (ptr_chain) {
    elem_stride = bpt.array_stride ? bpt.array_stride : I_.SizeOf(bpt.elem, expl);
    first = 2;
  }
  // Struct member steps are constant: resolve the type path once.
  for (uint32_t l = 0; l < n; ++l) {
    uint32_t inv = invs[l];
    uint64_t ptr = R(base, 0, inv);
    int64_t off = static_cast<int64_t>(ptr & kOffsetMask);
    bool bad = false;
    if (ptr_chain) {
      int64_t e = SignExtend(R(o[1], 0, inv), ScalarOf(o[1]).width);
      off += e * static_cast<int64_t>(elem_stride);
    }
    uint32_t t = bpt.elem;
    uint32_t i = first;
    uint64_t obj = ptr >> kObjShift;
    if (!ptr_chain && obj < objs_.size() && objs_[obj].kind == MemObj::Kind::kTable &&
        i < in.num_ops) {
      // A descriptor array: the first index picks the descriptor.
      const MemObj& table = objs_[obj];
      int64_t idx = SignExtend(R(o[i], 0, inv), ScalarOf(o[i]).width);
      uint64_t elem = idx >= 0 && static_cast<uint64_t>(idx) < table.table.size()
                          ? table.table[static_cast<size_t>(idx)]
                          : empty_obj_;
      ptr = elem << kObjShift;
      off = 0;
      t = I_.types[t].elem;
      ++i;
    }
    for (; i < in.num_ops; ++i) {
      const TypeInfo& ti = I_.types[t];
      uint32_t idx_id = o[i];
      int64_t idx = SignExtend(R(idx_id, 0, inv), ScalarOf(idx_id).width);
      switch (ti.kind) {
        case TypeKind::kStruct:
          if (idx < 0 || static_cast<size_t>(idx) >= ti.members.size()) {
            return Fail("access chain: struct member index out of range");
          }
          off += static_cast<int64_t>(expl ? ti.eoffsets[idx] : ti.noffsets[idx]);
          t = ti.members[idx];
          break;
        case TypeKind::kArray:
        case TypeKind::kRuntimeArray: {
          const TypeInfo& e = I_.types[ti.elem];
          uint64_t stride = expl ? (ti.array_stride ? ti.array_stride : e.esize) : ti.nstride;
          // Explicitly laid out memory is bounded by its object, as with
          // robust buffer access; elsewhere an index past the array is.
          if (!expl && ti.kind == TypeKind::kArray && (idx < 0 || idx >= ti.count)) bad = true;
          off += idx * static_cast<int64_t>(stride);
          t = ti.elem;
          break;
        }
        case TypeKind::kVector: {
          if (!expl && (idx < 0 || idx >= ti.count)) bad = true;
          off += idx * static_cast<int64_t>(I_.types[ti.elem].width / 8);
          t = ti.elem;
          break;
        }
        case TypeKind::kMatrix: {
          if (expl && ti.row_major) {
            return Fail("unsupported access chain into a row-major matrix");
          }
          if (!expl && (idx < 0 || idx >= ti.count)) bad = true;
          uint64_t stride = expl ? ti.matrix_stride : I_.types[ti.elem].nsize;
          off += idx * static_cast<int64_t>(stride);
          t = ti.elem;
          break;
        }
        default:
          return Fail("access chain into a non-composite type");
      }
    }
    if (bad || off < 0 || static_cast<uint64_t>(off) > kOffsetMask)
      off = static_cast<int64_t>(kOffsetMask);
    R(in.result, 0, inv) = (ptr & ~kOffsetMask) | static_cast<uint64_t>(off);
  }
  return true;
}

void Machine::Account(const std::vector<std::pair<uint64_t, uint64_t>>& accesses, bool atomic) {
  if (!counters_ || accesses.empty()) return;
  uint64_t first_obj = accesses[0].first >> kObjShift;
  if (first_obj >= objs_.size()) return;
  MemObj::Kind kind = objs_[first_obj].kind;
  if (kind == MemObj::Kind::kInvocation || kind == MemObj::Kind::kOutput ||
      kind == MemObj::Kind::kNone) {
    return;
  }
  Counters& c = *counters_;
  ++c.memory_instructions;
  if (kind == MemObj::Kind::kWorkgroup) {
    ++c.workgroup_memory_instructions;
    std::vector<std::pair<uint32_t, uint64_t>> words;  // (bank, word)
    for (const auto& a : accesses) {
      uint64_t off = a.first & kOffsetMask;
      if (a.second == 0) continue;
      for (uint64_t wd = off / 4; wd <= (off + a.second - 1) / 4; ++wd) {
        words.push_back({static_cast<uint32_t>(wd % 32), wd});
      }
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    uint64_t worst = 0, run = 0;
    for (size_t i = 0; i < words.size(); ++i) {
      run = (i > 0 && words[i].first == words[i - 1].first) ? run + 1 : 1;
      worst = std::max(worst, run);
    }
    if (worst > 0) c.bank_conflicts += worst - 1;
  } else {
    ++c.global_memory_instructions;
    std::vector<uint64_t> lines;
    for (const auto& a : accesses) {
      uint64_t obj = a.first >> kObjShift;
      uint64_t off = a.first & kOffsetMask;
      if (obj >= objs_.size() || a.second == 0) continue;
      const MemObj& mo = objs_[obj];
      if (mo.kind == MemObj::Kind::kImage && !mo.linear && mo.width > 0) {
        // Tiles of 64 bytes: 2x2 texels of 16 bytes, 4x2 of 8, 4x4 of 4,
        // 8x4 of 2, 8x8 of 1; the layers of arrayed images stacked in y.
        uint32_t tb = TexelBytes(mo.format);
        uint64_t texel = off / tb;
        uint64_t x = texel % mo.width, y = texel / mo.width;
        uint32_t tw = tb == 16 ? 2 : tb >= 4 ? 4 : 8;
        uint32_t th = (64 / tb) / tw;
        uint64_t tiles_x = (mo.width + tw - 1) / tw;
        lines.push_back((obj << kObjShift) | ((y / th) * tiles_x + x / tw));
      } else {
        for (uint64_t ln = off / 64; ln <= (off + a.second - 1) / 64; ++ln) {
          lines.push_back((obj << kObjShift) | ln);
        }
      }
    }
    std::sort(lines.begin(), lines.end());
    c.memory_lines +=
        static_cast<uint64_t>(std::unique(lines.begin(), lines.end()) - lines.begin());
  }
  if (atomic) {
    ++c.atomic_instructions;
    c.atomics += accesses.size();
    std::vector<uint64_t> addrs;
    for (const auto& a : accesses) addrs.push_back(a.first);
    std::sort(addrs.begin(), addrs.end());
    uint64_t worst = 0, run = 0;
    for (size_t i = 0; i < addrs.size(); ++i) {
      run = (i > 0 && addrs[i] == addrs[i - 1]) ? run + 1 : 1;
      worst = std::max(worst, run);
    }
    c.atomic_serialized += worst;
    c.atomic_max_same_address = std::max(c.atomic_max_same_address, worst);
  }
}

// ---------------------------------------------------------------------------
// Device addresses.

uint64_t Machine::RawToPtr(uint64_t raw) const {
  if (raw == 0) return 0;  // null: object 0
  for (uint32_t d : device_objs_) {
    const MemObj& mo = objs_[d];
    if (raw - mo.address < (uint64_t{1} << 32)) {
      return (uint64_t{d} << kObjShift) | (raw - mo.address);
    }
  }
  return (uint64_t{wild_obj_} << kObjShift) | (raw & kOffsetMask);
}

uint64_t Machine::PtrToRaw(uint64_t ptr) const {
  uint64_t obj = ptr >> kObjShift, off = ptr & kOffsetMask;
  if (obj == 0) return off;
  if (obj < objs_.size() && objs_[obj].device) return objs_[obj].address + off;
  return off;  // a wild address keeps its low 40 bits
}

// ---------------------------------------------------------------------------
// Images.

// What an out-of-bounds texel read gives in its fourth component (the first
// three are 0): lavapipe with robustImageAccess2 returns (0, 0, 0, 0).
constexpr bool kOobAlphaOne = false;

bool Machine::ReadTexel(const MemObj& o, int64_t x, int64_t y, int64_t z, uint64_t out[4]) {
  if (x < 0 || y < 0 || z < 0 || x >= o.width || y >= o.height || z >= o.depth) {
    bool is_float = o.kind == MemObj::Kind::kImage ? TexelIsFloat(o.format) : true;
    out[0] = out[1] = out[2] = 0;
    out[3] = kOobAlphaOne ? (is_float ? FloatToBits(1.0f) : 1) : 0;
    if (counters_) ++counters_->out_of_bounds;
    return false;
  }
  uint64_t texel = (static_cast<uint64_t>(z) * o.height + static_cast<uint64_t>(y)) * o.width +
                   static_cast<uint64_t>(x);
  if (race_ && o.tracked) {
    race_->Read(ObjIndex(o), o.data, texel * TexelBytes(o.format), TexelBytes(o.format), cur_inv_,
                false);
  }
  DecodeTexel(o.format, o.data + texel * TexelBytes(o.format), out);
  return true;
}

void Machine::WriteTexel(MemObj& o, int64_t x, int64_t y, int64_t z, const uint64_t in[4]) {
  if (x < 0 || y < 0 || z < 0 || x >= o.width || y >= o.height || z >= o.depth) {
    if (counters_) ++counters_->out_of_bounds;
    return;
  }
  uint64_t texel = (static_cast<uint64_t>(z) * o.height + static_cast<uint64_t>(y)) * o.width +
                   static_cast<uint64_t>(x);
  if (race_ && o.tracked) {
    uint8_t bytes[16] = {};
    EncodeTexel(o.format, in, bytes);
    WriteBytes(o, texel * TexelBytes(o.format), bytes, TexelBytes(o.format));
    return;
  }
  EncodeTexel(o.format, in, o.data + texel * TexelBytes(o.format));
}

// ---------------------------------------------------------------------------
// Memory instructions, atomics.

bool Machine::Memory(const Inst& in, Subgroup* sg, Frame* f, bool* handled) {
  *handled = true;
  const uint32_t* o = in.ops;
  switch (in.op) {
    case spv::OpVariable: {
      // Function storage: this frame's slot in each lane's arena.
      uint64_t off = f->frame_base + I_.local_offset.at(in.result);
      uint32_t pointee = I_.types[in.type].elem;
      for (uint32_t lane : f->active) {
        uint32_t inv = cur_inv_ = sg->base + lane;
        uint64_t ptr = (uint64_t{inv_obj_base_ + inv} << kObjShift) | off;
        R(in.result, 0, inv) = ptr;
        MemObj& mo = objs_[inv_obj_base_ + inv];
        if (in.num_ops > 1) {
          tmp_.resize(I_.types[pointee].slots);
          for (uint32_t k = 0; k < tmp_.size(); ++k) tmp_[k] = R(o[1], k, inv);
          StoreValue(pointee, false, mo, off, tmp_.data());
        } else {
          FillJunk(mo.data + off, I_.types[pointee].nsize);
        }
      }
      return true;
    }
    case spv::OpLoad: {
      uint32_t ptype = I_.value_type[o[0]];
      const TypeInfo& vt = I_.types[in.type];
      std::vector<std::pair<uint64_t, uint64_t>> acc;
      bool expl = IsExplicitStorage(I_.types[ptype].storage);
      uint64_t size = I_.SizeOf(in.type, expl);
      tmp_.resize(std::max<uint32_t>(vt.slots, 1));
      for (uint32_t lane : f->active) {
        uint32_t inv = cur_inv_ = sg->base + lane;
        uint64_t ptr = R(o[0], 0, inv);
        if (vt.kind == TypeKind::kImage || vt.kind == TypeKind::kSampledImage ||
            vt.kind == TypeKind::kSampler) {
          uint64_t h = ptr >> kObjShift;  // a handle: the object
          if (h >= objs_.size() || objs_[h].kind == MemObj::Kind::kNone) {
            return Fail("a load of an unbound image or sampler");
          }
          if (objs_[h].kind == MemObj::Kind::kTable) {
            return Fail("a load of a whole descriptor array");
          }
          R(in.result, 0, inv) = h;
          continue;
        }
        if (!Load(ptype, ptr, tmp_.data())) return false;
        for (uint32_t k = 0; k < vt.slots; ++k) R(in.result, k, inv) = tmp_[k];
        acc.push_back({ptr, size});
      }
      Account(acc, false);
      return true;
    }
    case spv::OpStore: {
      uint32_t ptype = I_.value_type[o[0]];
      uint32_t vt = I_.types[ptype].elem;
      std::vector<std::pair<uint64_t, uint64_t>> acc;
      bool expl = IsExplicitStorage(I_.types[ptype].storage);
      uint64_t size = I_.SizeOf(vt, expl);
      uint32_t ns = I_.types[vt].slots;
      tmp_.resize(std::max<uint32_t>(ns, 1));
      for (uint32_t lane : f->active) {
        uint32_t inv = cur_inv_ = sg->base + lane;
        uint64_t ptr = R(o[0], 0, inv);
        for (uint32_t k = 0; k < ns; ++k) tmp_[k] = R(o[1], k, inv);
        if (!Store(ptype, ptr, tmp_.data())) return false;
        acc.push_back({ptr, size});
      }
      Account(acc, false);
      return true;
    }
    case spv::OpCopyMemory: {
      uint32_t dtype = I_.value_type[o[0]];
      uint32_t stype = I_.value_type[o[1]];
      uint32_t vt = I_.types[stype].elem;
      tmp_.resize(std::max<uint32_t>(I_.types[vt].slots, 1));
      std::vector<std::pair<uint64_t, uint64_t>> acc_s, acc_d;
      for (uint32_t lane : f->active) {
        uint32_t inv = cur_inv_ = sg->base + lane;
        if (!Load(stype, R(o[1], 0, inv), tmp_.data())) return false;
        if (!Store(dtype, R(o[0], 0, inv), tmp_.data())) return false;
        acc_s.push_back(
            {R(o[1], 0, inv), I_.SizeOf(vt, IsExplicitStorage(I_.types[stype].storage))});
        acc_d.push_back(
            {R(o[0], 0, inv), I_.SizeOf(vt, IsExplicitStorage(I_.types[dtype].storage))});
      }
      Account(acc_s, false);
      Account(acc_d, false);
      return true;
    }
    case spv::OpAccessChain:
    case spv::OpInBoundsAccessChain:
    case spv::OpPtrAccessChain:
    case spv::OpInBoundsPtrAccessChain: {
      std::vector<uint32_t> invs;
      for (uint32_t lane : f->active) invs.push_back(sg->base + lane);
      bool ptr_chain = in.op == spv::OpPtrAccessChain || in.op == spv::OpInBoundsPtrAccessChain;
      return AccessChain(in, invs.data(), static_cast<uint32_t>(invs.size()), ptr_chain);
    }
    case spv::OpArrayLength: {
      const TypeInfo& st = I_.types[I_.types[I_.value_type[o[0]]].elem];
      uint32_t member = o[1];
      const TypeInfo& at = I_.types[st.members[member]];
      uint64_t stride = at.array_stride ? at.array_stride : I_.types[at.elem].esize;
      for (uint32_t lane : f->active) {
        uint32_t inv = cur_inv_ = sg->base + lane;
        uint64_t off;
        MemObj* mo = Obj(R(o[0], 0, inv), &off);
        uint64_t start = off + st.eoffsets[member];
        uint64_t len = (mo && mo->size > start && stride) ? (mo->size - start) / stride : 0;
        R(in.result, 0, inv) = len & 0xffffffffu;
      }
      return true;
    }
    default:
      *handled = false;
      return true;
  }
}

bool Machine::Atomic(const Inst& in, Subgroup* sg, Frame* f) {
  const uint32_t* o = in.ops;
  uint32_t ptype = I_.value_type[o[0]];
  uint32_t vt = I_.types[ptype].elem;
  const TypeInfo& st = I_.types[vt];
  uint32_t w = st.width;
  uint64_t mask = WidthMask(w);
  uint32_t bytes = w / 8;
  // Operand positions: pointer, scope, semantics[, semantics], value[, comparator].
  uint32_t value_id = 0, comparator_id = 0;
  switch (in.op) {
    case spv::OpAtomicLoad:
    case spv::OpAtomicIIncrement:
    case spv::OpAtomicIDecrement:
      break;
    case spv::OpAtomicStore:
      value_id = o[3];
      break;
    case spv::OpAtomicCompareExchange:
      value_id = o[4];
      comparator_id = o[5];
      break;
    default:
      value_id = o[3];
      break;
  }
  std::vector<std::pair<uint64_t, uint64_t>> acc;
  for (uint32_t lane : f->active) {
    uint32_t inv = cur_inv_ = sg->base + lane;
    uint64_t ptr = R(o[0], 0, inv);
    uint64_t off;
    MemObj* mo = Obj(ptr, &off);
    if (mo != nullptr && mo->kind == MemObj::Kind::kNone) {
      return Fail("an atomic through a null pointer or on an unbound resource");
    }
    if (mo != nullptr && (mo->kind == MemObj::Kind::kTable || mo->kind == MemObj::Kind::kPush ||
                          mo->kind == MemObj::Kind::kSampler)) {
      return Fail("an atomic on a descriptor or on push constants");
    }
    acc.push_back({ptr, bytes});
    bool oob = mo == nullptr || off + bytes > mo->size || off > mo->size;
    uint64_t old = 0;
    if (oob) {
      CountOutOfBounds(mo, off, bytes);
      old = mo != nullptr && mo->Robust() ? 0 : I_.poison & mask;
    } else {
      std::memcpy(&old, mo->data + off, bytes);
    }
    uint64_t v = value_id ? R(value_id, 0, inv) : 0;
    uint64_t nv = old;
    bool write = true;
    switch (in.op) {
      case spv::OpAtomicLoad:
        write = false;
        break;
      case spv::OpAtomicStore:
        nv = v;
        break;
      case spv::OpAtomicExchange:
        nv = v;
        break;
      case spv::OpAtomicCompareExchange:
        if (old == R(comparator_id, 0, inv)) {
          nv = v;
        } else {
          write = false;
        }
        break;
      case spv::OpAtomicIIncrement:
        nv = (old + 1) & mask;
        break;
      case spv::OpAtomicIDecrement:
        nv = (old - 1) & mask;
        break;
      case spv::OpAtomicIAdd:
        nv = (old + v) & mask;
        break;
      case spv::OpAtomicISub:
        nv = (old - v) & mask;
        break;
      case spv::OpAtomicSMin:
        nv = SignExtend(v, w) < SignExtend(old, w) ? v : old;
        break;
      case spv::OpAtomicUMin:
        nv = std::min(v, old);
        break;
      case spv::OpAtomicSMax:
        nv = SignExtend(v, w) > SignExtend(old, w) ? v : old;
        break;
      case spv::OpAtomicUMax:
        nv = std::max(v, old);
        break;
      case spv::OpAtomicAnd:
        nv = old & v;
        break;
      case spv::OpAtomicOr:
        nv = old | v;
        break;
      case spv::OpAtomicXor:
        nv = old ^ v;
        break;
      case spv::OpAtomicFAddEXT:
        nv = FloatBinary(old, v, w, [](auto x, auto y) { return x + y; });
        break;
      case spv::OpAtomicFMinEXT:
        nv = FloatBinary(old, v, w, [](auto x, auto y) { return FMinOf(x, y); });
        break;
      case spv::OpAtomicFMaxEXT:
        nv = FloatBinary(old, v, w, [](auto x, auto y) { return FMaxOf(x, y); });
        break;
      default:
        return Fail("unsupported instruction " + OpcodeName(in.op));
    }
    if (race_ && mo != nullptr && mo->tracked && !oob) {
      uint32_t obj = ObjIndex(*mo);
      if (write) {
        race_->Write(obj, mo->data, off, bytes, reinterpret_cast<const uint8_t*>(&nv), inv, true);
      } else {
        race_->Read(obj, mo->data, off, bytes, inv, true);
      }
      race_->Synchronize(obj, off, inv);
    }
    if (write && !oob) std::memcpy(mo->data + off, &nv, bytes);
    if (in.result) R(in.result, 0, inv) = old;
  }
  Account(acc, true);
  return true;
}

// ---------------------------------------------------------------------------
// Control flow.

uint32_t KeyFor(const Function& fn, uint32_t from, uint32_t to) {
  uint32_t pf = fn.blocks[from].order, pt = fn.blocks[to].order;
  return pt <= pf ? 2 * pf + 1 : 2 * pt;  // back edge: wait just after the latch
}

bool Machine::Terminate(Subgroup* sg, Frame* f, const Inst& in) {
  const Function& fn = m_.functions[f->fn];
  uint32_t from = f->block;
  auto go = [&](uint32_t lane, uint32_t label) -> bool {
    auto it = fn.block_index.find(label);
    if (it == fn.block_index.end()) return Fail("branch to an unknown block");
    f->pc[lane] = static_cast<int32_t>(it->second);
    f->prev[lane] = static_cast<int32_t>(from);
    f->key[lane] = KeyFor(fn, from, it->second);
    return true;
  };
  const uint32_t* o = in.ops;
  switch (in.op) {
    case spv::OpBranch:
      for (uint32_t lane : f->active) {
        if (!go(lane, o[0])) return false;
      }
      return true;
    case spv::OpBranchConditional:
      for (uint32_t lane : f->active) {
        bool c = R(o[0], 0, sg->base + lane) != 0;
        if (!go(lane, c ? o[1] : o[2])) return false;
      }
      return true;
    case spv::OpSwitch: {
      uint32_t sw = ScalarOf(o[0]).width;
      uint32_t lw = sw == 64 ? 2 : 1;
      for (uint32_t lane : f->active) {
        uint64_t v = R(o[0], 0, sg->base + lane) & WidthMask(sw);
        uint32_t target = o[1];
        for (uint32_t k = 2; k + lw < in.num_ops; k += lw + 1) {
          uint64_t lit = o[k];
          if (lw == 2) lit |= uint64_t{o[k + 1]} << 32;
          if ((lit & WidthMask(sw)) == v) {
            target = o[k + lw];
            break;
          }
        }
        if (!go(lane, target)) return false;
      }
      return true;
    }
    case spv::OpReturn:
    case spv::OpReturnValue: {
      uint32_t rs = I_.return_slot[f->fn];
      uint32_t n = I_.types[fn.return_type].slots;
      for (uint32_t lane : f->active) {
        if (in.op == spv::OpReturnValue) {
          uint32_t inv = sg->base + lane;
          for (uint32_t k = 0; k < n; ++k) {
            regs_[(static_cast<size_t>(rs) + k) * stride_ + inv] = R(o[0], k, inv);
          }
        }
        f->pc[lane] = -1;
      }
      return true;
    }
    case spv::OpUnreachable:
      return Fail("the shader reached OpUnreachable");
    default:
      return Fail("unsupported instruction " + OpcodeName(in.op));
  }
}

bool Machine::ExecBlockInst(Subgroup* sg, Frame* f, const Inst& in, Step* step) {
  *step = Step::kOk;
  switch (in.op) {
    case spv::OpSelectionMerge:
    case spv::OpLoopMerge:
    case spv::OpLine:
    case spv::OpNoLine:
    case spv::OpNop:
      return true;
    default:
      break;
  }
  if (!CountInstruction(f, in)) return false;
  // Pure instructions.
  {
    uint32_t invs[128];
    uint32_t n = 0;
    for (uint32_t lane : f->active) invs[n++] = sg->base + lane;
    int r = Pure(in, invs, n);
    if (r < 0) return false;
    if (r > 0) return true;
  }
  bool handled = false;
  if (!Memory(in, sg, f, &handled)) return false;
  if (handled) return true;
  const LaneFamily lanes = LaneFamilyOf(in.op);
  if (lanes != nullptr) return (this->*lanes)(in, sg, f);
  switch (in.op) {
    case spv::OpAtomicLoad:
    case spv::OpAtomicStore:
    case spv::OpAtomicExchange:
    case spv::OpAtomicCompareExchange:
    case spv::OpAtomicIIncrement:
    case spv::OpAtomicIDecrement:
    case spv::OpAtomicIAdd:
    case spv::OpAtomicISub:
    case spv::OpAtomicSMin:
    case spv::OpAtomicUMin:
    case spv::OpAtomicSMax:
    case spv::OpAtomicUMax:
    case spv::OpAtomicAnd:
    case spv::OpAtomicOr:
    case spv::OpAtomicXor:
    case spv::OpAtomicFAddEXT:
    case spv::OpAtomicFMinEXT:
    case spv::OpAtomicFMaxEXT:
      return Atomic(in, sg, f);
    case spv::OpMemoryBarrier:
      return true;
    case spv::OpControlBarrier: {
      uint32_t scope = ScopeOf(in.ops[0]);
      if (scope == spv::ScopeWorkgroup) {
        *step = Step::kBarrier;
        return true;
      }
      if (scope == spv::ScopeSubgroup && race_) race_->SubgroupBarrier(sg->base, sg->count);
      if (scope == spv::ScopeSubgroup || scope == spv::ScopeInvocation) return true;
      return Fail("OpControlBarrier with execution scope " + std::to_string(scope) +
                  " is not supported");
    }
    case spv::OpFunctionCall: {
      auto it = m_.function_index.find(in.ops[0]);
      if (it == m_.function_index.end()) return Fail("call of an undefined function");
      const Function& callee = m_.functions[it->second];
      // Arguments into the callee's parameters.
      for (uint32_t lane : f->active) {
        uint32_t inv = sg->base + lane;
        for (size_t p = 0; p < callee.params.size(); ++p) {
          uint32_t arg = in.ops[1 + p];
          uint32_t param = callee.params[p];
          for (uint32_t k = 0; k < Slots(param); ++k) R(param, k, inv) = R(arg, k, inv);
        }
      }
      Frame nf;
      nf.fn = it->second;
      nf.frame_base = f->frame_base + I_.frame_size[f->fn];
      nf.call_result = in.result;
      nf.pc.assign(N_, -1);
      nf.key.assign(N_, 0);
      nf.prev.assign(N_, -1);
      for (uint32_t lane : f->active) nf.pc[lane] = 0;
      *step = Step::kDone;  // tells the caller a frame was pushed
      sg->frames.push_back(std::move(nf));
      return true;
    }
    case spv::OpFunctionParameter:
      return true;
    default:
      return Fail("unsupported instruction " + OpcodeName(in.op));
  }
}

Step Machine::RunSubgroup(Subgroup* sg) {
  cur_ = sg;
  while (true) {
    Frame* f = &sg->frames.back();
    const Function& fn = m_.functions[f->fn];
    if (!f->running) {
      uint32_t best = UINT32_MAX;
      int32_t block = -1;
      for (uint32_t lane = 0; lane < N_; ++lane) {
        if (f->pc[lane] >= 0 && f->key[lane] < best) {
          best = f->key[lane];
          block = f->pc[lane];
        }
      }
      if (block < 0) {
        // The frame is finished: return to the caller.
        if (sg->frames.size() == 1) {
          sg->done = true;
          return Step::kDone;
        }
        uint32_t fi = f->fn;
        uint32_t result = f->call_result;
        sg->frames.pop_back();
        Frame* caller = &sg->frames.back();
        uint32_t rt = m_.functions[fi].return_type;
        uint32_t n = I_.types[rt].slots;
        if (result != 0 && n > 0) {
          uint32_t rs = I_.return_slot[fi];
          for (uint32_t lane : caller->active) {
            uint32_t inv = sg->base + lane;
            for (uint32_t k = 0; k < n; ++k) {
              R(result, k, inv) = regs_[(static_cast<size_t>(rs) + k) * stride_ + inv];
            }
          }
        }
        active_mask_ = LaneMask();
        for (uint32_t lane : caller->active) active_mask_.Set(lane);
        continue;
      }
      f->active.clear();
      active_mask_ = LaneMask();
      for (uint32_t lane = 0; lane < N_; ++lane) {
        if (f->pc[lane] == block) {
          f->active.push_back(lane);
          active_mask_.Set(lane);
        }
      }
      f->block = static_cast<uint32_t>(block);
      f->ip = fn.blocks[block].begin;
      f->running = true;
      // Phis read their inputs all at once.
      const Block& b = fn.blocks[block];
      uint32_t ip = b.begin;
      std::vector<std::pair<uint32_t, std::vector<uint64_t>>> phi_values;
      while (ip < b.end && fn.insts[ip].op == spv::OpPhi) {
        const Inst& phi = fn.insts[ip];
        uint32_t n = I_.types[phi.type].slots;
        std::vector<uint64_t> vals(f->active.size() * n);
        for (size_t i = 0; i < f->active.size(); ++i) {
          uint32_t lane = f->active[i];
          uint32_t inv = sg->base + lane;
          int32_t prev = f->prev[lane];
          uint32_t prev_label = prev >= 0 ? fn.blocks[prev].label : 0;
          uint32_t src = 0;
          for (uint32_t k = 0; k + 1 < phi.num_ops; k += 2) {
            if (phi.ops[k + 1] == prev_label) src = phi.ops[k];
          }
          if (src == 0) {
            error = "OpPhi has no value for the block the lane came from";
            return Step::kError;
          }
          for (uint32_t k = 0; k < n; ++k) vals[i * n + k] = R(src, k, inv);
        }
        phi_values.push_back({phi.result, std::move(vals)});
        if (!CountInstruction(f, phi)) return Step::kError;
        ++ip;
      }
      for (auto& pv : phi_values) {
        uint32_t n = Slots(pv.first);
        for (size_t i = 0; i < f->active.size(); ++i) {
          for (uint32_t k = 0; k < n; ++k)
            R(pv.first, k, sg->base + f->active[i]) = pv.second[i * n + k];
        }
      }
      f->ip = ip;
    }
    const Block& b = fn.blocks[f->block];
    bool pushed = false;
    while (f->ip < b.end) {
      const Inst& in = fn.insts[f->ip];
      if (f->ip + 1 == b.end) {
        // The terminator.
        if (!CountInstruction(f, in)) return Step::kError;
        if (!Terminate(sg, f, in)) return Step::kError;
        f->running = false;
        f->ip = b.end;
        break;
      }
      ++f->ip;
      Step step;
      if (!ExecBlockInst(sg, f, in, &step)) return Step::kError;
      if (step == Step::kBarrier) return Step::kBarrier;
      if (step == Step::kDone) {
        pushed = true;
        break;
      }
    }
    if (pushed) continue;
    if (f->running && f->ip >= b.end) {
      error = "a block without a terminator";
      return Step::kError;
    }
  }
}

// ---------------------------------------------------------------------------
// Dispatch.

void Machine::StartRaceDetection() {
  std::vector<uint64_t> bytes(objs_.size(), 0);
  for (size_t i = 0; i < objs_.size(); ++i) {
    if (objs_[i].tracked) bytes[i] = objs_[i].size;
  }
  std::vector<uint32_t> subgroup_of(wg_size_, 0);
  for (size_t s = 0; s < layout_.size(); ++s) {
    for (uint32_t l = 0; l < layout_[s].second; ++l) {
      subgroup_of[layout_[s].first + l] = static_cast<uint32_t>(s);
    }
  }
  race_.reset(new RaceDetector(std::move(bytes), std::move(subgroup_of)));
}

// Fills |counters|' race fields from the detector: the first race's
// resource (or workgroup variable) and the two invocations' ids.
void Machine::ReportRace(Counters* counters) const {
  counters->races = race_->races();
  if (counters->races == 0) return;
  const RaceDetector::Found& f = race_->first();
  Race& r = counters->race;
  r.offset = f.offset;
  if (f.obj >= 1 && f.obj < 1 + resources_->size()) {
    r.resource = static_cast<int32_t>(f.obj - 1);
  } else {
    r.resource = -1;
    for (const GlobalVar& g : I_.globals) {
      if (g.storage != spv::StorageClassWorkgroup || f.offset < g.offset ||
          f.offset >= g.offset + I_.types[g.pointee].nsize) {
        continue;
      }
      auto name = m_.names.find(g.id);
      r.variable = name == m_.names.end() ? std::string() : name->second;
      r.offset = f.offset - g.offset;
      break;
    }
  }
  const uint32_t* ls = I_.local_size;
  const uint32_t* n = launch_->workgroups;
  for (int k = 0; k < 2; ++k) {
    uint32_t w = f.workgroup[k], i = f.invocation[k];
    uint32_t wid[3] = {w % n[0], (w / n[0]) % n[1], w / (n[0] * n[1])};
    uint32_t lid[3] = {i % ls[0], (i / ls[0]) % ls[1], i / (ls[0] * ls[1])};
    for (int d = 0; d < 3; ++d) {
      r.workgroup[k][d] = wid[d];
      r.local[k][d] = lid[d];
      r.global[k][d] = wid[d] * ls[d] + lid[d];
    }
    r.wrote[k] = f.wrote[k];
  }
}

void Machine::InitWorkgroup(uint32_t wx, uint32_t wy, uint32_t wz) {
  wg_id_[0] = wx;
  wg_id_[1] = wy;
  wg_id_[2] = wz;
  FillJunk(workgroup_mem_.data(), workgroup_mem_.size());
  FillJunk(invocation_mem_.data(), invocation_mem_.size());
  const uint32_t* ls = I_.local_size;
  for (uint32_t inv = 0; inv < wg_size_; ++inv) {
    MemObj& mo = objs_[inv_obj_base_ + inv];
    uint32_t lx = inv % ls[0], ly = (inv / ls[0]) % ls[1], lz = inv / (ls[0] * ls[1]);
    uint32_t lane = inv_lane_[inv];
    for (const GlobalVar& g : I_.globals) {
      uint64_t size = I_.types[g.pointee].nsize;
      if (g.storage == spv::StorageClassPrivate && g.initializer) {
        std::vector<uint64_t> v(I_.types[g.pointee].slots);
        for (uint32_t k = 0; k < v.size(); ++k) v[k] = R(g.initializer, k, inv);
        StoreValue(g.pointee, false, mo, g.offset, v.data());
      }
      if (g.storage != spv::StorageClassInput) continue;
      auto d = m_.deco.find(g.id);
      if (d == m_.deco.end() || d->second.builtin < 0) continue;
      uint32_t v[4] = {0, 0, 0, 0};
      LaneMask mask;
      bool is_mask = false;
      switch (d->second.builtin) {
        case spv::BuiltInLocalInvocationId:
          v[0] = lx;
          v[1] = ly;
          v[2] = lz;
          break;
        case spv::BuiltInGlobalInvocationId:
          v[0] = wx * ls[0] + lx;
          v[1] = wy * ls[1] + ly;
          v[2] = wz * ls[2] + lz;
          break;
        case spv::BuiltInWorkgroupId:
          v[0] = wx;
          v[1] = wy;
          v[2] = wz;
          break;
        case spv::BuiltInNumWorkgroups:
          for (int k = 0; k < 3; ++k) v[k] = launch_->workgroups[k];
          break;
        case spv::BuiltInWorkgroupSize:
          for (int k = 0; k < 3; ++k) v[k] = ls[k];
          break;
        case spv::BuiltInLocalInvocationIndex:
          v[0] = inv;
          break;
        case spv::BuiltInSubgroupSize:
          v[0] = N_;
          break;
        case spv::BuiltInNumSubgroups:
          v[0] = num_subgroups_builtin_;
          break;
        case spv::BuiltInSubgroupId:
          v[0] = inv_subgroup_id_[inv];
          break;
        case spv::BuiltInSubgroupLocalInvocationId:
          v[0] = lane;
          break;
        case spv::BuiltInSubgroupEqMask:
        case spv::BuiltInSubgroupGeMask:
        case spv::BuiltInSubgroupGtMask:
        case spv::BuiltInSubgroupLeMask:
        case spv::BuiltInSubgroupLtMask: {
          is_mask = true;
          int32_t bi = d->second.builtin;
          for (uint32_t b = 0; b < N_; ++b) {
            bool set = bi == spv::BuiltInSubgroupEqMask   ? b == lane
                       : bi == spv::BuiltInSubgroupGeMask ? b >= lane
                       : bi == spv::BuiltInSubgroupGtMask ? b > lane
                       : bi == spv::BuiltInSubgroupLeMask ? b <= lane
                                                          : b < lane;
            if (set) mask.Set(b);
          }
          break;
        }
        default:
          break;  // rejected in Dispatch
      }
      if (is_mask) {
        std::memcpy(mo.data + g.offset, mask.w, std::min<uint64_t>(size, 16));
      } else {
        std::memcpy(mo.data + g.offset, v, std::min<uint64_t>(size, 16));
      }
    }
  }
}

namespace {

// The junk byte pattern of |seed| (Launch::junk_seed): 0 for none.
uint64_t JunkPattern(uint64_t seed) {
  uint64_t j = seed;
  if (j != 0) {
    j = j * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    j ^= j >> 29;
    j *= 0xbf58476d1ce4e5b9ull;
    j ^= j >> 32;
    if (j == 0) j = 0x5a5a5a5a5a5a5a5aull;
  }
  return j;
}

// The input built-ins the simulator provides.
bool SupportedBuiltIn(int32_t bi) {
  switch (bi) {
    case spv::BuiltInLocalInvocationId:
    case spv::BuiltInGlobalInvocationId:
    case spv::BuiltInWorkgroupId:
    case spv::BuiltInNumWorkgroups:
    case spv::BuiltInWorkgroupSize:
    case spv::BuiltInLocalInvocationIndex:
    case spv::BuiltInSubgroupSize:
    case spv::BuiltInNumSubgroups:
    case spv::BuiltInSubgroupId:
    case spv::BuiltInSubgroupLocalInvocationId:
    case spv::BuiltInSubgroupEqMask:
    case spv::BuiltInSubgroupGeMask:
    case spv::BuiltInSubgroupGtMask:
    case spv::BuiltInSubgroupLeMask:
    case spv::BuiltInSubgroupLtMask:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool Machine::AddResource(Resource& r) {
  MemObj mo;
  using K = Resource::Kind;
  bool image = r.kind == K::kStorageImage || r.kind == K::kSampledImage ||
               r.kind == K::kSeparateImage || r.kind == K::kUniformTexelBuffer ||
               r.kind == K::kStorageTexelBuffer;
  mo.kind = image                   ? MemObj::Kind::kImage
            : r.kind == K::kSampler ? MemObj::Kind::kSampler
                                    : MemObj::Kind::kBuffer;
  mo.data = r.data.data();
  mo.size = r.data.size();
  mo.width = r.width;
  mo.height = std::max<uint32_t>(r.height, 1);
  mo.depth = std::max<uint32_t>(r.depth, 1);
  mo.format = r.format;
  mo.linear = r.kind == K::kUniformTexelBuffer || r.kind == K::kStorageTexelBuffer;
  mo.device = r.kind == K::kDeviceBuffer;
  mo.address = r.device_address;
  mo.tracked = r.kind == K::kStorageBuffer || r.kind == K::kDeviceBuffer ||
               r.kind == K::kStorageImage || r.kind == K::kStorageTexelBuffer;
  std::string where = r.kind == K::kDeviceBuffer
                          ? "the device buffer at address " + std::to_string(r.device_address)
                          : "binding " + std::to_string(r.set) + "." + std::to_string(r.binding);
  if (image && (r.format == TexelFormat::kUnknown ||
                uint64_t{r.width} * mo.height * mo.depth * TexelBytes(r.format) > r.data.size())) {
    return Fail(where + ": image data is smaller than its size and format");
  }
  if (mo.device) {
    if (r.device_address == 0 || (r.device_address & 0xffffffffu) != 0 ||
        r.data.size() > (uint64_t{1} << 32)) {
      return Fail(where +
                  ": device addresses must be nonzero multiples of 2^32 and buffers "
                  "at most 4 GiB");
    }
    for (uint32_t d : device_objs_) {
      if (objs_[d].address == r.device_address) return Fail(where + " is given twice");
    }
    device_objs_.push_back(static_cast<uint32_t>(objs_.size()));
  }
  objs_.push_back(mo);
  return true;
}

void Machine::AddArenas() {
  push_obj_ = static_cast<uint32_t>(objs_.size());
  {
    MemObj mo;
    mo.kind = MemObj::Kind::kPush;
    mo.data = push_mem_.data();
    mo.size = push_mem_.size();
    objs_.push_back(mo);
  }
  output_obj_ = static_cast<uint32_t>(objs_.size());
  {
    MemObj mo;
    mo.kind = MemObj::Kind::kOutput;
    objs_.push_back(mo);
  }
  wg_obj_ = static_cast<uint32_t>(objs_.size());
  workgroup_mem_.assign(I_.workgroup_arena + 16, 0);
  {
    MemObj mo;
    mo.kind = MemObj::Kind::kWorkgroup;
    mo.data = workgroup_mem_.data();
    mo.size = I_.workgroup_arena;
    mo.tracked = true;
    objs_.push_back(mo);
  }
  inv_obj_base_ = static_cast<uint32_t>(objs_.size());
  uint64_t arena = I_.invocation_arena + 16;
  invocation_mem_.assign(arena * wg_size_, 0);
  for (uint32_t inv = 0; inv < wg_size_; ++inv) {
    MemObj mo;
    mo.kind = MemObj::Kind::kInvocation;
    mo.data = invocation_mem_.data() + arena * inv;
    mo.size = I_.invocation_arena;
    objs_.push_back(mo);
  }
}

bool Machine::DescriptorObject(const GlobalVar& g, uint64_t* ptr_obj) {
  auto d = m_.deco.find(g.id);
  if (d == m_.deco.end() || !d->second.has_binding) return true;
  const TypeInfo& vt = I_.types[g.pointee];
  bool array = vt.kind == TypeKind::kArray || vt.kind == TypeKind::kRuntimeArray;
  MemObj table;
  table.kind = MemObj::Kind::kTable;
  if (vt.kind == TypeKind::kArray) table.table.assign(vt.count, empty_obj_);
  for (size_t i = 0; i < resources_->size(); ++i) {
    const Resource& r = (*resources_)[i];
    if (r.kind == Resource::Kind::kDeviceBuffer || r.set != d->second.set ||
        r.binding != d->second.binding) {
      continue;
    }
    if (!array) {
      if (r.array_index == 0) *ptr_obj = 1 + i;
      continue;
    }
    if (vt.kind == TypeKind::kRuntimeArray && r.array_index >= table.table.size()) {
      if (r.array_index > (1u << 20)) return Fail("descriptor array index too large");
      table.table.resize(r.array_index + 1, empty_obj_);
    }
    if (r.array_index < table.table.size()) {
      table.table[r.array_index] = static_cast<uint32_t>(1 + i);
    }
  }
  if (array) {
    *ptr_obj = objs_.size();
    objs_.push_back(std::move(table));
  }
  return true;
}

bool Machine::BindGlobal(const GlobalVar& g) {
  uint64_t ptr_obj = 0;
  uint64_t off = 0;
  switch (g.storage) {
    case spv::StorageClassUniform:
    case spv::StorageClassStorageBuffer:
    case spv::StorageClassUniformConstant:
      if (!DescriptorObject(g, &ptr_obj)) return false;
      break;
    case spv::StorageClassPushConstant:
      ptr_obj = push_obj_;
      break;
    case spv::StorageClassOutput:
      ptr_obj = output_obj_;
      break;
    case spv::StorageClassWorkgroup:
      ptr_obj = wg_obj_;
      off = g.offset;
      break;
    case spv::StorageClassInput: {
      auto d = m_.deco.find(g.id);
      int32_t bi = d == m_.deco.end() ? -1 : d->second.builtin;
      if (!SupportedBuiltIn(bi)) {
        return Fail("unsupported input variable (built-in " + std::to_string(bi) + ")");
      }
      break;
    }
    default:
      break;
  }
  for (uint32_t inv = 0; inv < wg_size_; ++inv) {
    uint64_t obj = ptr_obj;
    uint64_t o = off;
    if (g.storage == spv::StorageClassInput || g.storage == spv::StorageClassPrivate) {
      obj = inv_obj_base_ + inv;
      o = g.offset;
    }
    R(g.id, 0, inv) = (obj << kObjShift) | o;
  }
  return true;
}

void Machine::BuildLayout(bool lavapipe_layout) {
  layout_.clear();
  inv_subgroup_id_.assign(wg_size_, 0);
  inv_lane_.assign(wg_size_, 0);
  if (lavapipe_layout) {
    uint32_t sx = I_.local_size[0];
    for (uint32_t row = 0; row < wg_size_ / sx; ++row) {
      for (uint32_t x = 0; x < sx; x += N_) layout_.push_back({row * sx + x, std::min(N_, sx - x)});
    }
    num_subgroups_builtin_ = wg_size_ / N_;
  } else {
    for (uint32_t b = 0; b < wg_size_; b += N_) layout_.push_back({b, std::min(N_, wg_size_ - b)});
    num_subgroups_builtin_ = static_cast<uint32_t>(layout_.size());
  }
  for (size_t s = 0; s < layout_.size(); ++s) {
    for (uint32_t l = 0; l < layout_[s].second; ++l) {
      uint32_t inv = layout_[s].first + l;
      inv_lane_[inv] = l;
      inv_subgroup_id_[inv] = lavapipe_layout ? layout_[s].first / N_ : static_cast<uint32_t>(s);
    }
  }
}

bool Machine::RunWorkgroup(uint32_t entry_index) {
  uint32_t num_sg = static_cast<uint32_t>(layout_.size());
  std::vector<Subgroup> sgs(num_sg);
  for (uint32_t s = 0; s < num_sg; ++s) {
    Subgroup& sg = sgs[s];
    sg.base = layout_[s].first;
    sg.count = layout_[s].second;
    Frame f;
    f.fn = entry_index;
    f.frame_base = I_.stack_base;
    f.pc.assign(N_, -1);
    f.key.assign(N_, 0);
    f.prev.assign(N_, -1);
    for (uint32_t lane = 0; lane < sg.count; ++lane) f.pc[lane] = 0;
    sg.frames.push_back(std::move(f));
  }
  if (counters_) {
    ++counters_->workgroups;
    counters_->subgroups += num_sg;
  }
  while (true) {
    for (Subgroup& sg : sgs) {
      if (sg.done || sg.at_barrier) continue;
      Step st = RunSubgroup(&sg);
      if (st == Step::kError) return false;
      if (st == Step::kBarrier) sg.at_barrier = true;
    }
    bool waiting = false;
    for (Subgroup& sg : sgs) {
      if (sg.at_barrier) {
        waiting = true;
        sg.at_barrier = false;
      }
    }
    if (!waiting) return true;
    if (counters_) ++counters_->barriers;
    if (race_) race_->WorkgroupBarrier();
  }
}

bool Machine::Dispatch(const Launch& launch, std::vector<Resource>* resources, Counters* counters) {
  launch_ = &launch;
  counters_ = counters;
  resources_ = resources;
  N_ = launch.subgroup_size;
  wg_size_ = I_.local_size[0] * I_.local_size[1] * I_.local_size[2];
  // Memory objects: 0 null, resources, empty, wild, push constants, output,
  // workgroup, one arena per invocation.
  objs_.assign(1, MemObj());
  junk_ = JunkPattern(launch.junk_seed);
  for (Resource& r : *resources) {
    if (!AddResource(r)) return false;
  }
  empty_obj_ = static_cast<uint32_t>(objs_.size());
  objs_.emplace_back();
  objs_.back().kind = MemObj::Kind::kEmpty;
  objs_.back().height = objs_.back().depth = 1;
  wild_obj_ = static_cast<uint32_t>(objs_.size());
  objs_.emplace_back();
  objs_.back().kind = MemObj::Kind::kWild;
  if (launch.count_instructions) {
    inst_subgroups_.assign(m_.num_function_insts, 0);
    inst_lanes_.assign(m_.num_function_insts, 0);
  }
  push_mem_ = launch.push_constants;
  AddArenas();
  // Constants and module variables' pointers, once per dispatch.
  for (uint32_t id : I_.constants) {
    uint32_t n = Slots(id);
    for (uint32_t k = 0; k < n; ++k) {
      uint64_t v = I_.cvals[I_.slot_base[id] + k];
      for (uint32_t inv = 0; inv < wg_size_; ++inv) R(id, k, inv) = v;
    }
  }
  for (const GlobalVar& g : I_.globals) {
    if (!BindGlobal(g)) return false;
  }
  uint32_t entry_index = m_.function_index.at(m_.entry_function);
  BuildLayout(launch.lavapipe_layout);  // the same in every workgroup
  if (launch.detect_races) StartRaceDetection();
  uint32_t linear = 0;
  for (uint32_t wz = 0; wz < launch.workgroups[2]; ++wz) {
    for (uint32_t wy = 0; wy < launch.workgroups[1]; ++wy) {
      for (uint32_t wx = 0; wx < launch.workgroups[0]; ++wx) {
        InitWorkgroup(wx, wy, wz);
        if (race_) race_->StartWorkgroup(linear++, wg_obj_);
        if (!RunWorkgroup(entry_index)) return false;
      }
    }
  }
  if (race_) ReportRace(counters_);
  if (counters_ && !inst_subgroups_.empty()) {
    for (const Function& fn : m_.functions) {
      for (const Inst& in : fn.insts) {
        if (inst_subgroups_[in.index] == 0) continue;
        counters_->instruction_counts.push_back(
            {in.word, inst_subgroups_[in.index], inst_lanes_[in.index]});
      }
    }
  }
  // Push constants are read-only: nothing to copy back. Resources were
  // updated in place.
  return true;
}

}  // namespace detail

using detail::Machine;

bool EvalConstantOp(const Instance& instance, const Inst& in, std::vector<uint64_t>* cvals,
                    std::string* error) {
  Machine m(instance, cvals->data(), 1);
  uint32_t inv = 0;
  int r = m.Pure(in, &inv, 1);
  if (r > 0) return true;
  *error = r < 0 ? m.error : "unsupported OpSpecConstantOp operation " + OpcodeName(in.op);
  return false;
}

bool RunDispatch(const Instance& instance, const Launch& launch, std::vector<Resource>* resources,
                 Counters* counters, std::string* error) {
  uint32_t wg = instance.local_size[0] * instance.local_size[1] * instance.local_size[2];
  std::vector<uint64_t> regs(static_cast<size_t>(instance.num_slots) * wg + 1, 0);
  Machine m(instance, regs.data(), wg);
  if (!m.Dispatch(launch, resources, counters)) {
    *error = m.error.empty() ? "the simulation failed" : m.error;
    return false;
  }
  return true;
}

}  // namespace sim
}  // namespace waveopt
