// Getting shaders in and out: GLSL/HLSL through glslang, GLSL/HLSL back out
// through SPIRV-Cross, SPIR-V text and binary, and files written atomically.
#ifndef WAVEOPT_IO_H_
#define WAVEOPT_IO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "spirv-tools/libspirv.h"

namespace waveopt {

enum class SourceLanguage { kGlsl, kHlsl };

struct CompileOptions {
  SourceLanguage language = SourceLanguage::kGlsl;
  // Shader stage: "comp", "vert", "frag", "geom", "tesc", "tese", "task",
  // "mesh". Empty: from the file name's extension (".comp" ...), or "comp"
  // for HLSL.
  std::string stage;
  std::string entry_point = "main";
  std::vector<std::string> defines;       // "NAME" or "NAME=VALUE"
  std::vector<std::string> include_dirs;  // searched for #include "..."
  spv_target_env target_env = SPV_ENV_VULKAN_1_1;
};

// Compiles |source| (named |file_name| in messages) to SPIR-V. On failure
// returns false and sets |error| to one line naming the file and the problem.
bool CompileShader(const std::string& source, const std::string& file_name,
                   const CompileOptions& options, std::vector<uint32_t>* words,
                   std::string* error);

// Stage name for a file extension (".comp" → "comp"), "" if not a shader one.
std::string StageForExtension(const std::string& extension);

enum class OutputLanguage { kGlsl, kHlsl };

// Turns SPIR-V back into source with SPIRV-Cross: Vulkan GLSL 450 with the
// GL_KHR_shader_subgroup_* extensions the module needs, or HLSL at shader
// model 6.0 (5.0 when the module uses no subgroup operations).
bool DecompileShader(const std::vector<uint32_t>& words, OutputLanguage language,
                     std::string* source, std::string* error);

// SPIR-V text <-> binary with SPIRV-Tools. |error| is one line.
bool AssembleText(const std::string& text, spv_target_env env,
                  std::vector<uint32_t>* words, std::string* error);
bool DisassembleWords(const std::vector<uint32_t>& words, spv_target_env env,
                      std::string* text, std::string* error);

// Checks the header and turns bytes into words (either endianness). |error|
// says what is wrong: empty input, length not a multiple of 4, bad magic,
// truncated header.
bool BytesToWords(const std::string& bytes, std::vector<uint32_t>* words,
                  std::string* error);

// Reads a whole file ("-" is stdin).
bool ReadFile(const std::string& path, std::string* contents, std::string* error);

// Writes |contents| to |path| through a temporary file in the same directory
// and a rename, so |path| is either untouched or complete. "-" is stdout.
bool WriteFileAtomically(const std::string& path, const std::string& contents,
                         std::string* error);

// The block layout rules the validator checks, as spirv-val's flags:
// kDefault (the environment's own), kRelaxed (--relax-block-layout),
// kUniformStandard (--uniform-buffer-standard-layout), kScalar
// (--scalar-block-layout: GL_EXT_scalar_block_layout / VK_EXT_scalar_block_
// layout) and kSkip (--skip-block-layout).
enum class BlockLayout { kDefault, kRelaxed, kUniformStandard, kScalar, kSkip };

// Validates |words| for |env| under |layout|; |error| gets the validator's
// first message.
bool ValidateModule(const std::vector<uint32_t>& words, spv_target_env env,
                    std::string* error, BlockLayout layout = BlockLayout::kDefault);

}  // namespace waveopt

#endif  // WAVEOPT_IO_H_
