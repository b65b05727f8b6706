// The base of every waveopt pass: a spvtools::opt::Pass that knows the
// PassConfig (promised subgroup size, target environment, remark sink) and
// emits remarks located at the instruction they are about.
#ifndef WAVEOPT_PASSES_WAVE_PASS_H_
#define WAVEOPT_PASSES_WAVE_PASS_H_

#include <string>
#include <utility>
#include <vector>

#include "source/opt/pass.h"
#include "waveopt/config.h"

namespace waveopt {

// "a,b=3,c" → {{"a",""},{"b","3"},{"c",""}}. Returns false (and sets |error|)
// for empty keys.
bool SplitParams(const std::string& params, std::vector<std::pair<std::string, std::string>>* out,
                 std::string* error);

class WavePass : public spvtools::opt::Pass {
 public:
  explicit WavePass(PassConfig config) : config_(std::move(config)) {}

 protected:
  // The analyses every rewrite keeps up to date by making its changes
  // through the Emitter, WavePass's built-in helpers and IRContext's own
  // editing calls (KillInst, AddDecoration, ...): the floor of each pass's
  // GetPreservedAnalyses() (the analysis contract:
  // lib/analysis/context_check.h).
  static constexpr spvtools::opt::IRContext::Analysis kEditedAnalyses =
      spvtools::opt::IRContext::Analysis(
          static_cast<int>(spvtools::opt::IRContext::kAnalysisDefUse) |
          static_cast<int>(spvtools::opt::IRContext::kAnalysisInstrToBlockMapping) |
          static_cast<int>(spvtools::opt::IRContext::kAnalysisDecorations));

  const PassConfig& config() const { return config_; }
  // "--target=<name>" of config()'s target, for remarks that cite a fact.
  std::string TargetFlag() const { return std::string("--target=") + TargetName(config_.target); }

  // Emits a remark of |kind| named |name| about |inst| (may be null) in
  // |func| (may be null). The source location comes from the OpLine or
  // DebugLine attached to |inst|, when there is one.
  void EmitRemark(RemarkKind kind, const std::string& name, const spvtools::opt::Function* func,
                  const spvtools::opt::Instruction* inst, const std::string& message);

  // Whether --only-rewrite (PassConfig::only_rewrite) lets this pass
  // rewrite the site whose applied remark is about |inst| in |func|: true
  // without a selection; else whether the selection names this pass and
  // the remark's location. When not, emits the missed remark NotSelected
  // there. Called before the site's first change.
  bool Selected(const spvtools::opt::Function* func, const spvtools::opt::Instruction* inst);
  // The same without the remark.
  bool InSelection(const spvtools::opt::Function* func, const spvtools::opt::Instruction* inst);

  // The OpLine/DebugLine that locates |inst| in |func| (below); null: none.
  const spvtools::opt::Instruction* NearestLine(const spvtools::opt::Function* func,
                                                const spvtools::opt::Instruction* inst);
  // Sets |remark|'s file, line and column from |line| (may be null).
  void LocateRemark(const spvtools::opt::Instruction* line, Remark* remark);

  // The OpName of |id|, or "%<id>" with the input's id (InputId).
  std::string NameOf(uint32_t id);
  // |id| as the input numbers it: the id its site marker names
  // (lib/site_markers.h), else |id| itself.
  uint32_t InputId(uint32_t id);
  // Whether |line| (may be null) is a site marker, not a source line.
  bool IsSiteMarker(const spvtools::opt::Instruction* line);

  // Why no subgroup-operation rewrite can happen in this module at all:
  // "KernelModule", "TargetLacksSubgroupOps" (the target is Vulkan 1.0 or
  // SPIR-V < 1.3), "ModuleVersionLacksSubgroupOps" (the module is older than
  // SPIR-V 1.3 and nothing raised it: the registry's wrapper does, so only a
  // pass made without the registry says this) or "SubgroupSizeOne" (a
  // promise of one lane); "" when rewrites may happen. |why| gets the
  // sentence for the remark.
  std::string ModuleRefusal(std::string* why);

  // The Input variable of built-in |builtin| for |entry| (null: for every
  // entry point): the module's own (FindBuiltInInput), else a new one
  // (DeclareBuiltInInput); listed in the interface. 0 when ids ran out, or
  // when the module's own variable is not of the type GLSL gives it (an
  // integer scalar, or a vector for the three-component ids).
  uint32_t BuiltInInput(spv::BuiltIn builtin, spvtools::opt::Instruction* entry);
  // A new Input variable decorated BuiltIn |builtin|, of the type and with
  // the OpName GLSL gives it (a 32-bit uint or a uvec3: the table in
  // wave_pass.cpp), Flat when the module has a fragment entry point (Vulkan
  // wants every integer input of a fragment shader Flat), listed in
  // |entry|'s interface (null: every entry point's). 0 when ids ran out or
  // the table lacks |builtin| (the module is then unchanged).
  uint32_t DeclareBuiltInInput(spv::BuiltIn builtin, spvtools::opt::Instruction* entry);

  // Lists |var| in the interface of the OpEntryPoint |entry| unless it is
  // there already.
  void AddToInterface(spvtools::opt::Instruction* entry, uint32_t var);
  // Same for |entry|, or every entry point when |entry| is null.
  void AddToInterfaces(spvtools::opt::Instruction* entry, uint32_t var);

 private:
  PassConfig config_;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_WAVE_PASS_H_
