// Loading the modules of a command: each shader read (SPIR-V binary or text,
// GLSL, HLSL) and validated, the spec (file and command-line lines), each
// module reflected, and the plans built (one shared plan for diff).
#ifndef WAVEOPT_TOOLS_WAVERUN_MODULES_H_
#define WAVEOPT_TOOLS_WAVERUN_MODULES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/waverun/cli.h"
#include "tools/waverun/plan.h"
#include "tools/waverun/reflect.h"
#include "tools/waverun/spec.h"

namespace waverun {

struct Module {
  std::string path;
  std::vector<uint32_t> words;
  ModuleInterface iface;
  Plan plan;
};

// Reads |path| as SPIR-V binary, SPIR-V text, GLSL or HLSL (by extension) and
// validates it (unless --no-validate). False with one line in |error|.
bool LoadModule(const Cli& cli, const std::string& path, std::vector<uint32_t>* words,
                std::string* error);

// Compiles |cli|'s GLSL and HLSL inputs into cli->compiled (those that
// compile), so that runs forked afterwards do not each compile them.
void CompileSourcesOnce(Cli* cli);

// The RunSpec for a run whose first shader is |first|: its spec file (or
// --spec), then the command line's lines.
bool LoadSpec(const Cli& cli, const std::string& first, RunSpec* spec, std::string* error);

// Loads and reflects |path| with |spec|'s specialization constants (and
// separate-kinds renumbering).
bool LoadAndReflect(const Cli& cli, const std::string& path, const RunSpec& spec, Module* m,
                    std::string* error);

// Loads |cli|'s modules and builds their plans: for diff one plan from both
// interfaces (the same bytes for both; each binds what it declares), else
// one per module.
bool PrepareModules(const Cli& cli, const RunSpec& spec, std::vector<Module>* modules,
                    std::string* error);

// Builds the plans of already reflected |modules| from |spec| (as
// PrepareModules does): |diff| shares one plan between the two.
bool BuildPlans(bool diff, const RunSpec& spec, std::vector<Module>* modules, std::string* error);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_MODULES_H_
