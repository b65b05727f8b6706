// --auto: the spec for modules nobody wrote one for (auto_spec.h), then
// inputs searched on the simulator until the original runs without a data
// race and the rewrite's added instructions run, smallest inputs first.
#ifndef WAVEOPT_TOOLS_WAVERUN_AUTO_SEARCH_H_
#define WAVEOPT_TOOLS_WAVERUN_AUTO_SEARCH_H_

#include <string>

#include "tools/waverun/cli.h"

namespace waverun {

// The auto spec of |cli|'s modules as spec-file text, then "# note" lines.
// Returns an exit code (errors printed).
int AutoSpecText(const Cli& cli, std::string* text);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_AUTO_SEARCH_H_
