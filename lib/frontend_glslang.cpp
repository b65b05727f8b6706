// GLSL/HLSL → SPIR-V through glslang. Kept apart from the SPIRV-Cross back end:
// glslang's and SPIRV-Cross's spirv.hpp share an include guard but differ.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>

// glslang was built with its HLSL front end (scripts/deps.sh); the HLSL
// parts of its API are declared under this macro.
#ifndef ENABLE_HLSL
#define ENABLE_HLSL 1
#endif
#include "glslang/Public/ResourceLimits.h"
#include "glslang/Public/ShaderLang.h"
#include "glslang/SPIRV/GlslangToSpv.h"
#include "lib/resource_bindings.h"
#include "spirv/unified1/spirv.hpp11"
#include "waveopt/frontend.h"

namespace waveopt {
namespace {

// glslang needs one process-wide initialisation; keep it alive forever.
void InitGlslangOnce() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

bool StageFromName(const std::string& name, EShLanguage* stage) {
  static const struct {
    const char* name;
    EShLanguage stage;
  } kStages[] = {
      {"comp", EShLangCompute},  {"vert", EShLangVertex},      {"frag", EShLangFragment},
      {"geom", EShLangGeometry}, {"tesc", EShLangTessControl}, {"tese", EShLangTessEvaluation},
      {"task", EShLangTask},     {"mesh", EShLangMesh},
  };
  for (const auto& s : kStages) {
    if (name == s.name) {
      *stage = s.stage;
      return true;
    }
  }
  return false;
}

std::string DirName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// #include "x": next to the including file first, then -I directories.
// Every file it reads goes to |read| (may be null), once, in order. glslang
// sees each file under its recorded name (CompileOptions::record_name);
// |real_| maps that back to the path.
class Includer : public glslang::TShader::Includer {
 public:
  Includer(const std::string& top_file, const std::string& top_name, std::vector<std::string> dirs,
           const CompileOptions& options, std::vector<std::string>* read)
      : top_name_(top_name), dirs_(std::move(dirs)), options_(options), read_(read) {
    real_[top_name] = top_file;
  }

  IncludeResult* includeLocal(const char* header, const char* includer, size_t depth) override {
    auto from = real_.find((includer && *includer) ? includer : top_name_);
    std::vector<std::string> candidates;
    if (from != real_.end()) candidates.push_back(DirName(from->second) + "/" + header);
    for (const std::string& d : dirs_) candidates.push_back(d + "/" + header);
    return Load(candidates);
  }
  IncludeResult* includeSystem(const char* header, const char*, size_t) override {
    std::vector<std::string> candidates;
    for (const std::string& d : dirs_) candidates.push_back(d + "/" + header);
    return Load(candidates);
  }
  void releaseInclude(IncludeResult* result) override {
    if (result == nullptr) return;
    delete static_cast<std::string*>(result->userData);
    delete result;
  }

 private:
  IncludeResult* Load(const std::vector<std::string>& candidates) {
    for (const std::string& path : candidates) {
      std::ifstream in(path, std::ios::binary);
      if (!in) continue;
      auto* text =
          new std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (read_ != nullptr) {
        // "dir/../x.h" and "x.h" are one file to a build system.
        const std::string name = std::filesystem::path(path).lexically_normal().string();
        if (std::find(read_->begin(), read_->end(), name) == read_->end()) read_->push_back(name);
      }
      const std::string recorded = options_.record_name ? options_.record_name(path) : path;
      real_[recorded] = path;
      return new IncludeResult(recorded, text->data(), text->size(), text);
    }
    return nullptr;
  }

  std::string top_name_;
  std::vector<std::string> dirs_;
  const CompileOptions& options_;
  std::vector<std::string>* read_;
  std::map<std::string, std::string> real_;  // recorded name → path
};

// Whether a line of glslang's log starts a message of its own (rather than
// continuing the one before, as the extension names after "Possible
// extensions include:" do).
bool StartsMessage(const std::string& line) {
  for (const char* prefix : {"ERROR:", "WARNING:", "INFO:", "NOTE:", "UNIMPLEMENTED:"}) {
    if (line.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// glslang's logs are multi-line; keep the first error as one line, its
// continuation lines joined onto it.
std::string FirstErrorLine(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("ERROR:", 0) != 0) continue;
    line = line.substr(6);
    while (!line.empty() && line[0] == ' ') line.erase(0, 1);
    std::string next;
    while (std::getline(in, next) && !next.empty() && !StartsMessage(next)) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      line += " " + next;
    }
    return line;
  }
  std::istringstream again(log);
  while (std::getline(again, line)) {
    if (!line.empty()) return line;
  }
  return "compilation failed";
}

// Applies the options meant for |stage| (or every stage) to |shader|.
void ApplyBindings(const ResourceBindings& b, const std::string& stage, glslang::TShader* shader) {
  for (const ResourceBindings::Shift& shift : b.shifts) {
    if (!shift.stage.empty() && shift.stage != stage) continue;
    const auto res = static_cast<glslang::TResourceType>(shift.kind);
    if (shift.set < 0) {
      shader->setShiftBinding(res, shift.base);
    } else {
      shader->setShiftBindingForSet(res, shift.base, static_cast<unsigned>(shift.set));
    }
  }
  const std::vector<std::string>* set_binding = nullptr;
  for (const ResourceBindings::SetBinding& sb : b.resource_set_binding) {
    if (sb.stage.empty() || sb.stage == stage) set_binding = &sb.values;
  }
  if (set_binding != nullptr) shader->setResourceSetBinding(*set_binding);
  if (b.auto_map) shader->setAutoMapBindings(true);
  if (b.hlsl_iomap) shader->setHlslIoMapping(true);
}

// Which resources the source placed itself (an HLSL register(), a GLSL
// layout(binding=)), by name, from glslang's reflection before the IO mapper
// assigns the others: name -> true (placed) / false (not). Resources the
// reflection does not list are absent (unknown).
std::map<std::string, bool> PlacedBySource(glslang::TProgram* program) {
  std::map<std::string, bool> placed;
  if (!program->buildReflection()) return placed;
  for (int i = 0; i < program->getNumUniformVariables(); ++i) {
    placed[program->getUniform(i).name] = program->getUniform(i).getBinding() >= 0;
  }
  for (int i = 0; i < program->getNumUniformBlocks(); ++i) {
    placed[program->getUniformBlock(i).name] = program->getUniformBlock(i).getBinding() >= 0;
  }
  for (int i = 0; i < program->getNumBufferBlocks(); ++i) {
    placed[program->getBufferBlock(i).name] = program->getBufferBlock(i).getBinding() >= 0;
  }
  return placed;
}

// What fixes one collision: a register() or --auto-map-bindings for a
// resource without one; distinct registers for two of one class; else
// shifting the classes apart (|shifts|, DXC's options for the module).
std::string CollisionFix(const BindingCollision& c, const std::map<std::string, bool>& placed,
                         const std::string& shifts) {
  auto unplaced = [&placed](const std::string& name) {
    auto it = placed.find(name);
    return it == placed.end() || !it->second;
  };
  const bool a = unplaced(c.first), b = unplaced(c.second);
  if (a || b) {
    const std::string who =
        a && b ? "them register()s" : "'" + (a ? c.first : c.second) + "' a register()";
    return "give " + who + ", or pass --auto-map-bindings";
  }
  const std::string regs = std::string(1, c.first_class) + std::to_string(c.binding) + " and " +
                           std::string(1, c.second_class) + std::to_string(c.binding);
  if (c.first_class == c.second_class || shifts.empty()) {
    return "give them different register()s";
  }
  return "registers " + regs +
         " are apart in HLSL but not in Vulkan: shift the classes apart with " + shifts;
}

// One warning line per pair of HLSL resources of different descriptor types
// on one binding, saying which had a register() and what fixes it.
void WarnCollisions(const std::vector<uint32_t>& words, const std::map<std::string, bool>& placed,
                    const std::string& file_name, std::vector<std::string>* warnings) {
  auto how = [&placed](const std::string& name) {
    auto it = placed.find(name);
    if (it == placed.end()) return std::string();
    return std::string(it->second ? ", register()" : ", no register()");
  };
  const std::string shifts = ClassShiftOptions(words);
  for (const BindingCollision& c : FindBindingCollisions(words)) {
    warnings->push_back(file_name + ": resources '" + c.first + "' (" + c.first_kind +
                        how(c.first) + ") and '" + c.second + "' (" + c.second_kind +
                        how(c.second) + ") share descriptor set " + std::to_string(c.set) +
                        ", binding " + std::to_string(c.binding) + ": " +
                        CollisionFix(c, placed, shifts) + " (docs/cli.md, Resource bindings)");
  }
}

// Whether HLSL |source| declares a compute entry point: a [numthreads(...)]
// attribute (DXC requires one on every compute shader).
bool HasNumThreads(const std::string& source) {
  static const std::regex kNumThreads("\\[\\s*numthreads\\s*\\(");
  return std::regex_search(source, kNumThreads);
}

// The stage of |file_name|: -S, else its extension, else (HLSL, whose
// files say no stage) compute when |source| has [numthreads], with |guessed|
// set. False with |error| when the stage cannot be told.
bool ChooseStage(const CompileOptions& options, const std::string& file_name,
                 const std::string& source, std::string* stage_name, bool* guessed,
                 std::string* error) {
  *stage_name = options.stage;
  if (stage_name->empty()) {
    size_t dot = file_name.find_last_of('.');
    if (dot != std::string::npos) *stage_name = StageForExtension(file_name.substr(dot));
  }
  if (stage_name->empty() && options.language == SourceLanguage::kHlsl) {
    if (!HasNumThreads(source)) {
      *error = "cannot tell the stage of HLSL entry point '" + options.entry_point +
               "' (no [numthreads], so no compute shader): pass -S <stage> (vert, frag, "
               "...; or DXC's -T <profile>)";
      return false;
    }
    *stage_name = "comp";
    *guessed = true;
  }
  if (stage_name->empty())
    *error = "cannot tell the shader stage from the file name; give -S <stage>";
  return !stage_name->empty();
}

// Whether |op| is meant for fragment shaders alone: OpKill (clip(),
// discard), derivatives (ddx(), ...), implicit-LOD sampling (Sample()).
bool FragmentOnly(spv::Op op) {
  using spv::Op;
  return op == Op::OpKill || (op >= Op::OpDPdx && op <= Op::OpFwidthCoarse) ||
         op == Op::OpImageSampleImplicitLod || op == Op::OpImageSampleDrefImplicitLod ||
         op == Op::OpImageSampleProjImplicitLod || op == Op::OpImageSampleProjDrefImplicitLod ||
         op == Op::OpImageQueryLod;
}

// Whether |words| cannot be a compute shader: an Output variable, a
// Location (compute shaders' only inputs are built-ins) or a fragment-only
// instruction. Such a shader was meant for another stage.
bool MeantForAnotherStage(const std::vector<uint32_t>& words) {
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    const auto op = static_cast<spv::Op>(words[i] & 0xffff);
    if (count == 0 || count > words.size() - i) break;
    if (op == spv::Op::OpVariable && count >= 4 &&
        words[i + 3] == static_cast<uint32_t>(spv::StorageClass::Output)) {
      return true;
    }
    if (op == spv::Op::OpDecorate && count >= 3 &&
        words[i + 2] == static_cast<uint32_t>(spv::Decoration::Location)) {
      return true;
    }
    if (FragmentOnly(op)) return true;
    i += count;
  }
  return false;
}

// The one line for an HLSL shader of another stage compiled as compute
// (the validator would report it in 300 characters).
std::string StageHint(const std::string& entry_point) {
  return "'" + entry_point +
         "' is no compute shader (stage inputs or outputs, clip(), ddx(), Sample()...), but "
         "HLSL is compiled as one unless told: pass -S frag (or -S vert, -S geom, ...; DXC's "
         "-T ps_6_0 works too)";
}

}  // namespace

std::string StageForExtension(const std::string& ext) {
  EShLanguage stage;
  std::string e = (!ext.empty() && ext[0] == '.') ? ext.substr(1) : ext;
  return StageFromName(e, &stage) ? e : "";
}

bool CompileShader(const std::string& source, const std::string& file_name,
                   const CompileOptions& options, std::vector<uint32_t>* words, std::string* error,
                   std::vector<std::string>* warnings, std::vector<std::string>* included_files) {
  InitGlslangOnce();
  const bool hlsl = options.language == SourceLanguage::kHlsl;
  std::string stage_name;
  bool guessed = false;
  EShLanguage stage;
  if (!ChooseStage(options, file_name, source, &stage_name, &guessed, error)) return false;
  if (!StageFromName(stage_name, &stage)) {
    *error = "unknown shader stage '" + stage_name + "'";
    return false;
  }

  glslang::EShTargetClientVersion client = glslang::EShTargetVulkan_1_1;
  glslang::EShTargetLanguageVersion spv = glslang::EShTargetSpv_1_3;
  switch (options.target_env) {
    case SPV_ENV_VULKAN_1_0:
      client = glslang::EShTargetVulkan_1_0;
      spv = glslang::EShTargetSpv_1_0;
      break;
    case SPV_ENV_VULKAN_1_1:
    case SPV_ENV_UNIVERSAL_1_3:
      break;
    case SPV_ENV_VULKAN_1_1_SPIRV_1_4:
    case SPV_ENV_UNIVERSAL_1_4:
      spv = glslang::EShTargetSpv_1_4;
      break;
    case SPV_ENV_VULKAN_1_2:
    case SPV_ENV_UNIVERSAL_1_5:
      client = glslang::EShTargetVulkan_1_2;
      spv = glslang::EShTargetSpv_1_5;
      break;
    case SPV_ENV_VULKAN_1_3:
    case SPV_ENV_UNIVERSAL_1_6:
      client = glslang::EShTargetVulkan_1_3;
      spv = glslang::EShTargetSpv_1_6;
      break;
    default:
      *error = "glslang cannot target " + std::string(spvTargetEnvDescription(options.target_env));
      return false;
  }

  std::string preamble;
  for (const std::string& d : options.defines) {
    size_t eq = d.find('=');
    preamble += "#define " +
                (eq == std::string::npos ? d : d.substr(0, eq) + " " + d.substr(eq + 1)) + "\n";
  }

  glslang::TShader shader(stage);
  const char* text = source.c_str();
  const std::string recorded = options.record_name ? options.record_name(file_name) : file_name;
  const char* name = recorded.c_str();
  const int length = static_cast<int>(source.size());
  shader.setStringsWithLengthsAndNames(&text, &length, &name, 1);
  shader.setPreamble(preamble.c_str());
  shader.setEnvInput(hlsl ? glslang::EShSourceHlsl : glslang::EShSourceGlsl, stage,
                     glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, client);
  shader.setEnvTarget(glslang::EShTargetSpv, spv);
  shader.setEntryPoint(options.entry_point.c_str());
  if (hlsl) {
    shader.setSourceEntryPoint(options.entry_point.c_str());
  }
  ApplyBindings(options.bindings, stage_name, &shader);
  int message_bits = EShMsgSpvRules | EShMsgVulkanRules;
  if (hlsl) message_bits |= EShMsgReadHlsl;
  EShMessages messages = static_cast<EShMessages>(message_bits);
  if (included_files != nullptr) included_files->clear();
  Includer includer(file_name, recorded, options.include_dirs, options, included_files);
  if (!shader.parse(GetDefaultResources(), hlsl ? 500 : 450, false, messages, includer)) {
    *error = FirstErrorLine(shader.getInfoLog());
    return false;
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    *error = FirstErrorLine(program.getInfoLog());
    return false;
  }
  // glslang only warns when the entry point is missing and then emits an
  // empty "main": that is an error here.
  if (std::string(program.getInfoLog()).find("Entry point not found") != std::string::npos ||
      std::string(shader.getInfoLog()).find("Entry point not found") != std::string::npos) {
    *error =
        "entry point '" + options.entry_point + "' not found (give the entry point with -e <name>)";
    return false;
  }
  glslang::TIntermediate* intermediate = program.getIntermediate(stage);
  if (intermediate == nullptr) {
    *error = "no code for the " + stage_name + " stage";
    return false;
  }
  const std::map<std::string, bool> placed =
      hlsl && warnings != nullptr ? PlacedBySource(&program) : std::map<std::string, bool>();
  // The IO mapper applies the binding options, as glslangValidator does.
  if (!program.mapIO()) {
    *error = FirstErrorLine(program.getInfoLog());
    return false;
  }
  glslang::SpvOptions spv_options;
  spv_options.generateDebugInfo = true;  // OpLine: remarks name source lines
  spv_options.disableOptimizer = !hlsl;  // HLSL needs legalization
  spv_options.validate = false;
  spv::SpvBuildLogger logger;
  words->clear();
  glslang::GlslangToSpv(*intermediate, *words, &logger, &spv_options);
  std::string log = logger.getAllMessages();
  if (words->empty()) {
    *error = "code generation failed: " + FirstErrorLine(log);
    return false;
  }
  if (guessed && MeantForAnotherStage(*words)) {
    *error = StageHint(options.entry_point);
    return false;
  }
  if (hlsl && warnings != nullptr) WarnCollisions(*words, placed, file_name, warnings);
  return true;
}

}  // namespace waveopt
