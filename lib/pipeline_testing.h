// For tests only; not installed. SPIRV-Tools 2025.1 no longer crashes on
// the modules that made Optimize() isolate its spirv-opt steps, so the
// tests of that isolation make a step crash or hang on purpose.
#ifndef WAVEOPT_LIB_PIPELINE_TESTING_H_
#define WAVEOPT_LIB_PIPELINE_TESTING_H_

namespace waveopt {

// |hook| runs at the start of every spirv-opt step of Optimize(), where the
// step runs: in the child process under Isolation::kChildProcess, in the
// calling thread otherwise. Null: none (the default).
void SetSpirvOptStepHookForTesting(void (*hook)());

// False: -O builds every version's every segment, taking nothing from the
// builds before it (the reference its reuse is tested against). Default true.
void SetVersionReuseForTesting(bool reuse);

// Off: every waveopt pass of -O builds its own IRContext and analyses
// instead of taking those a pass before it left unchanged.
void SetContextSharingForTesting(bool share);

// Called whenever -O builds an IRContext for a waveopt pass.
void SetContextBuildHookForTesting(void (*hook)());

}  // namespace waveopt

#endif  // WAVEOPT_LIB_PIPELINE_TESTING_H_
