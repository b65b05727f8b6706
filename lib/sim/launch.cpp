// Counters::Format.
#include "lib/sim/launch.h"

#include <cinttypes>
#include <cstdio>

namespace waveopt {
namespace sim {

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
      {"wild_pointer_accesses", wild_pointer_accesses},
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
