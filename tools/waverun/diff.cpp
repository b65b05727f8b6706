#include "tools/waverun/diff.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tools/waverun/compare.h"
#include "tools/waverun/coverage.h"
#include "tools/waverun/sim_runner.h"

namespace waverun {
namespace {

// Float tolerance of --check-sim: lavapipe's compiler may reassociate float
// additions and fuse multiply-adds (NIR's inexact algebraic rules), which
// the simulator does not.
constexpr int64_t kCheckSimUlps = 8;

// True when 32-bit words |a| and |b| are both normal floats of the same sign
// within kCheckSimUlps units in the last place.
bool NearFloats(uint32_t a, uint32_t b) {
  auto normal = [](uint32_t v) {
    uint32_t e = (v >> 23) & 0xffu;
    return e != 0 && e != 0xffu;
  };
  if (!normal(a) || !normal(b) || (a >> 31) != (b >> 31)) return false;
  int64_t d = static_cast<int64_t>(a & 0x7fffffffu) - static_cast<int64_t>(b & 0x7fffffffu);
  return d >= -kCheckSimUlps && d <= kCheckSimUlps;
}

// Runs |m| on the simulator at |width| lanes with lavapipe's subgroup layout
// (beside a device's run), looking for data races and, with |count|,
// counting instructions. Null with |error| when the simulator cannot run it.
std::unique_ptr<Program> SimulateBeside(const Cli& cli, const Module& m, uint32_t width, bool count,
                                        Outputs* out, std::string* error) {
  SimOptions options = MakeSimOptions(cli);
  options.lavapipe_layout = true;
  options.detect_races = cli.race_check;
  options.count_instructions = count;
  std::unique_ptr<Device> sim = CreateSimDevice(width, options);
  std::unique_ptr<Program> program =
      sim->CreateProgram(m.words, m.iface.entry_point, m.plan, error);
  double ns;
  if (!program || !program->Run(out, &ns, error)) return nullptr;
  return program;
}

// --check-sim: runs |m| on the simulator at |width| lanes, with lavapipe's
// subgroup layout, and compares its outputs with |device_out| (the
// device's) under the plan's compare modes; exact-compared words that differ
// count as agreeing when they are normal floats within kCheckSimUlps. A
// module with a data race (|race|) is not compared: its outputs depend on
// the order the device chose. Prints "sim check: ..." and returns false
// (with |error|) when they differ.
bool CheckSim(const Cli& cli, Module* m, uint32_t width, const Outputs& device_out,
              const std::string& name, std::string* race, std::string* error) {
  Outputs out;
  std::unique_ptr<Program> program = SimulateBeside(cli, *m, width, false, &out, error);
  if (!program) {
    *error = m->path + ": " + *error;
    return false;
  }
  *race = SimRace(program.get());
  if (!race->empty()) {
    std::printf("sim check: %s races, not compared with the device\n", name.c_str());
    return true;
  }
  std::vector<std::string> report;
  size_t near_words = 0;
  std::vector<CompareUnit> units = ComparedUnits(m->plan);
  if (CompareOutputs(m->plan, device_out, out, "device", "sim", &report) != 0) {
    bool near = true;
    for (const CompareUnit& u : units) {
      if (!near) break;
      bool exact_words = true;
      if (u.output < m->plan.resources.size()) {
        const Compare& c = m->plan.resources[u.output].compare;
        exact_words = c.kind == Compare::Kind::kExact || c.kind == Compare::Kind::kUlp;
      }
      for (uint64_t w = u.begin; w + 4 <= u.end && near; w += 4) {
        uint32_t x, y;
        std::memcpy(&x, device_out[u.output].data() + w, 4);
        std::memcpy(&y, out[u.output].data() + w, 4);
        if (x == y) continue;
        near = exact_words && NearFloats(x, y);
        ++near_words;
      }
    }
    if (!near) {
      *error = "the simulator disagrees with the device on " + name + " = " + m->path + ": " +
               (report.empty() ? std::string("outputs differ") : report[0]);
      return false;
    }
  }
  bool identical = true;
  for (const CompareUnit& u : units) {
    identical =
        identical && std::equal(out[u.output].begin() + u.begin, out[u.output].begin() + u.end,
                                device_out[u.output].begin() + u.begin);
  }
  if (near_words > 0) {
    std::printf(
        "sim check: %s equals the device's outputs but for %zu float word%s within %d "
        "ulps\n",
        name.c_str(), near_words, near_words == 1 ? "" : "s", static_cast<int>(kCheckSimUlps));
  } else {
    std::printf("sim check: %s %s the device's outputs\n", name.c_str(),
                identical ? "is identical to" : "equals (under the compare modes)");
  }
  return true;
}

// Bindings only one module of a diff declares: compared with their initial
// contents (a module that does not declare a binding leaves it as it was).
void PrintOneSided(const Module& a, const Module& b) {
  for (size_t i = 0; i < a.plan.resources.size(); ++i) {
    const ResourcePlan& ra = a.plan.resources[i];
    const ResourcePlan& rb = b.plan.resources[i];
    if (ra.declared == rb.declared) continue;
    const char* who = ra.declared ? "a" : "b";
    const char* other = ra.declared ? "b" : "a";
    if (ra.res.writable && ra.compare.kind != Compare::Kind::kIgnore) {
      std::printf(
          "note: %s is declared only by %s: compared with its initial contents, which %s "
          "leaves as they are\n",
          ResourceLabel(ra).c_str(), who, other);
    } else {
      std::printf("note: %s is declared only by %s (read-only there): skipped\n",
                  ResourceLabel(ra).c_str(), who);
    }
  }
}

// Coverage of the instructions b adds, from a simulator run of b that
// counted instructions. Returns the exit status it implies (kExitOk or
// kExitUncovered: with --require-coverage or --auto; kExitError: coverage
// unknown with --require-coverage) and prints one line.
int ReportCoverage(const Cli& cli, const Module& a, const Module& b,
                   const waveopt::sim::Counters* counters, const std::string& unavailable) {
  std::vector<uint32_t> added = AddedInstructions(a.words, b.words);
  if (added.empty()) {
    std::printf("coverage: b adds no instructions to a\n");
    return kExitOk;
  }
  if (!counters) {
    std::printf("coverage: unknown (%s)\n", unavailable.c_str());
    if (cli.require_coverage) {
      Error("--require-coverage: the coverage of b's " + std::to_string(added.size()) +
            " added instructions is unknown (" + unavailable + ")");
      return kExitError;
    }
    return kExitOk;
  }
  Coverage c = MeasureCoverage(added, counters->instruction_counts);
  if (c.executed == 0) {
    std::printf(
        "coverage: none of the %zu instructions b adds ran: these inputs do not exercise "
        "the rewrite\n",
        c.added);
    return cli.require_coverage || cli.auto_resolved ? kExitUncovered : kExitOk;
  }
  std::printf("coverage: %zu of %zu instructions b adds ran (%" PRIu64 " subgroup, %" PRIu64
              " lane executions)\n",
              c.executed, c.added, c.subgroups, c.lanes);
  return kExitOk;
}

// What a diff at one size found besides the comparison of a and b.
struct Findings {
  Outputs a, b;
  std::string oob_a, oob_b;  // out-of-bounds notes (simulator)
  // Self-check: bindings on which a disagrees with itself, and the report.
  std::vector<std::string> unstable, unstable_report;
  // The first data race of each module ("": none found, or not looked for).
  std::string race_a, race_b;
  int coverage = kExitOk;  // ReportCoverage's status
};

// Runs a (and, on the simulator, looks for races in it), then the
// self-check. Returns an exit code (kExitOk to go on).
int RunFirst(const Cli& cli, Device* device, Module* a, Findings* f) {
  std::string err;
  double ns;
  std::unique_ptr<Program> pa =
      device->CreateProgram(a->words, a->iface.entry_point, a->plan, &err);
  if (!pa || !pa->Run(&f->a, &ns, &err)) return Error(a->path + ": " + err);
  if (cli.counters) PrintCounters("a", pa.get());
  f->oob_a = OutOfBounds(pa.get());
  f->race_a = SimRace(pa.get());
  if (!cli.self_check) return kExitOk;
  // Self-check: the first module again. On a device the same pipeline runs
  // twice; on the simulator the second run starts with junk in undefined
  // memory and a different poison value.
  std::unique_ptr<Program> again;
  Program* second = pa.get();
  if (cli.sim) {
    SimOptions options = MakeSimOptions(cli);
    options.junk_seed = 0x5eed;
    options.detect_races = false;
    std::unique_ptr<Device> junk = CreateSimDevice(device->info().subgroup_size, options);
    again = junk->CreateProgram(a->words, a->iface.entry_point, a->plan, &err);
    if (!again) return Error(a->path + ": " + err);
    second = again.get();
  }
  Outputs out_a2;
  if (!second->Run(&out_a2, &ns, &err)) return Error(a->path + ": " + err);
  CompareOutputs(a->plan, f->a, out_a2, "run1", "run2", &f->unstable_report, nullptr, &f->unstable);
  return kExitOk;
}

// Runs b; with coverage wanted, counts its instructions on the simulator
// (on a device: a second run there) and reports the coverage. On a device
// a also runs on the simulator to look for races (unless --no-race-check).
// Returns an exit code (kExitOk to go on).
int RunSecond(const Cli& cli, Device* device, Module* a, Module* b, Findings* f) {
  std::string err;
  double ns;
  uint32_t width = device->info().subgroup_size;
  bool want_coverage = cli.coverage || cli.auto_resolved;
  SimOptions b_options = MakeSimOptions(cli);
  b_options.count_instructions = want_coverage;
  std::unique_ptr<Device> counting;
  Device* b_device = device;
  if (cli.sim && want_coverage) {
    counting = CreateSimDevice(width, b_options);
    b_device = counting.get();
  }
  std::unique_ptr<Program> pb =
      b_device->CreateProgram(b->words, b->iface.entry_point, b->plan, &err);
  if (!pb || !pb->Run(&f->b, &ns, &err)) return Error(b->path + ": " + err);
  if (cli.counters) PrintCounters("b", pb.get());
  f->oob_b = OutOfBounds(pb.get());
  f->race_b = SimRace(pb.get());
  if (cli.check_sim) {
    if (!CheckSim(cli, a, width, f->a, "a", &f->race_a, &err) ||
        !CheckSim(cli, b, width, f->b, "b", &f->race_b, &err)) {
      return Error(err);
    }
  }
  bool fragment = b->iface.stage == Stage::kFragment;
  if (!cli.sim && !cli.check_sim && cli.race_check && !fragment) {
    Outputs out;
    std::unique_ptr<Program> ps = SimulateBeside(cli, *a, width, false, &out, &err);
    if (ps) {
      f->race_a = SimRace(ps.get());
    } else {
      std::printf("race check: unavailable (%s)\n", err.c_str());
    }
  }
  if (!f->oob_a.empty() || !f->oob_b.empty()) {
    std::printf("out of bounds: a %s, b %s (loads read zero, stores dropped)\n",
                f->oob_a.empty() ? "none" : f->oob_a.c_str(),
                f->oob_b.empty() ? "none" : f->oob_b.c_str());
  }
  if (!want_coverage) return kExitOk;
  const waveopt::sim::Counters* counters = nullptr;
  std::string unavailable;
  std::unique_ptr<Program> pc;
  if (cli.sim) {
    counters = SimCounters(pb.get());
  } else if (fragment) {
    unavailable = "the wave simulator runs compute shaders only";
  } else {
    Outputs out_c;
    pc = SimulateBeside(cli, *b, width, true, &out_c, &err);
    if (pc) {
      counters = SimCounters(pc.get());
      if (f->race_b.empty()) f->race_b = SimRace(pc.get());
    } else {
      unavailable = err;
    }
  }
  f->coverage = ReportCoverage(cli, *a, *b, counters, unavailable);
  return f->coverage == kExitError ? kExitError : kExitOk;
}

// Compares a's and b's outputs and prints the verdict. Returns the exit code.
int Verdict(const Cli& cli, const Module& a, const Module& b, const Findings& f) {
  if (!f.race_a.empty()) {
    std::printf(
        "RACE: %s (a = %s): a's outputs depend on the order of racing accesses; not "
        "compared\n",
        f.race_a.c_str(), a.path.c_str());
    return kExitRace;
  }
  if (!f.race_b.empty()) {
    std::printf("DIFFERENT: b races where a does not (a = %s, b = %s)\n  RACE in b: %s\n",
                a.path.c_str(), b.path.c_str(), f.race_b.c_str());
    return kExitDiffer;
  }
  std::vector<std::string> report;
  int differing = CompareOutputs(a.plan, f.a, f.b, "a", "b", &report, &f.unstable);
  std::vector<CompareUnit> units = ComparedUnits(a.plan);
  int compared = 0;
  for (const CompareUnit& u : units) {
    if (std::find(f.unstable.begin(), f.unstable.end(), u.label) != f.unstable.end()) continue;
    ++compared;
    if (cli.verbose) {
      const Compare& c = u.output < a.plan.resources.size()
                             ? a.plan.resources[u.output].compare
                             : a.plan.pointees[u.output - a.plan.resources.size()].compare;
      std::printf("  %s [%s]\n", u.label.c_str(), CompareName(c).c_str());
    }
  }
  if (!f.unstable.empty()) {
    std::printf(
        "NONDETERMINISTIC: a disagrees with itself on %zu of %zu bindings, not compared "
        "(a = %s)\n",
        f.unstable.size(), units.size(), a.path.c_str());
    for (const std::string& line : f.unstable_report) std::printf("  %s\n", line.c_str());
  }
  if (differing == 0) {
    std::printf("equal: %d binding%s compared (a = %s, b = %s)\n", compared,
                compared == 1 ? "" : "s", a.path.c_str(), b.path.c_str());
    if (!f.unstable.empty()) return kExitNondeterministic;
    if (f.coverage == kExitUncovered) {
      std::printf("NOT COVERED: the rewritten code never ran with these inputs%s\n",
                  cli.auto_resolved ? " (--auto found none that run it)" : "");
    }
    return f.coverage;
  }
  std::printf("DIFFERENT: %d of %d bindings differ (a = %s, b = %s)\n", differing, compared,
              a.path.c_str(), b.path.c_str());
  for (const std::string& line : report) std::printf("  %s\n", line.c_str());
  return kExitDiffer;
}

}  // namespace

int CommandDiff(const Cli& cli, Device* device, Module* a, Module* b) {
  PrintOneSided(*a, *b);
  Findings f;
  int rc = RunFirst(cli, device, a, &f);
  if (rc != kExitOk) return rc;
  rc = RunSecond(cli, device, a, b, &f);
  if (rc != kExitOk) return rc;
  return Verdict(cli, *a, *b, f);
}

}  // namespace waverun
