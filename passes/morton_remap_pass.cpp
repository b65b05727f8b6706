// morton-remap: see the header for the rewrite; docs/passes/morton-remap.md
// for remarks, options and the measured effect.
#include "passes/morton_remap_pass.h"

#include <algorithm>
#include <deque>
#include <memory>

#include "passes/emitter.h"
#include "source/opcode.h"
#include "source/opt/decoration_manager.h"
#include "source/opt/ir_context.h"
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
         op == spv::Op::OpPtrAccessChain ||
         op == spv::Op::OpInBoundsPtrAccessChain;
}

// Opcodes whose in-operand 1 is the coordinate of an image access.
bool IsImageAccess(spv::Op op) {
  switch (op) {
    case spv::Op::OpImageRead:
    case spv::Op::OpImageWrite:
    case spv::Op::OpImageFetch:
    case spv::Op::OpImageGather:
    case spv::Op::OpImageDrefGather:
    case spv::Op::OpImageTexelPointer:
    case spv::Op::OpImageSparseRead:
    case spv::Op::OpImageSparseFetch:
    case spv::Op::OpImageSparseGather:
    case spv::Op::OpImageSparseDrefGather:
      return true;
    default:
      return spvOpcodeIsImageSample(op);
  }
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
std::string OpText(spv::Op op) {
  return std::string("Op") + spvOpcodeString(op);
}

std::string ShapeText(uint32_t x, uint32_t y, uint32_t z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

// Emits the remapped identity values at one load site, each at most once.
// Every getter returns 0 (and leaves the emitter failed) when ids run out.
class RemapBuilder {
 public:
  RemapBuilder(Emitter* e, uint32_t size_x, uint32_t size_y, uint32_t index_var,
               uint32_t index_type, uint32_t wg_var, uint32_t wg_type)
      : e_(e),
        size_x_(size_x),
        size_y_(size_y),
        index_var_(index_var),
        index_type_(index_type),
        wg_var_(wg_var),
        wg_type_(wg_type) {
    uint_ = e_->UIntType(32);
    v3uint_ = e_->UIntVectorType(3);
  }

  uint32_t UIntType() const { return uint_; }
  uint32_t V3UIntType() const { return v3uint_; }

  // The new x coordinate (1-D: the new index).
  uint32_t X() {
    if (x_ == 0) x_ = MortonX();
    return x_;
  }
  // The new y coordinate (1-D: 0).
  uint32_t Y() {
    if (y_ == 0) y_ = MortonY();
    return y_;
  }
  // The new LocalInvocationIndex: y * X + x.
  uint32_t Index() {
    if (index_ != 0) return index_;
    if (size_y_ == 1) return index_ = X();
    const uint32_t x = X();
    const uint32_t y = Y();
    const uint32_t row =
        IsPowerOfTwo(size_x_)
            ? Op(spv::Op::OpShiftLeftLogical, y, e_->UInt(Log2(size_x_)))
            : Op(spv::Op::OpIMul, y, e_->UInt(size_x_));
    return index_ = Op(spv::Op::OpIAdd, row, x);
  }
  // Component |k| of the new LocalInvocationId.
  uint32_t LocalComponent(int k) {
    return k == 0 ? X() : k == 1 ? Y() : e_->UInt(0);
  }
  uint32_t LocalVector() {
    const uint32_t x = X();
    const uint32_t y = Y();
    return e_->EmitIds(spv::Op::OpCompositeConstruct, v3uint_,
                       {x, y, e_->UInt(0)});
  }
  // Component |k| of the new GlobalInvocationId: wg.k * size.k + local.k.
  uint32_t GlobalComponent(int k) {
    uint32_t wg_k = e_->Emit(
        spv::Op::OpCompositeExtract, uint_,
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
  uint32_t Op(spv::Op op, uint32_t a, uint32_t b) {
    return e_->EmitIds(op, uint_, {a, b});
  }
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
  // x = (l & 1) | ((l >> 2) & 6) plus the tile's origin (1-D: the new
  // index); see MortonRemapPass::RemapIndex. One instruction per statement:
  // argument evaluation order is unspecified, and the output must not
  // depend on the compiler.
  uint32_t MortonX() {
    const uint32_t l = L();
    const uint32_t bit0 = Op(spv::Op::OpBitwiseAnd, l, e_->UInt(1));
    const uint32_t shr2 = Op(spv::Op::OpShiftRightLogical, l, e_->UInt(2));
    const uint32_t bits12 = Op(spv::Op::OpBitwiseAnd, shr2, e_->UInt(6));
    const uint32_t x0 = Op(spv::Op::OpBitwiseOr, bit0, bits12);
    if (size_y_ == 1) {
      // 1-D: the index inside the 64-block becomes y * 8 + x.
      const uint32_t y0 = MortonY0();
      const uint32_t row = Op(spv::Op::OpShiftLeftLogical, y0, e_->UInt(3));
      const uint32_t in_block = Op(spv::Op::OpBitwiseOr, row, x0);
      if (size_x_ == 64) return in_block;
      const uint32_t block = Op(spv::Op::OpBitwiseAnd, l, e_->UInt(~63u));
      return Op(spv::Op::OpBitwiseOr, block, in_block);
    }
    const uint32_t tiles_per_row = size_x_ / 8;
    if (tiles_per_row == 1) return x0;
    const uint32_t tile = Tile();
    const uint32_t tile_x =
        IsPowerOfTwo(tiles_per_row)
            ? Op(spv::Op::OpBitwiseAnd, tile, e_->UInt(tiles_per_row - 1))
            : Op(spv::Op::OpUMod, tile, e_->UInt(tiles_per_row));
    const uint32_t origin_x =
        Op(spv::Op::OpShiftLeftLogical, tile_x, e_->UInt(3));
    return Op(spv::Op::OpBitwiseOr, x0, origin_x);
  }
  // y = ((l >> 1) & 3) | ((l >> 3) & 4) plus the tile's origin (1-D: 0).
  uint32_t MortonY() {
    if (size_y_ == 1) return e_->UInt(0);
    const uint32_t y0 = MortonY0();
    const uint32_t tiles_per_row = size_x_ / 8;
    if (size_x_ == 8 && size_y_ == 8) return y0;  // one tile
    const uint32_t tile = Tile();
    uint32_t tile_y = tile;
    if (tiles_per_row > 1) {
      tile_y = IsPowerOfTwo(tiles_per_row)
                   ? Op(spv::Op::OpShiftRightLogical, tile,
                        e_->UInt(Log2(tiles_per_row)))
                   : Op(spv::Op::OpUDiv, tile, e_->UInt(tiles_per_row));
    }
    const uint32_t origin_y =
        Op(spv::Op::OpShiftLeftLogical, tile_y, e_->UInt(3));
    return Op(spv::Op::OpBitwiseOr, y0, origin_y);
  }
  // The in-tile y: ((l >> 1) & 3) | ((l >> 3) & 4).
  uint32_t MortonY0() {
    const uint32_t l = L();
    const uint32_t shr1 = Op(spv::Op::OpShiftRightLogical, l, e_->UInt(1));
    const uint32_t bits01 = Op(spv::Op::OpBitwiseAnd, shr1, e_->UInt(3));
    const uint32_t shr3 = Op(spv::Op::OpShiftRightLogical, l, e_->UInt(3));
    const uint32_t bit2 = Op(spv::Op::OpBitwiseAnd, shr3, e_->UInt(4));
    return Op(spv::Op::OpBitwiseOr, bits01, bit2);
  }
  // The 8x8 tile (64-invocation block) of the invocation: l >> 6.
  uint32_t Tile() {
    if (tile_ == 0) tile_ = Op(spv::Op::OpShiftRightLogical, L(), e_->UInt(6));
    return tile_;
  }

  Emitter* e_;
  uint32_t size_x_, size_y_;
  uint32_t index_var_, index_type_, wg_var_, wg_type_;
  uint32_t uint_ = 0, v3uint_ = 0;
  uint32_t l_ = 0, wg_ = 0, x_ = 0, y_ = 0, index_ = 0, tile_ = 0;
};

}  // namespace

bool MortonRemapPass::ParseParams(const std::string& text, Params* params,
                                  std::string* error) {
  std::vector<std::pair<std::string, std::string>> items;
  if (!SplitParams(text, &items, error)) return false;
  for (const auto& [key, value] : items) {
    if (key == "always" && value.empty()) {
      if (params->mode != Mode::kForce) params->mode = Mode::kAlways;
    } else if (key == "force" && value.empty()) {
      params->mode = Mode::kForce;
    } else {
      *error = "unknown parameter '" + key + "' (expected always or force)";
      return false;
    }
  }
  return true;
}

void MortonRemapPass::RemapIndex(uint32_t l, uint32_t size_x, uint32_t size_y,
                                 uint32_t* x, uint32_t* y) {
  const uint32_t x0 = (l & 1u) | ((l >> 2) & 6u);
  const uint32_t y0 = ((l >> 1) & 3u) | ((l >> 3) & 4u);
  if (size_y == 1) {
    *x = (l & ~63u) | (y0 << 3) | x0;
    *y = 0;
    return;
  }
  const uint32_t tile = l >> 6;
  const uint32_t tiles_per_row = size_x / 8;
  *x = x0 + 8 * (tile % tiles_per_row);
  *y = y0 + 8 * (tile / tiles_per_row);
}

MortonRemapPass::MortonRemapPass(PassConfig config)
    : WavePass(std::move(config)) {
  std::string ignored;
  ParseParams(this->config().params, &params_, &ignored);
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
  Instruction* def = get_def_use_mgr()->GetDef(id);
  if (def == nullptr) return false;
  if (def->opcode() != spv::Op::OpConstant &&
      def->opcode() != spv::Op::OpSpecConstant) {
    return false;
  }
  const auto* type = context()->get_type_mgr()->GetType(def->type_id());
  if (type == nullptr || type->AsInteger() == nullptr ||
      type->AsInteger()->width() != 32) {
    return false;
  }
  *value = def->GetSingleWordInOperand(0);
  if (def->opcode() == spv::Op::OpSpecConstant) *spec = true;
  return true;
}

std::string MortonRemapPass::ResolveShape(Instruction* entry, Shape* shape,
                                          std::string* why) {
  const uint32_t func_id = entry->GetSingleWordInOperand(1);
  bool found = false;
  // The WorkgroupSize built-in, when present, overrides the execution modes.
  for (Instruction& a : get_module()->annotations()) {
    if (a.opcode() != spv::Op::OpDecorate ||
        a.GetSingleWordInOperand(1) !=
            static_cast<uint32_t>(spv::Decoration::BuiltIn) ||
        a.GetSingleWordInOperand(2) !=
            static_cast<uint32_t>(spv::BuiltIn::WorkgroupSize)) {
      continue;
    }
    Instruction* c = get_def_use_mgr()->GetDef(a.GetSingleWordInOperand(0));
    uint32_t v[3] = {0, 0, 0};
    bool ok = c != nullptr &&
              (c->opcode() == spv::Op::OpConstantComposite ||
               c->opcode() == spv::Op::OpSpecConstantComposite) &&
              c->NumInOperands() == 3;
    for (uint32_t i = 0; ok && i < 3; ++i) {
      ok = ConstantValue(c->GetSingleWordInOperand(i), &v[i],
                         &shape->from_spec_constant);
    }
    if (!ok) {
      *why =
          "the WorkgroupSize built-in is not a composite of integer "
          "constants or specialization constants";
      return "UnsupportedWorkgroupSize";
    }
    shape->x = v[0];
    shape->y = v[1];
    shape->z = v[2];
    shape->source = "the WorkgroupSize built-in";
    found = true;
    break;
  }
  for (Instruction& mode : get_module()->execution_modes()) {
    if (found) break;
    if (mode.GetSingleWordInOperand(0) != func_id) continue;
    const auto m =
        static_cast<spv::ExecutionMode>(mode.GetSingleWordInOperand(1));
    if (mode.opcode() == spv::Op::OpExecutionMode &&
        m == spv::ExecutionMode::LocalSize) {
      shape->x = mode.GetSingleWordInOperand(2);
      shape->y = mode.GetSingleWordInOperand(3);
      shape->z = mode.GetSingleWordInOperand(4);
      shape->source = "LocalSize";
      found = true;
    } else if (mode.opcode() == spv::Op::OpExecutionModeId &&
               m == spv::ExecutionMode::LocalSizeId) {
      uint32_t v[3] = {0, 0, 0};
      for (uint32_t i = 0; i < 3; ++i) {
        if (!ConstantValue(mode.GetSingleWordInOperand(2 + i), &v[i],
                           &shape->from_spec_constant)) {
          *why =
              "a LocalSizeId operand is not an integer constant or "
              "specialization constant";
          return "UnsupportedWorkgroupSize";
        }
      }
      shape->x = v[0];
      shape->y = v[1];
      shape->z = v[2];
      shape->source = "LocalSizeId";
      found = true;
    }
  }
  if (!found) {
    *why = "the entry point has no LocalSize, LocalSizeId or WorkgroupSize";
    return "UnsupportedWorkgroupSize";
  }
  const bool two_d = shape->z == 1 && shape->x % 8 == 0 && shape->y % 8 == 0 &&
                     shape->x > 0 && shape->y > 0;
  const bool one_d =
      shape->z == 1 && shape->y == 1 && shape->x % 64 == 0 && shape->x > 0;
  if (!two_d && !one_d) {
    *why = "the workgroup is " + ShapeText(shape->x, shape->y, shape->z) +
           " (from " + shape->source +
           (shape->from_spec_constant ? ", specialization constant defaults"
                                      : "") +
           "); the remap needs X and Y multiples of 8 and Z = 1, or 64·k x 1 "
           "x 1";
    return "UnsupportedWorkgroupSize";
  }
  return "";
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
          if (ConstantValue(inst->GetSingleWordInOperand(1), &k, &spec) &&
              !spec && k < 3) {
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

bool MortonRemapPass::AlreadyRemapped(const EntryInfo& info) {
  auto* def_use = get_def_use_mgr();
  // Whether |inst| is "|value| & |mask|".
  auto is_and = [this](Instruction* inst, uint32_t value, uint32_t mask) {
    if (inst->opcode() != spv::Op::OpBitwiseAnd) return false;
    for (uint32_t i = 0; i < 2; ++i) {
      uint32_t c = 0;
      bool spec = false;
      if (inst->GetSingleWordInOperand(i) == value &&
          ConstantValue(inst->GetSingleWordInOperand(1 - i), &c, &spec) &&
          !spec && c == mask) {
        return true;
      }
    }
    return false;
  };
  // Whether |l| (the loaded index) feeds (l >> 2) & 6 or (l >> 3) & 4.
  auto feeds_pattern = [&](Instruction* l) {
    return !def_use->WhileEachUser(l, [&](Instruction* shift) {
      uint32_t amount = 0;
      bool spec = false;
      if (shift->opcode() != spv::Op::OpShiftRightLogical ||
          shift->GetSingleWordInOperand(0) != l->result_id() ||
          !ConstantValue(shift->GetSingleWordInOperand(1), &amount, &spec) ||
          spec || (amount != 2 && amount != 3)) {
        return true;
      }
      const uint32_t mask = amount == 2 ? 6u : 4u;
      return def_use->WhileEachUser(shift, [&](Instruction* use) {
        return !is_and(use, shift->result_id(), mask);
      });
    });
  };
  // The loaded index, its bitcasts, and loads of Function variables whose
  // one store stores it (unoptimised front-end output keeps `uint l =
  // gl_LocalInvocationIndex;` in such a variable).
  auto copies = [&](Instruction* load) {
    std::vector<Instruction*> out = {load};
    for (size_t i = 0; i < out.size(); ++i) {
      Instruction* value = out[i];
      def_use->ForEachUser(value, [&](Instruction* use) {
        if (use->opcode() == spv::Op::OpBitcast) out.push_back(use);
      });
      def_use->ForEachUser(value, [&](Instruction* use) {
        if (use->opcode() != spv::Op::OpStore ||
            use->GetSingleWordInOperand(1) != value->result_id()) {
          return;
        }
        Instruction* var = def_use->GetDef(use->GetSingleWordInOperand(0));
        if (var == nullptr || var->opcode() != spv::Op::OpVariable ||
            var->GetSingleWordInOperand(0) !=
                static_cast<uint32_t>(spv::StorageClass::Function)) {
          return;
        }
        uint32_t stores = 0;
        std::vector<Instruction*> loads;
        def_use->ForEachUser(var, [&](Instruction* u) {
          if (u->opcode() == spv::Op::OpStore) ++stores;
          if (u->opcode() == spv::Op::OpLoad) loads.push_back(u);
        });
        if (stores == 1) out.insert(out.end(), loads.begin(), loads.end());
      });
    }
    return out;
  };
  for (const Site& site : info.sites) {
    if (site.kind != kLocalIndex || site.component != -1) continue;
    for (Instruction* l : copies(site.load)) {
      if (feeds_pattern(l)) return true;
    }
  }
  return false;
}

std::string MortonRemapPass::SubgroupDependence(const EntryInfo& info,
                                                Instruction** where,
                                                std::string* name) {
  const uint32_t func_id = info.function->result_id();
  for (Instruction& mode : get_module()->execution_modes()) {
    if (mode.GetSingleWordInOperand(0) != func_id) continue;
    const auto m =
        static_cast<spv::ExecutionMode>(mode.GetSingleWordInOperand(1));
    if (m == spv::ExecutionMode::DerivativeGroupQuadsNV ||
        m == spv::ExecutionMode::DerivativeGroupLinearNV) {
      *name = "ComputeDerivatives";
      *where = info.first_use;
      return std::string("the entry point computes derivatives over ") +
             (m == spv::ExecutionMode::DerivativeGroupQuadsNV
                  ? "2x2 quads of invocation ids (DerivativeGroupQuadsNV)"
                  : "groups of 4 consecutive indices "
                    "(DerivativeGroupLinearNV)");
    }
  }
  // Built-ins that name a lane's place in its subgroup.
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
  std::string why;
  for (Function* func : info.reached) {
    func->WhileEachInst([&](Instruction* inst) {
      const spv::Op op = inst->opcode();
      const std::string op_name = OpText(op);
      if (op_name.rfind("OpGroup", 0) == 0 ||
          op_name.rfind("OpSubgroup", 0) == 0 ||
          op_name.find("CooperativeMatrix") != std::string::npos) {
        *name = "UsesSubgroupOps";
        why = op_name +
              ": the result depends on which invocations share a subgroup "
              "(or a quad)";
      } else if (op == spv::Op::OpControlBarrier ||
                 op == spv::Op::OpMemoryBarrier) {
        uint32_t scope = kScopeSubgroup;
        bool spec = false;
        if (!ConstantValue(inst->GetSingleWordInOperand(0), &scope, &spec) ||
            spec) {
          scope = kScopeSubgroup;
        }
        if (scope == kScopeSubgroup) {
          *name = "UsesSubgroupOps";
          why = op_name +
                " at Subgroup scope (or a non-constant scope) synchronises "
                "only the invocations of one subgroup";
        }
      } else if (IsDerivative(op)) {
        *name = "ComputeDerivatives";
        why = op_name + " takes derivatives across the invocations of a quad";
      } else {
        for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
          const Operand& operand = inst->GetInOperand(i);
          if (!spvIsIdType(operand.type)) continue;
          auto it = lane_vars.find(operand.words[0]);
          if (it == lane_vars.end()) continue;
          *name = "UsesSubgroupBuiltIn";
          why = std::string("the ") + it->second +
                " built-in depends on which invocations share a subgroup";
          break;
        }
      }
      if (!why.empty()) *where = inst;
      return why.empty();
    });
    if (!why.empty()) return why;
  }
  return "";
}

MortonRemapPass::Counts MortonRemapPass::CountAccesses(const EntryInfo& info) {
  auto* def_use = get_def_use_mgr();
  auto* types = context()->get_type_mgr();
  std::unordered_map<uint32_t, Taint> taint;  // values, memory roots, returns
  auto get = [&taint](uint32_t id) {
    auto it = taint.find(id);
    return it == taint.end() ? Taint{0, 0, 0, 0} : it->second;
  };
  auto any = [](const Taint& t) {
    return static_cast<uint8_t>(t[0] | t[1] | t[2] | t[3]);
  };
  auto splat = [](uint8_t v) { return Taint{v, v, v, v}; };
  bool changed = false;
  auto merge = [&](uint32_t id, const Taint& t) {
    if (any(t) == 0) return;
    Taint& cur = taint[id];
    for (int i = 0; i < 4; ++i) {
      if ((cur[i] | t[i]) != cur[i]) {
        cur[i] |= t[i];
        changed = true;
      }
    }
  };
  auto is_vector = [types](uint32_t type_id) {
    const auto* type = types->GetType(type_id);
    return type != nullptr && type->AsVector() != nullptr;
  };
  auto vector_size = [types](uint32_t type_id) -> uint32_t {
    const auto* type = types->GetType(type_id);
    return type && type->AsVector() ? type->AsVector()->element_count() : 1;
  };
  // The variable or function parameter |ptr| points into.
  auto root = [def_use](uint32_t ptr) {
    Instruction* def = def_use->GetDef(ptr);
    while (def != nullptr && (IsAccessChain(def->opcode()) ||
                              def->opcode() == spv::Op::OpCopyObject)) {
      def = def_use->GetDef(def->GetSingleWordInOperand(0));
    }
    return def;
  };

  // Seeds: the identity built-ins, per component.
  const bool one_d = info.shape.y == 1;
  for (const auto& [var, kind] : id_vars_) {
    if (kind == kLocalIndex) {
      taint[var] = splat(one_d ? kVariesWithX : kVariesWithX | kVariesWithY);
    } else {
      taint[var] = Taint{kVariesWithX, one_d ? uint8_t{0} : kVariesWithY, 0, 0};
    }
  }

  // Propagate to a fixed point (the lattice is finite; the bound is a guard).
  for (int round = 0; round < 64; ++round) {
    changed = false;
    for (Function* func : info.reached) {
      func->ForEachInst([&](Instruction* inst) {
        const spv::Op op = inst->opcode();
        const uint32_t result = inst->result_id();
        switch (op) {
          case spv::Op::OpLoad: {
            Instruction* r = root(inst->GetSingleWordInOperand(0));
            if (r == nullptr) return;
            Taint t = get(r->result_id());
            Instruction* p = def_use->GetDef(inst->GetSingleWordInOperand(0));
            if (p != r) {
              uint32_t k = 0;
              bool spec = false;
              if (IsAccessChain(p->opcode()) && p->NumInOperands() == 2 &&
                  get_def_use_mgr()->GetDef(p->GetSingleWordInOperand(0)) ==
                      r &&
                  ConstantValue(p->GetSingleWordInOperand(1), &k, &spec) &&
                  k < 4) {
                t = splat(t[k]);
              } else {
                t = splat(any(t));
              }
            }
            merge(result, is_vector(inst->type_id()) ? t : splat(any(t)));
            return;
          }
          case spv::Op::OpStore: {
            Instruction* r = root(inst->GetSingleWordInOperand(0));
            if (r == nullptr) return;
            const Taint t = get(inst->GetSingleWordInOperand(1));
            const bool whole =
                r->result_id() == inst->GetSingleWordInOperand(0);
            merge(r->result_id(), whole ? t : splat(any(t)));
            return;
          }
          case spv::Op::OpFunctionCall: {
            Function* callee =
                context()->GetFunction(inst->GetSingleWordInOperand(0));
            if (callee == nullptr) return;
            uint32_t i = 1;
            callee->ForEachParam([&](Instruction* param) {
              if (i >= inst->NumInOperands()) return;
              const uint32_t arg = inst->GetSingleWordInOperand(i++);
              Instruction* r = root(arg);
              const auto* type = types->GetType(param->type_id());
              if (type != nullptr && type->AsPointer() != nullptr &&
                  r != nullptr) {
                merge(param->result_id(), get(r->result_id()));
                merge(r->result_id(), get(param->result_id()));
              } else {
                merge(param->result_id(), get(arg));
              }
            });
            merge(result, get(callee->result_id()));
            return;
          }
          case spv::Op::OpReturnValue:
            merge(func->result_id(),
                  splat(any(get(inst->GetSingleWordInOperand(0)))));
            return;
          case spv::Op::OpCompositeExtract: {
            Taint t = get(inst->GetSingleWordInOperand(0));
            if (inst->NumInOperands() == 2 &&
                is_vector(def_use->GetDef(inst->GetSingleWordInOperand(0))
                              ->type_id())) {
              const uint32_t k = inst->GetSingleWordInOperand(1);
              merge(result, splat(k < 4 ? t[k] : 0));
            } else {
              merge(result, splat(any(t)));
            }
            return;
          }
          case spv::Op::OpCompositeConstruct: {
            if (!is_vector(inst->type_id())) break;
            Taint t = {0, 0, 0, 0};
            uint32_t slot = 0;
            for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
              const uint32_t part = inst->GetSingleWordInOperand(i);
              const Taint pt = get(part);
              const uint32_t n = vector_size(def_use->GetDef(part)->type_id());
              for (uint32_t j = 0; j < n && slot < 4; ++j) t[slot++] = pt[j];
            }
            merge(result, t);
            return;
          }
          case spv::Op::OpVectorShuffle: {
            const uint32_t a = inst->GetSingleWordInOperand(0);
            const uint32_t b = inst->GetSingleWordInOperand(1);
            const uint32_t na = vector_size(def_use->GetDef(a)->type_id());
            const Taint ta = get(a), tb = get(b);
            Taint t = {0, 0, 0, 0};
            for (uint32_t i = 2; i < inst->NumInOperands() && i < 6; ++i) {
              const uint32_t c = inst->GetSingleWordInOperand(i);
              if (c < na && c < 4) {
                t[i - 2] = ta[c];
              } else if (c >= na && c - na < 4) {
                t[i - 2] = tb[c - na];
              }
            }
            merge(result, t);
            return;
          }
          case spv::Op::OpVariable:
          case spv::Op::OpFunctionParameter:
          case spv::Op::OpLabel:
          case spv::Op::OpFunction:
            return;
          default:
            break;
        }
        if (result == 0 || inst->type_id() == 0 || IsAccessChain(op)) return;
        // Everything else: component-wise union of the operands (scalars
        // are stored splatted, so they broadcast).
        Taint t = {0, 0, 0, 0};
        for (uint32_t i = 0; i < inst->NumInOperands(); ++i) {
          const Operand& operand = inst->GetInOperand(i);
          if (!spvIsIdType(operand.type)) continue;
          const Taint ot = get(operand.words[0]);
          for (int c = 0; c < 4; ++c) t[c] |= ot[c];
        }
        merge(result, is_vector(inst->type_id()) ? t : splat(any(t)));
      });
    }
    if (!changed) break;
  }

  Counts counts;
  for (Function* func : info.reached) {
    func->ForEachInst([&](Instruction* inst) {
      const spv::Op op = inst->opcode();
      if (IsImageAccess(op) && inst->NumInOperands() > 1) {
        if (any(get(inst->GetSingleWordInOperand(1))) != 0) ++counts.images;
        return;
      }
      if (!IsAccessChain(op)) return;
      // Count the chain that reaches memory, not the chains it is built of.
      const bool used_directly = !def_use->WhileEachUser(
          inst,
          [](Instruction* user) { return IsAccessChain(user->opcode()); });
      if (!used_directly) return;
      Instruction* r = root(inst->result_id());
      if (r == nullptr || r->opcode() != spv::Op::OpVariable) return;
      const auto sc =
          static_cast<spv::StorageClass>(r->GetSingleWordInOperand(0));
      if (sc != spv::StorageClass::StorageBuffer &&
          sc != spv::StorageClass::Uniform &&
          sc != spv::StorageClass::PhysicalStorageBuffer) {
        return;
      }
      bool varies_with_x = false;
      for (Instruction* c = inst; c != nullptr && IsAccessChain(c->opcode());
           c = def_use->GetDef(c->GetSingleWordInOperand(0))) {
        for (uint32_t i = 1; i < c->NumInOperands(); ++i) {
          if (get(c->GetSingleWordInOperand(i))[0] & kVariesWithX) {
            varies_with_x = true;
          }
        }
      }
      if (varies_with_x) ++counts.linear_buffers;
    });
  }
  return counts;
}

uint32_t MortonRemapPass::BuiltInVar(uint32_t builtin, bool vector,
                                     Instruction* entry) {
  uint32_t var = 0;
  auto it = builtin_vars_.find(builtin);
  if (it != builtin_vars_.end() && !it->second.empty()) var = it->second[0];
  if (var == 0) {
    // SPIRV-Tools' type manager dereferences null when ids run out while it
    // declares a type: keep the same room the Emitter keeps.
    if (context()->module()->IdBound() + 4 > context()->max_id_bound()) return 0;
    auto* types = context()->get_type_mgr();
    const uint32_t pointee =
        vector ? types->GetUIntVectorTypeId(3) : types->GetUIntTypeId();
    if (pointee == 0) return 0;
    const uint32_t ptr =
        types->FindPointerToType(pointee, spv::StorageClass::Input);
    if (ptr == 0) return 0;
    var = context()->TakeNextId();
    if (var == 0) return 0;
    context()->AddGlobalValue(std::make_unique<Instruction>(
        context(), spv::Op::OpVariable, ptr, var,
        std::vector<Operand>{
            {SPV_OPERAND_TYPE_STORAGE_CLASS,
             {static_cast<uint32_t>(spv::StorageClass::Input)}}}));
    context()->get_decoration_mgr()->AddDecorationVal(
        var, static_cast<uint32_t>(spv::Decoration::BuiltIn), builtin);
    const char* name =
        builtin == static_cast<uint32_t>(spv::BuiltIn::WorkgroupId)
            ? "gl_WorkGroupID"
            : "gl_LocalInvocationIndex";
    context()->AddDebug2Inst(std::make_unique<Instruction>(
        context(), spv::Op::OpName, 0, 0,
        std::vector<Operand>{{SPV_OPERAND_TYPE_ID, {var}},
                             {SPV_OPERAND_TYPE_LITERAL_STRING,
                              spvtools::utils::MakeVector(name)}}));
    builtin_vars_[builtin].push_back(var);
  }
  for (uint32_t i = 3; i < entry->NumInOperands(); ++i) {
    if (entry->GetSingleWordInOperand(i) == var) return var;
  }
  entry->AddOperand({SPV_OPERAND_TYPE_ID, {var}});
  get_def_use_mgr()->AnalyzeInstUse(entry);
  return var;
}

bool MortonRemapPass::Rewrite(const EntryInfo& info) {
  bool wants_global = false;
  for (const Site& site : info.sites) wants_global |= site.kind == kGlobalId;
  const uint32_t index_var =
      BuiltInVar(static_cast<uint32_t>(spv::BuiltIn::LocalInvocationIndex),
                 false, info.entry);
  const uint32_t wg_var =
      wants_global
          ? BuiltInVar(static_cast<uint32_t>(spv::BuiltIn::WorkgroupId), true,
                       info.entry)
          : 0;
  if (index_var == 0 || (wants_global && wg_var == 0)) return false;
  auto pointee = [this](uint32_t var) -> uint32_t {
    if (var == 0) return 0;
    Instruction* ptr =
        get_def_use_mgr()->GetDef(get_def_use_mgr()->GetDef(var)->type_id());
    return ptr->GetSingleWordInOperand(1);
  };

  std::vector<Instruction*> chains;
  for (const Site& site : info.sites) {
    Instruction* load = site.load;
    BasicBlock* block = context()->get_instr_block(load);
    auto where = block->begin();
    while (&*where != load) ++where;
    Emitter e(context(), block, where);
    RemapBuilder b(&e, info.shape.x, info.shape.y, index_var,
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
      value =
          e.EmitIds(spv::Op::OpVectorExtractDynamic, type, {vec, site.index});
    }
    if (e.ok() && type != load->type_id()) {
      value = e.EmitIds(spv::Op::OpBitcast, load->type_id(), {value});
    }
    if (!e.ok() || value == 0) return false;
    Instruction* pointer =
        get_def_use_mgr()->GetDef(load->GetSingleWordInOperand(0));
    if (IsAccessChain(pointer->opcode()) &&
        std::find(chains.begin(), chains.end(), pointer) == chains.end()) {
      chains.push_back(pointer);
    }
    context()->ReplaceAllUsesWith(load->result_id(), value);
    context()->KillInst(load);
  }
  for (Instruction* chain : chains) {
    bool unused = get_def_use_mgr()->WhileEachUser(
        chain, [](Instruction*) { return false; });
    if (unused) context()->KillInst(chain);
  }
  return true;
}

spvtools::opt::Pass::Status MortonRemapPass::Process() {
  builtin_vars_.clear();
  id_vars_.clear();
  for (Instruction& a : get_module()->annotations()) {
    if (a.opcode() != spv::Op::OpDecorate ||
        a.GetSingleWordInOperand(1) !=
            static_cast<uint32_t>(spv::Decoration::BuiltIn)) {
      continue;
    }
    const uint32_t target = a.GetSingleWordInOperand(0);
    Instruction* def = get_def_use_mgr()->GetDef(target);
    if (def == nullptr || def->opcode() != spv::Op::OpVariable ||
        def->GetSingleWordInOperand(0) !=
            static_cast<uint32_t>(spv::StorageClass::Input)) {
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

  // Functions each entry point reaches, to find code shared between them.
  std::vector<EntryInfo> entries;
  std::unordered_map<uint32_t, uint32_t> reach_count;  // function → entries
  for (Instruction& entry : get_module()->entry_points()) {
    EntryInfo info;
    info.entry = &entry;
    info.function = context()->GetFunction(entry.GetSingleWordInOperand(1));
    if (info.function == nullptr) continue;
    info.reached = Reached(info.function);
    for (Function* f : info.reached) ++reach_count[f->result_id()];
    entries.push_back(std::move(info));
  }

  bool changed = false;
  for (EntryInfo& info : entries) {
    Function* func = info.function;
    std::string why;
    const bool collected = CollectSites(&info, &why);
    const auto model =
        static_cast<spv::ExecutionModel>(info.entry->GetSingleWordInOperand(0));
    if (model != spv::ExecutionModel::GLCompute) {
      if (!info.sites.empty() || !collected) {
        EmitRemark(RemarkKind::kMissed, "NotCompute", func, info.first_use,
                   "only GLCompute entry points are remapped");
      }
      continue;
    }
    if (context()->get_feature_mgr()->HasCapability(spv::Capability::Kernel)) {
      EmitRemark(RemarkKind::kMissed, "KernelModule", func, nullptr,
                 "OpenCL kernels are not supported; only Shader modules");
      continue;
    }
    if (!collected) {
      EmitRemark(RemarkKind::kMissed, "UnsupportedBuiltInUse", func,
                 info.first_use, why);
      continue;
    }
    if (info.sites.empty()) {
      EmitRemark(RemarkKind::kMissed, "NoInvocationIds", func, nullptr,
                 "the entry point does not read LocalInvocationId, "
                 "GlobalInvocationId or LocalInvocationIndex: nothing to "
                 "relabel");
      continue;
    }
    if (AlreadyRemapped(info)) {
      EmitRemark(RemarkKind::kMissed, "AlreadyRemapped", func, info.first_use,
                 "LocalInvocationIndex already feeds the Morton bit pattern "
                 "((l >> 2) & 6, (l >> 3) & 4): this pass's output or a "
                 "hand-written ARmpRed8x8");
      continue;
    }
    std::string reason = ResolveShape(info.entry, &info.shape, &why);
    if (!reason.empty()) {
      EmitRemark(RemarkKind::kMissed, reason, func, info.first_use, why);
      continue;
    }
    bool shared = false;
    for (Function* f : info.reached) shared |= reach_count[f->result_id()] > 1;
    if (shared) {
      EmitRemark(RemarkKind::kMissed, "SharedFunctions", func, info.first_use,
                 "a function this entry point reaches is also reached by "
                 "another entry point, which would see the relabelled ids");
      continue;
    }
    Instruction* where = nullptr;
    std::string dependence_name;
    const std::string dependence =
        SubgroupDependence(info, &where, &dependence_name);
    if (!dependence.empty() && params_.mode != Mode::kForce) {
      EmitRemark(RemarkKind::kMissed, dependence_name, func, where,
                 dependence +
                     "; relabelling invocations would change it "
                     "(--morton-remap=force overrides)");
      continue;
    }
    const Counts counts = CountAccesses(info);
    const std::string counted =
        std::to_string(counts.images) +
        " image access(es) at invocation-derived coordinates, " +
        std::to_string(counts.linear_buffers) +
        " buffer access(es) indexed along x (row-major)";
    if (params_.mode == Mode::kProfitable) {
      if (counts.images == 0) {
        EmitRemark(RemarkKind::kMissed, "NotProfitable", func, info.first_use,
                   counted +
                       ": no 2-D image access to gain from 2x2 lane "
                       "quads (--morton-remap=always overrides)");
        continue;
      }
      if (counts.linear_buffers >= counts.images) {
        EmitRemark(RemarkKind::kMissed, "NotProfitable", func, info.first_use,
                   counted +
                       ": linear buffer accesses are at least as "
                       "many, and Morton order breaks their 4- and "
                       "16-lane coalescing (--morton-remap=always "
                       "overrides)");
        continue;
      }
    }
    const std::string shape_text =
        ShapeText(info.shape.x, info.shape.y, info.shape.z) + " workgroup (" +
        info.shape.source +
        (info.shape.from_spec_constant
             ? "; specialization constant defaults decided it — wrong if "
               "they are specialised to other values"
             : "") +
        ")";
    std::string message = shape_text + ", " +
                          std::to_string(info.sites.size()) +
                          " identity built-in load(s) relabelled; " + counted;
    if (params_.mode == Mode::kProfitable) {
      message += ": image accesses dominate";
    } else if (params_.mode == Mode::kAlways) {
      message += " (always)";
    } else {
      message += " (forced";
      if (!dependence.empty()) {
        message += ", although " + dependence +
                   ": results that depend on subgroup membership change";
      }
      message += ")";
    }
    EmitRemark(RemarkKind::kApplied, "Remapped", func, info.first_use, message);
    if (!Rewrite(info)) return Status::Failure;
    changed = true;
  }
  return changed ? Status::SuccessWithChange : Status::SuccessWithoutChange;
}

}  // namespace waveopt
