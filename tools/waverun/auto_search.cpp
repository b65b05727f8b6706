// --auto's search. Candidates go from the smallest dispatch up (one
// workgroup, then 2, 3, ... up to the ~4,096 invocations --auto used to
// start with), each with a few fills that steer branches differently
// (small values; integers zero, so that counters start at zero; 0/1
// flags; parameters equal to the number of workgroups, as last-workgroup
// patterns compare a counter with it; larger parameters, up to 64 and up
// to 4096; integer specialization constants left at 0 set to 4), then the
// same
// with other seeds. Each candidate runs on the simulator at the smallest
// and the largest requested size: a with race detection (and again with
// junk in undefined memory, as diff's self-check), b counting its
// instructions. The first candidate where a neither races nor reads memory
// it never wrote, its device addresses stay in the buffers, and b's added
// instructions run wins; a few more are tried for more coverage. The
// search stops after a time budget.
#include "tools/waverun/auto_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "tools/waverun/auto_spec.h"
#include "tools/waverun/compare.h"
#include "tools/waverun/coverage.h"
#include "tools/waverun/modules.h"
#include "tools/waverun/reflect.h"
#include "tools/waverun/sim_runner.h"

namespace waverun {
namespace {

// The search's wall-clock budget and each probe run's instruction limit.
constexpr double kSearchSeconds = 10.0;
constexpr uint64_t kProbeInstructions = 20000000;
// Candidates tried after the first covering one, looking for more coverage.
constexpr int kExtraCandidates = 6;
// Seeds (passes over all grids and fills).
constexpr uint32_t kSeeds = 4;
// The largest dispatch tried, in invocations (LargeGrid's).
constexpr uint64_t kMaxInvocations = 8192;

struct Variant {
  const char* name;  // for the note
  AutoFills fills;
  bool params_are_workgroups = false;  // params: the number of workgroups
  // Integer specialization constants that default to 0 (a count or size
  // that the pipeline is meant to set, ncnn's shapes) set to 4.
  bool spec_constants = false;
};

std::vector<Variant> Variants() {
  AutoFills d = DefaultAutoFills();
  std::vector<Variant> v;
  v.push_back({"small values", d});
  AutoFills zero = d;  // counters start at zero (floats stay random)
  zero.data.int_hi = 1;
  v.push_back({"integers zero", zero});
  v.push_back({"integers zero, parameters equal to the number of workgroups", zero, true});
  AutoFills flags = d;
  flags.data.int_lo = flags.params.int_lo = 0;
  flags.data.int_hi = flags.params.int_hi = 2;
  v.push_back({"0/1 values", flags});
  AutoFills large = d;
  large.params.int_hi = 65;
  v.push_back({"larger parameters", large});
  AutoFills huge = d;  // thresholds
  huge.params.int_hi = 4097;
  v.push_back({"parameters up to 4096", huge});
  v.push_back({"small values, integer specialization constants of 0 set to 4", d, false, true});
  return v;
}

// A grid of |n| workgroups in |dims| dimensions, as square as |n| allows
// (up to 8 workgroups a 3-D kernel keeps z at 1: last-workgroup patterns
// count the workgroups of one slice).
void Shape(uint32_t n, uint32_t dims, uint32_t g[3]) {
  g[0] = n;
  g[1] = g[2] = 1;
  if (dims == 1) return;
  bool cube = dims == 3 && n > 8;
  uint32_t best = n;
  if (cube) {
    for (uint32_t z = 1; z * z * z <= n; ++z) {
      if (n % z == 0) g[2] = z;
    }
    n /= g[2];
  }
  for (uint32_t y = 1; y * y <= n; ++y) {
    if (n % y == 0) best = y;
  }
  g[1] = best;
  g[0] = n / best;
}

// Dispatch sizes to try, smallest first: 1..8 workgroups, then doubling up
// to kMaxInvocations (at least one workgroup).
std::vector<std::vector<uint32_t>> Grids(const ModuleInterface& iface) {
  const uint32_t* ls = iface.local_size;
  uint64_t wg = std::max<uint64_t>(1, uint64_t{ls[0]} * ls[1] * ls[2]);
  uint32_t dims = GridDims(iface);
  std::vector<uint32_t> counts = {1, 2, 3, 4, 5, 6, 7, 8, 12};
  for (uint32_t n = 16; n * wg <= kMaxInvocations; n *= 2) counts.push_back(n);
  std::vector<std::vector<uint32_t>> out;
  for (uint32_t n : counts) {
    if (n > 1 && n * wg > kMaxInvocations) break;
    uint32_t g[3];
    Shape(n, dims, g);
    out.push_back({g[0], g[1], g[2]});
  }
  return out;
}

// What one candidate did on the simulator.
struct Probe {
  std::string error;              // the simulator could not run it (or its plan failed)
  std::string race;               // a's first race at some size
  bool nondeterministic = false;  // a reads memory it never wrote (first size)
  bool unsafe = false;            // device addresses outside the buffers (would crash a device)
  std::string unsafe_what;
  size_t covered = SIZE_MAX;  // fewest of b's added instructions run at any size
  size_t added = 0;
};

class Search {
 public:
  Search(const Cli& cli, std::vector<Module>* modules, const RunSpec& base,
         const ModuleInterface& iface)
      : cli_(cli), modules_(*modules), base_(base), iface_(iface) {
    // The smallest and the largest size asked for (the children check every
    // size again).
    widths_ = cli.widths;
    if (widths_.empty()) widths_.push_back(cli.sim ? 32 : 8);
    std::sort(widths_.begin(), widths_.end());
    if (widths_.size() > 2) widths_ = {widths_.front(), widths_.back()};
    diff_ = modules_.size() == 2;
    if (diff_) added_ = AddedInstructions(modules_[0].words, modules_[1].words);
  }

  // Runs the search; |spec| gets the chosen candidate's spec, |notes| what
  // the search found. False (error in |error|) when the simulator cannot run
  // the modules at all.
  bool Run(RunSpec* spec, std::vector<std::string>* notes, std::string* error);

 private:
  RunSpec SpecFor(const std::vector<uint32_t>& grid, uint32_t seed, const Variant& v,
                  std::vector<std::string>* notes) const;
  Probe Try(const RunSpec& spec);
  // Runs |m| at |width| into |out| (|junk|: with junk in undefined memory,
  // as the self-check); null with |error| when the simulator cannot.
  std::unique_ptr<Program> Simulate(const Module& m, uint32_t width, bool count, bool junk,
                                    Outputs* out, std::string* error) const;

  const Cli& cli_;
  std::vector<Module>& modules_;
  const RunSpec& base_;
  const ModuleInterface& iface_;
  std::vector<uint32_t> widths_;
  bool diff_ = false;
  std::vector<uint32_t> added_;
};

RunSpec Search::SpecFor(const std::vector<uint32_t>& grid, uint32_t seed, const Variant& v,
                        std::vector<std::string>* notes) const {
  RunSpec s = base_;
  if (!s.dispatch_given) {
    for (int d = 0; d < 3; ++d) s.dispatch[d] = grid[d];
    s.dispatch_given = true;
  }
  if (!s.seed_given) s.seed = seed;
  if (v.spec_constants) {
    for (const SpecConstant& c : iface_.spec_constants) {
      if (c.integer && c.default_bits == 0 && !s.constants.count(c.constant_id)) {
        s.constants[c.constant_id] = 4;
      }
    }
  }
  AutoFills fills = v.fills;
  if (v.params_are_workgroups) {
    int64_t n = int64_t{s.dispatch[0]} * s.dispatch[1] * s.dispatch[2];
    fills.params.int_lo = n;
    fills.params.int_hi = n + 1;
  }
  AutoSpec(iface_, fills, &s, notes);
  return s;
}

std::unique_ptr<Program> Search::Simulate(const Module& m, uint32_t width, bool count, bool junk,
                                          Outputs* out, std::string* error) const {
  SimOptions options = MakeSimOptions(cli_);
  options.lavapipe_layout = !cli_.sim;
  options.detect_races = cli_.race_check && !junk;
  options.count_instructions = count;
  if (junk) options.junk_seed = 0x5eed;
  uint64_t limit = options.instruction_limit == 0 ? kProbeInstructions : options.instruction_limit;
  options.instruction_limit = std::min(limit, kProbeInstructions);
  std::unique_ptr<Device> sim = CreateSimDevice(width, options);
  std::unique_ptr<Program> p = sim->CreateProgram(m.words, m.iface.entry_point, m.plan, error);
  double ns;
  if (!p || !p->Run(out, &ns, error)) return nullptr;
  return p;
}

Probe Search::Try(const RunSpec& spec) {
  Probe probe;
  probe.added = added_.size();
  probe.covered = 0;
  if (!BuildPlans(diff_, spec, &modules_, &probe.error)) return probe;
  size_t fewest = SIZE_MAX;
  for (uint32_t w : widths_) {
    for (size_t i = 0; i < modules_.size(); ++i) {
      bool count = i == 1 && !added_.empty();
      Outputs out;
      std::unique_ptr<Program> p = Simulate(modules_[i], w, count, false, &out, &probe.error);
      if (!p) return probe;
      const waveopt::sim::Counters* c = SimCounters(p.get());
      if (c->wild_pointer_accesses > 0 || c->device_overrun > kPointeeGuardBytes) {
        probe.unsafe = true;
        probe.unsafe_what =
            c->wild_pointer_accesses > 0
                ? std::to_string(c->wild_pointer_accesses) +
                      " accesses through device addresses in none of the buffers --auto "
                      "allocated (size " +
                      std::to_string(w) + ")"
                : "an access through a device address " + std::to_string(c->device_overrun) +
                      " bytes past the end of its buffer (size " + std::to_string(w) + ")";
        return probe;
      }
      if (i == 0) {
        probe.race = SimRace(p.get());
        if (!probe.race.empty()) return probe;
      }
      if (i == 0 && diff_ && cli_.self_check && w == widths_[0]) {
        Outputs again;
        if (!Simulate(modules_[0], w, false, true, &again, &probe.error)) return probe;
        std::vector<std::string> report, unstable;
        CompareOutputs(modules_[0].plan, out, again, "run1", "run2", &report, nullptr, &unstable);
        probe.nondeterministic = !unstable.empty();
      }
      if (count) {
        fewest = std::min(fewest, MeasureCoverage(added_, c->instruction_counts).executed);
        probe.covered = fewest;
      }
    }
    // Worse at one size is as bad as it gets: no need for the others.
    if (probe.nondeterministic || (!added_.empty() && diff_ && fewest == 0)) return probe;
  }
  return probe;
}

// How good a candidate is: safe (no device address outside the buffers),
// then race-free (diff), then how many of b's added instructions ran.
struct Score {
  bool safe = false, race_free = false, deterministic = false;
  size_t covered = 0;
  bool operator>(const Score& o) const {
    if (safe != o.safe) return safe;
    if (race_free != o.race_free) return race_free;
    if (deterministic != o.deterministic) return deterministic;
    return covered > o.covered;
  }
};

bool Search::Run(RunSpec* spec, std::vector<std::string>* notes, std::string* error) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<std::vector<uint32_t>> grids = Grids(iface_);
  std::vector<Variant> variants = Variants();
  bool have_best = false;
  Score best_score;
  Probe best_probe;
  std::string best_note;
  int tried = 0, extra = -1;
  std::string last_error;
  bool coverage_matters = diff_ && !added_.empty();
  for (uint32_t seed = 1; seed <= kSeeds && extra < kExtraCandidates; ++seed) {
    for (size_t gi = 0; gi < grids.size() && extra < kExtraCandidates; ++gi) {
      for (size_t vi = 0; vi < variants.size() && extra < kExtraCandidates; ++vi) {
        if (tried > 0 && elapsed() > kSearchSeconds) goto done;
        std::vector<std::string> unused;
        RunSpec s = SpecFor(grids[gi], seed, variants[vi], &unused);
        Probe p = Try(s);
        ++tried;
        if (!p.error.empty()) {
          last_error = p.error;
          continue;
        }
        Score sc;
        sc.safe = !p.unsafe;
        sc.race_free = !diff_ || p.race.empty();
        sc.deterministic = !p.nondeterministic;
        sc.covered = coverage_matters ? p.covered : 1;
        if (!have_best || sc > best_score) {
          have_best = true;
          best_score = sc;
          best_probe = p;
          *spec = s;
          best_note = std::string(variants[vi].name) + ", seed " + std::to_string(seed) + ", " +
                      std::to_string(uint64_t{s.dispatch[0]} * s.dispatch[1] * s.dispatch[2]) +
                      " workgroup" + (s.dispatch[0] * s.dispatch[1] * s.dispatch[2] > 1 ? "s" : "");
        }
        if (!diff_ && sc.safe) goto done;  // run: the smallest safe input
        if (sc.safe && sc.race_free && sc.deterministic && sc.covered > 0) {
          if (!coverage_matters || p.covered == added_.size()) goto done;
          extra = extra < 0 ? 0 : extra + 1;
        } else if (extra >= 0) {
          ++extra;
        }
        if (base_.dispatch_given && base_.seed_given && vi + 1 == variants.size()) goto done;
      }
      if (base_.dispatch_given) break;  // one grid: the user's
    }
    if (base_.seed_given) break;
  }
done:
  if (!have_best) {
    *error = last_error;
    return false;
  }
  std::string sizes;
  for (uint32_t w : widths_) sizes += (sizes.empty() ? "" : ",") + std::to_string(w);
  std::string what = "--auto: tried " + std::to_string(tried) + " input" + (tried > 1 ? "s" : "") +
                     " on the simulator at size " + sizes + "; chose " + best_note;
  if (!best_score.safe) {
    if (!cli_.sim) {
      *error =
          "every input --auto tried makes the module reach device addresses outside the "
          "buffers it allocated (" +
          best_probe.unsafe_what +
          "): refused on a device, where that can crash the driver; the simulator (--sim) "
          "runs it";
      return false;
    }
    what += "; " + best_probe.unsafe_what;
  } else if (!best_score.race_free) {
    what += "; a races with every one (RACE), e.g. " + best_probe.race;
  } else if (!best_score.deterministic) {
    what += "; a reads memory it never wrote with every one (NONDETERMINISTIC)";
  } else if (coverage_matters) {
    what += best_probe.covered > 0 ? ": " + std::to_string(best_probe.covered) + " of " +
                                         std::to_string(added_.size()) + " instructions b adds run"
                                   : ": none runs the instructions b adds (NOT COVERED)";
  }
  notes->push_back(what);
  return true;
}

// An integer SpecId whose constants default differently (see
// SpecConstant::defaults_differ) and that no spec line sets gets the
// largest default, as the application that specializes it must: with
// glslang's `local_size_x_id` the defaults give a workgroup of 1 while the
// kernel's loops step by the constant's 32 / 16, and it never ends. True
// when one was set.
bool SetDisagreeingSpecConstants(const std::vector<Module>& modules, RunSpec* spec,
                                 std::vector<std::string>* notes) {
  bool set = false;
  for (const Module& m : modules) {
    for (const SpecConstant& c : m.iface.spec_constants) {
      if (!c.integer || !c.defaults_differ || spec->constants.count(c.constant_id)) continue;
      spec->constants[c.constant_id] = c.largest_default;
      const std::string id = std::to_string(c.constant_id);
      notes->push_back("specialization constant " + id + " has different defaults in the module (" +
                       std::to_string(c.smallest_default) + " to " +
                       std::to_string(c.largest_default) +
                       "; glslang gives a local_size_x_id workgroup size its own default of 1): "
                       "set to the largest, as an application that specializes it would (a spec "
                       "line `const " +
                       id + " = N` sets another)");
      set = true;
    }
  }
  return set;
}

}  // namespace

// The auto spec of |cli|'s modules as spec-file text, then "# note" lines.
int AutoSpecText(const Cli& cli, std::string* text) {
  std::string err;
  RunSpec spec;
  if (!LoadSpec(cli, cli.inputs[0], &spec, &err)) return Error(err);
  std::vector<Module> modules(cli.inputs.size());
  std::vector<std::string> notes;
  for (size_t i = 0; i < cli.inputs.size(); ++i) {
    if (LoadAndReflect(cli, cli.inputs[i], spec, &modules[i], &err)) continue;
    // Variables of different kinds on one binding cannot be bound as they
    // are; moved to a binding per kind (in both modules alike), they can.
    if (spec.separate_kinds ||
        err.find("variables of different kinds share it") == std::string::npos) {
      return Error(err);
    }
    std::string what = err.substr(err.find("binding "));
    what = what.substr(0, what.find("; the spec line"));
    notes.push_back("separate-kinds: " + what +
                    "; every binding B moves to B*8+kind (storage buffer 0, uniform buffer 1, "
                    "storage image 2, sampled image 3, separate image 4, sampler 5, uniform "
                    "texel buffer 6, storage texel buffer 7)");
    spec.separate_kinds = true;
    modules.assign(cli.inputs.size(), Module());
    i = static_cast<size_t>(-1);  // again from the first module, renumbered
  }
  if (SetDisagreeingSpecConstants(modules, &spec, &notes)) {
    for (size_t i = 0; i < cli.inputs.size(); ++i) {
      modules[i] = Module();
      if (!LoadAndReflect(cli, cli.inputs[i], spec, &modules[i], &err)) return Error(err);
    }
  }
  ModuleInterface iface = modules[0].iface;
  for (size_t i = 1; i < modules.size(); ++i) {
    ModuleInterface merged;
    if (!MergeInterfaces(iface, modules[i].iface, &merged, &err)) {
      return Error(modules[0].path + " and " + modules[i].path + " cannot share inputs: " + err);
    }
    iface = merged;
  }
  // How bindings are compared (the same for every candidate).
  {
    RunSpec defaults = spec;
    AutoSpec(iface, DefaultAutoFills(), &defaults, &notes);
  }
  if (iface.stage == Stage::kFragment || cli.command == "time") {
    // The simulator runs compute shaders only; timing wants the large
    // default inputs, not the smallest that cover the code: no search.
    AutoSpec(iface, DefaultAutoFills(), &spec, &notes);
    notes.push_back(iface.stage == Stage::kFragment
                        ? "--auto: a fragment shader: drawn over a " +
                              std::to_string(spec.draw_width) + "x" +
                              std::to_string(spec.draw_height) +
                              " target, no search (the simulator runs compute shaders only)"
                        : "--auto (time): the default inputs, no search (timing wants them "
                          "large, not the smallest that run every line)");
    *text = FormatSpec(spec);
    for (const std::string& n : notes) *text += "# " + n + "\n";
    return kExitOk;
  }
  Search search(cli, &modules, spec, iface);
  RunSpec chosen;
  std::vector<std::string> search_notes;
  if (search.Run(&chosen, &search_notes, &err)) {
    spec = chosen;
  } else if (err.find("refused on a device") != std::string::npos) {
    return Error(modules.back().path + ": " + err);
  } else {
    // The simulator cannot run the modules: the large default, unsearched.
    search_notes.push_back("--auto: no search (the simulator cannot run the modules: " + err + ")");
    AutoSpec(iface, DefaultAutoFills(), &spec, &notes);
  }
  for (const std::string& n : search_notes) notes.push_back(n);
  *text = FormatSpec(spec);
  for (const std::string& n : notes) *text += "# " + n + "\n";
  return kExitOk;
}

}  // namespace waverun
