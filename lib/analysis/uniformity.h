// Uniformity analysis: which SPIR-V values are the same in every active lane
// of a subgroup (or of a workgroup), and which blocks every lane that entered
// the function reaches.
//
// Contract (what passes may rely on):
//   - ValueLevel(id) == kWorkgroupUniform: every invocation of the workgroup
//     that computes |id| computes the same value.
//   - ValueLevel(id) <= kSubgroupUniform: every *active* lane of a subgroup
//     that computes |id| at the same dynamic instance computes the same value.
//   - kDivergent: nothing is known (the default for anything unanalysed).
//   - IsBlockUniform(b): if any lane of a subgroup that entered the function
//     together reaches |b|, every such lane does (no divergent branch, no
//     divergent early exit decides whether a lane gets there). Function entry
//     is taken as uniform; callers decide about the call site.
//   - DivergentBranches(b): the blocks whose divergent terminators |b| is
//     control-dependent on (post-dominance frontier), in program order.
//
// The analysis is computed once, for every function of the module, and is
// interprocedural: a parameter is divergent when any call site passes a
// divergent argument or any call site is under divergent control, and a
// call's result is divergent when the callee returns a divergent value.
#ifndef WAVEOPT_LIB_ANALYSIS_UNIFORMITY_H_
#define WAVEOPT_LIB_ANALYSIS_UNIFORMITY_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <vector>

namespace spvtools {
namespace opt {
class IRContext;
class Instruction;
class Function;
}  // namespace opt
}  // namespace spvtools

namespace waveopt {

enum class Uniformity : uint8_t {
  kWorkgroupUniform = 0,
  kSubgroupUniform = 1,
  kDivergent = 2,
};

// "workgroup", "subgroup" or "divergent".
const char* UniformityName(Uniformity u);

class UniformityAnalysis {
 public:
  // Analyses every function of |context|'s module. |context| must outlive
  // this object and must not be changed while it is used (rebuild it after a
  // rewrite).
  explicit UniformityAnalysis(spvtools::opt::IRContext* context);
  ~UniformityAnalysis();
  UniformityAnalysis(const UniformityAnalysis&) = delete;
  UniformityAnalysis& operator=(const UniformityAnalysis&) = delete;

  Uniformity ValueLevel(uint32_t id) const;
  bool IsSubgroupUniform(uint32_t id) const { return ValueLevel(id) != Uniformity::kDivergent; }
  bool IsBlockUniform(uint32_t block_id) const;
  // Empty exactly when IsBlockUniform(block_id). Besides divergent branches
  // it lists the blocks holding a divergent early exit that does not end a
  // block (OpDemoteToHelperInvocation, a call to a function that kills or
  // demotes lanes) from which |block_id| is reachable. Computed on first
  // request and cached: not thread-safe.
  const std::vector<uint32_t>& DivergentBranches(uint32_t block_id) const;

  // Control level of a block: kWorkgroupUniform if every invocation of the
  // workgroup that entered the function reaches it or none does,
  // kSubgroupUniform if that holds per subgroup, kDivergent otherwise (also
  // for an unknown id). IsBlockUniform(b) == (BlockLevel(b) != kDivergent).
  Uniformity BlockLevel(uint32_t block_id) const;

  // Call-site uniformity of a function: the highest control level of its
  // call sites (and of its callers' entries). Entry points are
  // kWorkgroupUniform; a function with no call site that is not an entry
  // point, or an unknown id, is kDivergent. A pass that needs "this block
  // is reached by whole subgroups" inside a called function checks both
  // IsBlockUniform(b) and EntryLevel(function) != kDivergent.
  Uniformity EntryLevel(uint32_t function_id) const;

  // For the natural loop whose header is |header_id|: kWorkgroupUniform or
  // kSubgroupUniform if every lane (of the workgroup / of a subgroup) that
  // enters the loop together leaves it at the same iteration and through
  // the same exit, i.e. the trip count is that uniform; kDivergent if lanes
  // may leave at different iterations (values of the loop used after it are
  // then divergent), or if |header_id| heads no loop.
  Uniformity LoopExitLevel(uint32_t header_id) const;

  // Per function (in module order): every result id with its OpName and
  // level, then every block with its control uniformity and the divergent
  // branches it depends on. Stable and FileCheck-friendly, e.g.
  //   function %4 "main"
  //     value %12 "i" divergent
  //     block %5 uniform
  //     block %20 "then" divergent deps %5
  // Ids are numeric; the quoted OpName follows an id that has one. Values
  // come in program order (parameters first); blocks in function order. A
  // function whose call sites are not all workgroup-uniform gets
  // " entry subgroup" or " entry divergent" after its name (EntryLevel).
  void Print(std::ostream& out) const;

 private:
  struct Impl;
  Impl* impl_;
};

// The analysis one pass built, kept for the next: -O's pipeline hands an
// IRContext that a pass left unchanged on to the next pass
// (lib/pipeline.cpp), and the analysis with it (PassConfig::uniformity).
class SharedUniformity {
 public:
  // The kept analysis when it was built on |context| and that context's
  // def-use manager is still the one it reads, else a new one (then kept).
  const UniformityAnalysis& Of(spvtools::opt::IRContext* context);
  // Whether Of(|context|) would return the kept analysis.
  bool Kept(spvtools::opt::IRContext* context) const;
  // Drops the kept analysis: its context changed or is gone.
  void Forget();

 private:
  spvtools::opt::IRContext* context_ = nullptr;
  const void* def_use_ = nullptr;
  std::unique_ptr<UniformityAnalysis> analysis_;
};

// The uniformity of |context| for a pass that has not changed it yet:
// |shared|'s when set, else a new one, held in |own|.
const UniformityAnalysis& UniformityOf(spvtools::opt::IRContext* context, SharedUniformity* shared,
                                       std::unique_ptr<UniformityAnalysis>* own);

}  // namespace waveopt

#endif  // WAVEOPT_LIB_ANALYSIS_UNIFORMITY_H_
