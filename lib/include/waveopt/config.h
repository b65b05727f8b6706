// waveopt's configuration layer: versions, target environments, the driver
// profile, and the settings every pass takes (PassConfig). Depends on
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

// The driver the output is meant for (--assume-driver). A profile changes only
// what a measurement showed: every choice is cited in docs/cli.md.
enum class AssumedDriver {
  kGeneric,  // no assumption: today's behaviour
  kRadv,     // Mesa's RADV (AMD, ACO): it pre-reduces 32-bit uniform-address
             // atomics itself, so prereduce-atomics leaves cases A and B to
             // it; its compute waves are 32 or 64 consecutive invocations,
             // so quad-exchange needs no check for 64k-invocation groups
             // and workgroup-reduce folds at most 8 slots serially;
             // it loads uniform-address uniform and read-only storage
             // buffers with scalar loads, so batch-uniform-loads leaves those
  kCpu,      // a CPU driver (lavapipe, llvmpipe, SwiftShader): -O skips the
             // rewrites measured as losses on lavapipe (morton-remap), and
             // passes refuse the forms that lose there (batching before
             // SPIR-V 1.5, pre-reductions other than case B, the serial
             // fold of workgroup-reduce)
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
  // The driver the output is for; passes read it to leave to the driver what
  // it measurably does itself (see AssumedDriver).
  AssumedDriver driver = AssumedDriver::kGeneric;
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
