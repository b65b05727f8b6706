// The public face of the simulator: Program and Counters.
#include "lib/sim/sim.h"

#include <cinttypes>
#include <cstdio>

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
    for (size_t j = 0; j < i; ++j) {
      if ((*resources)[i].set == (*resources)[j].set &&
          (*resources)[i].binding == (*resources)[j].binding) {
        *error = "two resources share binding " + std::to_string((*resources)[i].set) + "." +
                 std::to_string((*resources)[i].binding);
        return false;
      }
    }
  }
  Instance instance;
  if (!instance.Build(*module_, launch.spec_constants, error)) return false;
  Counters local;
  if (!RunDispatch(instance, launch, resources, counters ? counters : &local, error)) return false;
  return true;
}

std::string Counters::Format() const {
  const std::pair<const char*, uint64_t> rows[] = {
      {"workgroups", workgroups},
      {"subgroups", subgroups},
      {"instructions", instructions},
      {"lane_instructions", lane_instructions},
      {"memory_instructions", memory_instructions},
      {"global_memory_instructions", global_memory_instructions},
      {"workgroup_memory_instructions", workgroup_memory_instructions},
      {"memory_lines", memory_lines},
      {"atomics", atomics},
      {"atomic_instructions", atomic_instructions},
      {"atomic_serialized", atomic_serialized},
      {"atomic_max_same_address", atomic_max_same_address},
      {"bank_conflicts", bank_conflicts},
      {"barriers", barriers},
      {"out_of_bounds", out_of_bounds},
  };
  std::string s;
  char buf[96];
  for (const auto& r : rows) {
    std::snprintf(buf, sizeof(buf), "%s %" PRIu64 "\n", r.first, r.second);
    s += buf;
  }
  return s;
}

}  // namespace sim
}  // namespace waveopt
