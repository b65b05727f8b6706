// IEEE 754 half-precision conversions (the simulator's 16-bit floats and
// rgba16f images; waverun's fills and readback use the same ones).
#ifndef WAVEOPT_LIB_SIM_HALF_H_
#define WAVEOPT_LIB_SIM_HALF_H_

#include <cstdint>

namespace waveopt {
namespace sim {

// Float to half, rounding to nearest even; |toward_zero| truncates instead
// (as lavapipe does for rgba16f image stores). NaN stays NaN, overflow gives
// infinity (or the largest finite half when truncating).
uint16_t FloatToHalf(float f, bool toward_zero = false);

// Half to float; exact.
float HalfToFloat(uint16_t h);

}  // namespace sim
}  // namespace waveopt

#endif  // WAVEOPT_LIB_SIM_HALF_H_
