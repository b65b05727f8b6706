// The base of every waveopt pass: a spvtools::opt::Pass that knows the
// PassConfig (promised subgroup size, target environment, remark sink) and
// emits remarks located at the instruction they are about.
#ifndef WAVEOPT_PASSES_WAVE_PASS_H_
#define WAVEOPT_PASSES_WAVE_PASS_H_

#include <string>
#include <utility>
#include <vector>

#include "source/opt/pass.h"
#include "waveopt/waveopt.h"

namespace waveopt {

// "a,b=3,c" → {{"a",""},{"b","3"},{"c",""}}. Returns false (and sets |error|)
// for empty keys.
bool SplitParams(const std::string& params,
                 std::vector<std::pair<std::string, std::string>>* out,
                 std::string* error);

class WavePass : public spvtools::opt::Pass {
 public:
  explicit WavePass(PassConfig config) : config_(std::move(config)) {}

 protected:
  const PassConfig& config() const { return config_; }

  // Emits a remark of |kind| named |name| about |inst| (may be null) in
  // |func| (may be null). The source location comes from the OpLine or
  // DebugLine attached to |inst|, when there is one.
  void EmitRemark(RemarkKind kind, const std::string& name,
                  const spvtools::opt::Function* func,
                  const spvtools::opt::Instruction* inst,
                  const std::string& message);

  // The OpName of |id|, or "%<id>".
  std::string NameOf(uint32_t id);

 private:
  PassConfig config_;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_WAVE_PASS_H_
