// What the simulator's image families share: image operands, lane values,
// texel coordinates and results; and the image instructions it rejects
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

bool ParseImageOperands(const Inst& in, uint32_t k, ImageOperands* out, std::string* error) {
  if (k >= in.num_ops) return true;
  uint32_t mask = in.ops[k++];
  static const struct {
    uint32_t bit;
    uint32_t ids;
  } kOperands[] = {{0x1, 1},    {0x2, 1},    {0x4, 2},    {0x8, 1},    {0x10, 1},  {0x20, 1},
                   {0x40, 1},   {0x80, 1},   {0x100, 1},  {0x200, 1},  {0x400, 0}, {0x800, 0},
                   {0x1000, 0}, {0x2000, 0}, {0x4000, 0}, {0x10000, 1}};
  uint32_t known = 0;
  for (const auto& op : kOperands) known |= op.bit;
  if (mask & ~known) {
    *error = "unsupported image operands 0x" + std::to_string(mask & ~known);
    return false;
  }
  for (const auto& op : kOperands) {
    if (!(mask & op.bit)) continue;
    if (k + op.ids > in.num_ops) {
      *error = "malformed image operands";
      return false;
    }
    if (op.bit == 0x2) out->lod = in.ops[k];
    if (op.bit == 0x8 || op.bit == 0x10) out->offset = in.ops[k];
    if (op.bit == 0x40) out->sample = in.ops[k];
    if (op.bit == 0x20 || op.bit == 0x10000) out->gather_offsets = true;
    k += op.ids;
  }
  return true;
}

bool Machine::ImageOf(const Inst& in, uint32_t inv, MemObj** out) {
  uint64_t h = R(in.ops[0], 0, inv);
  *out = ImageObj(h);
  if (*out == nullptr) return Fail(OpcodeName(in.op) + " on an unbound image");
  return true;
}

void Machine::TexelCoord(const TypeInfo& it, uint32_t coord, uint32_t inv, int64_t c[3]) {
  c[0] = LaneInt(coord, 0, inv);
  c[1] = c[2] = 0;
  switch (it.image_dim) {
    case spv::Dim1D:
      if (it.image_arrayed) c[2] = LaneInt(coord, 1, inv);
      break;
    case spv::Dim2D:
      c[1] = LaneInt(coord, 1, inv);
      if (it.image_arrayed) c[2] = LaneInt(coord, 2, inv);
      break;
    case spv::Dim3D:
    case spv::DimCube:
      c[1] = LaneInt(coord, 1, inv);
      c[2] = LaneInt(coord, 2, inv);
      break;
    default:
      break;
  }
}

void Machine::TexelToResult(uint32_t type, const uint64_t t[4], uint32_t inv, uint32_t res) {
  const TypeInfo& rt = I_.types[type];
  const TypeInfo& rsc = I_.Scalar(type);
  uint32_t rn = rt.slots;
  bool rfloat = rsc.kind == TypeKind::kFloat;
  for (uint32_t k = 0; k < rn && k < 4; ++k) {
    uint64_t v = t[k];
    if (rfloat && rsc.width == 16) {
      v = FloatToHalf(BitsToFloat(v));
    } else if (rfloat && rsc.width == 64) {
      v = DoubleToBits(static_cast<double>(BitsToFloat(v)));
    } else if (!rfloat) {
      v &= WidthMask(rsc.width);
    }
    R(res, k, inv) = v;
  }
}

void Machine::NoteTexel(Accesses* acc, uint64_t h, const MemObj& mo, int64_t x, int64_t y,
                        int64_t z) {
  if (x < 0 || y < 0 || z < 0 || x >= mo.width || y >= mo.height || z >= mo.depth) return;
  uint32_t tb = TexelBytes(mo.format);
  uint64_t texel = (static_cast<uint64_t>(z) * mo.height + static_cast<uint64_t>(y)) * mo.width +
                   static_cast<uint64_t>(x);
  acc->push_back({(h << kObjShift) | (texel * tb), tb});
}

void Machine::ReadTexelTo(const Inst& in, const MemObj& img, const int64_t c[3], uint32_t inv,
                          Accesses* acc) {
  uint64_t t[4];
  ReadTexel(img, c[0], c[1], c[2], t);
  TexelToResult(in.type, t, inv, in.result);
  NoteTexel(acc, R(in.ops[0], 0, inv), img, c[0], c[1], c[2]);
}

bool Machine::ImageUnsupported(const Inst& in, Subgroup* sg, Frame* f) {
  switch (in.op) {
    case spv::OpImageSampleDrefImplicitLod:
    case spv::OpImageSampleDrefExplicitLod:
    case spv::OpImageSampleProjDrefImplicitLod:
    case spv::OpImageSampleProjDrefExplicitLod:
    case spv::OpImageDrefGather:
      return Fail("unsupported instruction " + OpcodeName(in.op) + " (depth-comparison sampling)");
    case spv::OpImageQueryLod:
      return Fail(
          "unsupported instruction OpImageQueryLod (implicit level of detail: fragment "
          "shaders only)");
    case spv::OpImageQueryFormat:
    case spv::OpImageQueryOrder:
      return Fail("unsupported instruction " + OpcodeName(in.op) + " (OpenCL kernels only)");
    default:  // OpImageSparseSampleImplicitLod to OpImageSparseRead
      return Fail("unsupported instruction " + OpcodeName(in.op) + " (sparse residency)");
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
