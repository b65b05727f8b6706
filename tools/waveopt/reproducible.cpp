// What makes an output a function of its inputs, flags and version alone:
// the names GLSL/HLSL files are recorded under in the module
// (--source-prefix-map, --source-name, normalized spelling; the front end
// takes them through CompileOptions::record_name) and the cache key
// (--print-cache-key).
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "glslang/build_info.h"
#include "tools/waveopt/cli.h"
#include "tools/waveopt/sha256.h"

namespace waveopt_cli {
namespace {

namespace fs = std::filesystem;

// |path| without "." components, "x/../" pairs, doubled or trailing slashes.
std::string Normalize(const std::string& path) {
  std::string n = fs::path(path).lexically_normal().string();
  while (n.size() > 1 && n.back() == '/') n.pop_back();
  return n.empty() ? "." : n;
}

// |path| with |old| replaced by |replacement|, when |old| is |path| or a
// directory above it; false otherwise.
bool MapPrefix(const std::string& path, const std::string& old, const std::string& replacement,
               std::string* mapped) {
  if (path.compare(0, old.size(), old) != 0) return false;
  std::string rest = path.substr(old.size());
  if (!rest.empty() && rest[0] != '/' && old != "/") return false;
  if (replacement.empty()) {
    while (!rest.empty() && rest[0] == '/') rest.erase(0, 1);
    *mapped = rest.empty() ? "." : rest;
  } else {
    *mapped = Normalize(replacement + (rest.empty() || rest[0] == '/' ? "" : "/") + rest);
  }
  return true;
}

// The longest matching OLD of |map| applied to |path|; of equal ones the
// last given. False: none matches.
bool ApplyMap(const PrefixMap& map, const std::string& path, std::string* mapped) {
  size_t best = 0;
  bool found = false;
  for (const auto& [old, replacement] : map) {
    std::string m;
    if (old.size() >= best && MapPrefix(path, old, replacement, &m)) {
      best = old.size();
      *mapped = m;
      found = true;
    }
  }
  return found;
}

}  // namespace

bool ParsePrefixMap(const std::string& value, PrefixMap* map, std::string* error) {
  const size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0) {
    *error = "--source-prefix-map takes OLD=NEW (NEW may be empty), not '" + value + "'";
    return false;
  }
  map->emplace_back(Normalize(value.substr(0, eq)), value.substr(eq + 1));
  return true;
}

std::string RecordedName(const PrefixMap& map, const std::string& path) {
  if (path == "-") return path;
  const std::string spelled = Normalize(path);
  std::string mapped;
  if (ApplyMap(map, spelled, &mapped)) return mapped;
  if (!map.empty() && spelled[0] != '/') {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) != nullptr &&
        ApplyMap(map, Normalize(std::string(cwd) + "/" + spelled), &mapped)) {
      return mapped;
    }
  }
  return spelled;
}

std::string CacheKeyMaterial(const KeyInputs& k) {
  std::string m = "waveopt-cache-key 1\n";
  m += "waveopt " + std::string(waveopt::Version()) + "\n";
  m += "spirv-tools " + std::string(waveopt::SpirvToolsVersion()) + "\n";
  m += "glslang " + std::to_string(GLSLANG_VERSION_MAJOR) + "." +
       std::to_string(GLSLANG_VERSION_MINOR) + "." + std::to_string(GLSLANG_VERSION_PATCH) +
       GLSLANG_VERSION_FLAVOR + "\n";
  for (waveopt::Target t : waveopt::AllTargets()) {
    m += std::string("facts ") + waveopt::TargetName(t) + ":";
    const waveopt::TargetFacts f = waveopt::FactsOf(t);
    for (const waveopt::TargetFactInfo& info : waveopt::TargetFactTable()) {
      if (f.*info.member) m += std::string(" ") + info.name;
    }
    m += "\n";
  }
  m += "input-format " + std::string(FormatName(k.input_format)) + "\n";
  m += "output-format " + std::string(FormatName(k.output_format)) + "\n";
  const Cli& c = *k.cli;
  if (k.input_format == Format::kGlsl || k.input_format == Format::kHlsl) {
    m += "stage " + k.stage + "\nentry " + c.compile.entry_point + "\n";
    for (const std::string& d : c.compile.defines) m += "define " + d + "\n";
  }
  for (const std::string& f : c.key_flags) m += "flag " + f + "\n";
  for (const auto& [name, bytes] : k.files) m += "file " + name + " " + Sha256Hex(bytes) + "\n";
  return m;
}

const char* FormatName(Format format) {
  switch (format) {
    case Format::kSpv:
      return "spv";
    case Format::kSpvAsm:
      return "spvasm";
    case Format::kGlsl:
      return "glsl";
    case Format::kHlsl:
      return "hlsl";
    case Format::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace waveopt_cli
