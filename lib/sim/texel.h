// Texel formats: every SPIR-V image format (the GLSL layout qualifiers
// r32f, rgba8, r11f_g11f_b10f, rg16_snorm, r64ui, ...), how a texel is laid
// out in memory and how the simulator reads and writes it. waverun uses the
// same table for its input fills, its Vulkan formats and its readback, so
// that both back ends see the same bytes.
#ifndef WAVEOPT_LIB_SIM_TEXEL_H_
#define WAVEOPT_LIB_SIM_TEXEL_H_

#include <cstdint>
#include <string>

namespace waveopt {
namespace sim {

enum class TexelFormat {
  kUnknown,
  kRgba32f,
  kRgba16f,
  kR32f,
  kRgba8,
  kRgba8Snorm,
  kRg32f,
  kRg16f,
  kR11fG11fB10f,
  kR16f,
  kRgba16,
  kRgb10A2,
  kRg16,
  kRg8,
  kR16,
  kR8,
  kRgba16Snorm,
  kRg16Snorm,
  kRg8Snorm,
  kR16Snorm,
  kR8Snorm,
  kRgba32i,
  kRgba16i,
  kRgba8i,
  kR32i,
  kRg32i,
  kRg16i,
  kRg8i,
  kR16i,
  kR8i,
  kRgba32ui,
  kRgba16ui,
  kRgba8ui,
  kR32ui,
  kRgb10A2ui,
  kRg32ui,
  kRg16ui,
  kRg8ui,
  kR16ui,
  kR8ui,
  kR64ui,
  kR64i,
  kCount,
};

// How the components are stored and what the shader sees.
enum class TexelNumeric {
  kFloat,  // IEEE float (16/32 bits), or the packed unsigned floats of r11f_g11f_b10f
  kUnorm,  // unsigned normalized: the shader sees floats in [0, 1]
  kSnorm,  // signed normalized: floats in [-1, 1]
  kSint,   // the shader sees signed integers
  kUint,   // the shader sees unsigned integers
};

struct TexelFormatInfo {
  const char* name;     // the GLSL layout qualifier: "rgba8", "r11f_g11f_b10f"
  uint32_t spirv;       // spv::ImageFormat
  uint32_t components;  // 1..4
  uint32_t bytes;       // bytes per texel
  TexelNumeric numeric;
  uint32_t bits[4];  // bits per component (packed formats differ per component)
  bool packed;       // components share one 32-bit word (r11f_g11f_b10f, rgb10_a2)
};

const TexelFormatInfo& GetTexelFormatInfo(TexelFormat format);
// By GLSL name ("rgba16_snorm"); also accepts "r11g11b10f" and "rgb10a2".
bool ParseTexelFormat(const std::string& name, TexelFormat* format);
// By spv::ImageFormat; kUnknown for 0 or values outside the table.
TexelFormat TexelFormatFromSpirv(uint32_t spirv_format);
// True when the shader sees floats (float, unorm, snorm).
inline bool TexelIsFloat(TexelFormat f) {
  TexelNumeric n = GetTexelFormatInfo(f).numeric;
  return n == TexelNumeric::kFloat || n == TexelNumeric::kUnorm || n == TexelNumeric::kSnorm;
}
inline bool TexelIs64(TexelFormat f) { return f == TexelFormat::kR64ui || f == TexelFormat::kR64i; }

// Reads one texel at |p| as the shader sees it: four components, each the
// bit pattern of a 32-bit float or integer (64-bit for r64ui/r64i); missing
// components are 0 and alpha 1 (1.0 for float formats).
void DecodeTexel(TexelFormat format, const uint8_t* p, uint64_t out[4]);

// Writes the shader's value |in| (components as 32-bit float or integer
// patterns, 64-bit for r64) into the texel at |p|: floats rounded to the
// format (16-bit floats toward zero, normalized values clamped and rounded to
// nearest), integers saturated to the component's range (as lavapipe does).
void EncodeTexel(TexelFormat format, const uint64_t in[4], uint8_t* p);

}  // namespace sim
}  // namespace waveopt

#endif  // WAVEOPT_LIB_SIM_TEXEL_H_
