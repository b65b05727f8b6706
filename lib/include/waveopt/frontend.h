// GLSL/HLSL in through glslang, GLSL/HLSL out through SPIRV-Cross: the
// waveopt::frontends library (CMake: find_package(waveopt COMPONENTS
// frontends)), apart from the engine library so that a program that only
// optimizes SPIR-V links neither glslang nor SPIRV-Cross.
#ifndef WAVEOPT_FRONTEND_H_
#define WAVEOPT_FRONTEND_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spirv-tools/libspirv.h"

namespace waveopt {

enum class SourceLanguage { kGlsl, kHlsl };

// Resource kinds as glslang's binding options name them (the order of its
// TResourceType): samplers, textures (sampled images, texel and read-only
// structured buffers under HLSL's t registers), storage images, uniform
// buffers, storage buffers, UAVs (HLSL's u registers).
enum class ResourceKind { kSampler, kTexture, kImage, kUbo, kSsbo, kUav };

// Where the front end puts resources the source does not place, and how it
// moves those it does: glslangValidator's options and DXC's -fvk-* ones,
// with their meanings (docs/cli.md, "Resource bindings").
struct ResourceBindings {
  // Give every resource without a binding the next free one
  // (--auto-map-bindings; DXC's -auto-binding-space).
  bool auto_map = false;
  // HLSL: shift by register class (b, t, u, s) rather than by resource type
  // (--hlsl-iomap; implied by DXC's -fvk-<x>-shift).
  bool hlsl_iomap = false;
  struct Shift {
    ResourceKind kind = ResourceKind::kTexture;
    uint32_t base = 0;
    int set = -1;       // -1: every descriptor set
    std::string stage;  // "comp", "frag", ...; "": every stage
  };
  std::vector<Shift> shifts;  // --shift-<kind>-binding, -fvk-<x>-shift
  // glslang's --resource-set-binding list: {"<set>"} (every resource without
  // a space/set goes to that set), or triples {"<register>", "<set>",
  // "<binding>"} (that HLSL register, e.g. "t3", goes there); for one stage
  // or ("") every stage. The last one for the compiled stage applies.
  struct SetBinding {
    std::string stage;
    std::vector<std::string> values;
  };
  std::vector<SetBinding> resource_set_binding;

  bool empty() const {
    return !auto_map && !hlsl_iomap && shifts.empty() && resource_set_binding.empty();
  }
};

// Reads the binding option at |args|[*i] (glslangValidator's or DXC's
// spelling, with the values that follow it) into |bindings|. Returns
// kNotBinding when args[*i] is no such option, kError with |error| set when
// its values are malformed; on kOk, *i is the last argument it used.
enum class BindingOptionStatus { kOk, kNotBinding, kError };
BindingOptionStatus ParseBindingOption(const std::vector<std::string>& args, size_t* i,
                                       ResourceBindings* bindings, std::string* error);

struct CompileOptions {
  SourceLanguage language = SourceLanguage::kGlsl;
  // Shader stage: "comp", "vert", "frag", "geom", "tesc", "tese", "task",
  // "mesh". Empty: from the file name's extension (".comp" ...), or "comp"
  // for HLSL with a [numthreads(...)] attribute; other HLSL is refused.
  std::string stage;
  std::string entry_point = "main";
  std::vector<std::string> defines;       // "NAME" or "NAME=VALUE"
  std::vector<std::string> include_dirs;  // searched for #include "..."
  spv_target_env target_env = SPV_ENV_VULKAN_1_1;
  ResourceBindings bindings;
  // The name a file (the source's file_name, or an #include as found) is
  // recorded under in the module's OpString/OpSource/OpLine and in
  // glslang's messages; empty: as given. Reproducible builds map machine
  // paths away here (the CLI's --source-prefix-map); names must stay
  // distinct.
  std::function<std::string(const std::string&)> record_name;
};

// Compiles |source| (named |file_name| in messages) to SPIR-V. On failure
// returns false and sets |error| to one line naming the file and the problem.
// |warnings| (may be null) gets one line per problem that does not stop the
// compilation: resources of different descriptor types that share a
// binding (HLSL without register()s or binding options puts every resource
// at set 0, binding 0). |included_files| (may be null) gets every file an
// #include read, each once, in the order first read, spelled as found (the
// including file's directory or an include directory, joined with the
// header's name): what a depfile lists besides |file_name|. It is filled
// on failure too, as far as the preprocessor got.
bool CompileShader(const std::string& source, const std::string& file_name,
                   const CompileOptions& options, std::vector<uint32_t>* words, std::string* error,
                   std::vector<std::string>* warnings = nullptr,
                   std::vector<std::string>* included_files = nullptr);

// Stage name for a file extension (".comp" → "comp"), "" if not a shader one.
std::string StageForExtension(const std::string& extension);

enum class OutputLanguage { kGlsl, kHlsl };

// Turns SPIR-V back into source with SPIRV-Cross: Vulkan GLSL 450 with the
// GL_KHR_shader_subgroup_* extensions the module needs, or HLSL at shader
// model 6.0 (5.0 when the module uses no subgroup operations).
// NonSemantic.* debug information (DXC's -fspv-debug=vulkan-with-source,
// Slang's) is dropped first. HLSL reads gl_NumWorkGroups from a constant
// buffer on the first free binding of set 0; |notes| (may be null) gets one
// line saying where.
bool DecompileShader(const std::vector<uint32_t>& words, OutputLanguage language,
                     std::string* source, std::string* error);
bool DecompileShader(const std::vector<uint32_t>& words, OutputLanguage language,
                     std::string* source, std::string* error, std::vector<std::string>* notes);

}  // namespace waveopt

#endif  // WAVEOPT_FRONTEND_H_
