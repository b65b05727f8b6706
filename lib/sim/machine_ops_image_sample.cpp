// The simulator's filtered image reads: OpImageSample(Proj)(Implicit|Explicit)Lod
// and OpImageGather, at the nearest texel (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

namespace {

// Float to int32 as x86 (and so lavapipe) converts: NaN and values out of
// range give INT32_MIN.
int64_t ToInt32(float f) {
  if (std::isnan(f) || f >= 2147483648.0f || f < -2147483648.0f) return INT32_MIN;
  return static_cast<int32_t>(f);
}

// Nearest texel of normalized coordinate |u| in [0, size), moved by |offset|
// texels, clamped to the edge.
int64_t NearestTexel(float u, uint32_t size, int64_t offset) {
  if (size == 0) return 0;
  // The offset is added in float before rounding down, as llvmpipe does.
  int64_t i = ToInt32(std::floor(u * static_cast<float>(size) + static_cast<float>(offset)));
  return std::min<int64_t>(std::max<int64_t>(i, 0), size - 1);
}

// Array layer |a| (unnormalized), rounded to nearest even and clamped to
// [0, layers).
int64_t ArrayLayer(float a, uint32_t layers) {
  if (layers == 0) return 0;
  int64_t l = ToInt32(std::nearbyint(a));
  return std::min<int64_t>(std::max<int64_t>(l, 0), layers - 1);
}

// Cube map face selection (Vulkan's table): direction -> face and (s, t) in
// [0, 1]. Ties go to z, then y, as in llvmpipe.
void CubeFace(float x, float y, float z, uint32_t* face, float* s, float* t) {
  float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  float sc, tc, ma;
  if (az >= std::fmax(ax, ay)) {
    *face = z >= 0 ? 4 : 5;
    sc = z >= 0 ? x : -x;
    tc = -y;
    ma = az;
  } else if (ax > ay) {
    *face = x >= 0 ? 0 : 1;
    sc = x >= 0 ? -z : z;
    tc = -y;
    ma = ax;
  } else {
    *face = y >= 0 ? 2 : 3;
    sc = x;
    tc = y >= 0 ? z : -z;
    ma = ay;
  }
  float inv = ma == 0 ? 0.0f : 0.5f / ma;
  *s = sc * inv + 0.5f;
  *t = tc * inv + 0.5f;
}

// The two texels a linear (gather) footprint covers along one axis of
// |size| texels, clamped to the edge: the coordinate is clamped in float to
// [0, size] first (as llvmpipe does), then split and each texel clamped.
void LinearPair(float u, uint32_t size, int64_t offset, int64_t* i0, int64_t* i1) {
  float f = u * static_cast<float>(size) + static_cast<float>(offset);
  f = std::fmin(std::fmax(f, 0.0f), static_cast<float>(size));
  int64_t a = static_cast<int64_t>(std::floor(f - 0.5f));
  int64_t last = size == 0 ? 0 : size - 1;
  *i0 = std::min<int64_t>(std::max<int64_t>(a, 0), last);
  *i1 = std::min<int64_t>(std::max<int64_t>(a + 1, 0), last);
}

// The nearest texel (x, y, z) of coordinate |u| moved by |off| texels in
// |img| (of type |it|); false for a dimension the simulator does not sample.
bool NearestCoord(const TypeInfo& it, const MemObj& img, const float u[4], const int64_t off[3],
                  int64_t c[3]) {
  int64_t x = 0, y = 0, z = 0;
  switch (it.image_dim) {
    case spv::Dim1D:
      x = NearestTexel(u[0], img.width, off[0]);
      if (it.image_arrayed) z = ArrayLayer(u[1], img.depth);
      break;
    case spv::Dim2D:
      x = NearestTexel(u[0], img.width, off[0]);
      y = NearestTexel(u[1], img.height, off[1]);
      if (it.image_arrayed) z = ArrayLayer(u[2], img.depth);
      break;
    case spv::Dim3D:
      x = NearestTexel(u[0], img.width, off[0]);
      y = NearestTexel(u[1], img.height, off[1]);
      z = NearestTexel(u[2], img.depth, off[2]);
      break;
    case spv::DimCube: {
      uint32_t face;
      float s, t;
      CubeFace(u[0], u[1], u[2], &face, &s, &t);
      x = NearestTexel(s, img.width, 0);
      y = NearestTexel(t, img.height, 0);
      z = face + (it.image_arrayed ? 6 * ArrayLayer(u[3], img.depth / 6) : 0);
      break;
    }
    default:
      return false;
  }
  c[0] = x;
  c[1] = y;
  c[2] = z;
  return true;
}

}  // namespace

void Machine::GatherTexels(const Inst& in, const MemObj& img, const float u[4],
                           const int64_t off[3], uint32_t inv, Accesses* acc) {
  const uint32_t* o = in.ops;
  const TypeInfo& it = ImageTypeOf(o[0]);
  uint32_t comp = static_cast<uint32_t>(R(o[2], 0, inv) & 3u);
  int64_t z = it.image_arrayed ? ArrayLayer(u[2], img.depth) : 0;
  int64_t i0, i1, j0, j1;
  LinearPair(u[0], img.width, off[0], &i0, &i1);
  LinearPair(u[1], img.height, off[1], &j0, &j1);
  const int64_t pos[4][2] = {{i0, j1}, {i1, j1}, {i1, j0}, {i0, j0}};
  uint64_t out[4];
  for (uint32_t k = 0; k < 4; ++k) {
    uint64_t t[4];
    ReadTexel(img, pos[k][0], pos[k][1], z, t);
    out[k] = t[comp];
    NoteTexel(acc, R(o[0], 0, inv), img, pos[k][0], pos[k][1], z);
  }
  TexelToResult(in.type, out, inv, in.result);
}

bool Machine::ImageSample(const Inst& in, Subgroup* sg, Frame* f) {
  const uint32_t* o = in.ops;
  Accesses acc;
  const TypeInfo& it = ImageTypeOf(o[0]);
  bool gather = in.op == spv::OpImageGather;
  bool proj =
      in.op == spv::OpImageSampleProjImplicitLod || in.op == spv::OpImageSampleProjExplicitLod;
  ImageOperands ops;
  if (!ParseImageOperands(in, gather ? 3 : 2, &ops, &error)) return Fail(error);
  if (ops.gather_offsets) {
    return Fail(OpcodeName(in.op) + " with ConstOffsets/Offsets is not supported");
  }
  if (it.image_dim == spv::DimBuffer) return Fail(OpcodeName(in.op) + " on a texel buffer");
  if (gather && it.image_dim != spv::Dim2D) {
    return Fail("OpImageGather on a " +
                std::string(it.image_dim == spv::DimCube ? "cube" : "non-2-D") +
                " image is not supported");
  }
  uint32_t spatial = it.image_dim == spv::Dim1D ? 1 : it.image_dim == spv::Dim2D ? 2 : 3;
  for (uint32_t lane : f->active) {
    uint32_t inv = cur_inv_ = sg->base + lane;
    MemObj* img;
    if (!ImageOf(in, inv, &img)) return false;
    float u[4];
    for (uint32_t k = 0; k < 4; ++k) u[k] = LaneFloat(o[1], k, inv);
    if (proj) {
      float q = u[spatial];
      for (uint32_t k = 0; k < spatial; ++k) u[k] /= q;
    }
    int64_t off[3] = {0, 0, 0};
    if (ops.offset) {
      for (uint32_t k = 0; k < 3; ++k) off[k] = LaneInt(ops.offset, k, inv);
    }
    if (gather) {
      GatherTexels(in, *img, u, off, inv, &acc);
      continue;
    }
    int64_t c[3];
    if (!NearestCoord(it, *img, u, off, c)) {
      return Fail(OpcodeName(in.op) + ": unsupported image dimension");
    }
    ReadTexelTo(in, *img, c, inv, &acc);
  }
  Account(acc, false);
  return true;
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
