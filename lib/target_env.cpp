// Target environments: names, and the default for a module.
#include <cstring>

#include "spirv/unified1/spirv.h"
#include "waveopt/config.h"

namespace waveopt {
namespace {

struct EnvName {
  const char* name;
  spv_target_env env;
};

constexpr EnvName kEnvs[] = {
    {"vulkan1.0", SPV_ENV_VULKAN_1_0},
    {"vulkan1.1", SPV_ENV_VULKAN_1_1},
    {"vulkan1.1spv1.4", SPV_ENV_VULKAN_1_1_SPIRV_1_4},
    {"vulkan1.2", SPV_ENV_VULKAN_1_2},
    {"vulkan1.3", SPV_ENV_VULKAN_1_3},
    {"spv1.0", SPV_ENV_UNIVERSAL_1_0},
    {"spv1.1", SPV_ENV_UNIVERSAL_1_1},
    {"spv1.2", SPV_ENV_UNIVERSAL_1_2},
    {"spv1.3", SPV_ENV_UNIVERSAL_1_3},
    {"spv1.4", SPV_ENV_UNIVERSAL_1_4},
    {"spv1.5", SPV_ENV_UNIVERSAL_1_5},
    {"spv1.6", SPV_ENV_UNIVERSAL_1_6},
};

}  // namespace

bool ParseTargetEnv(const std::string& name, spv_target_env* env) {
  for (const EnvName& e : kEnvs) {
    if (name == e.name) {
      *env = e.env;
      return true;
    }
  }
  return false;
}

std::string TargetEnvName(spv_target_env env) {
  for (const EnvName& e : kEnvs) {
    if (env == e.env) return e.name;
  }
  return spvTargetEnvDescription(env);
}

spv_target_env DefaultTargetEnv(const std::vector<uint32_t>& words) {
  uint32_t version = words.size() > 1 ? words[1] : 0x10000;
  uint32_t minor = (version >> 8) & 0xff;
  // Kernel modules are not Vulkan modules: scan the capabilities.
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16;
    uint32_t opcode = words[i] & 0xffff;
    if (count == 0) break;
    if (opcode == SpvOpCapability && i + 1 < words.size() && words[i + 1] == SpvCapabilityKernel) {
      constexpr spv_target_env kUniversal[] = {SPV_ENV_UNIVERSAL_1_0, SPV_ENV_UNIVERSAL_1_1,
                                               SPV_ENV_UNIVERSAL_1_2, SPV_ENV_UNIVERSAL_1_3,
                                               SPV_ENV_UNIVERSAL_1_4, SPV_ENV_UNIVERSAL_1_5,
                                               SPV_ENV_UNIVERSAL_1_6};
      return kUniversal[minor > 6 ? 6 : minor];
    }
    // Capabilities come first; stop at the first non-capability instruction.
    if (opcode != SpvOpCapability) break;
    i += count;
  }
  if (minor == 0) return SPV_ENV_VULKAN_1_0;
  if (minor <= 3) return SPV_ENV_VULKAN_1_1;
  if (minor == 4) return SPV_ENV_VULKAN_1_1_SPIRV_1_4;
  if (minor == 5) return SPV_ENV_VULKAN_1_2;
  return SPV_ENV_VULKAN_1_3;
}

}  // namespace waveopt
