// waveopt's public API.
//
// Two ways in:
//   1. Add waveopt passes to your own spvtools::Optimizer:
//        spvtools::Optimizer opt(SPV_ENV_VULKAN_1_1);
//        opt.RegisterPass(waveopt::CreatePrereduceAtomicsPass({}));
//   2. One call that validates, runs a pipeline, validates again and reports
//      remarks, diagnostics and per-pass timings: waveopt::Optimize().
//
// Nothing in this API throws; failures are reported through return values.
#ifndef WAVEOPT_WAVEOPT_H_
#define WAVEOPT_WAVEOPT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "spirv-tools/libspirv.h"
#include "spirv-tools/optimizer.hpp"
#include "waveopt/io.h"
#include "waveopt/remarks.h"

namespace waveopt {

// The version of this library, "MAJOR.MINOR.PATCH".
const char* Version();
// The SPIRV-Tools version this library was built against, e.g. "v2023.1".
const char* SpirvToolsVersion();

// The driver the output is meant for (--assume-driver). A profile changes only
// what a measurement showed: every choice is cited in docs/cli.md.
enum class AssumedDriver {
  kGeneric,  // no assumption: today's behaviour
  kRadv,     // Mesa's RADV (AMD, ACO): it pre-reduces 32-bit uniform-address
             // atomics itself, so prereduce-atomics leaves cases A and B to
             // it; its compute waves are 32 or 64 consecutive invocations,
             // so quad-exchange needs no check for 64k-invocation groups
  kCpu,      // a CPU driver (lavapipe, llvmpipe, SwiftShader): -O skips the
             // rewrites measured as losses on lavapipe
};

// Parses "generic", "radv", "cpu". Returns false for other names.
bool ParseAssumedDriver(const std::string& name, AssumedDriver* driver);
// The inverse of ParseAssumedDriver.
const char* AssumedDriverName(AssumedDriver driver);

// Settings shared by every waveopt pass.
struct PassConfig {
  // A promise that every subgroup has exactly this many lanes (a power of two).
  // 0: unknown; passes then read SubgroupSize at run time and are correct for
  // every size from 1 to 128.
  uint32_t subgroup_size = 0;
  // The environment the output must validate for; passes refuse rewrites that
  // need capabilities the target lacks (e.g. Vulkan 1.0 has no subgroup ops).
  spv_target_env target_env = SPV_ENV_VULKAN_1_1;
  // Pass parameters, comma-separated, as after "--<pass>=" on the command line
  // (e.g. "max-bins=16,float-reassoc"). Validated by CreatePass().
  std::string params;
  // The driver the output is for; passes read it to leave to the driver what
  // it measurably does itself (see AssumedDriver).
  AssumedDriver driver = AssumedDriver::kGeneric;
  // Where remarks go. Null: remarks are sent to the optimizer's message
  // consumer as SPV_MSG_INFO lines.
  std::shared_ptr<RemarkSink> remarks;
  // The output will be turned into HLSL (SPIRV-Cross, the CLI's
  // --emit=hlsl): passes use only forms HLSL can express and refuse, with
  // the missed remark `NotExpressibleInHlsl`, the rewrites that have none
  // (HLSL has no exclusive min/max/and/or/xor scan and no SubgroupId or
  // NumSubgroups). Every other rewrite is emittable as GLSL and HLSL alike.
  bool emit_hlsl = false;
};

// A registered waveopt pass, as declared in passes/passes.def.
struct PassInfo {
  const char* name;    // flag, e.g. "prereduce-atomics"
  const char* help;    // one line
  const char* params;  // parameter syntax and meaning, "" when none
};

// All registered passes, in the recommended -O order.
const std::vector<PassInfo>& RegisteredPasses();

// Adds the pass called |name|, made with |config|, to |optimizer|. Returns
// false and sets |error| when the name is unknown or config.params is
// malformed (the optimizer is then unchanged).
bool RegisterPass(spvtools::Optimizer* optimizer, const std::string& name,
                  const PassConfig& config, std::string* error);

// One factory per registered pass: Create<Class>(config), e.g.
// CreatePrereduceAtomicsPass(). Parameters in config.params that do not parse
// are ignored by these factories; use RegisterPass() to have them checked.
#define WAVEOPT_PASS(FLAG, CLASS, HELP, PARAMS) \
  spvtools::Optimizer::PassToken Create##CLASS(const PassConfig& config);
#include "waveopt/passes.def"
#undef WAVEOPT_PASS

// One step of a pipeline.
struct PipelineStep {
  enum class Kind {
    kWaveopt,   // a waveopt pass: |name| is its flag, |params| its parameters
    kSpirvOpt,  // a spirv-opt flag, forwarded verbatim, e.g. "--merge-blocks"
    kOptimize,  // -O: to SSA, every waveopt pass in order, cleanup
  };
  Kind kind = Kind::kWaveopt;
  std::string name;
  std::string params;
};

struct Options {
  // Target environment; when unset, the lowest Vulkan version whose SPIR-V
  // version covers the module's (or the universal environment for kernels).
  bool has_target_env = false;
  spv_target_env target_env = SPV_ENV_VULKAN_1_1;
  uint32_t subgroup_size = 0;  // see PassConfig::subgroup_size
  // See PassConfig::driver. kCpu also shapes -O: it does not run the passes
  // measured as losses on lavapipe (morton-remap, batch-uniform-loads); a
  // pass named explicitly in the pipeline always runs.
  AssumedDriver driver = AssumedDriver::kGeneric;
  std::vector<PipelineStep> pipeline;
  // Parameters for a waveopt pass (key: its flag) wherever it runs without
  // its own: in -O, or named without "=<params>" (--pass-params). Checked
  // by Optimize() before anything runs.
  std::map<std::string, std::string> pass_params;
  bool validate_input = true;
  // The layout rules input and output are validated under (io.h).
  BlockLayout block_layout = BlockLayout::kDefault;
  bool validate_output = true;
  bool validate_after_all = false;  // validate after every step
  bool emit_hlsl = false;           // see PassConfig::emit_hlsl
  bool print_all = false;           // disassembly after every step → Result::print_all
};

struct PassTiming {
  std::string pass;      // waveopt pass flag, or "spirv-opt <flags>"
  double wall_ms = 0.0;
  bool changed = false;
};

struct Result {
  std::vector<uint32_t> words;           // the output module (empty on failure)
  std::vector<Remark> remarks;           // in emission order
  std::vector<std::string> diagnostics;  // validator/optimizer messages
  std::vector<PassTiming> timings;       // one entry per executed step
  spv_target_env target_env = SPV_ENV_VULKAN_1_1;  // the one used
  std::string print_all;                 // filled when Options::print_all
};

// Validates |words|, runs the pipeline, validates the result. Returns true on
// success. On failure, |result->diagnostics| ends with one line that says what
// went wrong, and |result->words| is empty.
// A waveopt pass that fails part way (ids exhausted) is not a failure of the
// call: its changes are discarded, the pipeline goes on with the module as
// the pass received it, and a "warning: ..." diagnostic says so.
bool Optimize(const std::vector<uint32_t>& words, const Options& options,
              Result* result);

// The spirv-opt flags that -O runs before the waveopt passes (to SSA form)
// and after them (cleanup). When no waveopt pass changes the module, -O
// returns it unchanged, bit for bit.
const std::vector<std::string>& PrepareFlags();
const std::vector<std::string>& CleanupFlags();

// Parses "vulkan1.1", "spv1.5", ... Returns false for unknown names.
bool ParseTargetEnv(const std::string& name, spv_target_env* env);
// The inverse of ParseTargetEnv for the environments it accepts.
std::string TargetEnvName(spv_target_env env);
// The lowest Vulkan environment whose SPIR-V version covers |words|' header
// (universal environment for modules declaring the Kernel capability).
spv_target_env DefaultTargetEnv(const std::vector<uint32_t>& words);

}  // namespace waveopt

#endif  // WAVEOPT_WAVEOPT_H_
