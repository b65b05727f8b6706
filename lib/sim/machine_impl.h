// The simulator's executor, shared by its files: the Machine class and the
// value helpers. machine.cpp runs dispatches (memory, atomics, control);
// machine_ops.cpp holds the tables of opcode families (pure instructions;
// images and subgroup operations) and machine_ops_*.cpp one family each.
// Internal to lib/sim.
#ifndef WAVEOPT_LIB_SIM_MACHINE_IMPL_H_
#define WAVEOPT_LIB_SIM_MACHINE_IMPL_H_

#include <spirv/unified1/GLSL.std.450.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <spirv/unified1/spirv.hpp>
#include <type_traits>

#include "lib/sim/half.h"
#include "lib/sim/machine.h"
#include "lib/sim/race.h"
#include "lib/sim/texel.h"

namespace waveopt {
namespace sim {
namespace detail {

constexpr uint32_t kObjShift = 40;
constexpr uint64_t kOffsetMask = (uint64_t{1} << kObjShift) - 1;

inline uint64_t WidthMask(uint32_t w) { return w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1; }
inline int64_t SignExtend(uint64_t v, uint32_t w) {
  if (w >= 64) return static_cast<int64_t>(v);
  uint32_t s = 64 - w;
  return static_cast<int64_t>(v << s) >> s;
}
inline float BitsToFloat(uint64_t b) {
  uint32_t u = static_cast<uint32_t>(b);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint64_t FloatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline double BitsToDouble(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline uint64_t DoubleToBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

// Calls f with the operands as float (16/32-bit) or double (64-bit) and
// converts the result back to the width's bits.
template <typename F>
uint64_t FloatUnary(uint64_t a, uint32_t w, F f) {
  if (w == 64) return DoubleToBits(static_cast<double>(f(BitsToDouble(a))));
  if (w == 16) return FloatToHalf(static_cast<float>(f(HalfToFloat(static_cast<uint16_t>(a)))));
  return FloatToBits(static_cast<float>(f(BitsToFloat(a))));
}
template <typename F>
uint64_t FloatBinary(uint64_t a, uint64_t b, uint32_t w, F f) {
  if (w == 64) return DoubleToBits(static_cast<double>(f(BitsToDouble(a), BitsToDouble(b))));
  if (w == 16) {
    return FloatToHalf(static_cast<float>(
        f(HalfToFloat(static_cast<uint16_t>(a)), HalfToFloat(static_cast<uint16_t>(b)))));
  }
  return FloatToBits(static_cast<float>(f(BitsToFloat(a), BitsToFloat(b))));
}
template <typename F>
uint64_t FloatTernary(uint64_t a, uint64_t b, uint64_t c, uint32_t w, F f) {
  if (w == 64) {
    return DoubleToBits(static_cast<double>(f(BitsToDouble(a), BitsToDouble(b), BitsToDouble(c))));
  }
  if (w == 16) {
    return FloatToHalf(static_cast<float>(f(HalfToFloat(static_cast<uint16_t>(a)),
                                            HalfToFloat(static_cast<uint16_t>(b)),
                                            HalfToFloat(static_cast<uint16_t>(c)))));
  }
  return FloatToBits(static_cast<float>(f(BitsToFloat(a), BitsToFloat(b), BitsToFloat(c))));
}
template <typename F>
bool FloatCompare(uint64_t a, uint64_t b, uint32_t w, F f) {
  if (w == 64) return f(BitsToDouble(a), BitsToDouble(b));
  if (w == 16)
    return f(HalfToFloat(static_cast<uint16_t>(a)), HalfToFloat(static_cast<uint16_t>(b)));
  return f(BitsToFloat(a), BitsToFloat(b));
}
inline double ToDouble(uint64_t a, uint32_t w) {
  if (w == 64) return BitsToDouble(a);
  if (w == 16) return HalfToFloat(static_cast<uint16_t>(a));
  return BitsToFloat(a);
}
inline uint64_t FromDouble(double d, uint32_t w) {
  if (w == 64) return DoubleToBits(d);
  if (w == 16) return FloatToHalf(static_cast<float>(d));
  return FloatToBits(static_cast<float>(d));
}

template <typename T>
T FMinOf(T a, T b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return b < a ? b : a;
}
template <typename T>
T FMaxOf(T a, T b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return a < b ? b : a;
}

// Float to integer conversions, saturating, NaN -> 0 (the specification
// leaves out-of-range values undefined).
inline uint64_t FloatToSigned(double d, uint32_t w) {
  if (std::isnan(d)) return 0;
  double lo = -std::ldexp(1.0, static_cast<int>(w) - 1);
  double hi = std::ldexp(1.0, static_cast<int>(w) - 1);
  int64_t v;
  if (d <= lo) {
    v = w >= 64 ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(lo);
  } else if (d >= hi) {
    v = w >= 64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi) - 1;
  } else {
    v = static_cast<int64_t>(std::trunc(d));
  }
  return static_cast<uint64_t>(v) & WidthMask(w);
}
inline uint64_t FloatToUnsigned(double d, uint32_t w) {
  if (std::isnan(d) || d <= 0) return 0;
  double hi = std::ldexp(1.0, static_cast<int>(w));
  if (d >= hi) return WidthMask(w);
  return static_cast<uint64_t>(std::trunc(d)) & WidthMask(w);
}

inline int BitLength(uint64_t v) {
  int n = 0;
  while (v) {
    ++n;
    v >>= 1;
  }
  return n;
}

struct LaneMask {
  uint64_t w[2] = {0, 0};
  bool Get(uint32_t i) const { return i < 128 && ((w[i >> 6] >> (i & 63)) & 1); }
  void Set(uint32_t i) { w[i >> 6] |= uint64_t{1} << (i & 63); }
};

// Bytes of one texel.
inline uint32_t TexelBytes(TexelFormat f) { return GetTexelFormatInfo(f).bytes; }

// The optional operands after an image instruction's operand mask.
struct ImageOperands {
  uint32_t lod = 0;             // Lod
  uint32_t offset = 0;          // ConstOffset or Offset
  uint32_t sample = 0;          // Sample
  bool gather_offsets = false;  // ConstOffsets / Offsets
};

// Parses the image operands starting at ops[k] (the mask). False with
// |error| for an operand the simulator does not know.
bool ParseImageOperands(const Inst& in, uint32_t k, ImageOperands* out, std::string* error);

struct MemObj {
  enum class Kind {
    kNone,    // object 0: the null pointer, and unbound resources
    kBuffer,  // storage/uniform buffers and device buffers
    kImage,   // images and texel buffers
    kSampler,
    kTable,  // a descriptor array: |table| holds its elements' objects
    kEmpty,  // what a descriptor index past the array reaches: no bytes, no texels
    kWild,   // what a device address in no buffer reaches
    kPush,
    kOutput,
    kWorkgroup,
    kInvocation,
  };
  Kind kind = Kind::kNone;
  uint8_t* data = nullptr;
  uint64_t size = 0;
  // Images.
  uint32_t width = 0, height = 0, depth = 0;
  TexelFormat format = TexelFormat::kRgba32f;
  bool linear = false;          // texel buffers: addressed like buffers
  uint64_t address = 0;         // device buffers: the address of byte 0
  bool device = false;          // a device buffer
  std::vector<uint32_t> table;  // kTable
  bool tracked = false;         // shared memory a race can happen in (Launch::detect_races)
  // Memory that Vulkan's robustness2 covers: out-of-bounds loads give zero.
  bool Robust() const {
    return kind == Kind::kBuffer || kind == Kind::kImage || kind == Kind::kEmpty ||
           kind == Kind::kWild || kind == Kind::kPush;
  }
};

enum class Step { kOk, kBarrier, kDone, kError };

struct Frame {
  uint32_t fn = 0;
  uint64_t frame_base = 0;
  uint32_t call_result = 0;
  std::vector<int32_t> pc;    // per lane: next block, -1: not here / returned
  std::vector<uint32_t> key;  // per lane: scheduling key
  std::vector<int32_t> prev;  // per lane: the block it came from
  bool running = false;
  uint32_t block = 0, ip = 0;
  std::vector<uint32_t> active;  // lanes running |block|, ascending
};

struct Subgroup {
  uint32_t base = 0;   // first invocation
  uint32_t count = 0;  // lanes that exist
  std::vector<Frame> frames;
  bool done = false, at_barrier = false;
};

class Machine {
 public:
  Machine(const Instance& in, uint64_t* regs, uint32_t stride)
      : I_(in), m_(*in.m), regs_(regs), stride_(stride) {}

  uint64_t& R(uint32_t id, uint32_t k, uint32_t inv) {
    return regs_[(static_cast<size_t>(I_.slot_base[id]) + k) * stride_ + inv];
  }
  uint32_t Slots(uint32_t id) const { return I_.types[I_.value_type[id]].slots; }
  const TypeInfo& TypeOf(uint32_t id) const { return I_.types[I_.value_type[id]]; }
  const TypeInfo& ScalarOf(uint32_t id) const { return I_.Scalar(I_.value_type[id]); }
  uint64_t ConstValue(uint32_t id) const { return I_.cvals[I_.slot_base[id]]; }

  // Executes an instruction without side effects on memory or lanes.
  // Returns 1 when handled, 0 when |in| is not such an instruction, -1 on
  // error.
  int Pure(const Inst& in, const uint32_t* invs, uint32_t n);
  int Ext(const Inst& in, const uint32_t* invs, uint32_t n);

  // Pure instructions by family, one file each (machine_ops_*.cpp); the
  // table in machine_ops.cpp picks the family of an opcode (of a
  // GLSL.std.450 instruction for Ext). Each returns as Pure does.
  int PureComposite(const Inst& in, const uint32_t* invs, uint32_t n);
  int PureIntArith(const Inst& in, const uint32_t* invs, uint32_t n);
  int PureIntBits(const Inst& in, const uint32_t* invs, uint32_t n);
  int PureFloat(const Inst& in, const uint32_t* invs, uint32_t n);
  int PureMatrix(const Inst& in, const uint32_t* invs, uint32_t n);
  int PureConvert(const Inst& in, const uint32_t* invs, uint32_t n);
  int PureCompare(const Inst& in, const uint32_t* invs, uint32_t n);
  int PureLogical(const Inst& in, const uint32_t* invs, uint32_t n);
  int ExtFloatMap(const Inst& in, const uint32_t* invs, uint32_t n);
  int ExtFloatMulti(const Inst& in, const uint32_t* invs, uint32_t n);
  int ExtInt(const Inst& in, const uint32_t* invs, uint32_t n);
  int ExtGeometric(const Inst& in, const uint32_t* invs, uint32_t n);
  int ExtPack(const Inst& in, const uint32_t* invs, uint32_t n);
  int ExtModfFrexp(const Inst& in, const uint32_t* invs, uint32_t n);
  int ExtMatrix(const Inst& in, const uint32_t* invs, uint32_t n);
  using Family = int (Machine::*)(const Inst& in, const uint32_t* invs, uint32_t n);
  static Family PureFamily(uint32_t op);
  static Family ExtFamily(uint32_t e);

  // What the families share: |body| for each lane; |f| on each component
  // of the result from operand 0 (and 1) of |in|.
  template <typename F>
  static void ForLanes(const uint32_t* invs, uint32_t n, F body) {
    for (uint32_t l = 0; l < n; ++l) body(invs[l]);
  }
  template <typename F>
  void MapUnary(const Inst& in, const uint32_t* invs, uint32_t n, F f) {
    const uint32_t s = I_.types[in.type].slots;
    ForLanes(invs, n, [&](uint32_t inv) {
      for (uint32_t k = 0; k < s; ++k) R(in.result, k, inv) = f(R(in.ops[0], k, inv));
    });
  }
  template <typename F>
  void MapBinary(const Inst& in, const uint32_t* invs, uint32_t n, F f) {
    const uint32_t s = I_.types[in.type].slots;
    ForLanes(invs, n, [&](uint32_t inv) {
      for (uint32_t k = 0; k < s; ++k) {
        R(in.result, k, inv) = f(R(in.ops[0], k, inv), R(in.ops[1], k, inv));
      }
    });
  }

  bool Dispatch(const Launch& launch, std::vector<Resource>* resources, Counters* counters);

  std::string error;

 private:
  bool Fail(const std::string& msg) {
    if (error.empty()) error = msg;
    return false;
  }
  uint64_t PoisonFor(const TypeInfo& scalar) const {
    if (scalar.kind == TypeKind::kBool) return 1;
    return I_.poison & WidthMask(scalar.width);
  }

  // Memory.
  MemObj* Obj(uint64_t ptr, uint64_t* off) {
    uint64_t o = ptr >> kObjShift;
    *off = ptr & kOffsetMask;
    if (o >= objs_.size()) return nullptr;
    return &objs_[o];
  }
  void LoadValue(uint32_t type, bool expl, const MemObj& o, uint64_t off, uint64_t* out);
  // Copies |n| bytes of |v| (little-endian) to |off| of |o|, telling the race
  // detector first.
  void WriteBytes(MemObj& o, uint64_t off, const void* v, uint32_t n) {
    if (race_ && o.tracked) {
      race_->Write(ObjIndex(o), o.data, off, n, static_cast<const uint8_t*>(v), cur_inv_, false);
    }
    std::memcpy(o.data + off, v, n);
  }
  void StoreValue(uint32_t type, bool expl, MemObj& o, uint64_t off, const uint64_t* in);
  // Loads/stores through |ptr| (a pointer of pointer type |ptr_type|) for
  // one invocation; false on a null pointer (error set).
  bool Load(uint32_t ptr_type, uint64_t ptr, uint64_t* out);
  bool Store(uint32_t ptr_type, uint64_t ptr, const uint64_t* in);
  bool AccessChain(const Inst& in, const uint32_t* invs, uint32_t n, bool ptr_chain);

  // Counts an access of |size| bytes at |off| of |o| (may be null) outside
  // its memory.
  void CountOutOfBounds(const MemObj* o, uint64_t off, uint64_t size) {
    if (!counters_) return;
    ++counters_->out_of_bounds;
    if (o != nullptr && o->kind == MemObj::Kind::kWild) ++counters_->wild_pointer_accesses;
    if (o != nullptr && o->device && off <= kOffsetMask - size) {
      counters_->device_overrun = std::max(counters_->device_overrun, off + size - o->size);
    }
  }
  // Cost accounting for one memory instruction of the current subgroup:
  // per active lane, the pointer and byte count.
  using Accesses = std::vector<std::pair<uint64_t, uint64_t>>;
  void Account(const Accesses& accesses, bool atomic);

  // Memory that starts undefined: zero, or junk (Launch::junk_seed).
  void FillJunk(uint8_t* p, uint64_t n) const {
    for (uint64_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(junk_ >> (8 * (i % 8)));
  }

  // Device addresses (PhysicalStorageBuffer pointers): the shader's 64-bit
  // addresses and the simulator's (object << 40 | offset) pointers.
  uint64_t RawToPtr(uint64_t raw) const;
  uint64_t PtrToRaw(uint64_t ptr) const;

  // Images.
  bool ReadTexel(const MemObj& o, int64_t x, int64_t y, int64_t z, uint64_t out[4]);
  void WriteTexel(MemObj& o, int64_t x, int64_t y, int64_t z, const uint64_t in[4]);
  const TypeInfo& ImageTypeOf(uint32_t id) const {
    const TypeInfo& t = TypeOf(id);
    return t.kind == TypeKind::kSampledImage ? I_.types[t.elem] : t;
  }
  MemObj* ImageObj(uint64_t handle) {
    if (handle >= objs_.size()) return nullptr;
    MemObj& mo = objs_[handle];
    return (mo.kind == MemObj::Kind::kImage || mo.kind == MemObj::Kind::kEmpty) ? &mo : nullptr;
  }

  // Subgroup execution.
  Step RunSubgroup(Subgroup* sg);
  bool ExecBlockInst(Subgroup* sg, Frame* f, const Inst& in, Step* step);
  bool Terminate(Subgroup* sg, Frame* f, const Inst& in);
  bool Memory(const Inst& in, Subgroup* sg, Frame* f, bool* handled);
  bool Atomic(const Inst& in, Subgroup* sg, Frame* f);
  uint32_t ScopeOf(uint32_t id) { return static_cast<uint32_t>(ConstValue(id)); }

  // Instructions on the active lanes of a subgroup (images, subgroup
  // operations) by family, one file each (machine_ops_image*.cpp,
  // machine_ops_group_*.cpp); the table in machine_ops.cpp picks the family
  // of an opcode. Each returns false on error (error set).
  using LaneFamily = bool (Machine::*)(const Inst& in, Subgroup* sg, Frame* f);
  static LaneFamily LaneFamilyOf(uint32_t op);
  bool ImageQuery(const Inst& in, Subgroup* sg, Frame* f);
  bool ImageFetch(const Inst& in, Subgroup* sg, Frame* f);
  bool ImageWrite(const Inst& in, Subgroup* sg, Frame* f);
  bool ImageTexelPointer(const Inst& in, Subgroup* sg, Frame* f);
  bool ImageSample(const Inst& in, Subgroup* sg, Frame* f);
  bool ImageUnsupported(const Inst& in, Subgroup* sg, Frame* f);
  bool GroupVote(const Inst& in, Subgroup* sg, Frame* f);
  bool GroupShuffle(const Inst& in, Subgroup* sg, Frame* f);
  bool GroupBallot(const Inst& in, Subgroup* sg, Frame* f);
  bool GroupArith(const Inst& in, Subgroup* sg, Frame* f);

  // What the image families share (machine_ops_image.cpp). Lane |inv|'s
  // component |k| of |id| as a float or a signed integer (0 past its
  // components, or for id 0).
  float LaneFloat(uint32_t id, uint32_t k, uint32_t inv) {
    if (k >= Slots(id)) return 0.0f;
    return static_cast<float>(ToDouble(R(id, k, inv), ScalarOf(id).width));
  }
  int64_t LaneInt(uint32_t id, uint32_t k, uint32_t inv) {
    if (id == 0 || k >= Slots(id)) return 0;
    return SignExtend(R(id, k, inv), ScalarOf(id).width);
  }
  // The image of lane |inv| (operand 0 of |in|); false (error set) when
  // unbound.
  bool ImageOf(const Inst& in, uint32_t inv, MemObj** out);
  // Integer texel coordinates (x, y, z) of |coord| for an image of type |it|
  // (z: the layer, the cube face (+ 6 x layer), or the depth).
  void TexelCoord(const TypeInfo& it, uint32_t coord, uint32_t inv, int64_t c[3]);
  // Converts the decoded texel |t| to the components of |res| (of |type|).
  void TexelToResult(uint32_t type, const uint64_t t[4], uint32_t inv, uint32_t res);
  // Adds texel (x, y, z) of image |h| (|mo|), when inside it, to |acc|.
  static void NoteTexel(Accesses* acc, uint64_t h, const MemObj& mo, int64_t x, int64_t y,
                        int64_t z);
  // Reads texel |c| of |img| (operand 0 of |in|) into lane |inv|'s result,
  // noting it in |acc|.
  void ReadTexelTo(const Inst& in, const MemObj& img, const int64_t c[3], uint32_t inv,
                   Accesses* acc);
  // OpImageGather for lane |inv| at coordinate |u| moved by |off| texels.
  void GatherTexels(const Inst& in, const MemObj& img, const float u[4], const int64_t off[3],
                    uint32_t inv, Accesses* acc);

  // What the subgroup families share. The operands after the scope (KHR
  // forms have none); null (error set) for a scope other than Subgroup.
  const uint32_t* GroupOperands(const Inst& in);
  // Lane |inv|'s ballot |id| with the bits past the subgroup size cleared;
  // |m| written to lane |inv|'s result of |in|.
  LaneMask BallotOf(uint32_t id, uint32_t inv);
  void WriteBallot(const Inst& in, const LaneMask& m, uint32_t inv);
  // Counts one executed instruction of |f|'s block; false (error set) past
  // the launch's instruction limit.
  bool CountInstruction(const Frame* f, const Inst& in) {
    if (counters_) {
      ++counters_->instructions;
      counters_->lane_instructions += f->active.size();
    }
    if (!inst_subgroups_.empty()) {
      ++inst_subgroups_[in.index];
      inst_lanes_[in.index] += f->active.size();
    }
    if (++executed_ > launch_->instruction_limit) {
      return Fail("the shader ran past " + std::to_string(launch_->instruction_limit) +
                  " instructions (does it terminate?)");
    }
    return true;
  }

  // Dispatch steps: memory objects for a resource, for push constants,
  // output, workgroup and invocation memory; a global variable's pointers
  // (|ptr_obj|: the object of a descriptor, or of an array of them); the
  // subgroup layout; one workgroup.
  bool AddResource(Resource& r);
  void AddArenas();
  bool DescriptorObject(const GlobalVar& g, uint64_t* ptr_obj);
  bool BindGlobal(const GlobalVar& g);
  void BuildLayout(bool lavapipe_layout);
  void InitWorkgroup(uint32_t wx, uint32_t wy, uint32_t wz);
  bool RunWorkgroup(uint32_t entry_index);
  // Race detection (Launch::detect_races).
  uint32_t ObjIndex(const MemObj& o) const { return static_cast<uint32_t>(&o - objs_.data()); }
  void StartRaceDetection();
  void ReportRace(Counters* counters) const;

  const Instance& I_;
  const ModuleData& m_;
  uint64_t* regs_;
  uint32_t stride_;

  // Dispatch state.
  const Launch* launch_ = nullptr;
  Counters* counters_ = nullptr;
  std::vector<MemObj> objs_;
  std::vector<Resource>* resources_ = nullptr;
  std::vector<uint8_t> workgroup_mem_;
  std::vector<uint8_t> invocation_mem_;
  std::vector<uint8_t> push_mem_;  // a copy of Launch::push_constants
  uint32_t wg_obj_ = 0, inv_obj_base_ = 0, push_obj_ = 0, output_obj_ = 0;
  uint32_t wg_size_ = 1;
  uint32_t N_ = 32;
  // The workgroup's subgroups: (first invocation, lanes that exist); per
  // invocation its SubgroupId and lane; the NumSubgroups built-in.
  std::vector<std::pair<uint32_t, uint32_t>> layout_;
  std::vector<uint32_t> inv_subgroup_id_, inv_lane_;
  uint32_t num_subgroups_builtin_ = 0;
  uint32_t wg_id_[3] = {0, 0, 0};
  uint64_t executed_ = 0;
  uint32_t empty_obj_ = 0, wild_obj_ = 0;
  std::vector<uint32_t> device_objs_;                  // device buffers, by address
  std::vector<uint64_t> inst_subgroups_, inst_lanes_;  // by Inst::index
  uint64_t junk_ = 0;  // the junk byte pattern (Launch::junk_seed), 0: none
  // Current subgroup (for subgroup operations), and the local invocation
  // whose memory access runs (for race detection).
  Subgroup* cur_ = nullptr;
  uint32_t cur_inv_ = 0;
  std::unique_ptr<RaceDetector> race_;
  LaneMask active_mask_;
  std::vector<uint64_t> tmp_;
};

}  // namespace detail
}  // namespace sim
}  // namespace waveopt

#endif  // WAVEOPT_LIB_SIM_MACHINE_IMPL_H_
