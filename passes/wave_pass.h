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
bool SplitParams(const std::string& params,
                 std::vector<std::pair<std::string, std::string>>* out,
                 std::string* error);

// The value of an integer OpConstant (both words of a 64-bit one), if |inst|
// is one.
bool ConstantValue(const spvtools::opt::Instruction* inst, uint64_t* value);

class WavePass : public spvtools::opt::Pass {
 public:
  explicit WavePass(PassConfig config) : config_(std::move(config)) {}

 protected:
  const PassConfig& config() const { return config_; }
  // "--target=<name>" of config()'s target, for remarks that cite a fact.
  std::string TargetFlag() const {
    return std::string("--target=") + TargetName(config_.target);
  }

  // Emits a remark of |kind| named |name| about |inst| (may be null) in
  // |func| (may be null). The source location comes from the OpLine or
  // DebugLine attached to |inst|, when there is one.
  void EmitRemark(RemarkKind kind, const std::string& name,
                  const spvtools::opt::Function* func,
                  const spvtools::opt::Instruction* inst,
                  const std::string& message);

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

  // A new Input variable decorated BuiltIn |builtin| (a 32-bit uint, or a
  // uvec3 when |vector|), with the OpName |name|, listed in |entry|'s
  // interface; 0 when ids ran out (the module is then unchanged).
  uint32_t DeclareBuiltInInput(uint32_t builtin, bool vector, const char* name,
                               spvtools::opt::Instruction* entry);

  // The first module-scope Input variable decorated BuiltIn |builtin|, or 0.
  uint32_t FindBuiltInInput(spv::BuiltIn builtin);

  // Lists |var| in the interface of the OpEntryPoint |entry| unless it is
  // there already.
  void AddToInterface(spvtools::opt::Instruction* entry, uint32_t var);

 private:
  PassConfig config_;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_WAVE_PASS_H_
