// Getting shaders in and out: SPIR-V text and binary, validation and files
// (spirv_io.h, in the engine library), and GLSL/HLSL through glslang and
// SPIRV-Cross (frontend.h, in waveopt::frontends).
#ifndef WAVEOPT_IO_H_
#define WAVEOPT_IO_H_

#include "waveopt/frontend.h"
#include "waveopt/spirv_io.h"

#endif  // WAVEOPT_IO_H_
