// The one SPIR-V binary reader of the simulator and waverun: splits a
// module's words into instructions (opcode, result type and id, operands),
// checking the header, every word count and every result id against the
// bound. Which opcodes have a result type and id comes from the SPIR-V
// grammar (spirv.hpp's HasResultAndType).
#ifndef WAVEOPT_LIB_SIM_BINARY_H_
#define WAVEOPT_LIB_SIM_BINARY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace waveopt {
namespace sim {

constexpr uint32_t kSpirvMagic = 0x07230203u;

struct BinaryInstruction {
  uint32_t op = 0;
  uint32_t word_count = 0;
  uint32_t type = 0;              // result type id, 0 if none
  uint32_t result = 0;            // result id, 0 if none
  const uint32_t* ops = nullptr;  // the operands after the result type and id
  uint32_t num_ops = 0;
  const uint32_t* words = nullptr;  // every word after the opcode word
  uint32_t word = 0;                // position of the opcode word in the module
};

// Calls |visit| on every instruction of |words| in order. Fails with one
// line in |error| on a module that is not SPIR-V (magic number, header) or
// is malformed (a word count of zero or past the end, a result id not below
// the bound), and when |visit| returns false (it sets |error|).
bool ReadBinary(const std::vector<uint32_t>& words,
                const std::function<bool(const BinaryInstruction&)>& visit, std::string* error);

// The string literal in the |n| words at |w| (up to its NUL).
std::string LiteralString(const uint32_t* w, uint32_t n);

}  // namespace sim
}  // namespace waveopt

#endif  // WAVEOPT_LIB_SIM_BINARY_H_
