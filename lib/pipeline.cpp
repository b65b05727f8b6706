// waveopt::Optimize: validate → waveopt passes / spirv-opt flags → validate.
//
// waveopt passes run on an IRContext built here, one pass at a time, so each
// is timed and its remarks collected. Consecutive spirv-opt flags run as one
// spvtools::Optimizer, in a child process: a crash inside SPIRV-Tools
// (spirv-opt 2023.1 segfaults on some valid modules) then skips -O's SSA
// rewrite or cleanup, or fails a step the user asked for, instead of taking
// the caller down.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <sstream>

#include "lib/inline_loop_callees.h"
#include "passes/registry.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"
#include "spirv-tools/libspirv.hpp"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

#ifndef WAVEOPT_VERSION_STRING
#define WAVEOPT_VERSION_STRING "0.0.0"
#endif
#ifndef WAVEOPT_SPIRV_TOOLS_VERSION_STRING
#define WAVEOPT_SPIRV_TOOLS_VERSION_STRING "unknown"
#endif

namespace waveopt {

const char* Version() { return WAVEOPT_VERSION_STRING; }
const char* SpirvToolsVersion() { return WAVEOPT_SPIRV_TOOLS_VERSION_STRING; }

const std::vector<std::string>& PrepareFlags() {
  // Front ends keep locals in Function variables; the passes reason about
  // SSA values (loop induction variables, uniform operands).
  // Inlining first, of the small functions called inside loops only
  // (lib/inline_loop_callees.h): engine code reads its data through accessor
  // functions (getLight(i), fetchWeight(i)), and a loop's load in a callee
  // is invisible to batch-uniform-loads. The functions inlining leaves
  // uncalled go, so no pass reports on code that is no longer there.
  // Scalar replacement next: locals of struct type (glslang keeps them with
  // debug info) would otherwise stay in memory and look divergent. Vector
  // locals read member by member (range.y) go through access chains, which
  // the SSA rewrite does not take: they become whole loads and extracts, and
  // the chains left dead are removed so the variable can be promoted.
  static const std::vector<std::string> flags = {
      kInlineLoopCalleesFlag, "--eliminate-dead-functions",
      "--scalar-replacement", "--convert-local-access-chains",
      "--eliminate-dead-code-aggressive", "--ssa-rewrite"};
  return flags;
}

const std::vector<std::string>& CleanupFlags() {
  // Removes what the rewrites leave dead and folds the constants they
  // introduce; no inlining, no control-flow restructuring of user code, and
  // nothing that reassociates or contracts floating-point arithmetic
  // (--simplify-instructions turns a*b+c into fma: allowed by SPIR-V, but it
  // changes results on targets that do not contract).
  static const std::vector<std::string> flags = {
      "--eliminate-dead-code-aggressive", "--ccp",
      "--redundancy-elimination", "--eliminate-dead-code-aggressive"};
  return flags;
}

bool ParseAssumedDriver(const std::string& name, AssumedDriver* driver) {
  if (name == "generic") {
    *driver = AssumedDriver::kGeneric;
  } else if (name == "radv") {
    *driver = AssumedDriver::kRadv;
  } else if (name == "cpu") {
    *driver = AssumedDriver::kCpu;
  } else {
    return false;
  }
  return true;
}

const char* AssumedDriverName(AssumedDriver driver) {
  switch (driver) {
    case AssumedDriver::kRadv: return "radv";
    case AssumedDriver::kCpu: return "cpu";
    case AssumedDriver::kGeneric: break;
  }
  return "generic";
}

namespace {

using Clock = std::chrono::steady_clock;

// Why -O does not run the waveopt pass |name| for |driver| ("" : it runs).
// The measurements are cited in docs/cli.md (--assume-driver).
std::string ProfileSkips(AssumedDriver driver, const std::string& name) {
  if (driver != AssumedDriver::kCpu) return "";
  if (name == "morton-remap") {
    return "not run by -O under --assume-driver=cpu: the relabelled image "
           "kernels measured slower than the originals on lavapipe "
           "(docs/benchmarks.md: filter3x3, downsample)";
  }
  if (name == "batch-uniform-loads") {
    return "not run by -O under --assume-driver=cpu: a shuffle with a "
           "non-constant lane is a loop over the lanes on a CPU driver, and "
           "the batched light loop measured 3x slower than the original on "
           "lavapipe at subgroup size 16 (docs/benchmarks.md: light_loop)";
  }
  return "";
}

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

spvtools::MessageConsumer Collect(std::vector<std::string>* out) {
  return [out](spv_message_level_t level, const char*, const spv_position_t&,
               const char* message) {
    if (level <= SPV_MSG_WARNING) out->push_back(OneLine(message));
  };
}

// A segment of the expanded pipeline.
struct Segment {
  bool waveopt = false;
  std::string name;                // waveopt pass flag
  std::string params;              // its parameters
  std::vector<std::string> flags;  // spirv-opt flags
  bool cleanup = false;            // -O's cleanup: skipped when nothing changed
  bool prepare = false;            // -O's SSA rewrite: undone when nothing changed
  std::string profile_skip;        // -O's pass not run for the assumed driver: why
};

std::vector<Segment> Expand(const std::vector<PipelineStep>& steps, AssumedDriver driver,
                            const std::map<std::string, std::string>& pass_params) {
  auto params_of = [&pass_params](const std::string& name, const std::string& own) {
    if (!own.empty()) return own;
    auto it = pass_params.find(name);
    return it == pass_params.end() ? std::string() : it->second;
  };
  std::vector<Segment> out;
  auto add_flags = [&out](const std::vector<std::string>& flags, bool cleanup) {
    if (out.empty() || out.back().waveopt || out.back().cleanup != cleanup ||
        out.back().prepare) {
      Segment s;
      s.cleanup = cleanup;
      out.push_back(s);
    }
    out.back().flags.insert(out.back().flags.end(), flags.begin(), flags.end());
  };
  for (const PipelineStep& step : steps) {
    switch (step.kind) {
      case PipelineStep::Kind::kWaveopt: {
        Segment s;
        s.waveopt = true;
        s.name = step.name;
        s.params = params_of(step.name, step.params);
        out.push_back(s);
        break;
      }
      case PipelineStep::Kind::kSpirvOpt:
        add_flags({step.name}, false);
        break;
      case PipelineStep::Kind::kOptimize: {
        Segment prepare;
        prepare.prepare = true;
        prepare.flags = PrepareFlags();
        out.push_back(prepare);
        for (const PassInfo& info : RegisteredPasses()) {
          Segment s;
          s.waveopt = true;
          s.name = info.name;
          s.params = params_of(info.name, "");
          s.profile_skip = ProfileSkips(driver, info.name);
          out.push_back(s);
        }
        add_flags(CleanupFlags(), true);
        break;
      }
    }
  }
  return out;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& f : v) s += (s.empty() ? "" : " ") + f;
  return s;
}

// Runs |flags| over |words|. Returns 0 on success, -1 when the flags were
// rejected or optimization failed, or the signal number when |isolate| and
// the optimizer crashed.
int RunSpirvOpt(const std::vector<std::string>& flags, spv_target_env env,
                bool isolate, std::vector<uint32_t>* words,
                std::vector<std::string>* diagnostics) {
  auto run = [&](std::vector<uint32_t>* out,
                 std::vector<std::string>* diags) -> bool {
    spvtools::Optimizer optimizer(env);
    // Some SPIRV-Tools passes report "ID overflow" as an error and go on to
    // return a module with id 0 in it: any error fails the step.
    bool errors = false;
    spvtools::MessageConsumer collect = Collect(diags);
    optimizer.SetMessageConsumer(
        [&errors, collect](spv_message_level_t level, const char* source,
                           const spv_position_t& position, const char* message) {
          if (level <= SPV_MSG_ERROR) errors = true;
          collect(level, source, position, message);
        });
    for (const std::string& flag : flags) {
      if (flag == kInlineLoopCalleesFlag) {
        optimizer.RegisterPass(
            spvtools::Optimizer::PassToken(CreateInlineLoopCalleesPass()));
      } else if (!optimizer.RegisterPassesFromFlags({flag})) {
        return false;
      }
    }
    spvtools::OptimizerOptions opt_options;
    opt_options.set_run_validator(false);
    return optimizer.Run(words->data(), words->size(), out, opt_options) && !errors;
  };
  if (!isolate) {
    std::vector<uint32_t> out;
    if (!run(&out, diagnostics)) return -1;
    *words = std::move(out);
    return 0;
  }
  int fds[2];
  if (pipe(fds) != 0) {
    std::vector<uint32_t> out;
    if (!run(&out, diagnostics)) return -1;
    *words = std::move(out);
    return 0;
  }
  fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::vector<uint32_t> out;
    std::vector<std::string> diags;
    bool ok = run(&out, &diags);
    // Protocol: status word, diagnostics count, (length, bytes)*, words.
    std::string msg;
    auto put32 = [&msg](uint32_t v) { msg.append(reinterpret_cast<char*>(&v), 4); };
    put32(ok ? 1u : 0u);
    put32(static_cast<uint32_t>(diags.size()));
    for (const std::string& d : diags) {
      put32(static_cast<uint32_t>(d.size()));
      msg += d;
    }
    msg.append(reinterpret_cast<const char*>(out.data()), out.size() * 4);
    const char* p = msg.data();
    size_t left = msg.size();
    while (left > 0) {
      ssize_t n = write(fds[1], p, left);
      if (n <= 0) _exit(2);
      p += n;
      left -= static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    std::vector<uint32_t> out;
    if (!run(&out, diagnostics)) return -1;
    *words = std::move(out);
    return 0;
  }
  std::string msg;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    msg.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return WTERMSIG(status);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || msg.size() < 8) {
    return SIGABRT;
  }
  size_t pos = 0;
  auto get32 = [&msg, &pos](uint32_t* v) {
    if (pos + 4 > msg.size()) return false;
    std::memcpy(v, msg.data() + pos, 4);
    pos += 4;
    return true;
  };
  uint32_t ok = 0, ndiag = 0;
  get32(&ok);
  get32(&ndiag);
  for (uint32_t i = 0; i < ndiag; ++i) {
    uint32_t len = 0;
    if (!get32(&len) || pos + len > msg.size()) return SIGABRT;
    diagnostics->push_back(msg.substr(pos, len));
    pos += len;
  }
  if (!ok) return -1;
  if ((msg.size() - pos) % 4 != 0) return SIGABRT;
  words->assign((msg.size() - pos) / 4, 0);
  std::memcpy(words->data(), msg.data() + pos, msg.size() - pos);
  return 0;
}

// Block layout rules are the API's choice (device features such as
// VK_EXT_scalar_block_layout), not the module's: a module that is invalid
// under |env|'s default rules but valid under relaxed or scalar ones (what
// DXC and glslang emit for such devices) is read under those, and the
// output is validated under the same. Returns false when neither helps;
// only tried when the caller chose no layout (|*layout| is kDefault).
bool ReadableUnderOtherLayout(const std::vector<uint32_t>& input, spv_target_env env,
                              BlockLayout* layout, std::vector<std::string>* diagnostics) {
  if (*layout != BlockLayout::kDefault) return false;
  static const struct {
    BlockLayout layout;
    const char* flag;
  } kLayouts[] = {{BlockLayout::kRelaxed, "--relax-block-layout"},
                  {BlockLayout::kScalar, "--scalar-block-layout"}};
  std::string error;
  for (const auto& l : kLayouts) {
    if (!ValidateModule(input, env, &error, l.layout)) continue;
    *layout = l.layout;
    diagnostics->push_back(std::string("warning: the input's buffer layouts are valid only under ") +
                           l.flag + "'s rules, not " + TargetEnvName(env) +
                           "'s default ones; it is read, and the output validated, under them");
    return true;
  }
  return false;
}

bool Fail(Result* result, const std::string& line,
          RemarkCollector* remarks = nullptr) {
  if (remarks != nullptr) result->remarks = remarks->Take();
  result->words.clear();
  result->diagnostics.push_back(line);
  return false;
}

}  // namespace

bool Optimize(const std::vector<uint32_t>& input, const Options& options,
              Result* result) {
  *result = Result();
  const spv_target_env env =
      options.has_target_env ? options.target_env : DefaultTargetEnv(input);
  result->target_env = env;
  std::string error;
  BlockLayout layout = options.block_layout;
  if (options.validate_input && !ValidateModule(input, env, &error, layout) &&
      !ReadableUnderOtherLayout(input, env, &layout, &result->diagnostics)) {
    return Fail(result, "input is not valid for " + TargetEnvName(env) + ": " + error);
  }

  for (const auto& [name, params] : options.pass_params) {
    PassConfig probe;
    probe.params = params;
    if (!MakePass(name, probe, &error)) return Fail(result, "--pass-params: " + error);
  }

  std::vector<uint32_t> words = input;
  auto remarks = std::make_shared<RemarkCollector>();
  PassConfig base;
  base.subgroup_size = options.subgroup_size;
  base.target_env = env;
  base.remarks = remarks;
  base.driver = options.driver;
  base.emit_hlsl = options.emit_hlsl;

  bool any_change = false;
  std::vector<uint32_t> before_optimize;  // restored when -O changed nothing
  for (const Segment& seg : Expand(options.pipeline, options.driver, options.pass_params)) {
    std::string step_name = seg.waveopt ? seg.name : "spirv-opt " + Join(seg.flags);
    if (seg.waveopt && !seg.profile_skip.empty()) {
      // One module-level missed remark: the pass did not look at anything.
      Remark r;
      r.kind = RemarkKind::kMissed;
      r.pass = seg.name;
      r.name = "DriverProfile";
      r.message = seg.profile_skip;
      remarks->Emit(r);
      continue;
    }
    if (seg.waveopt) {
      PassConfig config = base;
      config.params = seg.params;
      // The pass reports into its own collector: its remarks reach the
      // result only if its rewrite is kept (see Failure below).
      auto pass_remarks = std::make_shared<RemarkCollector>();
      config.remarks = pass_remarks;
      std::unique_ptr<spvtools::opt::Pass> pass = MakePass(seg.name, config, &error);
      if (!pass) return Fail(result, error, remarks.get());
      std::vector<std::string> diags;
      std::unique_ptr<spvtools::opt::IRContext> context = spvtools::BuildModule(
          env, Collect(&diags), words.data(), words.size());
      if (!context) {
        return Fail(result, "cannot build the IR for " + seg.name +
                                (diags.empty() ? "" : ": " + diags.front()), remarks.get());
      }
      pass->SetMessageConsumer(Collect(&result->diagnostics));
      auto start = Clock::now();
      spvtools::opt::Pass::Status status = pass->Run(context.get());
      PassTiming timing{seg.name, MsSince(start), false};
      if (status == spvtools::opt::Pass::Status::Failure) {
        // The pass gave up half way (ids exhausted, or an internal error).
        // Its IRContext is discarded, so the module is exactly what the pass
        // received; the pipeline goes on without it. Its applied remarks
        // describe a rewrite that did not happen and are dropped.
        for (Remark& r : pass_remarks->Take()) {
          if (r.kind != RemarkKind::kApplied) remarks->Emit(r);
        }
        result->diagnostics.push_back(
            "warning: " + seg.name +
            " failed (ids exhausted or an internal error); its changes are "
            "discarded and the module is passed on as it was before it");
        result->timings.push_back(timing);
        continue;
      }
      for (Remark& r : pass_remarks->Take()) remarks->Emit(r);
      if (status == spvtools::opt::Pass::Status::SuccessWithChange) {
        std::vector<uint32_t> out;
        context->module()->ToBinary(&out, /* skip_nop = */ true);
        words = std::move(out);
        timing.changed = true;
        any_change = true;
      }
      result->timings.push_back(timing);
    } else {
      if (seg.cleanup && !any_change) {
        if (!before_optimize.empty()) words = std::move(before_optimize);
        before_optimize.clear();
        continue;
      }
      if (seg.prepare) {
        before_optimize = words;
        any_change = false;
      }
      std::vector<uint32_t> out = words;
      auto start = Clock::now();
      // Every spirv-opt step runs in a child process, so a crash inside
      // SPIRV-Tools never takes the caller down. -O's own steps are optional
      // (skipped with a warning); steps the user asked for fail the call.
      const bool optional = seg.cleanup || seg.prepare;
      int rc = RunSpirvOpt(seg.flags, env, /* isolate = */ true, &out,
                           &result->diagnostics);
      PassTiming timing{step_name, MsSince(start), false};
      if (rc > 0 && !optional) {
        return Fail(result, "spirv-opt crashed (signal " + std::to_string(rc) +
                                ") in " + step_name, remarks.get());
      }
      if (rc > 0) {
        result->diagnostics.push_back(
            "warning: spirv-opt crashed (signal " + std::to_string(rc) +
            (seg.prepare ? ") in the SSA rewrite before -O; step skipped"
                         : ") in the cleanup after -O; cleanup skipped"));
        continue;
      }
      if (rc < 0 && optional) {
        result->diagnostics.push_back("warning: " + step_name +
                                      " failed; step skipped");
        continue;
      }
      if (rc < 0) return Fail(result, step_name + " failed", remarks.get());
      timing.changed = out != words;
      words = std::move(out);
      result->timings.push_back(timing);
    }
    if (options.print_all) {
      std::string text;
      DisassembleWords(words, env, &text, &error);
      result->print_all += "; IR after " + step_name + "\n" + text;
    }
    if (options.validate_after_all && !ValidateModule(words, env, &error, layout)) {
      return Fail(result, "invalid module after " + step_name + ": " + error, remarks.get());
    }
  }
  result->remarks = remarks->Take();
  if (options.validate_output && !ValidateModule(words, env, &error, layout)) {
    return Fail(result, "internal error: the optimized module is not valid for " +
                            TargetEnvName(env) + ": " + error, remarks.get());
  }
  result->words = std::move(words);
  return true;
}

}  // namespace waveopt
