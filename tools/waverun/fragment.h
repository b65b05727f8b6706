// Fragment shaders as waverun draws them: the vertex stage it supplies,
// which feeds every input of the fragment shader, and the color outputs
// moved to storage buffers.
//
// The vertex stage draws a grid of kGridQuads x kGridQuads quads (two
// triangles each) over the whole target. Each input component gets, at each
// grid vertex, a value hashed from the vertex, the location and the
// component (floats in [0, 1), integers in [0, 16)), and a w in [1, 2): so
// smooth inputs vary across the target (perspective-correctly), noperspective
// ones linearly, flat ones per triangle.
//
// Color outputs as storage buffers. Lavapipe (Mesa
// 22.3, LLVM 15) crashes compiling any fragment shader that writes a color
// attachment at LP_NATIVE_VECTOR_WIDTH=512 (subgroup size 16; LLVM fails in
// EarlyCSE, or in instruction selection without optimisation), while it
// draws without attachments at every width. So waverun draws without color
// attachments, at every size alike: each color output variable becomes a
// Private variable starting at zero (as a cleared attachment), and where
// the entry point returns, each pixel stores its outputs into the storage
// buffer of their location, 4 words (RGBA) per pixel: word
// (y * width + x) * 4 + component. A pixel that is discarded never reaches
// the return; stores of helper invocations have no effect: what the
// buffers hold is what the attachments would.
#ifndef WAVEOPT_TOOLS_WAVERUN_FRAGMENT_H_
#define WAVEOPT_TOOLS_WAVERUN_FRAGMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/waverun/reflect.h"

namespace waverun {

constexpr uint32_t kGridQuads = 4;
// Vertices of the draw: two triangles per quad.
constexpr uint32_t kDrawVertices = 6 * kGridQuads * kGridQuads;

// The GLSL of the vertex shader that feeds |inputs|.
std::string VertexShaderSource(const std::vector<FragmentInput>& inputs);

// Where the outputs of one location go.
struct ColorBuffer {
  uint32_t location = 0;
  uint32_t set = 0, binding = 0;
};

// Rewrites the fragment module |words| as above for a target |width|
// pixels wide. Every output location of the module must have a buffer in
// |buffers|. False with one line in |error| when the module cannot be read.
bool LowerColorOutputs(std::vector<uint32_t>* words, const std::vector<ColorBuffer>& buffers,
                       uint32_t width, std::string* error);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_FRAGMENT_H_
