// Opcode names for error messages, from SPIRV-Tools' grammar tables. Kept in
// its own file: SPIRV-Tools' internal headers use spirv.hpp11, the rest of
// lib/sim uses spirv.hpp, and the two cannot share a translation unit.
#include <string>

#include "source/opcode.h"

namespace waveopt {
namespace sim {

std::string OpcodeName(uint32_t op) {
  const char* name = spvOpcodeString(op);
  if (name == nullptr || std::string(name) == "unknown") {
    return "opcode " + std::to_string(op);
  }
  return std::string("Op") + name;
}

}  // namespace sim
}  // namespace waveopt
