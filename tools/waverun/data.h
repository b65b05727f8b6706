// Deterministic input data: image formats, fill distributions and the
// generator that turns (seed, binding, distribution) into bytes.
#ifndef WAVEOPT_TOOLS_WAVERUN_DATA_H_
#define WAVEOPT_TOOLS_WAVERUN_DATA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/sim/half.h"
#include "lib/sim/texel.h"

namespace waverun {

enum class ComponentType { kFloat, kInt, kUint };

// Image and texel formats: the simulator's table (lib/sim/texel.h), so that
// fills, Vulkan formats and both back ends agree on every byte.
using ImageFormat = waveopt::sim::TexelFormat;
using FormatInfo = waveopt::sim::TexelFormatInfo;

// Facts about |format|; kUnknown has components == 0.
const FormatInfo& GetFormatInfo(ImageFormat format);
// What the shader sees of |format|'s components.
ComponentType FormatComponentType(ImageFormat format);
// Parses a GLSL format name ("rgba8", "r11f_g11f_b10f", ...). False for
// unknown names.
bool ParseImageFormat(const std::string& name, ImageFormat* format);

// A distribution of values. Buffers are filled word by word (32 bits);
// images component by component, converted to the format.
struct Fill {
  enum class Kind {
    kRandom,  // buffers: random 32-bit words; float images: [0, 1)
    kZero,
    kSequence,  // start, start + step, ... (integers)
    kModulo,    // random integers in [0, modulus)
    kFloat,     // random floats in [lo, hi)
    kConst,     // every word/component is |value_bits|
    kTyped,     // by the declared type: floats in [0, 1), integers in [lo, hi)
  };
  Kind kind = Kind::kRandom;
  int64_t start = 0;
  int64_t step = 1;
  uint32_t modulus = 1;
  float lo = 0.0f;
  float hi = 1.0f;
  int64_t int_lo = 0;  // kTyped
  int64_t int_hi = 16;
  uint32_t value_bits = 0;  // kConst: the 32-bit pattern (int or float)
  bool value_is_float = false;
};

// Parses "random", "zero", "seq[:START[:STEP]]", "mod:N", "float:LO:HI",
// "const:V", "typed[:LO:HI]". On failure returns false and sets |error|.
bool ParseFill(const std::string& text, Fill* fill, std::string* error);
// The spec syntax of |fill| (parses back to the same fill).
std::string FillName(const Fill& fill);

// Parses a 32-bit value: decimal or 0x hex integer (negative allowed), or a
// float when it contains '.', 'e', "inf" or "nan" or ends in 'f'.
bool ParseValue(const std::string& text, uint32_t* bits, bool* is_float);

// A small deterministic generator (splitmix64).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  uint32_t Next32() { return static_cast<uint32_t>(Next() >> 32); }
  // Uniform in [0, 1).
  float NextUnit() { return static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f); }

 private:
  uint64_t state_;
};

// The seed for one binding: mixes the run's seed with |stream| (e.g.
// set << 16 | binding) so that one binding's data does not depend on which
// other bindings exist.
uint64_t StreamSeed(uint64_t seed, uint64_t stream);

// Fills |bytes| (a multiple of 4) word by word (kTyped: as small unsigned
// integers; plan.cpp fills typed buffers by their layout).
void FillWords(const Fill& fill, uint64_t seed, std::vector<uint8_t>* bytes);
// One value of a typed fill: a float in [0, 1) of |bytes| bytes (2: half,
// 8: double), or an integer in [lo, hi) truncated to |bytes|.
uint64_t TypedValue(const Fill& fill, Random* rng, bool is_float, uint32_t bytes);
// Fills |bytes| (texels of |format|, tightly packed) component by component.
void FillTexels(const Fill& fill, uint64_t seed, ImageFormat format, std::vector<uint8_t>* bytes);

// IEEE half <-> float.
using waveopt::sim::FloatToHalf;  // lib/sim/half.h
using waveopt::sim::HalfToFloat;

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_DATA_H_
