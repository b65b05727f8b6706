// waveopt::Optimize: validate → waveopt passes / spirv-opt steps → validate.
//
// Everything runs in the calling thread. waveopt passes run on an IRContext
// built here, one pass at a time, so each is timed and its remarks
// collected. Consecutive spirv-opt flags run as one spvtools::Optimizer:
// in the calling thread, or, when the caller asks for it
// (Options::isolation), in a child process (lib/support/child_process.h),
// so that a crash inside SPIRV-Tools skips -O's SSA rewrite or cleanup, or
// fails a step the user asked for, instead of taking the caller down.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <new>

#include "lib/analysis/uniformity.h"
#include "lib/inline_loop_callees.h"
#include "lib/pipeline_testing.h"
#include "lib/pipeline_versions.h"
#include "lib/site_markers.h"
#include "lib/support/child_process.h"
#include "passes/registry.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"
#include "spirv-tools/libspirv.hpp"
#include "waveopt/pipeline.h"

namespace waveopt {

namespace {
std::atomic<void (*)()> g_step_hook{nullptr};
std::atomic<bool> g_reuse_segments{true};
std::atomic<bool> g_share_contexts{true};
std::atomic<void (*)()> g_context_hook{nullptr};
}  // namespace

void SetSpirvOptStepHookForTesting(void (*hook)()) { g_step_hook.store(hook); }
void SetVersionReuseForTesting(bool reuse) { g_reuse_segments.store(reuse); }
void SetContextSharingForTesting(bool share) { g_share_contexts.store(share); }
void SetContextBuildHookForTesting(void (*hook)()) { g_context_hook.store(hook); }

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
      kInlineLoopCalleesFlag,          "--eliminate-dead-functions",       "--scalar-replacement",
      "--convert-local-access-chains", "--eliminate-dead-code-aggressive", "--ssa-rewrite"};
  return flags;
}

const std::vector<std::string>& CleanupFlags() {
  // Removes what the rewrites leave dead and folds the constants they
  // introduce; no inlining, no control-flow restructuring of user code, and
  // nothing that reassociates or contracts floating-point arithmetic
  // (--simplify-instructions turns a*b+c into fma: allowed by SPIR-V, but it
  // changes results on targets that do not contract).
  static const std::vector<std::string> flags = {"--eliminate-dead-code-aggressive", "--ccp",
                                                 "--redundancy-elimination",
                                                 "--eliminate-dead-code-aggressive"};
  return flags;
}

namespace {

using Clock = std::chrono::steady_clock;

// Why -O does not run the waveopt pass |name| under |config| ("" : it runs).
// The measurements are cited in docs/targets.md.
std::string ProfileSkips(const PassConfig& config, const std::string& name) {
  if (name == "morton-remap" && config.Fact(&TargetFacts::quad_order_slower)) {
    return std::string("not run by -O under --target=") + TargetName(config.target) +
           ": the relabelled image kernels measured slower than the originals "
           "on lavapipe (fact quad-order-slower; docs/benchmarks.md: filter3x3, "
           "downsample)";
  }
  // batch-uniform-loads runs: under this profile it chooses its read by
  // subgroup size itself (see docs/cli.md).
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
  return [out](spv_message_level_t level, const char*, const spv_position_t&, const char* message) {
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
  bool optimize = false;           // a pass of -O: the target may skip it
};

std::vector<Segment> Expand(const std::vector<PipelineStep>& steps,
                            const std::map<std::string, std::string>& pass_params) {
  auto params_of = [&pass_params](const std::string& name, const std::string& own) {
    if (!own.empty()) return own;
    auto it = pass_params.find(name);
    return it == pass_params.end() ? std::string() : it->second;
  };
  std::vector<Segment> out;
  auto add_flags = [&out](const std::vector<std::string>& flags, bool cleanup) {
    if (out.empty() || out.back().waveopt || out.back().cleanup != cleanup || out.back().prepare) {
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
          s.optimize = true;
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

// Runs |flags| over |words| with one spvtools::Optimizer. False when a flag
// is refused or SPIRV-Tools reports an error (|words| is then unchanged).
bool RunFlags(const std::vector<std::string>& flags, spv_target_env env,
              std::vector<uint32_t>* words, std::vector<std::string>* diagnostics) {
  if (void (*hook)() = g_step_hook.load()) hook();
  spvtools::Optimizer optimizer(env);
  // Some SPIRV-Tools passes report "ID overflow" as an error and go on to
  // return a module with id 0 in it: any error fails the step.
  bool errors = false;
  spvtools::MessageConsumer collect = Collect(diagnostics);
  optimizer.SetMessageConsumer([&errors, collect](spv_message_level_t level, const char* source,
                                                  const spv_position_t& position,
                                                  const char* message) {
    if (level <= SPV_MSG_ERROR) errors = true;
    collect(level, source, position, message);
  });
  PassConfig config;
  config.target_env = env;
  std::string error;
  if (!RegisterFlags(&optimizer, flags, config, &error)) {
    diagnostics->push_back(error);
    return false;
  }
  spvtools::OptimizerOptions opt_options;
  opt_options.set_run_validator(false);
  std::vector<uint32_t> out;
  if (!optimizer.Run(words->data(), words->size(), &out, opt_options) || errors) return false;
  *words = std::move(out);
  return true;
}

// How a spirv-opt step ended.
struct StepOutcome {
  enum class Kind { kOk, kFailed, kCrashed };
  Kind kind = Kind::kOk;
  std::string crash;  // kCrashed: "crashed (signal 11, ...)", "timed out after 2 s"
};

void Put32(std::string* msg, uint32_t v) { msg->append(reinterpret_cast<const char*>(&v), 4); }

// The child's answer: ok word, diagnostics count, (length, bytes)*, words.
std::string EncodeStep(bool ok, const std::vector<std::string>& diags,
                       const std::vector<uint32_t>& words) {
  std::string msg;
  Put32(&msg, ok ? 1u : 0u);
  Put32(&msg, static_cast<uint32_t>(diags.size()));
  for (const std::string& d : diags) {
    Put32(&msg, static_cast<uint32_t>(d.size()));
    msg += d;
  }
  if (ok) msg.append(reinterpret_cast<const char*>(words.data()), words.size() * 4);
  return msg;
}

// Reads EncodeStep's message. False when it is malformed.
bool DecodeStep(const std::string& msg, bool* ok, std::vector<std::string>* diags,
                std::vector<uint32_t>* words) {
  size_t pos = 0;
  auto get32 = [&msg, &pos](uint32_t* v) {
    if (pos + 4 > msg.size()) return false;
    std::memcpy(v, msg.data() + pos, 4);
    pos += 4;
    return true;
  };
  uint32_t flag = 0, count = 0;
  if (!get32(&flag) || !get32(&count)) return false;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t len = 0;
    if (!get32(&len) || pos + len > msg.size()) return false;
    diags->push_back(msg.substr(pos, len));
    pos += len;
  }
  *ok = flag == 1;
  if (!*ok) return pos == msg.size();
  if ((msg.size() - pos) % 4 != 0) return false;
  words->assign((msg.size() - pos) / 4, 0);
  std::memcpy(words->data(), msg.data() + pos, msg.size() - pos);
  return true;
}

// RunFlags in a child process: a crash or a hang there is kCrashed.
StepOutcome RunFlagsIsolated(const std::vector<std::string>& flags, spv_target_env env,
                             double timeout_s, std::vector<uint32_t>* words,
                             std::vector<std::string>* diagnostics) {
  support::ChildOptions child;
  child.timeout_s = timeout_s;
  child.out = support::StreamMode::kDiscard;
  child.err = support::StreamMode::kDiscard;
  const std::vector<uint32_t>& input = *words;
  support::ChildResult r = support::RunInChild(
      [&flags, env, &input](int channel) {
        std::vector<uint32_t> out = input;
        std::vector<std::string> diags;
        const bool ok = RunFlags(flags, env, &out, &diags);
        const std::string msg = EncodeStep(ok, diags, out);
        return support::WriteAll(channel, msg.data(), msg.size()) ? 0 : 2;
      },
      child);
  StepOutcome outcome;
  if (r.status == support::ChildResult::Status::kFailedToStart) {
    diagnostics->push_back("warning: no child process for a spirv-opt step (" + r.error +
                           "); it runs in the calling thread");
    if (!RunFlags(flags, env, words, diagnostics)) outcome.kind = StepOutcome::Kind::kFailed;
    return outcome;
  }
  bool ok = false;
  std::vector<uint32_t> out;
  if (!r.ok() || !DecodeStep(r.channel, &ok, diagnostics, &out)) {
    outcome.kind = StepOutcome::Kind::kCrashed;
    outcome.crash = r.ok() ? "sent a malformed result" : support::Describe(r);
    return outcome;
  }
  if (!ok) {
    outcome.kind = StepOutcome::Kind::kFailed;
    return outcome;
  }
  *words = std::move(out);
  return outcome;
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
    diagnostics->push_back(
        std::string("warning: the input's buffer layouts are valid only under ") + l.flag +
        "'s rules, not " + TargetEnvName(env) +
        "'s default ones; it is read, and the output validated, under them");
    return true;
  }
  return false;
}

bool Fail(Result* result, const std::string& line, RemarkCollector* remarks = nullptr) {
  if (remarks != nullptr) result->remarks = remarks->Take();
  result->words.clear();
  result->diagnostics.push_back(line);
  return false;
}

// The module between two segments, with what the cleanup looks at.
struct State {
  std::vector<uint32_t> words;
  bool any_change = false;
  std::vector<uint32_t> before_optimize;
  bool operator==(const State& o) const {
    return any_change == o.any_change && words == o.words && before_optimize == o.before_optimize;
  }
};

// What one segment of a build did.
struct SegmentTrace {
  State before;
  std::vector<bool TargetFacts::*> facts_read;
  std::vector<Remark> remarks;
  std::vector<std::string> diagnostics;
};

// A successful build, for the builds of -O's versions after it: a segment
// that starts from the same state and reads no fact of another value does
// what it did there, so they take its result instead of running it.
struct BuildTrace {
  TargetFacts facts;
  std::vector<SegmentTrace> segments;
  State end;  // after the last segment; validated
};

// Whether |facts| answers every fact in |read| as |other| does.
bool SameAnswers(const std::vector<bool TargetFacts::*>& read, const TargetFacts& facts,
                 const TargetFacts& other) {
  for (bool TargetFacts::*m : read) {
    if (facts.*m != other.*m) return false;
  }
  return true;
}

// An IRContext a waveopt pass left unchanged, with the analyses it built,
// for the next waveopt pass that starts from the same words (in this build
// or in a later version's).
struct ContextCache {
  std::unique_ptr<spvtools::opt::IRContext> context;
  std::vector<uint32_t> words;  // what |context| holds
  // Built on |context| by a pass (PassConfig::uniformity); destroyed
  // before it.
  std::shared_ptr<SharedUniformity> uniformity = std::make_shared<SharedUniformity>();
};

// One Optimize() call: the module as it goes through the segments.
class Run {
 public:
  Run(const Options& options, Result* result, spv_target_env env, BlockLayout layout, Target target,
      ContextCache* cache, bool markers)
      : options_(options),
        result_(result),
        env_(env),
        layout_(layout),
        markers_(markers),
        cache_(cache) {
    base_.subgroup_size = options.subgroup_size;
    base_.target_env = env;
    base_.remarks = remarks_;
    base_.SetTarget(target);
    base_.emit_hlsl = options.emit_hlsl;
    base_.emit_glsl = options.emit_glsl;
    base_.hlsl_dxc = options.hlsl_dxc;
    base_.float_reassoc = options.float_reassoc;
    base_.only_rewrite = options.only_rewrite;
    base_.facts_read = std::make_shared<std::vector<bool TargetFacts::*>>();
    base_.uniformity = cache->uniformity;
  }

  // Runs every segment over |words|, or takes its result from |earlier|
  // builds (see BuildTrace), and records what each did in |trace| (may be
  // null); false (after Fail) on failure.
  bool Execute(std::vector<uint32_t> words, const std::vector<BuildTrace>& earlier = {},
               BuildTrace* trace = nullptr) {
    words_ = markers_ ? AddSiteMarkers(words) : std::move(words);
    const std::vector<Segment> segments = Expand(options_.pipeline, options_.pass_params);
    for (size_t i = 0; i < segments.size(); ++i) {
      if (!RunSegment(segments[i], i, earlier, trace)) return false;
    }
    if (markers_) StripSiteMarkers(&words_);
    result_->remarks = remarks_->Take();
    std::string error;
    const bool validated = std::any_of(earlier.begin(), earlier.end(), [this](const BuildTrace& b) {
      return b.end.words == words_;
    });
    if (trace != nullptr) trace->end = {words_, any_change_, before_optimize_};
    if (options_.validate_output && !validated && !ValidateModule(words_, env_, &error, layout_)) {
      return Fail(result_, "internal error: the optimized module is not valid for " +
                               TargetEnvName(env_) + ": " + error);
    }
    result_->words = std::move(words_);
    return true;
  }

 private:
  // Segment |index|: taken from a build of |earlier| that did it from the
  // same state with the same answers to its facts, else run.
  bool RunSegment(const Segment& seg, size_t index, const std::vector<BuildTrace>& earlier,
                  BuildTrace* trace) {
    SegmentTrace entry;
    if (trace != nullptr || !earlier.empty())
      entry.before = {words_, any_change_, before_optimize_};
    for (const BuildTrace& b : earlier) {
      if (!g_reuse_segments.load() || index >= b.segments.size()) break;
      const SegmentTrace& done = b.segments[index];
      if (!SameAnswers(done.facts_read, b.facts, base_.facts) || !(done.before == entry.before)) {
        continue;
      }
      for (const Remark& r : done.remarks) remarks_->Emit(r);
      result_->diagnostics.insert(result_->diagnostics.end(), done.diagnostics.begin(),
                                  done.diagnostics.end());
      const State& after = index + 1 < b.segments.size() ? b.segments[index + 1].before : b.end;
      words_ = after.words;
      any_change_ = after.any_change;
      before_optimize_ = after.before_optimize;
      if (trace != nullptr) trace->segments.push_back(done);
      return true;
    }
    const size_t first_remark = remarks_->remarks().size();
    const size_t first_diagnostic = result_->diagnostics.size();
    base_.facts_read->clear();
    const std::string step = seg.waveopt ? seg.name : "spirv-opt " + Join(seg.flags);
    bool ran = false;
    if (!(seg.waveopt ? RunWaveopt(seg, &ran) : RunSpirvOpt(seg, step, &ran))) return false;
    if (ran && !AfterStep(step)) return false;
    if (trace == nullptr) return true;
    entry.facts_read = *base_.facts_read;
    const std::vector<Remark>& all = remarks_->remarks();
    entry.remarks.assign(all.begin() + static_cast<std::ptrdiff_t>(first_remark), all.end());
    entry.diagnostics.assign(
        result_->diagnostics.begin() + static_cast<std::ptrdiff_t>(first_diagnostic),
        result_->diagnostics.end());
    trace->segments.push_back(std::move(entry));
    return true;
  }

  // A waveopt pass on the IRContext of |words_| (TakeContext). A failed
  // pass's context is discarded; |*ran|: it ran.
  bool RunWaveopt(const Segment& seg, bool* ran) {
    const std::string profile_skip = seg.optimize ? ProfileSkips(base_, seg.name) : "";
    if (!profile_skip.empty()) {
      // One module-level missed remark: the pass did not look at anything.
      Remark r;
      r.kind = RemarkKind::kMissed;
      r.pass = seg.name;
      r.name = "DriverProfile";
      r.message = profile_skip;
      remarks_->Emit(r);
      return true;
    }
    PassConfig config = base_;
    config.params = seg.params;
    std::string error;
    std::unique_ptr<spvtools::opt::Pass> pass = MakePass(seg.name, config, &error);
    if (!pass) return Fail(result_, error, remarks_.get());
    std::string build_error;
    std::unique_ptr<spvtools::opt::IRContext> context = TakeContext(&build_error);
    if (!context) {
      return Fail(result_, "cannot build the IR for " + seg.name + build_error, remarks_.get());
    }
    std::vector<std::string> messages;
    pass->SetMessageConsumer(Collect(&messages));
    auto start = Clock::now();
    const spvtools::opt::Pass::Status status = pass->Run(context.get());
    PassTiming timing{seg.name, MsSince(start), false};
    for (const std::string& m : messages) {
      if (m.rfind(kPassFailedPrefix, 0) != 0) result_->diagnostics.push_back(m);
    }
    *ran = true;
    if (status == spvtools::opt::Pass::Status::Failure) {
      // The pass gave up half way; the registry's wrapper withheld its
      // applied remarks. Its IRContext is discarded, so the module is
      // exactly what the pass received; the pipeline goes on without it.
      result_->diagnostics.push_back(
          "warning: " + seg.name + " failed (" + FailureReason(messages) +
          "); its changes are discarded and the module is passed on as it was before it");
    } else if (status == spvtools::opt::Pass::Status::SuccessWithChange) {
      std::vector<uint32_t> out;
      context->module()->ToBinary(&out, /* skip_nop = */ true);
      words_ = std::move(out);
      timing.changed = true;
      any_change_ = true;
      // The next waveopt pass takes it with the analyses this one says
      // it preserves (the contract RegisteredPass checks in the checking
      // builds), not rebuilt from the words (compile time: a def-use
      // analysis per changed pass). The uniformity was of the old module.
      cache_->uniformity->Forget();
      cache_->context = std::move(context);
      cache_->words = words_;
    } else {
      KeepContext(std::move(context));
    }
    if (cache_->context == nullptr) cache_->uniformity->Forget();
    result_->timings.push_back(timing);
    return true;
  }

  // The IRContext of |words_|: the one the waveopt pass just before left
  // (with the analyses it built, or preserved when it changed the module),
  // else built anew. Null (and |*error|: ": why") when the words do not
  // build.
  std::unique_ptr<spvtools::opt::IRContext> TakeContext(std::string* error) {
    std::unique_ptr<spvtools::opt::IRContext> context = std::move(cache_->context);
    if (context != nullptr && cache_->words == words_ && g_share_contexts.load()) {
      return context;
    }
    cache_->uniformity->Forget();
    context.reset();
    if (void (*hook)() = g_context_hook.load()) hook();
    std::vector<std::string> diags;
    context = spvtools::BuildModule(env_, Collect(&diags), words_.data(), words_.size());
    if (!context && !diags.empty()) *error = ": " + diags.front();
    // Messages during a pass (ID overflow) are the pass's failure, not ours.
    if (context) {
      context->SetMessageConsumer(
          [](spv_message_level_t, const char*, const spv_position_t&, const char*) {});
    }
    return context;
  }

  // Keeps |context|, which a pass reported unchanged, for the next waveopt
  // pass: only when it still writes exactly |words_| (a pass that took an
  // id, or added a type, and then gave up did change it).
  void KeepContext(std::unique_ptr<spvtools::opt::IRContext> context) {
    std::vector<uint32_t> now;
    context->module()->ToBinary(&now, /* skip_nop = */ true);
    if (now != words_) return;
    cache_->context = std::move(context);
    cache_->words = words_;
  }

  // "ids exhausted or an internal error", or what the wrapper said.
  static std::string FailureReason(const std::vector<std::string>& messages) {
    for (const std::string& m : messages) {
      if (m.rfind(kPassFailedPrefix, 0) != 0) continue;
      const size_t open = m.find(" failed (");
      const size_t close = m.find("):", open);
      if (open != std::string::npos && close != std::string::npos) {
        return m.substr(open + 9, close - open - 9);
      }
    }
    return "ids exhausted or an internal error";
  }

  // A run of spirv-opt flags. -O's own steps (SSA rewrite, cleanup) are
  // optional: skipped with a warning when they fail or crash; steps the
  // user named fail the call.
  bool RunSpirvOpt(const Segment& seg, const std::string& step, bool* ran) {
    if (seg.cleanup && !any_change_) {
      if (!before_optimize_.empty()) words_ = std::move(before_optimize_);
      before_optimize_.clear();
      return true;
    }
    if (seg.prepare) {
      before_optimize_ = words_;
      any_change_ = false;
    }
    std::vector<uint32_t> out = words_;
    auto start = Clock::now();
    StepOutcome outcome;
    if (options_.isolation == Isolation::kChildProcess) {
      outcome = RunFlagsIsolated(seg.flags, env_, options_.isolation_timeout_s, &out,
                                 &result_->diagnostics);
    } else if (!RunFlags(seg.flags, env_, &out, &result_->diagnostics)) {
      outcome.kind = StepOutcome::Kind::kFailed;
    }
    PassTiming timing{step, MsSince(start), false};
    const bool optional = seg.cleanup || seg.prepare;
    if (outcome.kind == StepOutcome::Kind::kCrashed) {
      if (!optional) {
        return Fail(result_, "spirv-opt " + outcome.crash + " in " + step, remarks_.get());
      }
      result_->diagnostics.push_back("warning: spirv-opt " + outcome.crash +
                                     (seg.prepare ? " in the SSA rewrite before -O; step skipped"
                                                  : " in the cleanup after -O; cleanup skipped"));
      return true;
    }
    if (outcome.kind == StepOutcome::Kind::kFailed) {
      if (!optional) return Fail(result_, step + " failed", remarks_.get());
      result_->diagnostics.push_back("warning: " + step + " failed; step skipped");
      return true;
    }
    timing.changed = out != words_;
    words_ = std::move(out);
    result_->timings.push_back(timing);
    *ran = true;
    return true;
  }

  // --print-all and --validate-after-all after a step that ran.
  bool AfterStep(const std::string& step) {
    if (!options_.print_all && !options_.validate_after_all) return true;
    std::vector<uint32_t> words = words_;
    if (markers_) StripSiteMarkers(&words);
    std::string error;
    if (options_.print_all) {
      std::string text;
      DisassembleWords(words, env_, &text, &error);
      result_->print_all += "; IR after " + step + "\n" + text;
    }
    if (options_.validate_after_all && !ValidateModule(words, env_, &error, layout_)) {
      return Fail(result_, "invalid module after " + step + ": " + error, remarks_.get());
    }
    return true;
  }

  const Options& options_;
  Result* result_;
  const spv_target_env env_;
  const BlockLayout layout_;
  std::shared_ptr<RemarkCollector> remarks_ = std::make_shared<RemarkCollector>();
  PassConfig base_;
  std::vector<uint32_t> words_;
  bool any_change_ = false;
  std::vector<uint32_t> before_optimize_;  // restored when -O changed nothing
  const bool markers_;                     // words_ has site markers (lib/site_markers.h)
  ContextCache* cache_;                    // see TakeContext
};

// Empties |result| (freeing what the call held) and leaves one line in it.
void Abandon(Result* result, const char* line) {
  *result = Result();
  try {
    result->diagnostics.push_back(line);
  } catch (...) {
  }
}

// Sends DriverProfile's missed remark for a pass -O does not run for the
// target, inside one's own spvtools::Optimizer.
class ProfileNotePass : public spvtools::opt::Pass {
 public:
  ProfileNotePass(std::string pass, std::string why, std::shared_ptr<RemarkSink> sink)
      : pass_(std::move(pass)), why_(std::move(why)), sink_(std::move(sink)) {}
  const char* name() const override { return pass_.c_str(); }
  Status Process() override {
    Remark r;
    r.kind = RemarkKind::kMissed;
    r.pass = pass_;
    r.name = "DriverProfile";
    r.message = why_;
    if (sink_) {
      sink_->Emit(r);
    } else if (consumer()) {
      consumer()(SPV_MSG_INFO, "", {0, 0, 0}, FormatRemark(r).c_str());
    }
    return Status::SuccessWithoutChange;
  }

 private:
  std::string pass_, why_;
  std::shared_ptr<RemarkSink> sink_;
};

bool RegisterOptimizeSequence(spvtools::Optimizer* optimizer, const PassConfig& given,
                              std::string* error) {
  if (!given.params.empty()) {
    *error = "PassConfig::params names no pass: -O's passes take theirs from pass_params";
    return false;
  }
  if (!CheckPassParams(given, error)) return false;
  // Every flag is checked on a scratch optimizer first, so that a failure
  // leaves |optimizer| as it was.
  PassConfig config = given;
  if (config.target == Target::kNone) config.SetTarget(Target::kPortable);
  std::vector<std::string> passes;
  for (const PassInfo& info : RegisteredPasses()) {
    if (ProfileSkips(config, info.name).empty()) {
      passes.push_back(std::string("--") + info.name);
    }
  }
  spvtools::Optimizer probe(config.target_env);
  probe.SetMessageConsumer(
      [](spv_message_level_t, const char*, const spv_position_t&, const char*) {});
  const std::vector<std::string>* sequence[] = {&PrepareFlags(), &passes, &CleanupFlags()};
  for (const std::vector<std::string>* flags : sequence) {
    if (!RegisterFlags(&probe, *flags, config, error)) return false;
  }
  RegisterFlags(optimizer, PrepareFlags(), config, error);
  for (const PassInfo& info : RegisteredPasses()) {
    const std::string skip = ProfileSkips(config, info.name);
    if (skip.empty()) {
      RegisterFlags(optimizer, {std::string("--") + info.name}, config, error);
    } else {
      optimizer->RegisterPass(spvtools::Optimizer::PassToken(
          std::make_unique<ProfileNotePass>(info.name, skip, config.remarks)));
    }
  }
  return RegisterFlags(optimizer, CleanupFlags(), config, error);
}

// One warning when nothing was rewritten because the target environment has
// no subgroup operations (glslangValidator's and DXC's default SPIR-V 1.0).
void WarnWhenEnvironmentBlocks(const std::vector<uint32_t>& input, const Options& options,
                               spv_target_env env, Result* result) {
  if (result->words != input) return;
  for (const Remark& r : result->remarks) {
    if (r.name != "TargetLacksSubgroupOps") continue;
    result->diagnostics.push_back(
        "warning: nothing was rewritten: the target environment " + TargetEnvName(env) +
        (options.has_target_env ? "" : " (from the module's SPIR-V version)") +
        " has no subgroup operations; pass --target-env=vulkan1.1 or later to let waveopt "
        "raise the module to SPIR-V 1.3");
    return;
  }
}

bool HasOptimize(const std::vector<PipelineStep>& steps) {
  for (const PipelineStep& step : steps) {
    if (step.kind == PipelineStep::Kind::kOptimize) return true;
  }
  return false;
}

// Runs the pipeline over |input| (with site markers when |markers|), and
// the versions: |result|'s output and its remarks as the passes made them.
bool RunPipeline(const std::vector<uint32_t>& input, const Options& options, spv_target_env env,
                 BlockLayout layout, bool markers, Result* result) {
  const bool has_o = HasOptimize(options.pipeline);
  const Target target =
      options.has_target ? options.target : (has_o ? Target::kPortable : Target::kNone);
  const bool versions = !options.has_target && has_o && options.versions;
  std::vector<BuildTrace> builds(versions ? 1 : 0);
  if (versions) builds[0].facts = FactsOf(target);
  ContextCache cache;
  Run run(options, result, env, layout, target, &cache, markers);
  if (!run.Execute(input, {}, versions ? &builds[0] : nullptr)) return false;
  if (versions) {
    // Each version takes from the builds before it what it would repeat.
    BuildForTarget build = [&](Target t, Result* r) {
      r->target_env = env;
      BuildTrace trace;
      trace.facts = FactsOf(t);
      if (!Run(options, r, env, layout, t, &cache, markers).Execute(input, builds, &trace))
        return false;
      builds.push_back(std::move(trace));
      return true;
    };
    if (!AddVersions(options, env, layout, build, result)) return false;
  }
  return true;
}

// Whether |a| and |b| are the same remarks but for their ids and sites.
bool SameRemarks(const std::vector<Remark>& a, const std::vector<Remark>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Remark& x, const Remark& y) {
    return x.pass == y.pass && x.name == y.name && x.kind == y.kind;
  });
}

// SiteMarking::kSeparateRun: |result|'s remarks from a second run, on a
// marked copy of |input|, when it made the same ones (lib/site_markers.h).
void TakeRemarksWithSites(const std::vector<uint32_t>& input, const Options& options,
                          spv_target_env env, BlockLayout layout, Result* result) {
  Options quiet = options;
  quiet.validate_output = false;
  quiet.validate_after_all = false;
  quiet.print_all = false;
  Result marked;
  marked.target_env = env;
  if (RunPipeline(input, quiet, env, layout, true, &marked) &&
      SameRemarks(marked.remarks, result->remarks)) {
    result->remarks = std::move(marked.remarks);
  }
}

bool OptimizeOrThrow(const std::vector<uint32_t>& input, const Options& options, Result* result) {
  const spv_target_env env = options.has_target_env ? options.target_env : DefaultTargetEnv(input);
  result->target_env = env;
  std::string error;
  BlockLayout layout = options.block_layout;
  if (options.validate_input && !ValidateModule(input, env, &error, layout) &&
      !ReadableUnderOtherLayout(input, env, &layout, &result->diagnostics)) {
    return Fail(result, "input is not valid for " + TargetEnvName(env) + ": " + error);
  }
  PassConfig probe;
  probe.pass_params = options.pass_params;
  if (!CheckPassParams(probe, &error)) {
    const std::string prefix = "pass_params: ";
    if (error.rfind(prefix, 0) == 0) error = error.substr(prefix.size());
    return Fail(result, "--pass-params: " + error);
  }
  OnlyRewrite only;
  if (options.only_rewrite.active() &&
      !ParseOnlyRewrite(FormatOnlyRewrite(options.only_rewrite), &only, &error)) {
    return Fail(result, error);
  }
  // A %<id> selection finds its site by the markers (a module with a
  // DebugInfo import but no line cannot carry them in the run: no site).
  const bool by_id = options.only_rewrite.site_id != 0;
  const SiteMarking marking =
      options.remark_sites || by_id ? SiteMarkingFor(input) : SiteMarking::kNone;
  if (!RunPipeline(input, options, env, layout, marking == SiteMarking::kInRun, result)) {
    return false;
  }
  if (marking == SiteMarking::kSeparateRun && options.remark_sites)
    TakeRemarksWithSites(input, options, env, layout, result);
  DescribeSites(input, &result->remarks);
  result->remarks = MergeRemarksPerSite(result->remarks);
  WarnWhenEnvironmentBlocks(input, options, env, result);
  return true;
}

}  // namespace

bool Optimize(const std::vector<uint32_t>& input, const Options& options, Result* result) {
  *result = Result();
  try {
    return OptimizeOrThrow(input, options, result);
  } catch (const std::bad_alloc&) {
    Abandon(result, "out of memory");
  } catch (...) {
    Abandon(result, "internal error: unexpected exception");
  }
  return false;
}

bool RegisterOptimizePasses(spvtools::Optimizer* optimizer, const PassConfig& config,
                            std::string* error) {
  try {
    return RegisterOptimizeSequence(optimizer, config, error);
  } catch (const std::bad_alloc&) {
    *error = "out of memory";
  }
  return false;
}

}  // namespace waveopt
