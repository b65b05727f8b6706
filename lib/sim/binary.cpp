#include "lib/sim/binary.h"

#define SPV_ENABLE_UTILITY_CODE
#include <spirv/unified1/spirv.hpp>

namespace waveopt {
namespace sim {

bool ReadBinary(const std::vector<uint32_t>& words,
                const std::function<bool(const BinaryInstruction&)>& visit, std::string* error) {
  if (words.size() < 5 || words[0] != kSpirvMagic) {
    *error = "not a SPIR-V module (bad magic number or too short)";
    return false;
  }
  uint32_t bound = words[3];
  for (size_t i = 5; i < words.size();) {
    BinaryInstruction in;
    in.op = words[i] & 0xffffu;
    in.word_count = words[i] >> 16;
    uint32_t wc = in.word_count;
    if (wc == 0 || i + wc > words.size()) {
      *error = "malformed SPIR-V: bad instruction word count at word " + std::to_string(i);
      return false;
    }
    bool has_result = false, has_type = false;
    spv::HasResultAndType(static_cast<spv::Op>(in.op), &has_result, &has_type);
    uint32_t k = 1;
    if (has_type && k < wc) in.type = words[i + k++];
    if (has_result && k < wc) in.result = words[i + k++];
    in.ops = words.data() + i + k;
    in.num_ops = wc - k;
    in.words = words.data() + i + 1;
    in.word = static_cast<uint32_t>(i);
    i += wc;
    if (in.result != 0 && in.result >= bound) {
      *error = "malformed SPIR-V: id " + std::to_string(in.result) + " is not below the bound";
      return false;
    }
    if (!visit(in)) return false;
  }
  return true;
}

std::string LiteralString(const uint32_t* w, uint32_t n) {
  std::string s;
  for (uint32_t i = 0; i < n; ++i) {
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((w[i] >> (8 * b)) & 0xff);
      if (c == '\0') return s;
      s.push_back(c);
    }
  }
  return s;
}

}  // namespace sim
}  // namespace waveopt
