// The simulator's image handles and queries: OpSampledImage, OpImage,
// OpImageQuerySize(Lod), OpImageQueryLevels, OpImageQuerySamples (see
// machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

namespace {

// The size of level |lod| of |img| (of type |it|) as OpImageQuerySize(Lod)
// gives it.
void ImageSize(const TypeInfo& it, const MemObj& img, int64_t lod, uint64_t v[4]) {
  auto level = [&](uint32_t size) -> uint64_t {
    if (lod <= 0) return size;
    if (lod >= 32) return 1;
    return std::max<uint64_t>(size >> lod, 1);
  };
  switch (it.image_dim) {
    case spv::Dim1D:
    case spv::DimBuffer:
      v[0] = level(img.width);
      v[1] = img.depth;
      break;
    case spv::Dim2D:
      v[0] = level(img.width);
      v[1] = level(img.height);
      v[2] = img.depth;
      break;
    case spv::Dim3D:
      v[0] = level(img.width);
      v[1] = level(img.height);
      v[2] = level(img.depth);
      break;
    case spv::DimCube:
      v[0] = level(img.width);
      v[1] = level(img.height);
      v[2] = img.depth / 6;
      break;
    default:
      break;
  }
  if (img.kind == MemObj::Kind::kEmpty) v[0] = v[1] = v[2] = 0;
}

}  // namespace

bool Machine::ImageQuery(const Inst& in, Subgroup* sg, Frame* f) {
  const uint32_t* o = in.ops;
  switch (in.op) {
    case spv::OpSampledImage:
    case spv::OpImage:
      for (uint32_t lane : f->active)
        R(in.result, 0, sg->base + lane) = R(o[0], 0, sg->base + lane);
      return true;
    case spv::OpImageQuerySize:
    case spv::OpImageQuerySizeLod: {
      const TypeInfo& it = ImageTypeOf(o[0]);
      uint32_t rn = I_.types[in.type].slots;
      for (uint32_t lane : f->active) {
        uint32_t inv = cur_inv_ = sg->base + lane;
        MemObj* img;
        if (!ImageOf(in, inv, &img)) return false;
        int64_t lod = in.op == spv::OpImageQuerySizeLod ? LaneInt(o[1], 0, inv) : 0;
        uint64_t v[4] = {0, 0, 0, 0};
        ImageSize(it, *img, lod, v);
        for (uint32_t k = 0; k < rn && k < 4; ++k) R(in.result, k, inv) = v[k];
      }
      return true;
    }
    default:  // OpImageQueryLevels, OpImageQuerySamples
      for (uint32_t lane : f->active) {
        uint32_t inv = cur_inv_ = sg->base + lane;
        MemObj* img;
        if (!ImageOf(in, inv, &img)) return false;
        R(in.result, 0, inv) = img->kind == MemObj::Kind::kEmpty ? 0 : 1;
      }
      return true;
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
