// The simulator's executor: runs one dispatch of an Instance, and evaluates
// OpSpecConstantOp for Instance::Build. Internal to lib/sim.
#ifndef WAVEOPT_LIB_SIM_MACHINE_H_
#define WAVEOPT_LIB_SIM_MACHINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/sim/launch.h"
#include "lib/sim/module.h"

namespace waveopt {
namespace sim {

// A ConstantOpEval (see module.h).
bool EvalConstantOp(const Instance& instance, const Inst& in, std::vector<uint64_t>* cvals,
                    std::string* error);

// Runs |launch| on |instance| with |resources|, updating them in place and
// adding to |counters|. False with one line in |error|.
bool RunDispatch(const Instance& instance, const Launch& launch, std::vector<Resource>* resources,
                 Counters* counters, std::string* error);

}  // namespace sim
}  // namespace waveopt

#endif  // WAVEOPT_LIB_SIM_MACHINE_H_
