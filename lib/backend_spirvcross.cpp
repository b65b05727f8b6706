// SPIR-V → GLSL/HLSL through SPIRV-Cross. SPIRV-Cross reports errors by
// throwing; nothing is let out of this file.
#include <algorithm>
#include <cstring>
#include <exception>
#include <set>

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
// Not raised for what only DXC would read (16-bit buffer values, which
// SPIRV-Cross loads with ByteAddressBuffer's Load<T>; NonUniformResourceIndex
// at 5.1): glslang's HLSL front end, the one the tests can run, reads neither.
struct HlslNeeds {
  uint32_t shader_model = 50;
  bool sixteen_bit = false;
};

// Calls |visit|(opcode, instruction words, word count) for each
// instruction before the first function (capabilities, decorations).
template <typename Visit>
void ForEachPreambleInstruction(const std::vector<uint32_t>& words, Visit visit) {
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    const uint32_t opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size() || opcode == spv::OpFunction) return;
    visit(opcode, &words[i], count);
    i += count;
  }
}

HlslNeeds HlslNeedsOf(const std::vector<uint32_t>& words) {
  HlslNeeds needs;
  auto at_least = [&needs](uint32_t sm) {
    if (needs.shader_model < sm) needs.shader_model = sm;
  };
  ForEachPreambleInstruction(words, [&](uint32_t opcode, const uint32_t* w, uint32_t count) {
    if (opcode == spv::OpCapability) {
      const uint32_t cap = w[1];
      if ((cap >= spv::CapabilityGroupNonUniform && cap <= spv::CapabilityGroupNonUniformQuad) ||
          cap == spv::CapabilitySubgroupBallotKHR || cap == spv::CapabilityInt64) {
        at_least(60);
      }
      if (cap == spv::CapabilityFloat16 || cap == spv::CapabilityInt16) {
        at_least(62);
        needs.sixteen_bit = true;
      }
      if (cap == spv::CapabilityDemoteToHelperInvocationEXT) at_least(66);
    } else if (opcode == spv::OpDecorate && count >= 4 && w[2] == spv::DecorationBuiltIn &&
               w[3] == spv::BuiltInHelperInvocation) {
      at_least(66);
    }
  });
  return needs;
}

// The GLSL version |words| needs: 460 for ray queries and ray tracing
// (SPIRV-Cross: "RayQuery requires Vulkan GLSL 460"), else 450.
uint32_t GlslVersionOf(const std::vector<uint32_t>& words) {
  uint32_t version = 450;
  ForEachPreambleInstruction(words, [&](uint32_t opcode, const uint32_t* w, uint32_t) {
    const uint32_t cap = opcode == spv::OpCapability ? w[1] : 0;
    if (cap == spv::CapabilityRayQueryKHR || cap == spv::CapabilityRayTracingKHR ||
        cap == spv::CapabilityRayTracingNV || cap == spv::CapabilityRayQueryProvisionalKHR ||
        cap == spv::CapabilityRayTracingProvisionalKHR) {
      version = 460;
    }
  });
  return version;
}

// SPIRV-Cross's message, with the built-in it names by number named: its
// HLSL back end says "Unsupported builtin in HLSL: 40".
std::string SpirvCrossMessage(const std::string& what) {
  static const struct {
    uint32_t id;
    const char* text;
  } kBuiltIns[] = {
      {spv::BuiltInNumSubgroups, "NumSubgroups (gl_NumSubgroups), which HLSL has no spelling for"},
      {spv::BuiltInSubgroupId, "SubgroupId (gl_SubgroupID), which HLSL has no spelling for"},
      {spv::BuiltInSubgroupEqMask, "SubgroupEqMask (gl_SubgroupEqMask)"},
      {spv::BuiltInSubgroupGeMask, "SubgroupGeMask (gl_SubgroupGeMask)"},
      {spv::BuiltInSubgroupGtMask, "SubgroupGtMask (gl_SubgroupGtMask)"},
      {spv::BuiltInSubgroupLeMask, "SubgroupLeMask (gl_SubgroupLeMask)"},
      {spv::BuiltInSubgroupLtMask, "SubgroupLtMask (gl_SubgroupLtMask)"},
      {spv::BuiltInBaseVertex, "BaseVertex (gl_BaseVertex)"},
      {spv::BuiltInBaseInstance, "BaseInstance (gl_BaseInstance)"},
      {spv::BuiltInDrawIndex, "DrawIndex (gl_DrawID)"},
      {spv::BuiltInDeviceIndex, "DeviceIndex (gl_DeviceIndex)"},
  };
  const std::string prefix = "Unsupported builtin in HLSL: ";
  if (what.rfind(prefix, 0) != 0) return what;
  const std::string number = what.substr(prefix.size());
  for (const auto& b : kBuiltIns) {
    if (number == std::to_string(b.id)) return what + " (built-in " + b.text + ")";
  }
  return what;
}

std::string LiteralString(const uint32_t* w, uint32_t words) {
  return std::string(reinterpret_cast<const char*>(w),
                     strnlen(reinterpret_cast<const char*>(w), words * 4));
}

// |words| without what SPIRV-Cross cannot read and GLSL/HLSL cannot say:
// the NonSemantic.* instruction sets, every instruction of theirs
// (OpExtInst and DXC's OpExtInstWithForwardRefsKHR, whose forward
// references SPIRV-Cross takes for code outside a block: "Currently no
// block to insert opcode") and the extensions that announce them. Nothing
// else uses their results (SPV_KHR_non_semantic_info). Word-level, as
// spirv-opt's --strip-nonsemantic crashes on a DebugScope in a function
// (docs/cli.md, Re-emission).
std::vector<uint32_t> StripNonSemantic(const std::vector<uint32_t>& words) {
  constexpr uint32_t kExtInstWithForwardRefs = 4433;  // OpExtInstWithForwardRefsKHR
  std::set<uint32_t> sets;
  std::vector<uint32_t> out(words.begin(), words.begin() + std::min<size_t>(5, words.size()));
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    const uint32_t opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size()) return words;
    const uint32_t* w = &words[i];
    bool drop = false;
    if (opcode == spv::OpExtInstImport && count >= 3 &&
        LiteralString(w + 2, count - 2).rfind("NonSemantic.", 0) == 0) {
      sets.insert(w[1]);
      drop = true;
    } else if (opcode == spv::OpExtension && count >= 2) {
      const std::string name = LiteralString(w + 1, count - 1);
      drop = name == "SPV_KHR_non_semantic_info" || name == "SPV_KHR_relaxed_extended_instruction";
    } else if ((opcode == spv::OpExtInst || opcode == kExtInstWithForwardRefs) && count >= 5) {
      drop = sets.count(w[3]) != 0;
    }
    if (!drop) out.insert(out.end(), w, w + count);
    i += count;
  }
  return out;
}

// Binding |id| to the first binding of set 0 no resource of |compiler|'s
// module uses; returns it.
uint32_t BindToFreeSlot(spirv_cross::Compiler* compiler, uint32_t id) {
  const spirv_cross::ShaderResources r = compiler->get_shader_resources();
  uint32_t free = 0;
  for (const auto* list :
       {&r.uniform_buffers, &r.storage_buffers, &r.storage_images, &r.sampled_images,
        &r.separate_images, &r.separate_samplers, &r.acceleration_structures, &r.atomic_counters}) {
    for (const spirv_cross::Resource& res : *list) {
      if (res.id == id || !compiler->has_decoration(res.id, spv::DecorationBinding)) continue;
      if (compiler->get_decoration(res.id, spv::DecorationDescriptorSet) != 0) continue;
      free = std::max(free, compiler->get_decoration(res.id, spv::DecorationBinding) + 1);
    }
  }
  compiler->set_decoration(id, spv::DecorationDescriptorSet, 0);
  compiler->set_decoration(id, spv::DecorationBinding, free);
  return free;
}

// HLSL has no gl_NumWorkGroups: as SPIRV-Cross's own CLI does, it is read
// from a constant buffer, put on a free binding and reported in |notes|.
void RemapNumWorkgroups(spirv_cross::CompilerHLSL* compiler, std::vector<std::string>* notes) {
  const uint32_t id = compiler->remap_num_workgroups_builtin();
  if (id == 0) return;
  const uint32_t binding = BindToFreeSlot(compiler, id);
  if (notes == nullptr) return;
  notes->push_back(
      "the HLSL reads gl_NumWorkGroups from cbuffer SPIRV_Cross_NumWorkgroups "
      "(register(b" +
      std::to_string(binding) + "): descriptor set 0, binding " + std::to_string(binding) +
      "): bind a uniform buffer holding the dispatch's "
      "group counts (uint3) there");
}

}  // namespace

bool DecompileShader(const std::vector<uint32_t>& words, OutputLanguage language,
                     std::string* source, std::string* error) {
  return DecompileShader(words, language, source, error, nullptr);
}

bool DecompileShader(const std::vector<uint32_t>& words, OutputLanguage language,
                     std::string* source, std::string* error, std::vector<std::string>* notes) {
  try {
    const std::vector<uint32_t> readable = StripNonSemantic(words);
    if (language == OutputLanguage::kGlsl) {
      spirv_cross::CompilerGLSL compiler(readable);
      spirv_cross::CompilerGLSL::Options options;
      options.version = GlslVersionOf(readable);
      options.es = false;
      options.vulkan_semantics = true;  // subgroup ops need Vulkan GLSL
      compiler.set_common_options(options);
      *source = compiler.compile();
    } else {
      spirv_cross::CompilerHLSL compiler(readable);
      spirv_cross::CompilerHLSL::Options options;
      const HlslNeeds needs = HlslNeedsOf(readable);
      options.shader_model = needs.shader_model;
      options.enable_16bit_types = needs.sixteen_bit;
      compiler.set_hlsl_options(options);
      RemapNumWorkgroups(&compiler, notes);
      *source = compiler.compile();
    }
  } catch (const std::exception& e) {
    *error = "SPIRV-Cross: " + SpirvCrossMessage(e.what());
    return false;
  }
  return true;
}

}  // namespace waveopt
