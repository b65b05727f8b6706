#include "tools/waverun/modules.h"

#include <unistd.h>

#include "spirv-tools/libspirv.hpp"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waverun {
namespace {

std::string Extension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot);
}

std::string Directory(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// True when |words| validates with the block layouts Vulkan devices enable
// as features (scalar and relaxed block layout, standard layout for uniform
// buffers, scalar workgroup memory: VK_EXT_scalar_block_layout and friends,
// which lavapipe has): modules compiled for them (layout(scalar)) are valid.
bool ValidWithDeviceLayouts(const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(waveopt::DefaultTargetEnv(words));
  spvtools::ValidatorOptions options;
  options.SetFriendlyNames(false);
  options.SetRelaxBlockLayout(true);
  options.SetScalarBlockLayout(true);
  options.SetUniformBufferStandardLayout(true);
  options.SetWorkgroupScalarBlockLayout(true);
  return tools.Validate(words.data(), words.size(), options);
}

bool IsSource(const std::string& ext) {
  return ext == ".hlsl" || ext == ".glsl" || !waveopt::StageForExtension(ext).empty();
}

bool CompileSource(const Cli& cli, const std::string& path, const std::string& contents,
                   std::vector<uint32_t>* words, std::string* error) {
  const std::string ext = Extension(path);
  waveopt::CompileOptions options;
  options.language =
      ext == ".hlsl" ? waveopt::SourceLanguage::kHlsl : waveopt::SourceLanguage::kGlsl;
  if (ext == ".glsl") options.stage = "comp";
  options.defines = cli.defines;
  options.include_dirs.push_back(Directory(path));
  options.target_env = cli.target_env;
  return waveopt::CompileShader(contents, path, options, words, error);
}

}  // namespace

void CompileSourcesOnce(Cli* cli) {
  for (const std::string& path : cli->inputs) {
    if (!IsSource(Extension(path)) || cli->compiled.count(path) != 0) continue;
    std::string contents, error;
    std::vector<uint32_t> words;
    if (waveopt::ReadFile(path, &contents, &error) &&
        CompileSource(*cli, path, contents, &words, &error)) {
      cli->compiled[path] = std::move(words);
    }
  }
}

bool LoadModule(const Cli& cli, const std::string& path, std::vector<uint32_t>* words,
                std::string* error) {
  std::string contents;
  if (!waveopt::ReadFile(path, &contents, error)) {
    if (error->find(path) == std::string::npos) *error = path + ": " + *error;
    return false;
  }
  std::string ext = Extension(path);
  std::string err;
  bool ok;
  if (ext == ".spv") {
    ok = waveopt::BytesToWords(contents, words, &err);
  } else if (ext == ".spvasm" || ext == ".spvas") {
    ok = waveopt::AssembleText(contents, cli.target_env, words, &err);
  } else if (IsSource(ext)) {
    auto compiled = cli.compiled.find(path);  // by CompileSourcesOnce
    if (compiled != cli.compiled.end()) *words = compiled->second;
    ok = compiled != cli.compiled.end() || CompileSource(cli, path, contents, words, &err);
  } else {
    *error = path + ": unknown shader type '" + ext +
             "' (expected .spv, .spvasm, .comp, .glsl or .hlsl)";
    return false;
  }
  if (!ok) {
    *error = err.rfind(path, 0) == 0 ? err : path + ": " + err;
    return false;
  }
  if (cli.validate && !waveopt::ValidateModule(*words, waveopt::DefaultTargetEnv(*words), &err) &&
      !ValidWithDeviceLayouts(*words)) {
    *error = path + ": invalid module: " + err;
    return false;
  }
  return true;
}

bool LoadSpec(const Cli& cli, const std::string& first, RunSpec* spec, std::string* error) {
  *spec = RunSpec();
  if (!cli.no_spec) {
    std::string path = cli.spec_path.empty() ? SpecPathFor(first) : cli.spec_path;
    std::string text;
    if (access(path.c_str(), F_OK) == 0 || !cli.spec_path.empty()) {
      if (!waveopt::ReadFile(path, &text, error)) {
        if (error->find(path) == std::string::npos) *error = path + ": " + *error;
        return false;
      }
      if (!ApplySpecText(text, path, spec, error)) return false;
    }
  }
  for (size_t i = 0; i < cli.spec_lines.size(); ++i) {
    if (!ApplySpecLine(cli.spec_lines[i], "command line", spec, error)) return false;
  }
  return true;
}

bool LoadAndReflect(const Cli& cli, const std::string& path, const RunSpec& spec, Module* m,
                    std::string* error) {
  m->path = path;
  if (!LoadModule(cli, path, &m->words, error)) return false;
  if (spec.separate_kinds && !SeparateBindingKinds(&m->words, error)) {
    *error = path + ": " + *error;
    return false;
  }
  if (!ReflectModule(m->words, spec.constants, &m->iface, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

bool PrepareModules(const Cli& cli, const RunSpec& spec, std::vector<Module>* modules,
                    std::string* error) {
  for (size_t i = 0; i < cli.inputs.size(); ++i) {
    if (!LoadAndReflect(cli, cli.inputs[i], spec, &(*modules)[i], error)) return false;
  }
  return BuildPlans(cli.command == "diff", spec, modules, error);
}

bool BuildPlans(bool diff, const RunSpec& spec, std::vector<Module>* modules, std::string* error) {
  if (diff) {
    Module& a = (*modules)[0];
    Module& b = (*modules)[1];
    ModuleInterface merged;
    Plan plan;
    if (!MergeInterfaces(a.iface, b.iface, &merged, error)) {
      *error = a.path + " and " + b.path + " cannot share inputs: " + *error;
      return false;
    }
    if (!BuildPlan(merged, spec, &plan, error)) {
      *error = a.path + ": " + *error;
      return false;
    }
    a.plan = PlanForModule(plan, a.iface, spec);
    b.plan = PlanForModule(plan, b.iface, spec);
    return true;
  }
  for (Module& m : *modules) {
    if (!BuildPlan(m.iface, spec, &m.plan, error)) {
      *error = m.path + ": " + *error;
      return false;
    }
  }
  return true;
}

}  // namespace waverun
