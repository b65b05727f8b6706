// morton-remap: see the header for the rewrite; docs/passes/morton-remap.md
// for remarks, options and the measured effect.
#include "passes/morton_remap_pass.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <iterator>
#include <memory>

#include "analysis/ir_util.h"
#include "analysis/loops.h"
#include "analysis/uniformity.h"
#include "passes/emitter.h"
#include "source/opcode.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/ir_context.h"
#include "source/opt/loop_descriptor.h"
#include "source/opt/type_manager.h"
#include "source/util/string_utils.h"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::Operand;

constexpr uint8_t kVariesWithX = 1;
constexpr uint8_t kVariesWithY = 2;
constexpr uint32_t kScopeSubgroup = static_cast<uint32_t>(spv::Scope::Subgroup);

bool IsPowerOfTwo(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

uint32_t Log2(uint32_t v) {
  uint32_t n = 0;
  while (v > 1) {
    v >>= 1;
    ++n;
  }
  return n;
}

bool IsAccessChain(spv::Op op) {
  return op == spv::Op::OpAccessChain || op == spv::Op::OpInBoundsAccessChain ||
         op == spv::Op::OpPtrAccessChain || op == spv::Op::OpInBoundsPtrAccessChain;
}

// Opcodes that compute derivatives across a quad (implicit-LOD sampling
// included); in compute they need DerivativeGroup{Quads,Linear}NV.
bool IsDerivative(spv::Op op) {
  switch (op) {
    case spv::Op::OpDPdx:
    case spv::Op::OpDPdy:
    case spv::Op::OpFwidth:
    case spv::Op::OpDPdxFine:
    case spv::Op::OpDPdyFine:
    case spv::Op::OpFwidthFine:
    case spv::Op::OpDPdxCoarse:
    case spv::Op::OpDPdyCoarse:
    case spv::Op::OpFwidthCoarse:
    case spv::Op::OpImageSampleImplicitLod:
    case spv::Op::OpImageSampleDrefImplicitLod:
    case spv::Op::OpImageSampleProjImplicitLod:
    case spv::Op::OpImageSampleProjDrefImplicitLod:
    case spv::Op::OpImageSparseSampleImplicitLod:
    case spv::Op::OpImageSparseSampleDrefImplicitLod:
    case spv::Op::OpImageQueryLod:
      return true;
    default:
      return false;
  }
}

// "OpGroupNonUniformIAdd" (SPIRV-Tools' table names lack the "Op").
std::string OpText(spv::Op op) { return std::string("Op") + spvOpcodeString(op); }

// The missed remarks, in MortonRemapPass::Missed order: the name, and the
// text of those whose text never varies ("" for the others).
struct MissedRemark {
  const char* name;
  const char* text;
};
constexpr MissedRemark kMissedRemarks[] = {
    {"NotCompute", "only GLCompute entry points are remapped"},
    {"KernelModule", "OpenCL kernels are not supported; only Shader modules"},
    {"UnsupportedBuiltInUse", ""},
    {"NoInvocationIds",
     "the entry point does not read LocalInvocationId, GlobalInvocationId or "
     "LocalInvocationIndex: nothing to relabel"},
    {"AlreadyQuadOrdered", ""},
    {"UnsupportedWorkgroupSize", ""},
    {"SpecConstantWorkgroupSize", ""},
    {"OddWorkgroupSize", ""},
    {"LinearIndex", ""},
    {"SharedFunctions",
     "a function this entry point reaches is also reached by another entry "
     "point, which would see the relabelled ids"},
    {"UsesSubgroupOps", ""},
    {"UsesSubgroupBuiltIn", ""},
    {"ComputeDerivatives", ""},
    {"NotProfitable", ""},
};

std::string ShapeText(uint32_t x, uint32_t y, uint32_t z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

// The profitability model (docs/design/morton-remap.md): an access counts
// once per execution: the product of the trip counts of its loops (a loop
// whose count is not a constant counts kUnknownTripWeight times), summed
// over the call paths that reach it, capped at kMaxWeight.
constexpr double kUnknownTripWeight = 8;
constexpr double kMaxWeight = 1e6;
constexpr uint64_t kUnknownTrips = ~uint64_t{0};
constexpr uint64_t kMaxCountedTrips = 4096;

std::string WeightText(double w) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", w);
  return buf;
}

// The in-tile bit order of the remap: index bit k of a tile goes to
// coordinate kTileBits[k] (0 = x, 1 = y) bit kTileBits[k] position, bits a
// tile lacks skipped: x0 y0 y1 x1 x2 y2 (seed 002's ARmpRed8x8 for 8x8).
constexpr std::pair<int, uint32_t> kTileBits[] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 2}, {1, 2}};

// The tile side for a grid dimension: 8, else 4, else 2 (|n| even).
uint32_t TileSide(uint32_t n) { return n % 8 == 0 ? 8 : n % 4 == 0 ? 4 : 2; }

// For coordinate |c| of a |tw| x |th| tile: (shift, mask) groups such that
// coordinate = OR over groups of ((j >> shift) & mask), in order of first
// appearance.
std::vector<std::pair<uint32_t, uint32_t>> TileGroups(int c, uint32_t tw, uint32_t th) {
  const uint32_t bits[2] = {Log2(tw), Log2(th)};
  std::vector<std::pair<uint32_t, uint32_t>> groups;
  uint32_t src = 0;
  for (const auto& [coord, bit] : kTileBits) {
    if (bit >= bits[coord]) continue;
    if (coord == c) {
      const uint32_t shift = src - bit;
      auto it = std::find_if(groups.begin(), groups.end(),
                             [shift](const auto& g) { return g.first == shift; });
      if (it == groups.end()) {
        groups.push_back({shift, 1u << bit});
      } else {
        it->second |= 1u << bit;
      }
    }
    ++src;
  }
  return groups;
}

// Emits the remapped identity values at one load site, each at most once.
// Every getter returns 0 (and leaves the emitter failed) when ids run out.
class RemapBuilder {
 public:
  // |index_path|: the new index is RemapIndex(l, n, |d|); otherwise the
  // grid |size_x| x |size_y| is remapped with RemapCoords.
  RemapBuilder(Emitter* e, uint32_t size_x, uint32_t size_y, bool index_path,
               const MortonRemapPass::Decomposition& d, uint32_t index_var, uint32_t index_type,
               uint32_t wg_var, uint32_t wg_type)
      : e_(e),
        size_x_(size_x),
        size_y_(size_y),
        index_path_(index_path),
        d_(d),
        index_var_(index_var),
        index_type_(index_type),
        wg_var_(wg_var),
        wg_type_(wg_type) {
    uint_ = e_->UIntType(32);
    v3uint_ = e_->UIntVectorType(3);
  }

  uint32_t UIntType() const { return uint_; }
  uint32_t V3UIntType() const { return v3uint_; }

  // The new local x coordinate (index path, 1-D workgroup: the new index).
  uint32_t X() {
    if (x_ == 0) x_ = index_path_ ? NewIndex() : TileX(L(), size_x_, size_y_);
    return x_;
  }
  // The new local y coordinate (index path: 0).
  uint32_t Y() {
    if (y_ != 0) return y_;
    y_ = index_path_ ? e_->UInt(0) : TileY(L(), size_x_, size_y_);
    return y_;
  }
  // The new LocalInvocationIndex: y * X + x (index path: the new index).
  uint32_t Index() {
    if (index_ != 0) return index_;
    if (index_path_) return index_ = NewIndex();
    const uint32_t x = X();
    const uint32_t y = Y();
    const uint32_t row = IsPowerOfTwo(size_x_)
                             ? Op(spv::Op::OpShiftLeftLogical, y, e_->UInt(Log2(size_x_)))
                             : Op(spv::Op::OpIMul, y, e_->UInt(size_x_));
    return index_ = Op(spv::Op::OpIAdd, row, x);
  }
  // Component |k| of the new LocalInvocationId.
  uint32_t LocalComponent(int k) { return k == 0 ? X() : k == 1 ? Y() : e_->UInt(0); }
  uint32_t LocalVector() {
    const uint32_t x = X();
    const uint32_t y = Y();
    return e_->EmitIds(spv::Op::OpCompositeConstruct, v3uint_, {x, y, e_->UInt(0)});
  }
  // Component |k| of the new GlobalInvocationId: wg.k * size.k + local.k.
  uint32_t GlobalComponent(int k) {
    uint32_t wg_k = e_->Emit(spv::Op::OpCompositeExtract, uint_,
                             {{SPV_OPERAND_TYPE_ID, {WorkgroupId()}},
                              {SPV_OPERAND_TYPE_LITERAL_INTEGER, {static_cast<uint32_t>(k)}}});
    if (k == 2) return wg_k;  // size.z == 1, local.z == 0
    if (k == 1 && size_y_ == 1) return wg_k;
    uint32_t size = k == 0 ? size_x_ : size_y_;
    const uint32_t base = Op(spv::Op::OpIMul, wg_k, e_->UInt(size));
    const uint32_t local = LocalComponent(k);
    return Op(spv::Op::OpIAdd, base, local);
  }
  uint32_t GlobalVector() {
    uint32_t gx = GlobalComponent(0);
    uint32_t gy = GlobalComponent(1);
    uint32_t gz = GlobalComponent(2);
    return e_->EmitIds(spv::Op::OpCompositeConstruct, v3uint_, {gx, gy, gz});
  }

 private:
  uint32_t Op(spv::Op op, uint32_t a, uint32_t b) { return e_->EmitIds(op, uint_, {a, b}); }
  // The loaded LocalInvocationIndex as a uint.
  uint32_t L() {
    if (l_ != 0) return l_;
    l_ = e_->EmitIds(spv::Op::OpLoad, index_type_, {index_var_});
    if (index_type_ != uint_) l_ = e_->EmitIds(spv::Op::OpBitcast, uint_, {l_});
    return l_;
  }
  uint32_t WorkgroupId() {
    if (wg_ != 0) return wg_;
    wg_ = e_->EmitIds(spv::Op::OpLoad, wg_type_, {wg_var_});
    if (wg_type_ != v3uint_) {
      wg_ = e_->EmitIds(spv::Op::OpBitcast, v3uint_, {wg_});
    }
    return wg_;
  }
  // In-tile coordinate |c| of index |j|: OR of (j >> shift) & mask. One
  // instruction per statement: argument evaluation order is unspecified,
  // and the output must not depend on the compiler.
  uint32_t InTile(int c, uint32_t j, uint32_t tw, uint32_t th) {
    uint32_t value = 0;
    for (const auto& [shift, mask] : TileGroups(c, tw, th)) {
      uint32_t part = j;
      if (shift != 0) part = Op(spv::Op::OpShiftRightLogical, j, e_->UInt(shift));
      part = Op(spv::Op::OpBitwiseAnd, part, e_->UInt(mask));
      value = value == 0 ? part : Op(spv::Op::OpBitwiseOr, value, part);
    }
    return value;
  }
  // The tile of index |j| in a grid of |tw| x |th| tiles: j >> log2(tw·th).
  uint32_t Tile(uint32_t j, uint32_t tw, uint32_t th) {
    if (tile_ == 0 || tile_of_ != j) {
      tile_ = Op(spv::Op::OpShiftRightLogical, j, e_->UInt(Log2(tw * th)));
      tile_of_ = j;
    }
    return tile_;
  }
  // x of index |j| in a |w| x |h| grid (MortonRemapPass::RemapCoords).
  uint32_t TileX(uint32_t j, uint32_t w, uint32_t h) {
    const uint32_t tw = TileSide(w), th = TileSide(h);
    const uint32_t x0 = InTile(0, j, tw, th);
    const uint32_t tiles_per_row = w / tw;
    if (tiles_per_row == 1) return x0;
    const uint32_t tile = Tile(j, tw, th);
    const uint32_t tile_x = IsPowerOfTwo(tiles_per_row)
                                ? Op(spv::Op::OpBitwiseAnd, tile, e_->UInt(tiles_per_row - 1))
                                : Op(spv::Op::OpUMod, tile, e_->UInt(tiles_per_row));
    const uint32_t origin_x = Op(spv::Op::OpShiftLeftLogical, tile_x, e_->UInt(Log2(tw)));
    return Op(spv::Op::OpBitwiseOr, x0, origin_x);
  }
  // y of index |j| in a |w| x |h| grid.
  uint32_t TileY(uint32_t j, uint32_t w, uint32_t h) {
    const uint32_t tw = TileSide(w), th = TileSide(h);
    const uint32_t y0 = InTile(1, j, tw, th);
    const uint32_t tiles_per_row = w / tw;
    if (w == tw && h == th) return y0;  // one tile
    const uint32_t tile = Tile(j, tw, th);
    uint32_t tile_y = tile;
    if (tiles_per_row > 1) {
      tile_y = IsPowerOfTwo(tiles_per_row)
                   ? Op(spv::Op::OpShiftRightLogical, tile, e_->UInt(Log2(tiles_per_row)))
                   : Op(spv::Op::OpUDiv, tile, e_->UInt(tiles_per_row));
    }
    const uint32_t origin_y = Op(spv::Op::OpShiftLeftLogical, tile_y, e_->UInt(Log2(th)));
    return Op(spv::Op::OpBitwiseOr, y0, origin_y);
  }
  // The index path's new index (MortonRemapPass::RemapIndex).
  uint32_t NewIndex() {
    if (new_index_ != 0) return new_index_;
    const uint32_t n = size_x_ * size_y_;
    const uint32_t b = d_.block, w = d_.width, h = d_.height;
    const bool pow2 = IsPowerOfTwo(b);
    const uint32_t l = L();
    uint32_t j = l;
    const bool tiles = TileSide(w) != w || TileSide(h) != h;
    if (b < n && tiles) {
      j = pow2 ? Op(spv::Op::OpBitwiseAnd, l, e_->UInt(b - 1))
               : Op(spv::Op::OpUMod, l, e_->UInt(b));
    }
    const uint32_t x = TileX(j, w, h);
    const uint32_t y = TileY(j, w, h);
    // Row by row: y * w + x; column by column: x * h + y.
    const uint32_t major = d_.transposed ? x : y;
    const uint32_t minor = d_.transposed ? y : x;
    const uint32_t stride = d_.transposed ? h : w;
    uint32_t in = 0;
    if (IsPowerOfTwo(stride)) {
      const uint32_t row = Op(spv::Op::OpShiftLeftLogical, major, e_->UInt(Log2(stride)));
      in = Op(spv::Op::OpBitwiseOr, row, minor);
    } else {
      const uint32_t row = Op(spv::Op::OpIMul, major, e_->UInt(stride));
      in = Op(spv::Op::OpIAdd, row, minor);
    }
    if (b == n) return new_index_ = in;
    if (pow2) {
      const uint32_t base = Op(spv::Op::OpBitwiseAnd, l, e_->UInt(~(b - 1)));
      return new_index_ = Op(spv::Op::OpBitwiseOr, base, in);
    }
    const uint32_t block = Op(spv::Op::OpUDiv, l, e_->UInt(b));
    const uint32_t base = Op(spv::Op::OpIMul, block, e_->UInt(b));
    return new_index_ = Op(spv::Op::OpIAdd, base, in);
  }

  Emitter* e_;
  uint32_t size_x_, size_y_;
  bool index_path_;
  MortonRemapPass::Decomposition d_;
  uint32_t index_var_, index_type_, wg_var_, wg_type_;
  uint32_t uint_ = 0, v3uint_ = 0;
  uint32_t l_ = 0, wg_ = 0, x_ = 0, y_ = 0, index_ = 0, new_index_ = 0;
  uint32_t tile_ = 0, tile_of_ = 0;
};

}  // namespace

bool MortonRemapPass::ParseParams(const std::string& text, Params* params, std::string* error) {
  std::vector<std::pair<std::string, std::string>> items;
  if (!SplitParams(text, &items, error)) return false;
  for (const auto& [key, value] : items) {
    if (key == "always" && value.empty()) {
      if (params->mode != Mode::kForce) params->mode = Mode::kAlways;
    } else if (key == "force" && value.empty()) {
      params->mode = Mode::kForce;
    } else if (key == "workgroup-size") {
      uint32_t dims[3] = {1, 1, 1};
      std::vector<std::string> parts;
      size_t at = 0;
      for (size_t end; (end = value.find('x', at)) != std::string::npos; at = end + 1) {
        parts.push_back(value.substr(at, end - at));
      }
      parts.push_back(value.substr(at));
      bool ok = parts.size() <= 3;
      for (size_t k = 0; ok && k < parts.size(); ++k) {
        ok = !parts[k].empty() && parts[k].size() <= 4 &&
             parts[k].find_first_not_of("0123456789") == std::string::npos;
        if (ok) dims[k] = static_cast<uint32_t>(std::stoul(parts[k]));
      }
      ok = ok && dims[0] > 0 && dims[1] > 0 && dims[2] > 0 && dims[0] * dims[1] * dims[2] <= 1024;
      if (!ok) {
        *error =
            "workgroup-size must be X, XxY or XxYxZ with at most 1024 "
            "invocations (e.g. workgroup-size=16x16)";
        return false;
      }
      params->promised_x = dims[0];
      params->promised_y = dims[1];
      params->promised_z = dims[2];
    } else {
      *error = "unknown parameter '" + key + "' (expected always, force or workgroup-size=XxY)";
      return false;
    }
  }
  return true;
}

void MortonRemapPass::RemapCoords(uint32_t j, uint32_t w, uint32_t h, uint32_t* x, uint32_t* y) {
  const uint32_t tw = TileSide(w), th = TileSide(h);
  uint32_t c[2] = {0, 0};
  const uint32_t bits[2] = {Log2(tw), Log2(th)};
  uint32_t src = 0;
  for (const auto& [coord, bit] : kTileBits) {
    if (bit >= bits[coord]) continue;
    c[coord] |= ((j >> src) & 1u) << bit;
    ++src;
  }
  const uint32_t tile = j / (tw * th);
  const uint32_t tiles_per_row = w / tw;
  *x = c[0] + tw * (tile % tiles_per_row);
  *y = c[1] + th * (tile / tiles_per_row);
}

uint32_t MortonRemapPass::RemapIndex(uint32_t l, uint32_t n, const Decomposition& d) {
  (void)n;
  const uint32_t j = l % d.block;
  uint32_t x = 0, y = 0;
  RemapCoords(j, d.width, d.height, &x, &y);
  const uint32_t in = d.transposed ? x * d.height + y : y * d.width + x;
  return l - j + in;
}

MortonRemapPass::MortonRemapPass(PassConfig config) : WavePass(std::move(config)) {
  std::string ignored;
  ParseParams(this->config().params, &params_, &ignored);
}

void MortonRemapPass::Refuse(Missed missed, const EntryInfo& info, Instruction* where,
                             const std::string& why) {
  static_assert(std::size(kMissedRemarks) == static_cast<size_t>(Missed::kNotProfitable) + 1,
                "kMissedRemarks lists every MortonRemapPass::Missed");
  EmitRemark(RemarkKind::kMissed, kMissedRemarks[static_cast<size_t>(missed)].name, info.function,
             where, why);
}

void MortonRemapPass::Refuse(Missed missed, const EntryInfo& info, Instruction* where) {
  Refuse(missed, info, where, kMissedRemarks[static_cast<size_t>(missed)].text);
}

std::vector<Function*> MortonRemapPass::Reached(Function* func) {
  std::unordered_set<uint32_t> seen;
  std::deque<Function*> work = {func};
  while (!work.empty()) {
    Function* f = work.front();
    work.pop_front();
    if (f == nullptr || !seen.insert(f->result_id()).second) continue;
    f->ForEachInst([this, &work](Instruction* inst) {
      if (inst->opcode() == spv::Op::OpFunctionCall) {
        work.push_back(context()->GetFunction(inst->GetSingleWordInOperand(0)));
      }
    });
  }
  std::vector<Function*> out;
  for (Function& f : *get_module()) {
    if (seen.count(f.result_id())) out.push_back(&f);
  }
  return out;
}

bool MortonRemapPass::ConstantValue(uint32_t id, uint32_t* value, bool* spec) {
  const Instruction* def = get_def_use_mgr()->GetDef(id);
  uint64_t v = 0;
  uint32_t width = 0;
  const bool is_spec = IntSpecDefault(context(), def, &v, &width);
  if ((!is_spec && !IntConstant(context(), def, &v, &width)) || width != 32) {
    return false;
  }
  *value = static_cast<uint32_t>(v);
  if (is_spec) *spec = true;
  return true;
}

bool MortonRemapPass::ShapeFromBuiltIn(Shape* shape, bool* found, std::string* why) {
  for (Instruction& a : get_module()->annotations()) {
    if (a.opcode() != spv::Op::OpDecorate ||
        a.GetSingleWordInOperand(1) != static_cast<uint32_t>(spv::Decoration::BuiltIn) ||
        a.GetSingleWordInOperand(2) != static_cast<uint32_t>(spv::BuiltIn::WorkgroupSize)) {
      continue;
    }
    Instruction* c = get_def_use_mgr()->GetDef(a.GetSingleWordInOperand(0));
    uint32_t v[3] = {0, 0, 0};
    bool ok = c != nullptr &&
              (c->opcode() == spv::Op::OpConstantComposite ||
               c->opcode() == spv::Op::OpSpecConstantComposite) &&
              c->NumInOperands() == 3;
    for (uint32_t i = 0; ok && i < 3; ++i) {
      ok = ConstantValue(c->GetSingleWordInOperand(i), &v[i], &shape->from_spec_constant);
    }
    if (!ok) {
      *why =
          "the WorkgroupSize built-in is not a composite of integer "
          "constants or specialization constants";
      return false;
    }
    shape->x = v[0];
    shape->y = v[1];
    shape->z = v[2];
    shape->source = "the WorkgroupSize built-in";
    *found = true;
    return true;
  }
  return true;
}

bool MortonRemapPass::ShapeFromModes(uint32_t func_id, Shape* shape, bool* found,
                                     std::string* why) {
  for (Instruction& mode : get_module()->execution_modes()) {
    if (mode.GetSingleWordInOperand(0) != func_id) continue;
    const auto m = static_cast<spv::ExecutionMode>(mode.GetSingleWordInOperand(1));
    if (mode.opcode() == spv::Op::OpExecutionMode && m == spv::ExecutionMode::LocalSize) {
      shape->x = mode.GetSingleWordInOperand(2);
      shape->y = mode.GetSingleWordInOperand(3);
      shape->z = mode.GetSingleWordInOperand(4);
      shape->source = "LocalSize";
      *found = true;
      return true;
    }
    if (mode.opcode() == spv::Op::OpExecutionModeId && m == spv::ExecutionMode::LocalSizeId) {
      uint32_t v[3] = {0, 0, 0};
      for (uint32_t i = 0; i < 3; ++i) {
        if (!ConstantValue(mode.GetSingleWordInOperand(2 + i), &v[i], &shape->from_spec_constant)) {
          *why =
              "a LocalSizeId operand is not an integer constant or "
              "specialization constant";
          return false;
        }
      }
      shape->x = v[0];
      shape->y = v[1];
      shape->z = v[2];
      shape->source = "LocalSizeId";
      *found = true;
      return true;
    }
  }
  return true;
}

bool MortonRemapPass::ApplyPromise(Shape* shape, Missed* refusal, std::string* why) {
  const bool promise = params_.promised_x != 0;
  const std::string size_text = ShapeText(shape->x, shape->y, shape->z);
  if (shape->from_spec_constant) {
    if (!promise) {
      *why = "the workgroup size comes from specialization constants (" + shape->source +
             ", defaults " + size_text +
             "): the pipeline may specialise it to another size; promise "
             "one with --morton-remap=workgroup-size=XxY";
      *refusal = Missed::kSpecConstantWorkgroupSize;
      return false;
    }
    shape->x = params_.promised_x;
    shape->y = params_.promised_y;
    shape->z = params_.promised_z;
    shape->promised = true;
  } else if (promise && (shape->x != params_.promised_x || shape->y != params_.promised_y ||
                         shape->z != params_.promised_z)) {
    *why = "the module's workgroup is " + size_text + " (from " + shape->source +
           "), not the promised workgroup-size=" +
           ShapeText(params_.promised_x, params_.promised_y, params_.promised_z);
    *refusal = Missed::kUnsupportedWorkgroupSize;
    return false;
  }
  return true;
}

bool MortonRemapPass::ResolveShape(Instruction* entry, Shape* shape, Missed* refusal,
                                   std::string* why) {
  *refusal = Missed::kUnsupportedWorkgroupSize;
  bool found = false;
  if (!ShapeFromBuiltIn(shape, &found, why)) return false;
  if (!found && !ShapeFromModes(entry->GetSingleWordInOperand(1), shape, &found, why)) {
    return false;
  }
  if (!found) {
    *why = "the entry point has no LocalSize, LocalSizeId or WorkgroupSize";
    return false;
  }
  if (!ApplyPromise(shape, refusal, why)) return false;
  const std::string from =
      " (from " +
      (shape->promised ? "workgroup-size=, for specialization constants" : shape->source) + ")";
  if (shape->z != 1 || shape->x * shape->y < 4 || shape->x * shape->y > 1024) {
    *why = "the workgroup is " + ShapeText(shape->x, shape->y, shape->z) + from +
           "; the remap needs X x Y x 1 with 4 to 1024 invocations";
    return false;
  }
  return true;
}

bool MortonRemapPass::CollectSites(EntryInfo* info, std::string* why) {
  // Access chains into identity built-ins: id → (kind, component, index).
  std::unordered_map<uint32_t, Site> chains;
  for (Function* func : info->reached) {
    bool ok = func->WhileEachInst([&](Instruction* inst) {
      for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
        const Operand& op = inst->GetInOperand(i);
        if (!spvIsIdType(op.type)) continue;
        const uint32_t id = op.words[0];
        auto var = id_vars_.find(id);
        auto chain = chains.find(id);
        if (var == id_vars_.end() && chain == chains.end()) continue;
        if (inst->opcode() == spv::Op::OpLoad && i == 0) {
          Site site = var != id_vars_.end() ? Site{} : chain->second;
          if (var != id_vars_.end()) site.kind = var->second;
          site.load = inst;
          info->sites.push_back(site);
          if (info->first_use == nullptr) info->first_use = inst;
          continue;
        }
        if (var != id_vars_.end() && i == 0 &&
            (inst->opcode() == spv::Op::OpAccessChain ||
             inst->opcode() == spv::Op::OpInBoundsAccessChain) &&
            inst->NumInOperands() == 2 && var->second != kLocalIndex) {
          Site site;
          site.kind = var->second;
          uint32_t k = 0;
          bool spec = false;
          if (ConstantValue(inst->GetSingleWordInOperand(1), &k, &spec) && !spec && k < 3) {
            site.component = static_cast<int>(k);
          } else {
            site.component = -2;
            site.index = inst->GetSingleWordInOperand(1);
          }
          chains[inst->result_id()] = site;
          if (info->first_use == nullptr) info->first_use = inst;
          continue;
        }
        *why = OpText(inst->opcode()) + " uses " + NameOf(id) +
               "; only loads of the built-ins, whole or through an access "
               "chain to one component, are rewritten";
        if (info->first_use == nullptr) info->first_use = inst;
        return false;
      }
      return true;
    });
    if (!ok) return false;
  }
  return true;
}

bool MortonRemapPass::DerivativeGroupMode(const EntryInfo& info, Dependence* dependence) {
  const uint32_t func_id = info.function->result_id();
  for (Instruction& mode : get_module()->execution_modes()) {
    if (mode.GetSingleWordInOperand(0) != func_id) continue;
    const auto m = static_cast<spv::ExecutionMode>(mode.GetSingleWordInOperand(1));
    if (m == spv::ExecutionMode::DerivativeGroupQuadsNV ||
        m == spv::ExecutionMode::DerivativeGroupLinearNV) {
      dependence->name = Missed::kComputeDerivatives;
      dependence->where = info.first_use;
      dependence->why = std::string("the entry point computes derivatives over ") +
                        (m == spv::ExecutionMode::DerivativeGroupQuadsNV
                             ? "2x2 quads of invocation ids (DerivativeGroupQuadsNV)"
                             : "groups of 4 consecutive indices "
                               "(DerivativeGroupLinearNV)");
      return true;
    }
  }
  return false;
}

std::unordered_map<uint32_t, const char*> MortonRemapPass::LaneBuiltInVars() const {
  std::unordered_map<uint32_t, const char*> lane_vars;
  const std::pair<spv::BuiltIn, const char*> kLaneBuiltIns[] = {
      {spv::BuiltIn::SubgroupId, "SubgroupId"},
      {spv::BuiltIn::SubgroupLocalInvocationId, "SubgroupLocalInvocationId"},
      {spv::BuiltIn::SubgroupEqMask, "SubgroupEqMask"},
      {spv::BuiltIn::SubgroupGeMask, "SubgroupGeMask"},
      {spv::BuiltIn::SubgroupGtMask, "SubgroupGtMask"},
      {spv::BuiltIn::SubgroupLeMask, "SubgroupLeMask"},
      {spv::BuiltIn::SubgroupLtMask, "SubgroupLtMask"}};
  for (const auto& [builtin, text] : kLaneBuiltIns) {
    auto it = builtin_vars_.find(static_cast<uint32_t>(builtin));
    if (it == builtin_vars_.end()) continue;
    for (uint32_t var : it->second) lane_vars[var] = text;
  }
  return lane_vars;
}

bool MortonRemapPass::InstructionDependence(
    Instruction* inst, const std::unordered_map<uint32_t, const char*>& lane_vars,
    Dependence* dependence) {
  const spv::Op op = inst->opcode();
  const std::string op_name = OpText(op);
  if (op_name.rfind("OpGroup", 0) == 0 || op_name.rfind("OpSubgroup", 0) == 0 ||
      op_name.find("CooperativeMatrix") != std::string::npos) {
    dependence->name = Missed::kUsesSubgroupOps;
    dependence->why = op_name +
                      ": the result depends on which invocations share a "
                      "subgroup (or a quad)";
    return true;
  }
  if (op == spv::Op::OpControlBarrier || op == spv::Op::OpMemoryBarrier) {
    uint32_t scope = kScopeSubgroup;
    bool spec = false;
    if (!ConstantValue(inst->GetSingleWordInOperand(0), &scope, &spec) || spec) {
      scope = kScopeSubgroup;
    }
    if (scope != kScopeSubgroup) return false;
    dependence->name = Missed::kUsesSubgroupOps;
    dependence->why = op_name +
                      " at Subgroup scope (or a non-constant scope) "
                      "synchronises only the invocations of one subgroup";
    return true;
  }
  if (IsDerivative(op)) {
    dependence->name = Missed::kComputeDerivatives;
    dependence->why = op_name + " takes derivatives across the invocations of a quad";
    return true;
  }
  for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
    const Operand& operand = inst->GetInOperand(i);
    if (!spvIsIdType(operand.type)) continue;
    auto it = lane_vars.find(operand.words[0]);
    if (it == lane_vars.end()) continue;
    dependence->name = Missed::kUsesSubgroupBuiltIn;
    dependence->why = std::string("the ") + it->second +
                      " built-in depends on which invocations share a "
                      "subgroup";
    return true;
  }
  return false;
}

bool MortonRemapPass::SubgroupDependence(const EntryInfo& info, Dependence* dependence) {
  if (DerivativeGroupMode(info, dependence)) return true;
  // Built-ins that name a lane's place in its subgroup.
  const std::unordered_map<uint32_t, const char*> lane_vars = LaneBuiltInVars();
  for (Function* func : info.reached) {
    const bool none = func->WhileEachInst([&](Instruction* inst) {
      if (!InstructionDependence(inst, lane_vars, dependence)) return true;
      dependence->where = inst;
      return false;
    });
    if (!none) return true;
  }
  return false;
}

// Propagates Taint through the functions of one entry point: to values,
// memory roots (variables, pointer parameters) and function returns.
class MortonRemapPass::TaintFlow {
 public:
  explicit TaintFlow(MortonRemapPass* pass)
      : pass_(pass), def_use_(pass->get_def_use_mgr()), types_(pass->context()->get_type_mgr()) {}

  // The identity built-ins of |id_vars|, per component (|one_d|: a 1-D
  // workgroup, whose y never varies).
  void Seed(const std::unordered_map<uint32_t, IdKind>& id_vars, bool one_d) {
    for (const auto& [var, kind] : id_vars) {
      if (kind == kLocalIndex) {
        taint_[var] = Splat(one_d ? kVariesWithX : kVariesWithX | kVariesWithY);
      } else {
        taint_[var] = Taint{kVariesWithX, one_d ? uint8_t{0} : kVariesWithY, 0, 0};
      }
    }
  }
  // One pass over every instruction of |functions|; whether a taint grew.
  bool Sweep(const std::vector<Function*>& functions) {
    changed_ = false;
    for (Function* func : functions) {
      func->ForEachInst([this, func](Instruction* inst) { Visit(func, inst); });
    }
    return changed_;
  }
  std::unordered_map<uint32_t, Taint> Take() { return std::move(taint_); }

 private:
  static uint8_t Any(const Taint& t) { return static_cast<uint8_t>(t[0] | t[1] | t[2] | t[3]); }
  static Taint Splat(uint8_t v) { return Taint{v, v, v, v}; }
  Taint Get(uint32_t id) const {
    auto it = taint_.find(id);
    return it == taint_.end() ? Taint{0, 0, 0, 0} : it->second;
  }
  void Merge(uint32_t id, const Taint& t) {
    if (Any(t) == 0) return;
    Taint& cur = taint_[id];
    for (int i = 0; i < 4; ++i) {
      if ((cur[i] | t[i]) != cur[i]) {
        cur[i] |= t[i];
        changed_ = true;
      }
    }
  }
  bool IsVector(uint32_t type_id) const {
    const auto* type = types_->GetType(type_id);
    return type != nullptr && type->AsVector() != nullptr;
  }
  uint32_t VectorSize(uint32_t type_id) const {
    const auto* type = types_->GetType(type_id);
    return type && type->AsVector() ? type->AsVector()->element_count() : 1;
  }
  // The variable or function parameter |ptr| points into.
  Instruction* Root(uint32_t ptr) const {
    Instruction* def = def_use_->GetDef(ptr);
    while (def != nullptr &&
           (IsAccessChain(def->opcode()) || def->opcode() == spv::Op::OpCopyObject)) {
      def = def_use_->GetDef(def->GetSingleWordInOperand(0));
    }
    return def;
  }

  void Visit(Function* func, Instruction* inst);
  void Load(Instruction* inst);
  void Store(Instruction* inst);
  void Call(Instruction* inst);
  void Extract(Instruction* inst);
  void Construct(Instruction* inst);
  void Shuffle(Instruction* inst);
  void Elementwise(Instruction* inst);

  MortonRemapPass* pass_;
  spvtools::opt::analysis::DefUseManager* def_use_;
  spvtools::opt::analysis::TypeManager* types_;
  std::unordered_map<uint32_t, Taint> taint_;
  bool changed_ = false;
};

void MortonRemapPass::TaintFlow::Visit(Function* func, Instruction* inst) {
  switch (inst->opcode()) {
    case spv::Op::OpLoad:
      return Load(inst);
    case spv::Op::OpStore:
      return Store(inst);
    case spv::Op::OpFunctionCall:
      return Call(inst);
    case spv::Op::OpReturnValue:
      return Merge(func->result_id(), Splat(Any(Get(inst->GetSingleWordInOperand(0)))));
    case spv::Op::OpCompositeExtract:
      return Extract(inst);
    case spv::Op::OpCompositeConstruct:
      if (IsVector(inst->type_id())) return Construct(inst);
      break;
    case spv::Op::OpVectorShuffle:
      return Shuffle(inst);
    case spv::Op::OpVariable:
    case spv::Op::OpFunctionParameter:
    case spv::Op::OpLabel:
    case spv::Op::OpFunction:
      return;
    default:
      break;
  }
  Elementwise(inst);
}

void MortonRemapPass::TaintFlow::Load(Instruction* inst) {
  Instruction* r = Root(inst->GetSingleWordInOperand(0));
  if (r == nullptr) return;
  Taint t = Get(r->result_id());
  Instruction* p = def_use_->GetDef(inst->GetSingleWordInOperand(0));
  if (p != r) {
    // One constant component of the root, or any of them.
    uint32_t k = 0;
    bool spec = false;
    if (IsAccessChain(p->opcode()) && p->NumInOperands() == 2 &&
        def_use_->GetDef(p->GetSingleWordInOperand(0)) == r &&
        pass_->ConstantValue(p->GetSingleWordInOperand(1), &k, &spec) && k < 4) {
      t = Splat(t[k]);
    } else {
      t = Splat(Any(t));
    }
  }
  Merge(inst->result_id(), IsVector(inst->type_id()) ? t : Splat(Any(t)));
}

void MortonRemapPass::TaintFlow::Store(Instruction* inst) {
  Instruction* r = Root(inst->GetSingleWordInOperand(0));
  if (r == nullptr) return;
  const Taint t = Get(inst->GetSingleWordInOperand(1));
  const bool whole = r->result_id() == inst->GetSingleWordInOperand(0);
  Merge(r->result_id(), whole ? t : Splat(Any(t)));
}

void MortonRemapPass::TaintFlow::Call(Instruction* inst) {
  Function* callee = pass_->context()->GetFunction(inst->GetSingleWordInOperand(0));
  if (callee == nullptr) return;
  // Arguments to parameters; through pointers both ways.
  uint32_t i = 1;
  callee->ForEachParam([&](Instruction* param) {
    if (i >= inst->NumInOperands()) return;
    const uint32_t arg = inst->GetSingleWordInOperand(i++);
    Instruction* r = Root(arg);
    const auto* type = types_->GetType(param->type_id());
    if (type != nullptr && type->AsPointer() != nullptr && r != nullptr) {
      Merge(param->result_id(), Get(r->result_id()));
      Merge(r->result_id(), Get(param->result_id()));
    } else {
      Merge(param->result_id(), Get(arg));
    }
  });
  Merge(inst->result_id(), Get(callee->result_id()));
}

void MortonRemapPass::TaintFlow::Extract(Instruction* inst) {
  const Taint t = Get(inst->GetSingleWordInOperand(0));
  if (inst->NumInOperands() == 2 &&
      IsVector(def_use_->GetDef(inst->GetSingleWordInOperand(0))->type_id())) {
    const uint32_t k = inst->GetSingleWordInOperand(1);
    Merge(inst->result_id(), Splat(k < 4 ? t[k] : 0));
  } else {
    Merge(inst->result_id(), Splat(Any(t)));
  }
}

void MortonRemapPass::TaintFlow::Construct(Instruction* inst) {
  Taint t = {0, 0, 0, 0};
  uint32_t slot = 0;
  for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
    const uint32_t part = inst->GetSingleWordInOperand(i);
    const Taint pt = Get(part);
    const uint32_t n = VectorSize(def_use_->GetDef(part)->type_id());
    for (uint32_t j = 0; j < n && slot < 4; ++j) t[slot++] = pt[j];
  }
  Merge(inst->result_id(), t);
}

void MortonRemapPass::TaintFlow::Shuffle(Instruction* inst) {
  const uint32_t a = inst->GetSingleWordInOperand(0);
  const uint32_t b = inst->GetSingleWordInOperand(1);
  const uint32_t na = VectorSize(def_use_->GetDef(a)->type_id());
  const Taint ta = Get(a), tb = Get(b);
  Taint t = {0, 0, 0, 0};
  for (uint32_t i = 2; i < inst->NumInOperands() && i < 6; ++i) {
    const uint32_t c = inst->GetSingleWordInOperand(i);
    if (c < na && c < 4) {
      t[i - 2] = ta[c];
    } else if (c >= na && c - na < 4) {
      t[i - 2] = tb[c - na];
    }
  }
  Merge(inst->result_id(), t);
}

void MortonRemapPass::TaintFlow::Elementwise(Instruction* inst) {
  if (inst->result_id() == 0 || inst->type_id() == 0 || IsAccessChain(inst->opcode())) {
    return;
  }
  // Component-wise union of the operands (scalars are stored splatted, so
  // they broadcast).
  Taint t = {0, 0, 0, 0};
  for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
    const Operand& operand = inst->GetInOperand(i);
    if (!spvIsIdType(operand.type)) continue;
    const Taint ot = Get(operand.words[0]);
    for (int c = 0; c < 4; ++c) t[c] |= ot[c];
  }
  Merge(inst->result_id(), IsVector(inst->type_id()) ? t : Splat(Any(t)));
}

std::unordered_map<uint32_t, MortonRemapPass::Taint> MortonRemapPass::ComputeTaint(
    const EntryInfo& info) {
  TaintFlow flow(this);
  flow.Seed(id_vars_, info.shape.y == 1);
  // Propagate to a fixed point (the lattice is finite; the bound is a guard).
  for (int round = 0; round < 64; ++round) {
    if (!flow.Sweep(info.reached)) break;
  }
  return flow.Take();
}

std::string MortonRemapPass::Weights::Describe(bool tiled_kinds) const {
  std::string out;
  for (uint32_t k = 0; k < count.size(); ++k) {
    const auto kind = static_cast<MemoryKind>(k);
    if (count[k] == 0 || IsTiled(kind) != tiled_kinds) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(count[k]) + " " + MemoryKindName(kind) +
           (count[k] == 1 ? " access" : " accesses");
    if (weight[k] != count[k]) out += " weighing " + WeightText(weight[k]);
  }
  return out.empty() ? "none" : out;
}

uint64_t MortonRemapPass::TripCount(Function* func, uint32_t header) {
  auto cached = trip_counts_.find(header);
  if (cached != trip_counts_.end()) return cached->second;
  uint64_t& result = trip_counts_[header];
  result = kUnknownTrips;
  auto* loops = context()->GetLoopDescriptor(func);
  spvtools::opt::Loop* loop = (*loops)[header];
  if (loop == nullptr || loop->GetHeaderBlock()->id() != header ||
      loop->GetMergeBlock() == nullptr) {
    return result;
  }
  // One exit testing a counter against a constant (lib/analysis/loops.h).
  LoopAnalysis analysis(context());
  const int64_t trips = analysis.SingleExitTripCount(func, loop, kMaxCountedTrips);
  if (trips >= 0) result = static_cast<uint64_t>(trips);
  return result;
}

double MortonRemapPass::FrameWeight(const InvocationEvaluator& evaluator, uint32_t frame) {
  double w = 1;
  for (int guard = 0; frame != 0 && guard < 64; ++guard) {
    Instruction* call = evaluator.FrameCall(frame);
    const uint32_t parent = evaluator.FrameParent(frame);
    w *= BlockWeight(evaluator.FrameFunction(parent), context()->get_instr_block(call));
    w = std::min(w, kMaxWeight);
    frame = parent;
  }
  return w;
}

double MortonRemapPass::BlockWeight(Function* func, BasicBlock* block) {
  auto* loops = context()->GetLoopDescriptor(func);
  double w = 1;
  for (spvtools::opt::Loop* loop = (*loops)[block]; loop != nullptr; loop = loop->GetParent()) {
    const uint64_t trips = TripCount(func, loop->GetHeaderBlock()->id());
    w *= trips == kUnknownTrips ? kUnknownTripWeight : static_cast<double>(trips);
    w = std::min(w, kMaxWeight);
  }
  return w;
}

uint32_t MortonRemapPass::BuiltInVar(uint32_t builtin, bool vector, Instruction* entry) {
  auto it = builtin_vars_.find(builtin);
  if (it != builtin_vars_.end() && !it->second.empty()) {
    AddToInterface(entry, it->second[0]);
    return it->second[0];
  }
  const uint32_t var = DeclareBuiltInInput(spv::BuiltIn(builtin), entry);
  if (var != 0) builtin_vars_[builtin].push_back(var);
  return var;
}

bool MortonRemapPass::Rewrite(const EntryInfo& info) {
  bool wants_global = false;
  for (const Site& site : info.sites) wants_global |= site.kind == kGlobalId;
  const uint32_t index_var =
      BuiltInVar(static_cast<uint32_t>(spv::BuiltIn::LocalInvocationIndex), false, info.entry);
  const uint32_t wg_var =
      wants_global ? BuiltInVar(static_cast<uint32_t>(spv::BuiltIn::WorkgroupId), true, info.entry)
                   : 0;
  if (index_var == 0 || (wants_global && wg_var == 0)) return false;
  auto pointee = [this](uint32_t var) -> uint32_t {
    if (var == 0) return 0;
    Instruction* ptr = get_def_use_mgr()->GetDef(get_def_use_mgr()->GetDef(var)->type_id());
    return ptr->GetSingleWordInOperand(1);
  };

  std::vector<Instruction*> chains;
  for (const Site& site : info.sites) {
    Instruction* load = site.load;
    BasicBlock* block = context()->get_instr_block(load);
    auto where = block->begin();
    while (&*where != load) ++where;
    Emitter e(context(), block, where);
    RemapBuilder b(&e, info.shape.x, info.shape.y, info.index_path, info.decomposition, index_var,
                   pointee(index_var), wg_var, pointee(wg_var));
    uint32_t value = 0;
    uint32_t type = b.UIntType();
    if (site.kind == kLocalIndex) {
      value = b.Index();
    } else if (site.component == -1) {
      value = site.kind == kLocalId ? b.LocalVector() : b.GlobalVector();
      type = b.V3UIntType();
    } else if (site.component >= 0) {
      value = site.kind == kLocalId ? b.LocalComponent(site.component)
                                    : b.GlobalComponent(site.component);
    } else {
      uint32_t vec = site.kind == kLocalId ? b.LocalVector() : b.GlobalVector();
      value = e.EmitIds(spv::Op::OpVectorExtractDynamic, type, {vec, site.index});
    }
    if (e.ok() && type != load->type_id()) {
      value = e.EmitIds(spv::Op::OpBitcast, load->type_id(), {value});
    }
    if (!e.ok() || value == 0) return false;
    Instruction* pointer = get_def_use_mgr()->GetDef(load->GetSingleWordInOperand(0));
    if (IsAccessChain(pointer->opcode()) &&
        std::find(chains.begin(), chains.end(), pointer) == chains.end()) {
      chains.push_back(pointer);
    }
    context()->ReplaceAllUsesWith(load->result_id(), value);
    context()->KillInst(load);
  }
  for (Instruction* chain : chains) {
    bool unused = get_def_use_mgr()->WhileEachUser(chain, [](Instruction*) { return false; });
    if (unused) context()->KillInst(chain);
  }
  return true;
}

std::vector<MortonRemapPass::Decomposition> MortonRemapPass::TiledDecompositions(LaneMaps* maps) {
  const size_t n = maps->items().size();
  std::vector<Decomposition> out(n);
  std::vector<size_t> alive;
  for (size_t i = 0; i < n; ++i) {
    if (IsTiled(maps->items()[i].access->kind)) alive.push_back(i);
  }
  for (size_t e = 0; e < maps->envs().size() && !alive.empty(); ++e) {
    maps->Evaluate(e, alive);
    std::vector<size_t> next;
    for (size_t i : alive) {
      const LaneMap& map = maps->Map(e, i);
      const LaneLayout layout = ClassifyLaneMap(map);
      Decomposition here;
      here.block = layout.block;
      here.width = layout.block_width;
      here.height = layout.BlockHeight();
      here.transposed = layout.transposed;
      const Decomposition& d = out[i];
      if (!map.ok || here.block == 0 ||
          (d.block != 0 &&
           (d.block != here.block || d.width != here.width || d.transposed != here.transposed))) {
        out[i] = Decomposition{};
        continue;
      }
      out[i] = here;
      next.push_back(i);
    }
    alive = std::move(next);
  }
  return out;
}

// State of one Process call that its entry points share.
struct MortonRemapPass::Run {
  std::unordered_map<uint32_t, uint32_t> reach_count;  // function → entries
  bool changed = false;
  // Built when first needed: the pipeline's kept one while nothing has
  // changed yet.
  std::unique_ptr<UniformityAnalysis> own_uniformity;
  const UniformityAnalysis* uniformity = nullptr;
};

// What each invocation of one entry point touches, evaluated for every
// invocation (for a kernel that reads no identity built-in, only to name a
// layout built from the subgroup built-ins).
struct MortonRemapPass::Lanes {
  std::unique_ptr<InvocationEvaluator> evaluator;
  std::vector<LaneAccess> accesses;
  bool collected_accesses = false;
  LaneMaps maps;
};

std::string MortonRemapPass::Shape::Describe() const {
  return ShapeText(x, y, z) + " workgroup (" +
         (promised ? "promised by workgroup-size= for specialization "
                     "constants"
                   : source) +
         ")";
}

std::string MortonRemapPass::Weights::Summary() const {
  return "2-D accesses weigh " + WeightText(tiled) + " (" + Describe(true) + "), linear accesses " +
         WeightText(linear) + " (" + Describe(false) + ")";
}

void MortonRemapPass::IndexBuiltInVars() {
  builtin_vars_.clear();
  id_vars_.clear();
  for (Instruction& a : get_module()->annotations()) {
    if (a.opcode() != spv::Op::OpDecorate ||
        a.GetSingleWordInOperand(1) != static_cast<uint32_t>(spv::Decoration::BuiltIn)) {
      continue;
    }
    const uint32_t target = a.GetSingleWordInOperand(0);
    Instruction* def = get_def_use_mgr()->GetDef(target);
    if (def == nullptr || def->opcode() != spv::Op::OpVariable ||
        def->GetSingleWordInOperand(0) != static_cast<uint32_t>(spv::StorageClass::Input)) {
      continue;
    }
    const uint32_t builtin = a.GetSingleWordInOperand(2);
    builtin_vars_[builtin].push_back(target);
    switch (static_cast<spv::BuiltIn>(builtin)) {
      case spv::BuiltIn::LocalInvocationId:
        id_vars_[target] = kLocalId;
        break;
      case spv::BuiltIn::GlobalInvocationId:
        id_vars_[target] = kGlobalId;
        break;
      case spv::BuiltIn::LocalInvocationIndex:
        id_vars_[target] = kLocalIndex;
        break;
      default:
        break;
    }
  }
}

std::vector<MortonRemapPass::EntryInfo> MortonRemapPass::EntryPoints(
    std::unordered_map<uint32_t, uint32_t>* reach_count) {
  std::vector<EntryInfo> entries;
  for (Instruction& entry : get_module()->entry_points()) {
    EntryInfo info;
    info.entry = &entry;
    info.function = context()->GetFunction(entry.GetSingleWordInOperand(1));
    if (info.function == nullptr) continue;
    info.reached = Reached(info.function);
    for (Function* f : info.reached) ++(*reach_count)[f->result_id()];
    entries.push_back(std::move(info));
  }
  return entries;
}

spvtools::opt::Pass::Status MortonRemapPass::Process() {
  IndexBuiltInVars();
  Run run;
  // Functions each entry point reaches, to find code shared between them.
  std::vector<EntryInfo> entries = EntryPoints(&run.reach_count);
  trip_counts_.clear();
  for (EntryInfo& info : entries) {
    if (!ProcessEntry(&info, &run)) return Status::Failure;
  }
  return run.changed ? Status::SuccessWithChange : Status::SuccessWithoutChange;
}

bool MortonRemapPass::ProcessEntry(EntryInfo* info, Run* run) {
  Lanes lanes;
  if (!Admit(info, run, &lanes)) return true;
  Plan plan;
  plan.shape_text = info->shape.Describe();
  if (!EvaluateLanes(info, run, &lanes, &plan)) return true;
  if (!ChoosePermutation(info, &lanes, &plan)) return true;
  const Weights weights = WeighAccesses(*info, &lanes, plan.perm);
  const std::string counted = weights.Summary();
  if (params_.mode == Mode::kProfitable && !Profitable(*info, &lanes, weights, counted)) {
    return true;
  }
  if (!Selected(info->function, info->first_use)) return true;
  EmitRemark(RemarkKind::kApplied, "Remapped", info->function, info->first_use,
             AppliedText(*info, plan, counted));
  if (!Rewrite(*info)) return false;
  run->changed = true;
  run->uniformity = nullptr;  // the module changed
  run->own_uniformity.reset();
  return true;
}

bool MortonRemapPass::Admit(EntryInfo* info, Run* run, Lanes* lanes) {
  std::string why;
  const bool collected = CollectSites(info, &why);
  const auto model = static_cast<spv::ExecutionModel>(info->entry->GetSingleWordInOperand(0));
  if (model != spv::ExecutionModel::GLCompute) {
    if (!info->sites.empty() || !collected) {
      Refuse(Missed::kNotCompute, *info, info->first_use);
    }
    return false;
  }
  if (context()->get_feature_mgr()->HasCapability(spv::Capability::Kernel)) {
    Refuse(Missed::kKernelModule, *info, nullptr);
    return false;
  }
  if (!collected) {
    Refuse(Missed::kUnsupportedBuiltInUse, *info, info->first_use, why);
    return false;
  }
  Missed refusal = Missed::kUnsupportedWorkgroupSize;
  const bool sized = ResolveShape(info->entry, &info->shape, &refusal, &why);
  if (info->sites.empty()) {
    if (sized) {
      Analyse(*info, run, lanes);
      if (lanes->evaluator->ReadsSubgroupBuiltIns() && QuadOrdered(*info, lanes)) {
        return false;
      }
    }
    Refuse(Missed::kNoInvocationIds, *info, nullptr);
    return false;
  }
  if (!sized) {
    Refuse(refusal, *info, info->first_use, why);
    return false;
  }
  bool shared = false;
  for (Function* f : info->reached) {
    shared |= run->reach_count[f->result_id()] > 1;
  }
  if (shared) {
    Refuse(Missed::kSharedFunctions, *info, info->first_use);
    return false;
  }
  return true;
}

void MortonRemapPass::Analyse(const EntryInfo& info, Run* run, Lanes* lanes) {
  if (run->uniformity == nullptr) {
    run->uniformity = &UniformityOf(context(), run->changed ? nullptr : config().uniformity.get(),
                                    &run->own_uniformity);
  }
  lanes->evaluator = std::make_unique<InvocationEvaluator>(
      context(), info.function, WorkgroupSize{info.shape.x, info.shape.y, info.shape.z},
      run->uniformity);
  if (!lanes->collected_accesses) {
    lanes->accesses = CollectLaneAccesses(context(), info.reached);
  }
  lanes->maps = LaneMaps(lanes->evaluator.get(), lanes->accesses);
}

bool MortonRemapPass::EvaluateLanes(EntryInfo* info, Run* run, Lanes* lanes, Plan* plan) {
  // The grid path relabels LocalInvocationId/GlobalInvocationId of a 2-D
  // workgroup; the index path relabels the flat index a kernel splits
  // itself (1-D workgroups, or 2-D ones that read only the index).
  bool reads_grid = false;
  for (const Site& site : info->sites) reads_grid |= site.kind != kLocalIndex;
  info->index_path = info->shape.y == 1 || !reads_grid;
  if (!info->index_path && (info->shape.x % 2 != 0 || info->shape.y % 2 != 0)) {
    // The grid path needs 2x2 lane blocks: refused before the
    // per-invocation evaluation, which cannot change it (compile time: a
    // 1x256 workgroup's evaluation was most of -O's time in the pass).
    Refuse(Missed::kOddWorkgroupSize, *info, info->first_use,
           "the " + plan->shape_text + " has an odd side: there are no 2x2 lane blocks");
    return false;
  }
  if (params_.mode == Mode::kProfitable) {
    // No image access at all: nothing to split (the index path) or to put
    // on 2x2 lane blocks (the grid path: its 2-D weight is 0), refused
    // before the per-invocation evaluation (its cost grows with the
    // workgroup and the accesses), so ahead of AlreadyQuadOrdered and the
    // subgroup dependences. always= and force= keep that order: run again
    // on their own output (a buffer kernel relabelled by always=), they
    // report it quad-ordered.
    lanes->accesses = CollectLaneAccesses(context(), info->reached);
    lanes->collected_accesses = true;
    if (std::none_of(lanes->accesses.begin(), lanes->accesses.end(),
                     [](const LaneAccess& a) { return IsTiled(a.kind); })) {
      if (info->index_path) {
        RefuseLinearIndex(*info, plan->shape_text);
      } else {
        Refuse(Missed::kNotProfitable, *info, info->first_use,
               "the kernel has no 2-D image access (buffers and shared memory only): "
               "nothing gains from 2x2 lane quads (--morton-remap=always overrides)");
      }
      return false;
    }
  }
  Analyse(*info, run, lanes);
  if (QuadOrdered(*info, lanes)) return false;
  plan->dependent = SubgroupDependence(*info, &plan->dependence);
  if (plan->dependent && params_.mode != Mode::kForce) {
    Refuse(plan->dependence.name, *info, plan->dependence.where,
           plan->dependence.why +
               "; relabelling invocations would change it "
               "(--morton-remap=force overrides)");
    return false;
  }
  return true;
}

bool MortonRemapPass::QuadOrdered(const EntryInfo& info, Lanes* lanes) {
  LaneMaps& maps = lanes->maps;
  const int ordered = FirstQuadOrderedItem(&maps);
  if (ordered < 0) return false;
  const LaneItem& item = maps.items()[ordered];
  LaneLayout layout;
  uint32_t dims = 2;
  for (size_t e = 0; e < maps.envs().size(); ++e) {
    const LaneMap& map = maps.Map(e, ordered);
    if (map.ok) {
      layout = ClassifyLaneMap(map);
      dims = map.dims;
      break;
    }
  }
  std::string what =
      OpText(item.access->inst->opcode()) + " (" + MemoryKindName(item.access->kind) + ")";
  Refuse(Missed::kAlreadyQuadOrdered, info, item.access->inst,
         what + " already puts lanes 4k..4k+3 on one 2x2 block" +
             (dims == 1 ? " of its row-major index (a, a+1, a+W, "
                          "a+W+1)"
                        : "") +
             (layout.step_x > 1 || layout.step_y > 1 ? " (steps " + std::to_string(layout.step_x) +
                                                           "," + std::to_string(layout.step_y) + ")"
                                                     : std::string()) +
             (maps.envs().front().subgroup_size != 0 ? " at every subgroup size from 4 to 64"
                                                     : std::string()) +
             ": the kernel is quad-ordered already, and a second "
             "permutation would undo it");
  return true;
}

void MortonRemapPass::RefuseLinearIndex(const EntryInfo& info, const std::string& shape_text) {
  Refuse(Missed::kLinearIndex, info, info.first_use,
         "the " + shape_text +
             ": no 2-D image access splits its invocation "
             "index into rows or columns of lanes (x = i % W, "
             "y = i / W, their bit-field forms, or blocks of "
             "them; evaluated for every invocation), so there "
             "are no pixel rows to put on 2x2 lane blocks");
}

bool MortonRemapPass::ChoosePermutation(EntryInfo* info, Lanes* lanes, Plan* plan) {
  const Shape& shape = info->shape;
  plan->perm.assign(shape.x * shape.y, 0);
  if (info->index_path) return IndexPermutation(info, lanes, plan);
  // RemapCoords() of every invocation, from the coordinates within one
  // tile, which depend on the index modulo the tile's size only (compile
  // time: one RemapCoords() per position in a tile, not per invocation).
  const uint32_t tw = TileSide(shape.x), th = TileSide(shape.y), tile = tw * th;
  std::vector<uint32_t> tx(tile), ty(tile);
  for (uint32_t j = 0; j < tile; ++j) RemapCoords(j, shape.x, shape.y, &tx[j], &ty[j]);
  for (uint32_t l = 0; l < plan->perm.size(); ++l) {
    const uint32_t t = l / tile, per_row = shape.x / tw;
    const uint32_t x = tx[l % tile] + tw * (t % per_row), y = ty[l % tile] + th * (t / per_row);
    plan->perm[l] = y * shape.x + x;
  }
  plan->layout_text = "Morton order in " + std::to_string(TileSide(shape.x)) + "x" +
                      std::to_string(TileSide(shape.y)) + " tiles";
  return true;
}

bool MortonRemapPass::IndexPermutation(EntryInfo* info, Lanes* lanes, Plan* plan) {
  Decomposition odd;
  if (!HeaviestDecomposition(lanes, &info->decomposition, &odd)) {
    if (odd.block == 0) {
      RefuseLinearIndex(*info, plan->shape_text);
      return false;
    }
    Refuse(Missed::kOddWorkgroupSize, *info, info->first_use,
           "the " + plan->shape_text + " splits its index into " + std::to_string(odd.width) + "x" +
               std::to_string(odd.height) +
               " grids of lanes: an odd side leaves no 2x2 lane blocks");
    return false;
  }
  const uint32_t n = info->shape.x * info->shape.y;
  const Decomposition& d = info->decomposition;
  for (uint32_t l = 0; l < n; ++l) plan->perm[l] = RemapIndex(l, n, d);
  plan->layout_text =
      "the index is split into " +
      (d.block == n ? std::string() : "blocks of " + std::to_string(d.block) + " lanes, ") +
      std::to_string(d.width) + "x" + std::to_string(d.height) +
      (d.transposed ? " column by column" : " row by row") + " (Morton order in " +
      std::to_string(TileSide(d.width)) + "x" + std::to_string(TileSide(d.height)) + " tiles)";
  return true;
}

bool MortonRemapPass::HeaviestDecomposition(Lanes* lanes, Decomposition* best, Decomposition* odd) {
  // Each tiled item's decomposition, the same in every environment
  // (evaluated environment by environment, for the items still agreeing),
  // and the summed weight of each.
  const std::vector<Decomposition> splits = TiledDecompositions(&lanes->maps);
  std::vector<std::pair<Decomposition, double>> candidates;
  for (size_t i = 0; i < lanes->maps.items().size(); ++i) {
    const LaneItem& item = lanes->maps.items()[i];
    const Decomposition& d = splits[i];
    if (d.block == 0 || d.height < 2) continue;
    if (d.width % 2 != 0 || d.height % 2 != 0) {
      *odd = d;
      continue;
    }
    const double w =
        BlockWeight(item.access->function, context()->get_instr_block(item.access->inst)) *
        FrameWeight(*lanes->evaluator, item.frame);
    auto it = std::find_if(candidates.begin(), candidates.end(),
                           [&](const std::pair<Decomposition, double>& c) {
                             return c.first.block == d.block && c.first.width == d.width &&
                                    c.first.transposed == d.transposed;
                           });
    if (it == candidates.end()) {
      candidates.push_back({d, w});
    } else {
      it->second += w;
    }
  }
  if (candidates.empty()) return false;
  const std::pair<Decomposition, double>* heaviest = &candidates[0];
  for (const auto& c : candidates) {
    if (c.second > heaviest->second) heaviest = &c;
  }
  *best = heaviest->first;
  return true;
}

MortonRemapPass::Weights MortonRemapPass::WeighAccesses(const EntryInfo& info, Lanes* lanes,
                                                        const std::vector<uint32_t>& perm) {
  // Tiled accesses whose coordinates vary in x and y (and, on the index
  // path, that the permutation puts on 2x2 quads) against linear ones that
  // differ within a quad of the original order.
  const auto taint = ComputeTaint(info);
  Weights weights;
  for (const LaneAccess& access : lanes->accesses) {
    double weight = 0;
    bool counts = false;
    if (!EvaluatedCounts(info, lanes, access, perm, &weight, &counts)) {
      counts = TaintCounts(info, taint, access);
    }
    if (!counts) continue;
    const auto k = static_cast<size_t>(access.kind);
    ++weights.count[k];
    weights.weight[k] += weight;
    (IsTiled(access.kind) ? weights.tiled : weights.linear) += weight;
  }
  return weights;
}

bool MortonRemapPass::EvaluatedCounts(const EntryInfo& info, Lanes* lanes, const LaneAccess& access,
                                      const std::vector<uint32_t>& perm, double* weight,
                                      bool* counts) {
  bool evaluated = false;
  for (size_t i = 0; i < lanes->maps.items().size(); ++i) {
    if (lanes->maps.items()[i].access != &access) continue;
    const LaneMap& map = lanes->maps.Map(0, i);
    const double w = BlockWeight(access.function, context()->get_instr_block(access.inst)) *
                     FrameWeight(*lanes->evaluator, lanes->maps.items()[i].frame);
    *weight = std::min(*weight + w, kMaxWeight);
    if (!map.ok) continue;
    evaluated = true;
    *counts |= MapCounts(info, access, map, perm);
  }
  return evaluated;
}

bool MortonRemapPass::MapCounts(const EntryInfo& info, const LaneAccess& access, const LaneMap& map,
                                const std::vector<uint32_t>& perm) {
  const uint32_t n = info.shape.x * info.shape.y;
  const LaneLayout layout = ClassifyLaneMap(map);
  if (IsTiled(access.kind)) {
    bool helps = map.dims == 2 && layout.varies_x && layout.varies_y;
    if (helps && info.index_path) {
      std::vector<LanePosition> after(n);
      for (uint32_t l = 0; l < n; ++l) after[l] = map.pos[perm[l]];
      helps = QuadOrdered2D(after);
    }
    return helps;
  }
  if (map.bytes.size() == n) {
    // Hurt when the permutation makes the access cost more: more 64-byte
    // lines per aligned 4-lane group (seed 004), or, in shared memory, more
    // bank conflicts per 32-lane wave.
    return access.kind == MemoryKind::kSharedMemory
               ? BankConflicts(map.bytes, &perm, 32) > BankConflicts(map.bytes, nullptr, 32)
               : LinesPerQuadGroup(map.bytes, &perm) > LinesPerQuadGroup(map.bytes, nullptr);
  }
  return layout.varies_within_quads;
}

bool MortonRemapPass::TaintCounts(const EntryInfo& info,
                                  const std::unordered_map<uint32_t, Taint>& taint,
                                  const LaneAccess& access) {
  auto taint_of = [&taint](uint32_t id) {
    auto it = taint.find(id);
    return it == taint.end() ? Taint{0, 0, 0, 0} : it->second;
  };
  // Not evaluable (data-dependent, or an unsupported instruction): what the
  // ids feed. Tiled: x and y from the grid built-ins.
  if (IsTiled(access.kind)) {
    const Taint t = taint_of(access.location);
    return !info.index_path && (t[0] & kVariesWithX) != 0 && (t[1] & kVariesWithY) != 0;
  }
  if (!access.is_chain) {
    return (taint_of(access.location)[0] & kVariesWithX) != 0;
  }
  bool counts = false;
  for (Instruction* c = get_def_use_mgr()->GetDef(access.location);
       c != nullptr && IsAccessChain(c->opcode());
       c = get_def_use_mgr()->GetDef(c->GetSingleWordInOperand(0))) {
    for (uint32_t i = 1; i < c->NumInOperands(); ++i) {
      counts |= (taint_of(c->GetSingleWordInOperand(i))[0] & kVariesWithX) != 0;
    }
  }
  return counts;
}

bool MortonRemapPass::Profitable(const EntryInfo& info, Lanes* lanes, const Weights& weights,
                                 const std::string& counted) {
  if (weights.tiled == 0) {
    Refuse(Missed::kNotProfitable, info, info.first_use,
           counted +
               ": no 2-D image access at invocation-dependent "
               "coordinates gains from 2x2 lane quads "
               "(--morton-remap=always overrides)");
    return false;
  }
  if (weights.linear >= weights.tiled) {
    Refuse(Missed::kNotProfitable, info, info.first_use,
           counted +
               ": linear accesses weigh at least as much, and "
               "Morton order breaks their 4- and 16-lane "
               "coalescing (--morton-remap=always overrides)");
    return false;
  }
  std::string own;
  if (OwnTexelsIntoReductions(lanes->accesses, &lanes->maps, &own)) {
    Refuse(Missed::kNotProfitable, info, info.first_use,
           counted + ": " + own +
               ": relabelling changes which invocation reads which "
               "texel, not which texels the workgroup reads, and "
               "only adds instructions (--morton-remap=always "
               "overrides)");
    return false;
  }
  return true;
}

std::string MortonRemapPass::AppliedText(const EntryInfo& info, const Plan& plan,
                                         const std::string& counted) const {
  std::string message = plan.shape_text + ", " + plan.layout_text + "; " +
                        std::to_string(info.sites.size()) +
                        " identity built-in load(s) relabelled; " + counted;
  if (params_.mode == Mode::kProfitable) {
    message += ": 2-D accesses outweigh linear ones";
  } else if (params_.mode == Mode::kAlways) {
    message += " (always)";
  } else {
    message += " (forced";
    if (plan.dependent) {
      message += ", although " + plan.dependence.why +
                 ": results that depend on subgroup membership change";
    }
    message += ")";
  }
  return message;
}

bool MortonRemapPass::OwnTexelsIntoReductions(const std::vector<LaneAccess>& accesses,
                                              LaneMaps* maps, std::string* what) {
  uint32_t count = 0;
  // Per environment, the first 2-D access's positions.
  std::vector<const std::vector<LanePosition>*> first(maps->envs().size());
  for (size_t i = 0; i < maps->items().size(); ++i) {
    const LaneAccess& access = *maps->items()[i].access;
    if (!IsTiled(access.kind)) continue;
    const spv::Op op = access.inst->opcode();
    if (op != spv::Op::OpImageRead && op != spv::Op::OpImageFetch) {
      return false;  // writes, samples, gathers: footprints or order
    }
    // Before the maps, which cost an evaluation of every invocation in
    // each environment: most reads feed arithmetic.
    if (!FeedsOnlyReductions(access.inst->result_id(), 0)) return false;
    for (size_t e = 0; e < maps->envs().size(); ++e) {
      const LaneMap& map = maps->Map(e, i);
      if (!map.ok || map.dims != 2) return false;
      // One texel per invocation: no two read the same one.
      std::vector<LanePosition> sorted = map.pos;
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
        return false;
      }
      // The same texel as the kernel's other 2-D accesses (else they are
      // neighbours, and which invocations share a wave matters).
      if (first[e] == nullptr) first[e] = &map.pos;
      if (map.pos != *first[e]) return false;
    }
    ++count;
  }
  // Accesses not evaluated on any path are not in the items: every tiled
  // access of the kernel must be.
  for (const LaneAccess& access : accesses) {
    if (!IsTiled(access.kind)) continue;
    bool listed = false;
    for (const LaneItem& item : maps->items()) listed |= item.access == &access;
    if (!listed) return false;
  }
  if (count == 0) return false;
  *what = "every 2-D access (" + std::to_string(count) +
          ") reads the invocation's own texel, one per invocation, and "
          "its value feeds only commutative reductions (atomics, subgroup "
          "reductions)";
  return true;
}

bool MortonRemapPass::FeedsOnlyReductions(uint32_t id, int depth) {
  if (depth > 32) return false;
  bool only = true;
  get_def_use_mgr()->WhileEachUse(id, [&](Instruction* user, uint32_t index) {
    const spv::Op op = user->opcode();
    switch (op) {
      case spv::Op::OpName:
      case spv::Op::OpDecorate:
        return true;
      case spv::Op::OpAtomicIAdd:
      case spv::Op::OpAtomicISub:
      case spv::Op::OpAtomicSMin:
      case spv::Op::OpAtomicUMin:
      case spv::Op::OpAtomicSMax:
      case spv::Op::OpAtomicUMax:
      case spv::Op::OpAtomicAnd:
      case spv::Op::OpAtomicOr:
      case spv::Op::OpAtomicXor:
      case spv::Op::OpAtomicFAddEXT:
      case spv::Op::OpAtomicFMinEXT:
      case spv::Op::OpAtomicFMaxEXT:
        // Operand 0 result type, 1 result id, 2 pointer, 3 scope, 4
        // semantics, 5 value: only the value.
        only = index == 5;
        return only;
      case spv::Op::OpStore: {
        // Into an invocation-private variable: follow its loads.
        Instruction* var = get_def_use_mgr()->GetDef(user->GetSingleWordInOperand(0));
        if (index != 1 || var->opcode() != spv::Op::OpVariable ||
            spv::StorageClass(var->GetSingleWordInOperand(0)) != spv::StorageClass::Function) {
          only = false;
          return false;
        }
        get_def_use_mgr()->WhileEachUser(var, [&](Instruction* use) {
          if (use->opcode() == spv::Op::OpLoad) {
            only = FeedsOnlyReductions(use->result_id(), depth + 1);
          } else {
            only = use->opcode() == spv::Op::OpStore || use->opcode() == spv::Op::OpName;
          }
          return only;
        });
        return only;
      }
      default:
        break;
    }
    switch (op) {
      case spv::Op::OpGroupNonUniformIAdd:
      case spv::Op::OpGroupNonUniformFAdd:
      case spv::Op::OpGroupNonUniformIMul:
      case spv::Op::OpGroupNonUniformFMul:
      case spv::Op::OpGroupNonUniformSMin:
      case spv::Op::OpGroupNonUniformUMin:
      case spv::Op::OpGroupNonUniformFMin:
      case spv::Op::OpGroupNonUniformSMax:
      case spv::Op::OpGroupNonUniformUMax:
      case spv::Op::OpGroupNonUniformFMax:
      case spv::Op::OpGroupNonUniformBitwiseAnd:
      case spv::Op::OpGroupNonUniformBitwiseOr:
      case spv::Op::OpGroupNonUniformBitwiseXor:
        // A Reduce (in-operands: scope, operation, value): the same for any
        // order of its lanes' values.
        only =
            user->NumInOperands() == 3 &&
            spv::GroupOperation(user->GetSingleWordInOperand(1)) == spv::GroupOperation::Reduce &&
            index == 4 && FeedsOnlyReductions(user->result_id(), depth + 1);
        return only;
      default:
        break;
    }
    // Arithmetic, conversions, composites: follow the result.
    only = user->opcode() != spv::Op::OpLoad && user->HasResultId() &&
           context()->IsCombinatorInstruction(user) && !spvOpcodeIsImageSample(op) &&
           FeedsOnlyReductions(user->result_id(), depth + 1);
    return only;
  });
  return only;
}

}  // namespace waveopt
