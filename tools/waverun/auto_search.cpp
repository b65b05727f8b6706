#include "tools/waverun/auto_search.h"

#include <string>
#include <vector>

#include "tools/waverun/auto_spec.h"
#include "tools/waverun/modules.h"
#include "tools/waverun/reflect.h"

namespace waverun {

// The auto spec of |cli|'s modules as spec-file text, then "# note" lines.
int AutoSpecText(const Cli& cli, std::string* text) {
  std::string err;
  RunSpec spec;
  if (!LoadSpec(cli, cli.inputs[0], &spec, &err)) return Error(err);
  std::vector<Module> modules(cli.inputs.size());
  std::vector<std::string> notes;
  for (size_t i = 0; i < cli.inputs.size(); ++i) {
    if (LoadAndReflect(cli, cli.inputs[i], spec, &modules[i], &err)) continue;
    // Variables of different kinds on one binding cannot be bound as they
    // are; moved to a binding per kind (in both modules alike), they can.
    if (spec.separate_kinds || err.find("variables of different kinds share it") == std::string::npos) {
      return Error(err);
    }
    std::string what = err.substr(err.find("binding "));
    what = what.substr(0, what.find("; the spec line"));
    notes.push_back("separate-kinds: " + what +
                    "; every binding B moves to B*8+kind (storage buffer 0, uniform buffer 1, "
                    "storage image 2, sampled image 3, separate image 4, sampler 5, uniform "
                    "texel buffer 6, storage texel buffer 7)");
    spec.separate_kinds = true;
    modules.assign(cli.inputs.size(), Module());
    i = static_cast<size_t>(-1);  // again from the first module, renumbered
  }
  if (modules[0].iface.stage == Stage::kFragment) {
    return Error(modules[0].path + ": --auto is for compute shaders; give a fragment shader a "
                 "spec with 'draw fullscreen WxH' and its bindings' sizes");
  }
  ModuleInterface iface = modules[0].iface;
  if (modules.size() == 2 && !MergeInterfaces(modules[0].iface, modules[1].iface, &iface, &err)) {
    return Error(modules[0].path + " and " + modules[1].path + " cannot share inputs: " + err);
  }
  AutoSpec(iface, &spec, &notes);
  *text = FormatSpec(spec);
  for (const std::string& n : notes) *text += "# " + n + "\n";
  return kExitOk;
}

}  // namespace waverun
