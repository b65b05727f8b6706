// The configuration layer's functions: versions, targets and their facts.
#include "waveopt/config.h"

#include <algorithm>

#ifndef WAVEOPT_VERSION_STRING
#define WAVEOPT_VERSION_STRING "0.0.0"
#endif
#ifndef WAVEOPT_SPIRV_TOOLS_VERSION_STRING
#define WAVEOPT_SPIRV_TOOLS_VERSION_STRING "unknown"
#endif

namespace waveopt {

const char* Version() { return WAVEOPT_VERSION_STRING; }
const char* SpirvToolsVersion() { return WAVEOPT_SPIRV_TOOLS_VERSION_STRING; }

namespace {

TargetFacts AmdFacts() {
  TargetFacts f;
  f.scalar_uniform_loads = true;
  f.elects_uniform_atomics = true;
  f.cheap_lane_prefix = true;
  f.waves_32_or_64 = true;
  f.one_wave_barriers_free = true;
  return f;
}

TargetFacts CpuFacts() {
  TargetFacts f;
  f.cheap_same_address_atomics = true;
  f.slow_subgroup_loops = true;
  f.shuffle_fast_only_at_8 = true;
  f.quad_order_slower = true;
  return f;
}

// Every fact that makes a measured target lose, none that only enables a
// rewrite on one (cheap_lane_prefix, waves_32_or_64).
TargetFacts PortableFacts() {
  TargetFacts f;
  f.scalar_uniform_loads = true;        // amd
  f.elects_uniform_atomics = true;      // amd
  f.cheap_same_address_atomics = true;  // cpu
  f.shuffle_fast_only_at_8 = true;      // cpu
  f.quad_order_slower = true;           // cpu
  f.one_wave_barriers_free = true;      // amd
  return f;
}

}  // namespace

TargetFacts FactsOf(Target target) {
  switch (target) {
    case Target::kNone:
    case Target::kNvidia:  // measured: batching and pre-reducing win there
      return TargetFacts();
    case Target::kAmd:
      return AmdFacts();
    case Target::kCpu:
      return CpuFacts();
    case Target::kPortable:
    case Target::kIntel:  // nothing measured: portable
      return PortableFacts();
  }
  return PortableFacts();
}

bool PassConfig::Fact(bool TargetFacts::*member) const {
  if (facts_read &&
      std::find(facts_read->begin(), facts_read->end(), member) == facts_read->end()) {
    facts_read->push_back(member);
  }
  return facts.*member;
}

bool ParseTarget(const std::string& name, Target* target) {
  for (Target t : AllTargets()) {
    if (name == TargetName(t)) {
      *target = t;
      return true;
    }
  }
  if (name == "generic") {
    *target = Target::kPortable;
  } else if (name == "radv") {
    *target = Target::kAmd;
  } else {
    return false;
  }
  return true;
}

const char* TargetName(Target target) {
  switch (target) {
    case Target::kNone:
      return "none";
    case Target::kPortable:
      return "portable";
    case Target::kAmd:
      return "amd";
    case Target::kNvidia:
      return "nvidia";
    case Target::kIntel:
      return "intel";
    case Target::kCpu:
      return "cpu";
  }
  return "portable";
}

std::string FormatOnlyRewrite(const OnlyRewrite& only) {
  std::string where;
  if (only.site_id != 0) {
    where = "%" + std::to_string(only.site_id);
  } else {
    where = (only.file.empty() ? "" : only.file + ":") + std::to_string(only.line);
  }
  return only.pass + "@" + where;
}

const std::vector<Target>& AllTargets() {
  static const std::vector<Target> targets = {Target::kPortable, Target::kAmd, Target::kNvidia,
                                              Target::kIntel,    Target::kCpu, Target::kNone};
  return targets;
}

const char* TargetSummary(Target target) {
  switch (target) {
    case Target::kPortable:
      return "every GPU: only rewrites no measured target loses by (-O's default, with "
             "versions for amd and nvidia)";
    case Target::kAmd:
      return "AMD (RADV/ACO; measured with waverun isa on gfx8, gfx10.3, gfx11)";
    case Target::kNvidia:
      return "NVIDIA (measured: one H200 run, docs/benchmarks-gpu.md)";
    case Target::kIntel:
      return "Intel: no measured facts yet, behaves as portable";
    case Target::kCpu:
      return "CPU drivers (lavapipe, llvmpipe, SwiftShader; measured on lavapipe)";
    case Target::kNone:
      return "no facts: every rewrite legality allows (a pass named on its own)";
  }
  return "";
}

const std::vector<TargetFactInfo>& TargetFactTable() {
  static const std::vector<TargetFactInfo> table = {
      {"scalar-uniform-loads", &TargetFacts::scalar_uniform_loads,
       "uniform and read-only storage buffer loads at a subgroup-uniform address are scalar "
       "loads; batch-uniform-loads leaves them",
       "amd: ACO emits s_buffer_load (waverun isa); batching them raised ACO's latency x4.2 "
       "(navi21) on a light loop. nvidia: the batch ran in 0.58x naive's time (H200)"},
      {"elects-uniform-atomics", &TargetFacts::elects_uniform_atomics,
       "the driver elects one lane for a 32-bit uniform-address integer atomic itself; "
       "prereduce-atomics leaves those",
       "amd: test/amd/radv_atomics.py (s_bcnt1 or DPP reduction, one lane)"},
      {"cheap-same-address-atomics", &TargetFacts::cheap_same_address_atomics,
       "same-address atomics are cheap; the uniform-value and small-bin pre-reductions cost "
       "more than they save",
       "cpu: lavapipe histogram 1.8x slower pre-reduced. nvidia: histogram_global 12x faster "
       "pre-reduced (H200)"},
      {"cheap-lane-prefix", &TargetFacts::cheap_lane_prefix,
       "an exclusive add of 1 is one instruction; prereduce-atomics counts earlier lanes so",
       "amd: ACO lowers it to v_mbcnt (2 instructions), a ballot bit count to 9"},
      {"waves-32-or-64", &TargetFacts::waves_32_or_64,
       "compute subgroups are 32 or 64 consecutive invocations, full when the workgroup is a "
       "multiple of 64; NumSubgroups rounds up",
       "amd: RADV's compute waves (wave32/wave64)"},
      {"slow-subgroup-loops", &TargetFacts::slow_subgroup_loops,
       "loops inside a subgroup run lane by lane at small sizes; workgroup-reduce folds by rank",
       "cpu: the serial fold 3-11x slower than the rank fold on lavapipe at 8 and 16 lanes"},
      {"shuffle-fast-only-at-8", &TargetFacts::shuffle_fast_only_at_8,
       "a shuffle of a non-constant lane is one instruction only at 8 lanes; "
       "batch-uniform-loads picks its read by SubgroupSize",
       "cpu: lavapipe lowers it to one AVX2 permute at 8 lanes, lane by lane at 4 and 16"},
      {"quad-order-slower", &TargetFacts::quad_order_slower,
       "relabelled (quad-ordered) 2-D image kernels run slower; -O does not run morton-remap",
       "cpu: filter3x3 and downsample slower on lavapipe (docs/benchmarks.md)"},
      {"one-wave-barriers-free", &TargetFacts::one_wave_barriers_free,
       "a workgroup that is one subgroup runs no barrier; workgroup-reduce does not store a "
       "tree's result back",
       "amd: RADV drops s_barrier when the workgroup fits one wave (waverun isa); ggml "
       "mul_mat_vec stored back: ACO latency -18 % to +10 %, VGPRs up to +8 (navi21)"},
  };
  return table;
}

}  // namespace waveopt
