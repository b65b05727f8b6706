// waveopt's public API: the one header to include.
//
// Two ways in:
//   1. Put waveopt into your own spvtools::Optimizer: -O's whole sequence
//      with RegisterOptimizePasses() (pipeline.h), or single passes with
//      RegisterPass() / Create<Class>() (passes.h).
//   2. One call that validates, runs a pipeline, validates again and reports
//      remarks, diagnostics and per-pass timings: Optimize() (pipeline.h).
// A C interface for programs not in C++: waveopt_c.h.
//
// The layers, each its own library (docs/library.md): config.h, remarks.h and
// spirv_io.h (core); analysis.h (analyses); passes.h (passes and their
// registry); pipeline.h (pipeline). GLSL/HLSL in and out is frontend.h,
// in the separate waveopt::frontends library.
//
// Nothing in this API throws, prints, forks (unless Options::isolation asks),
// starts threads or installs handlers; failures are reported through return
// values.
#ifndef WAVEOPT_WAVEOPT_H_
#define WAVEOPT_WAVEOPT_H_

#include "waveopt/analysis.h"
#include "waveopt/config.h"
#include "waveopt/passes.h"
#include "waveopt/pipeline.h"
#include "waveopt/remarks.h"
#include "waveopt/spirv_io.h"

#endif  // WAVEOPT_WAVEOPT_H_
