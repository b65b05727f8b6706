// The simulator's GLSL.std.450 determinant and matrix inverse
// (see machine_impl.h).
#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

int Machine::ExtMatrix(const Inst& in, const uint32_t* invs, uint32_t n) {
  uint32_t e = in.ops[1];
  const uint32_t* a = in.ops + 2;
  uint32_t res = in.result;
  const TypeInfo& rs = I_.Scalar(in.type);
  uint32_t w = rs.width;
  auto lanes = [&](auto body) {
    for (uint32_t l = 0; l < n; ++l) body(invs[l]);
  };
  using std::abs;
  switch (e) {
    case GLSLstd450Determinant:
    case GLSLstd450MatrixInverse: {
      const TypeInfo& mt = TypeOf(a[0]);
      uint32_t dim = mt.count;
      if (dim < 2 || dim > 4 || I_.types[mt.elem].count != dim) {
        return Fail("GLSL.std.450 " +
                    std::string(e == GLSLstd450Determinant ? "Determinant" : "MatrixInverse") +
                    " of a matrix that is not 2x2, 3x3 or 4x4"),
               -1;
      }
      uint32_t mw = ScalarOf(a[0]).width;
      lanes([&](uint32_t inv) {
        // Column-major m[c][r]; cofactor expansion in double, rounded once.
        double m[4][4];
        for (uint32_t c = 0; c < dim; ++c) {
          for (uint32_t r = 0; r < dim; ++r) m[c][r] = ToDouble(R(a[0], c * dim + r, inv), mw);
        }
        auto minor_det = [&](uint32_t skip_c, uint32_t skip_r) {
          double sub[4][4];
          uint32_t cc = 0;
          for (uint32_t c = 0; c < dim; ++c) {
            if (c == skip_c) continue;
            uint32_t rr = 0;
            for (uint32_t r = 0; r < dim; ++r) {
              if (r == skip_r) continue;
              sub[cc][rr++] = m[c][r];
            }
            ++cc;
          }
          uint32_t d = dim - 1;
          if (d == 1) return sub[0][0];
          if (d == 2) return sub[0][0] * sub[1][1] - sub[1][0] * sub[0][1];
          return sub[0][0] * (sub[1][1] * sub[2][2] - sub[2][1] * sub[1][2]) -
                 sub[1][0] * (sub[0][1] * sub[2][2] - sub[2][1] * sub[0][2]) +
                 sub[2][0] * (sub[0][1] * sub[1][2] - sub[1][1] * sub[0][2]);
        };
        double d = 0;
        for (uint32_t c = 0; c < dim; ++c) {
          double cof = minor_det(c, 0) * ((c % 2) ? -1.0 : 1.0);
          d = c == 0 ? m[c][0] * cof : d + m[c][0] * cof;  // keeps the sign of zero
        }
        if (e == GLSLstd450Determinant) {
          R(res, 0, inv) = FromDouble(d, w);
          return;
        }
        // inverse[c][r] = cofactor(r, c) x (1 / det), the reciprocal rounded
        // to the result's precision first (as Mesa lowers it).
        double rcp = ToDouble(FromDouble(1.0 / d, w), w);
        for (uint32_t c = 0; c < dim; ++c) {
          for (uint32_t r = 0; r < dim; ++r) {
            double cof = minor_det(r, c) * (((r + c) % 2) ? -1.0 : 1.0);
            R(res, c * dim + r, inv) = FromDouble(ToDouble(FromDouble(cof, w), w) * rcp, w);
          }
        }
      });
      return 1;
    }
    default:
      return 0;
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
