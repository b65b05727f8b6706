// SPIR-V in and out: text and binary, validation, and files written
// atomically. Part of the core layer: SPIRV-Tools only.
#ifndef WAVEOPT_SPIRV_IO_H_
#define WAVEOPT_SPIRV_IO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "spirv-tools/libspirv.h"

namespace waveopt {

// SPIR-V text <-> binary with SPIRV-Tools. |error| is one line.
bool AssembleText(const std::string& text, spv_target_env env, std::vector<uint32_t>* words,
                  std::string* error);
bool DisassembleWords(const std::vector<uint32_t>& words, spv_target_env env, std::string* text,
                      std::string* error);

// Checks the header and turns bytes into words (either endianness). |error|
// says what is wrong: empty input, length not a multiple of 4, bad magic,
// truncated header, an instruction that runs past the end (truncated).
bool BytesToWords(const std::string& bytes, std::vector<uint32_t>* words, std::string* error);

// Reads a whole file ("-" is stdin).
bool ReadFile(const std::string& path, std::string* contents, std::string* error);

// Writes |contents| to |path| through a temporary file in the same directory
// and a rename, so |path| is either untouched or complete. "-" is stdout.
bool WriteFileAtomically(const std::string& path, const std::string& contents, std::string* error);

// The block layout rules the validator checks, as spirv-val's flags:
// kDefault (the environment's own), kRelaxed (--relax-block-layout),
// kUniformStandard (--uniform-buffer-standard-layout), kScalar
// (--scalar-block-layout: GL_EXT_scalar_block_layout / VK_EXT_scalar_block_
// layout) and kSkip (--skip-block-layout).
enum class BlockLayout { kDefault, kRelaxed, kUniformStandard, kScalar, kSkip };

// Validates |words| for |env| under |layout|; |error| gets the validator's
// first message.
bool ValidateModule(const std::vector<uint32_t>& words, spv_target_env env, std::string* error,
                    BlockLayout layout = BlockLayout::kDefault);

}  // namespace waveopt

#endif  // WAVEOPT_SPIRV_IO_H_
