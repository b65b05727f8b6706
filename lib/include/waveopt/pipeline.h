// waveopt's pipeline layer: -O and any sequence of waveopt passes and
// spirv-opt flags, either in one call (Optimize) or registered into one's
// own spvtools::Optimizer (RegisterOptimizePasses, RegisterFlags).
#ifndef WAVEOPT_PIPELINE_H_
#define WAVEOPT_PIPELINE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spirv-tools/libspirv.h"
#include "spirv-tools/optimizer.hpp"
#include "waveopt/config.h"
#include "waveopt/remarks.h"
#include "waveopt/spirv_io.h"

namespace waveopt {

// One step of a pipeline.
struct PipelineStep {
  enum class Kind {
    kWaveopt,   // a waveopt pass: |name| is its flag, |params| its parameters
    kSpirvOpt,  // a spirv-opt flag, forwarded verbatim, e.g. "--merge-blocks"
                // (or "--inline-loop-callees", waveopt's inliner)
    kOptimize,  // -O: to SSA, every waveopt pass in order, cleanup
  };
  Kind kind = Kind::kWaveopt;
  std::string name;
  std::string params;
};

// Where Optimize() runs SPIRV-Tools' own passes (its spirv-opt steps).
enum class Isolation {
  // In the calling thread, like everything else: no process, no thread, no
  // signal handler. The default.
  kNone,
  // Each spirv-opt step in a forked child process, so that a crash (or,
  // with Options::isolation_timeout_s, a hang) inside SPIRV-Tools skips
  // -O's preparation or cleanup with a warning, or fails a step the
  // pipeline names, instead of taking the caller down. fork() copies only
  // the calling thread: use it from a single-threaded program, or one whose
  // other threads hold no lock SPIRV-Tools needs (the allocator's), and set
  // a timeout. The waveopt command line uses it.
  kChildProcess,
};

// The first SpecId of -O's version constants unless Options::spec_id_base
// (--spec-id-base) moves them.
constexpr uint32_t kDefaultSpecIdBase = 1000;

struct Options {
  // Target environment; when unset, the lowest Vulkan version whose SPIR-V
  // version covers the module's (or the universal environment for kernels).
  bool has_target_env = false;
  spv_target_env target_env = SPV_ENV_VULKAN_1_1;
  uint32_t subgroup_size = 0;  // see PassConfig::subgroup_size
  // The target the output is for (--target; see PassConfig::target). Unset
  // (has_target false): -O builds for Target::kPortable and adds versions
  // (below); a pipeline without -O runs its passes with Target::kNone's
  // facts, as spirv-opt runs a pass it is given. A target's facts also shape
  // -O: under quad-order-slower it does not run morton-remap; a pass named
  // explicitly in the pipeline always runs.
  bool has_target = false;
  Target target = Target::kPortable;
  // With -O and no target: where amd's or nvidia's facts give a different
  // module than portable's, that module joins the output as a version chosen
  // by a boolean specialization constant (default false: portable), SpecIds
  // from |spec_id_base| up (Result::versions). False: portable alone.
  bool versions = true;
  uint32_t spec_id_base = kDefaultSpecIdBase;
  bool float_reassoc = false;  // see PassConfig::float_reassoc
  std::vector<PipelineStep> pipeline;
  // Parameters for a waveopt pass (key: its flag) wherever it runs without
  // its own: in -O, or named without "=<params>" (--pass-params). Checked
  // by Optimize() before anything runs.
  std::map<std::string, std::string> pass_params;
  // An input without source lines gets markers that let remarks name its
  // own ids (lib/site_markers.h; Remark::site). They never change the
  // output, but they cost about a sixth more time on the passes; a caller
  // that shows no remark (the CLI without --remarks* flags) turns them off.
  bool remark_sites = true;
  // --only-rewrite: one pass rewrites only the sites at one location, the
  // others nothing (PassConfig::only_rewrite; ParseOnlyRewrite). A %<id>
  // selection puts site markers in whatever |remark_sites| says.
  OnlyRewrite only_rewrite;
  bool validate_input = true;
  // The layout rules input and output are validated under (spirv_io.h).
  BlockLayout block_layout = BlockLayout::kDefault;
  bool validate_output = true;
  bool validate_after_all = false;  // validate after every step
  bool emit_hlsl = false;           // see PassConfig::emit_hlsl
  bool emit_glsl = false;           // see PassConfig::emit_glsl
  bool hlsl_dxc = false;            // see PassConfig::hlsl_dxc (--hlsl-dialect=dxc)
  bool print_all = false;           // disassembly after every step → Result::print_all
  Isolation isolation = Isolation::kNone;
  // With kChildProcess: a spirv-opt step still running after this many
  // seconds is killed and counts as a crash. 0: no limit.
  double isolation_timeout_s = 0;
};

struct PassTiming {
  std::string pass;  // waveopt pass flag, or "spirv-opt <flags>"
  double wall_ms = 0.0;
  bool changed = false;
};

// One version of an -O output: set its specialization constant true at
// pipeline creation on the devices of |targets|.
struct SpecVersion {
  uint32_t spec_id = 0;
  std::string name;                 // OpName of the constant: "waveopt_amd"
  std::vector<Target> targets;      // where it should be true
  std::vector<std::string> passes;  // the passes whose rewrites differ there
};

// One line per version, what --print-spec-constants prints:
// "SpecId 1000 bool waveopt_amd = false: true on amd (batch-uniform-loads)".
std::string FormatSpecVersion(const SpecVersion& version);

struct Result {
  std::vector<uint32_t> words;                     // the output module (empty on failure)
  std::vector<Remark> remarks;                     // in emission order
  std::vector<std::string> diagnostics;            // validator/optimizer messages
  std::vector<PassTiming> timings;                 // one entry per executed step
  spv_target_env target_env = SPV_ENV_VULKAN_1_1;  // the one used
  std::string print_all;                           // filled when Options::print_all
  std::vector<SpecVersion> versions;               // the versions -O added (Options::versions)
};

// Validates |words|, runs the pipeline, validates the result. Returns true on
// success. On failure, |result->diagnostics| ends with one line that says what
// went wrong, and |result->words| is empty. Runs in the calling thread (see
// Options::isolation); never throws: running out of memory is a failure
// ("out of memory").
// A waveopt pass that fails part way (ids exhausted) is not a failure of the
// call: its changes are discarded, the pipeline goes on with the module as
// the pass received it, and a "warning: ..." diagnostic says so.
bool Optimize(const std::vector<uint32_t>& words, const Options& options, Result* result);

// The steps that -O runs before the waveopt passes (to SSA form) and after
// them (cleanup): flags RegisterFlags() takes (the first preparation step,
// --inline-loop-callees, is waveopt's own; the others are spirv-opt's).
// When no waveopt pass changes the module, Optimize()'s -O returns it
// unchanged, bit for bit.
const std::vector<std::string>& PrepareFlags();
const std::vector<std::string>& CleanupFlags();

// Registers |flags| in |optimizer|, in order: spirv-opt's pass flags
// ("--merge-blocks"), waveopt's inliner ("--inline-loop-callees") and
// waveopt passes ("--prereduce-atomics[=<params>]"; without "=", with
// config.pass_params' entry), each waveopt pass made with |config|.
// Returns false with |error| naming the first flag it cannot take; the
// optimizer then holds the flags before it.
bool RegisterFlags(spvtools::Optimizer* optimizer, const std::vector<std::string>& flags,
                   const PassConfig& config, std::string* error);

// Registers -O's whole sequence in |optimizer|, after the passes it already
// holds (or alone, instead of them): the preparation (PrepareFlags()), every
// waveopt pass in -O's order (without those config.facts make -O skip:
// a DriverProfile missed remark says so when the optimizer runs), and the
// cleanup (CleanupFlags()). Each waveopt pass takes its parameters from
// config.pass_params. Returns false with |error|, and leaves the optimizer
// unchanged, when config.params is set (it names no pass: use pass_params),
// or config.pass_params names an unknown pass or holds parameters its pass
// refuses.
// The passes run with config.target's facts; Target::kNone (PassConfig's
// default) means -O's default, Target::kPortable. One optimizer builds one
// target's module: the versions of Optimize() need several runs.
// Unlike Optimize(), the preparation always changes the module (SSA form),
// and nothing is validated: run the optimizer with its validator on, or
// validate its output (ValidateModule).
bool RegisterOptimizePasses(spvtools::Optimizer* optimizer, const PassConfig& config,
                            std::string* error);

// Reads one command-line option of waveopt's that shapes |options| (the
// same spellings as the waveopt command line, docs/cli.md): -O,
// --<waveopt pass>[=<params>], --inline-loop-callees, any spirv-opt pass
// flag, --target-env=, --subgroup-size=, --target= (--assume-driver=),
// --spec-id-base=, --no-versions, --pass-params=, --only-rewrite=,
// the four block-layout flags, --skip-validation, --validate-after-all.
// Returns false with a one-line |error| for anything else or a bad value.
bool ParseOptionFlag(const std::string& flag, Options* options, std::string* error);

// Parses the value of --only-rewrite=, "<pass>@<where>" (OnlyRewrite).
// Returns false with a one-line |error| naming the right form, or the
// waveopt passes there are.
bool ParseOnlyRewrite(const std::string& value, OnlyRewrite* only, std::string* error);

}  // namespace waveopt

#endif  // WAVEOPT_PIPELINE_H_
