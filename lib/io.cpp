// SPIR-V text/binary conversion, validation and file I/O.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "spirv-tools/libspirv.hpp"
#include "waveopt/spirv_io.h"

namespace waveopt {
namespace {

constexpr uint32_t kMagic = 0x07230203;

// First message of severity error (or worse) that SPIRV-Tools reports.
struct FirstError {
  std::string text;
  void operator()(spv_message_level_t level, const char*, const spv_position_t& pos,
                  const char* message) {
    if (level > SPV_MSG_ERROR || !text.empty()) return;
    text = message;
    if (pos.index != 0) text += " (word " + std::to_string(pos.index) + ")";
  }
};

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Whether every instruction after the header ends inside |words|; else
// |error| names the first one that runs past the end. A zero word count
// stops the walk: the validator names that.
bool InstructionsFit(const std::vector<uint32_t>& words, std::string* error) {
  size_t i = 5;
  while (i < words.size()) {
    const uint32_t count = words[i] >> 16;
    if (count == 0) return true;
    if (count > words.size() - i) {
      *error = "truncated SPIR-V module: instruction at word " + std::to_string(i) +
               " runs past the end (" + std::to_string(words.size()) + " words)";
      return false;
    }
    i += count;
  }
  return true;
}

}  // namespace

bool BytesToWords(const std::string& bytes, std::vector<uint32_t>* words, std::string* error) {
  words->clear();
  if (bytes.empty()) {
    *error = "empty input";
    return false;
  }
  if (bytes.size() % 4 != 0) {
    *error = "not a SPIR-V binary: " + std::to_string(bytes.size()) +
             " bytes is not a whole number of 32-bit words";
    return false;
  }
  if (bytes.size() < 20) {
    *error = "truncated SPIR-V module: " + std::to_string(bytes.size()) +
             " bytes, the header alone needs 20";
    return false;
  }
  words->resize(bytes.size() / 4);
  std::memcpy(words->data(), bytes.data(), bytes.size());
  if ((*words)[0] != kMagic) {
    if (__builtin_bswap32((*words)[0]) != kMagic) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "0x%08x", (*words)[0]);
      *error = std::string("not a SPIR-V binary: magic number ") + buf + " is not 0x07230203";
      words->clear();
      return false;
    }
    for (uint32_t& w : *words) w = __builtin_bswap32(w);
  }
  if (!InstructionsFit(*words, error)) {
    words->clear();
    return false;
  }
  return true;
}

bool ReadFile(const std::string& path, std::string* contents, std::string* error) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    *contents = ss.str();
    return true;
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = std::string("cannot read: ") + std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "cannot read: is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = std::string("cannot read: ") + std::strerror(errno);
    return false;
  }
  contents->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) {
    *error = "cannot read: I/O error";
    return false;
  }
  return true;
}

bool WriteFileAtomically(const std::string& path, const std::string& contents, std::string* error) {
  if (path == "-") {
    std::cout.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    std::cout.flush();
    if (!std::cout) {
      *error = "cannot write to standard output";
      return false;
    }
    return true;
  }
  std::string tmp = path + ".waveopt-tmp-XXXXXX";
  std::vector<char> name(tmp.begin(), tmp.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) {
    *error = std::string("cannot write: ") + std::strerror(errno);
    return false;
  }
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = std::string("cannot write: ") + std::strerror(errno);
      close(fd);
      unlink(name.data());
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp creates 0600; give the file the usual permissions.
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  if (close(fd) != 0 || rename(name.data(), path.c_str()) != 0) {
    *error = std::string("cannot write: ") + std::strerror(errno);
    unlink(name.data());
    return false;
  }
  return true;
}

bool AssembleText(const std::string& text, spv_target_env env, std::vector<uint32_t>* words,
                  std::string* error) {
  spvtools::SpirvTools tools(env);
  FirstError first;
  tools.SetMessageConsumer(std::ref(first));
  if (!tools.Assemble(text, words, SPV_TEXT_TO_BINARY_OPTION_PRESERVE_NUMERIC_IDS)) {
    *error =
        "invalid SPIR-V assembly: " + OneLine(first.text.empty() ? "cannot assemble" : first.text);
    return false;
  }
  return true;
}

bool DisassembleWords(const std::vector<uint32_t>& words, spv_target_env env, std::string* text,
                      std::string* error) {
  spvtools::SpirvTools tools(env);
  FirstError first;
  tools.SetMessageConsumer(std::ref(first));
  if (!tools.Disassemble(
          words, text,
          SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT)) {
    *error = "cannot disassemble: " + OneLine(first.text);
    return false;
  }
  return true;
}

bool ValidateModule(const std::vector<uint32_t>& words, spv_target_env env, std::string* error,
                    BlockLayout layout) {
  spvtools::SpirvTools tools(env);
  // SPIRV-Tools 2023.1 builds a friendly name for every id before it
  // validates, and makes duplicate OpNames unique by trying suffixes _0, _1,
  // ... in turn: quadratic in the number of ids that share a name (every
  // inlined "param" of a large module). The names only serve error messages,
  // so a module is validated without them, and only a module that fails is
  // validated again with them for a readable message.
  spvtools::ValidatorOptions options;
  switch (layout) {
    case BlockLayout::kDefault:
      break;
    case BlockLayout::kRelaxed:
      options.SetRelaxBlockLayout(true);
      break;
    case BlockLayout::kUniformStandard:
      options.SetUniformBufferStandardLayout(true);
      break;
    case BlockLayout::kScalar:
      options.SetScalarBlockLayout(true);
      break;
    case BlockLayout::kSkip:
      options.SetSkipBlockLayout(true);
      break;
  }
  options.SetFriendlyNames(false);
  if (tools.Validate(words.data(), words.size(), options)) return true;
  FirstError first;
  tools.SetMessageConsumer(std::ref(first));
  options.SetFriendlyNames(true);
  tools.Validate(words.data(), words.size(), options);
  *error = OneLine(first.text.empty() ? "invalid module" : first.text);
  return false;
}

}  // namespace waveopt
