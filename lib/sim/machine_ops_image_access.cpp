// The simulator's image accesses at integer coordinates: OpImageRead,
// OpImageFetch, OpImageWrite, OpImageTexelPointer (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

bool Machine::ImageFetch(const Inst& in, Subgroup* sg, Frame* f) {
  const uint32_t* o = in.ops;
  Accesses acc;
  const TypeInfo& it = ImageTypeOf(o[0]);
  ImageOperands ops;
  if (!ParseImageOperands(in, 2, &ops, &error)) return Fail(error);
  if (ops.sample != 0)
    return Fail(OpcodeName(in.op) + " with a Sample operand (multisampled images)");
  for (uint32_t lane : f->active) {
    uint32_t inv = cur_inv_ = sg->base + lane;
    MemObj* img;
    if (!ImageOf(in, inv, &img)) return false;
    int64_t c[3];
    TexelCoord(it, o[1], inv, c);
    if (ops.offset) {
      c[0] += LaneInt(ops.offset, 0, inv);
      if (it.image_dim == spv::Dim2D || it.image_dim == spv::Dim3D)
        c[1] += LaneInt(ops.offset, 1, inv);
      if (it.image_dim == spv::Dim3D) c[2] += LaneInt(ops.offset, 2, inv);
    }
    if (ops.lod && LaneInt(ops.lod, 0, inv) != 0) c[0] = -1;  // one mip level: out of bounds
    ReadTexelTo(in, *img, c, inv, &acc);
  }
  Account(acc, false);
  return true;
}

bool Machine::ImageWrite(const Inst& in, Subgroup* sg, Frame* f) {
  const uint32_t* o = in.ops;
  Accesses acc;
  const TypeInfo& it = ImageTypeOf(o[0]);
  const TypeInfo& ts = ScalarOf(o[2]);
  uint32_t tn = Slots(o[2]);
  ImageOperands ops;
  if (!ParseImageOperands(in, 3, &ops, &error)) return Fail(error);
  if (ops.sample != 0) return Fail("OpImageWrite with a Sample operand (multisampled images)");
  for (uint32_t lane : f->active) {
    uint32_t inv = cur_inv_ = sg->base + lane;
    MemObj* img;
    if (!ImageOf(in, inv, &img)) return false;
    int64_t c[3];
    TexelCoord(it, o[1], inv, c);
    uint64_t t[4] = {0, 0, 0, 0};
    for (uint32_t k = 0; k < tn && k < 4; ++k) {
      uint64_t v = R(o[2], k, inv);
      if (ts.kind == TypeKind::kFloat && ts.width == 16) {
        v = FloatToBits(HalfToFloat(static_cast<uint16_t>(v)));
      } else if (ts.kind == TypeKind::kFloat && ts.width == 64) {
        v = FloatToBits(static_cast<float>(BitsToDouble(v)));
      } else if (ts.kind == TypeKind::kInt && ts.width < 32 && ts.is_signed) {
        v = static_cast<uint64_t>(SignExtend(v, ts.width)) & 0xffffffffu;
      }
      t[k] = v;
    }
    if (img->kind == MemObj::Kind::kEmpty) {
      if (counters_) ++counters_->out_of_bounds;
      continue;
    }
    WriteTexel(*img, c[0], c[1], c[2], t);
    NoteTexel(&acc, R(o[0], 0, inv), *img, c[0], c[1], c[2]);
  }
  Account(acc, false);
  return true;
}

bool Machine::ImageTexelPointer(const Inst& in, Subgroup* sg, Frame* f) {
  // ops: pointer to the image variable (or descriptor), coordinate, sample.
  const uint32_t* o = in.ops;
  const TypeInfo& it = I_.types[I_.types[I_.value_type[o[0]]].elem];
  for (uint32_t lane : f->active) {
    uint32_t inv = cur_inv_ = sg->base + lane;
    uint64_t vptr = R(o[0], 0, inv);
    uint64_t h = vptr >> kObjShift;
    MemObj* mo = ImageObj(h);
    if (mo == nullptr) return Fail("OpImageTexelPointer on an unbound image");
    int64_t c[3];
    TexelCoord(it, o[1], inv, c);
    bool oob = c[0] < 0 || c[1] < 0 || c[2] < 0 || c[0] >= mo->width || c[1] >= mo->height ||
               c[2] >= mo->depth;
    uint64_t off = oob ? kOffsetMask
                       : ((static_cast<uint64_t>(c[2]) * mo->height + static_cast<uint64_t>(c[1])) *
                              mo->width +
                          static_cast<uint64_t>(c[0])) *
                             TexelBytes(mo->format);
    R(in.result, 0, inv) = (h << kObjShift) | off;
  }
  return true;
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
