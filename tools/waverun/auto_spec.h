// --auto: a spec for a module nobody wrote one for. From the interface alone:
// a dispatch of a few thousand invocations shaped like the ids the module
// reads, runtime arrays and images sized from it, fills that keep typical
// loops bounded (small integers, floats in [0, 1)), multiset compares for
// bindings whose contents depend on the order atomics return values.
#ifndef WAVEOPT_TOOLS_WAVERUN_AUTO_SPEC_H_
#define WAVEOPT_TOOLS_WAVERUN_AUTO_SPEC_H_

#include <string>
#include <vector>

#include "tools/waverun/reflect.h"
#include "tools/waverun/spec.h"

namespace waverun {

// Fills |spec| for |iface| (for diff: the merged interface of both modules).
// |notes| gets one line per binding compared other than exactly, and why.
void AutoSpec(const ModuleInterface& iface, RunSpec* spec, std::vector<std::string>* notes);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_AUTO_SPEC_H_
