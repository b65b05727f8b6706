// SPIR-V → GLSL/HLSL through SPIRV-Cross. SPIRV-Cross reports errors by
// throwing; nothing is let out of this file.
#include <exception>

#include "spirv_cross/spirv_glsl.hpp"
#include "spirv_cross/spirv_hlsl.hpp"
#include "waveopt/frontend.h"

namespace waveopt {
namespace {

// The lowest HLSL shader model that can hold what |words| uses:
//   6.6  helper-lane queries (OpIsHelperInvocationEXT, the HelperInvocation
//        built-in: SPIRV-Cross writes IsHelperLane(), an SM 6.6 intrinsic);
//   6.2  16-bit types (with SPIRV-Cross's enable_16bit_types);
//   6.0  subgroup operations (Wave* intrinsics), 64-bit integers;
//   5.0  otherwise.
struct HlslNeeds {
  uint32_t shader_model = 50;
  bool sixteen_bit = false;
};

HlslNeeds HlslNeedsOf(const std::vector<uint32_t>& words) {
  HlslNeeds needs;
  auto at_least = [&needs](uint32_t sm) {
    if (needs.shader_model < sm) needs.shader_model = sm;
  };
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    const uint32_t opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size()) break;
    if (opcode == spv::OpCapability) {
      const uint32_t cap = words[i + 1];
      if ((cap >= spv::CapabilityGroupNonUniform && cap <= spv::CapabilityGroupNonUniformQuad) ||
          cap == spv::CapabilitySubgroupBallotKHR || cap == spv::CapabilityInt64) {
        at_least(60);
      }
      if (cap == spv::CapabilityFloat16 || cap == spv::CapabilityInt16) {
        at_least(62);
        needs.sixteen_bit = true;
      }
      if (cap == spv::CapabilityDemoteToHelperInvocationEXT) at_least(66);
    } else if (opcode == spv::OpDecorate && count >= 4 &&
               words[i + 2] == spv::DecorationBuiltIn &&
               words[i + 3] == spv::BuiltInHelperInvocation) {
      at_least(66);
    } else if (opcode == spv::OpFunction) {
      break;
    }
    i += count;
  }
  return needs;
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
      const HlslNeeds needs = HlslNeedsOf(words);
      options.shader_model = needs.shader_model;
      options.enable_16bit_types = needs.sixteen_bit;
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
