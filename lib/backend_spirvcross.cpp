// SPIR-V → GLSL/HLSL through SPIRV-Cross. SPIRV-Cross reports errors by
// throwing; nothing is let out of this file.
#include <exception>

#include "spirv_cross/spirv_glsl.hpp"
#include "spirv_cross/spirv_hlsl.hpp"
#include "waveopt/frontend.h"

namespace waveopt {
namespace {

// Whether the module declares any GroupNonUniform* capability.
bool UsesSubgroupOps(const std::vector<uint32_t>& words) {
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16;
    uint32_t opcode = words[i] & 0xffff;
    if (count == 0 || opcode != spv::OpCapability) break;
    uint32_t cap = words[i + 1];
    if ((cap >= spv::CapabilityGroupNonUniform &&
         cap <= spv::CapabilityGroupNonUniformQuad) ||
        cap == spv::CapabilitySubgroupBallotKHR) {
      return true;
    }
    i += count;
  }
  return false;
}

}  // namespace

bool DecompileShader(const std::vector<uint32_t>& words, OutputLanguage language,
                     std::string* source, std::string* error) {
  try {
    if (language == OutputLanguage::kGlsl) {
      spirv_cross::CompilerGLSL compiler(words);
      spirv_cross::CompilerGLSL::Options options;
      options.version = 450;
      options.es = false;
      options.vulkan_semantics = true;  // subgroup ops need Vulkan GLSL
      compiler.set_common_options(options);
      *source = compiler.compile();
    } else {
      spirv_cross::CompilerHLSL compiler(words);
      spirv_cross::CompilerHLSL::Options options;
      options.shader_model = UsesSubgroupOps(words) ? 60 : 50;
      compiler.set_hlsl_options(options);
      *source = compiler.compile();
    }
  } catch (const std::exception& e) {
    *error = std::string("SPIRV-Cross: ") + e.what();
    return false;
  }
  return true;
}

}  // namespace waveopt
