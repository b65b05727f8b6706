// waveopt's configuration layer: versions, target environments, targets and
// their facts, and the settings every pass takes (PassConfig). Depends on
// nothing but SPIRV-Tools' public C header and remarks.h.
#ifndef WAVEOPT_CONFIG_H_
#define WAVEOPT_CONFIG_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spirv-tools/libspirv.h"
#include "waveopt/remarks.h"

namespace waveopt {

// The version of this library, "MAJOR.MINOR.PATCH".
const char* Version();
// The SPIRV-Tools version this library was built against, e.g. "v2025.1".
// waveopt uses SPIRV-Tools' internal optimizer headers: the program must link
// this version (the CMake package checks it when it is found).
const char* SpirvToolsVersion();

// What the compiled module is for (--target). A target is a named set of
// measured facts (TargetFacts); passes ask facts, never which target it is.
enum class Target {
  kNone,      // no facts: every rewrite legality allows. What a pass named on
              // its own runs with when no target is given.
  kPortable,  // every GPU: the facts under which no measured target loses
              // (what -O builds when no target is given)
  kAmd,       // AMD through RADV/ACO (measured: waverun isa, gfx8-gfx11)
  kNvidia,    // NVIDIA (measured: one H200 run, docs/benchmarks-gpu.md)
  kIntel,     // Intel: nothing measured yet; behaves as kPortable
  kCpu,       // CPU drivers (measured: lavapipe)
};

// Facts about a target's compiler and hardware. Each one is a measurement
// (cited in TargetFactTable() and docs/targets.md); a pass reads the facts
// and never the target's name. A fact that is true makes a pass refuse or
// change a rewrite; the portable target holds every fact that makes some
// measured target lose, and none that only enable.
struct TargetFacts {
  // Uniform and read-only storage buffer loads at a subgroup-uniform address
  // are scalar loads (one request per subgroup, no vector registers):
  // batch-uniform-loads leaves them to the driver.
  bool scalar_uniform_loads = false;
  // The driver elects one lane for a 32-bit integer uniform-address atomic
  // itself: prereduce-atomics leaves those.
  bool elects_uniform_atomics = false;
  // Same-address atomics are cheap (a CPU's owned cache line): the
  // uniform-value and small-bin pre-reductions cost more than they save.
  bool cheap_same_address_atomics = false;
  // An exclusive add of 1 is one instruction (v_mbcnt): prereduce-atomics
  // counts the lanes before it that way instead of a ballot bit count.
  bool cheap_lane_prefix = false;
  // Compute subgroups are 32 or 64 consecutive invocations, all full when
  // the workgroup is a multiple of 64, and NumSubgroups counts them rounded
  // up: quad-exchange needs no full-subgroup check there, workgroup-reduce
  // folds a group of at most 32 in one subgroup and its slots serially.
  bool waves_32_or_64 = false;
  // Loops inside one subgroup run lane by lane at small subgroup sizes:
  // workgroup-reduce folds its slots by rank, never serially.
  bool slow_subgroup_loops = false;
  // A shuffle of a non-constant lane is one instruction only at 8 lanes:
  // batch-uniform-loads chooses its read by SubgroupSize.
  bool shuffle_fast_only_at_8 = false;
  // Relabelled (quad-ordered) 2-D image kernels run slower: -O does not run
  // morton-remap.
  bool quad_order_slower = false;
  // The barriers of a workgroup that is one subgroup cost nothing (the
  // driver drops them): workgroup-reduce does not store a tree's result
  // back (the one-subgroup form with the original kept), which saves only
  // the tree's shared-memory traffic there.
  bool one_wave_barriers_free = false;
};

// The facts of |target|.
TargetFacts FactsOf(Target target);
// Parses "none", "portable", "amd", "nvidia", "intel", "cpu" and the old
// --assume-driver names "generic" (portable) and "radv" (amd).
bool ParseTarget(const std::string& name, Target* target);
// "portable", "amd", ... (the inverse of ParseTarget's own names).
const char* TargetName(Target target);
// Every target, in --help's order.
const std::vector<Target>& AllTargets();
// One line of --help per target: what it is for and whether it was measured.
const char* TargetSummary(Target target);

// One fact, for --help and the docs: its name, what it means, the value of
// each target, and the evidence.
struct TargetFactInfo {
  const char* name;
  bool TargetFacts::*member;
  const char* meaning;
  const char* evidence;
};
const std::vector<TargetFactInfo>& TargetFactTable();

// --only-rewrite=<pass>@<where>: in a run, |pass| rewrites only the sites
// whose applied remark would be at |where|, and every other pass rewrites
// nothing; each site skipped so gets the missed remark NotSelected. Empty
// |pass|: no selection. <where> is the remark's line (|line|, any |file|),
// <file>:<line> (both as the remark's DebugLoc spells them), or %<id>, the
// input's id a remark about an input without lines names (|site_id|:
// Remark::site_id, whatever its offset; lib/site_markers.h).
struct OnlyRewrite {
  std::string pass;
  std::string file;
  uint32_t line = 0;
  uint32_t site_id = 0;
  bool active() const { return !pass.empty(); }
};
// "<pass>@<where>" as --only-rewrite takes it.
std::string FormatOnlyRewrite(const OnlyRewrite& only);

class SharedUniformity;  // lib/analysis/uniformity.h

// Settings shared by every waveopt pass.
struct PassConfig {
  // A promise that every subgroup has exactly this many lanes (a power of two).
  // 0: unknown; passes then read SubgroupSize at run time and are correct for
  // every size from 1 to 128.
  uint32_t subgroup_size = 0;
  // The environment the output must validate for; passes refuse rewrites that
  // need capabilities the target lacks (e.g. Vulkan 1.0 has no subgroup ops).
  // A module older than SPIR-V 1.3 whose target allows 1.3 is raised to 1.3
  // by the pass that first rewrites it (remark RaisedSpirvVersion).
  spv_target_env target_env = SPV_ENV_VULKAN_1_1;
  // Parameters of the one pass this config is given to, comma-separated, as
  // after "--<pass>=" on the command line (e.g. "max-bins=16,float-reassoc").
  // Only for RegisterPass() and the Create<Class>() factories; a sequence of
  // passes takes |pass_params| and fails when this is set.
  std::string params;
  // Parameters by pass name, e.g. {{"prereduce-atomics", "max-bins=16"}}: each
  // pass takes its own entry (when |params| is empty); a pass without one
  // runs with its defaults. Names that are no registered pass are an error.
  std::map<std::string, std::string> pass_params;
  // The target the output is for (its name, for remarks) and its facts,
  // which the passes read (see TargetFacts). Set both: SetTarget().
  Target target = Target::kNone;
  TargetFacts facts;
  void SetTarget(Target t) {
    target = t;
    facts = FactsOf(t);
  }
  // Fact |member| of |facts|, noted in |facts_read| (when set). Passes read
  // facts only through Fact(), and last, after their cheap checks: -O builds
  // a target's version only when a fact read while building the portable
  // module has another value for that target (lib/pipeline.cpp).
  bool Fact(bool TargetFacts::*member) const;
  // The facts Fact() was asked for, each once, in the order first asked.
  std::shared_ptr<std::vector<bool TargetFacts::*>> facts_read;
  // Set by -O's pipeline: the uniformity analysis a pass built, which the
  // next pass on the same unchanged IRContext takes instead of building its
  // own. Null: each pass builds its own.
  std::shared_ptr<SharedUniformity> uniformity;
  // Floating-point operations may be regrouped (--float-reassoc): the float
  // atomics of prereduce-atomics and the float add/mul/min/max trees of
  // workgroup-reduce, whose results then round differently (and min/max may
  // return the other zero or another NaN). The passes' own float-reassoc
  // parameter allows it for one pass.
  bool float_reassoc = false;
  // Where remarks go. Null: remarks are sent to the optimizer's message
  // consumer as SPV_MSG_INFO lines.
  std::shared_ptr<RemarkSink> remarks;
  // The output will be turned into HLSL (SPIRV-Cross, the CLI's
  // --emit=hlsl): passes use only forms HLSL can express and refuse, with
  // the missed remark `NotExpressibleInHlsl`, the rewrites that have none
  // (HLSL has no exclusive min/max/and/or/xor scan and no SubgroupId or
  // NumSubgroups). Every other rewrite is emittable as GLSL and HLSL alike.
  bool emit_hlsl = false;
  // The output will be turned into GLSL (the CLI's --emit=glsl): GLSL's
  // subgroupBroadcast takes a constant lane only, so batch-uniform-loads
  // reads with a shuffle even from SPIR-V 1.5 (HLSL output does the same).
  bool emit_glsl = false;
  // The HLSL output is for DXC (--hlsl-dialect=dxc), not glslang's HLSL
  // front end: shader model 6.6's IsHelperLane() may be used.
  bool hlsl_dxc = false;
  // --only-rewrite: the one site to rewrite (see OnlyRewrite).
  OnlyRewrite only_rewrite;
};

// Parses "vulkan1.1", "spv1.5", ... Returns false for unknown names.
bool ParseTargetEnv(const std::string& name, spv_target_env* env);
// The inverse of ParseTargetEnv for the environments it accepts.
std::string TargetEnvName(spv_target_env env);
// The lowest Vulkan environment whose SPIR-V version covers |words|' header
// (universal environment for modules declaring the Kernel capability).
spv_target_env DefaultTargetEnv(const std::vector<uint32_t>& words);

}  // namespace waveopt

#endif  // WAVEOPT_CONFIG_H_
