// The public face of the simulator: Program and Counters.
#include "lib/sim/sim.h"

#include "lib/sim/machine.h"
#include "lib/sim/module.h"

namespace waveopt {
namespace sim {

Program::~Program() = default;

std::unique_ptr<Program> Program::Create(const std::vector<uint32_t>& words,
                                         const std::string& entry, std::string* error) {
  std::unique_ptr<Program> p(new Program());
  p->module_.reset(new ModuleData());
  if (!p->module_->Parse(words, entry, error)) return nullptr;
  return p;
}

bool Program::Run(const Launch& launch, std::vector<Resource>* resources, Counters* counters,
                  std::string* error) const {
  uint32_t n = launch.subgroup_size;
  if (n < 1 || n > 128 || (n & (n - 1)) != 0) {
    *error = "subgroup size " + std::to_string(n) + " is not a power of two from 1 to 128";
    return false;
  }
  for (size_t i = 0; i < resources->size(); ++i) {
    const Resource& a = (*resources)[i];
    if (a.kind == Resource::Kind::kDeviceBuffer) continue;
    for (size_t j = 0; j < i; ++j) {
      const Resource& b = (*resources)[j];
      if (b.kind != Resource::Kind::kDeviceBuffer && a.set == b.set && a.binding == b.binding &&
          a.array_index == b.array_index) {
        *error = "two resources share binding " + std::to_string(a.set) + "." +
                 std::to_string(a.binding) + " (element " + std::to_string(a.array_index) + ")";
        return false;
      }
    }
  }
  Instance instance;
  if (launch.junk_seed != 0) {
    // The poison value of a run with junk: a pattern of the seed.
    uint64_t p = launch.junk_seed * 0xd1342543de82ef95ull + 1;
    p ^= p >> 31;
    instance.poison = p == 0 ? 0x5a5a5a5a5a5a5a5aull : p;
  }
  if (!instance.Build(*module_, launch.spec_constants, EvalConstantOp, error)) return false;
  Counters local;
  if (!RunDispatch(instance, launch, resources, counters ? counters : &local, error)) return false;
  return true;
}

}  // namespace sim
}  // namespace waveopt
