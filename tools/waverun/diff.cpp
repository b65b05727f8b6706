#include "tools/waverun/diff.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tools/waverun/commands.h"
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

// --check-sim: runs |m| on the simulator at |width| lanes, with lavapipe's
// subgroup layout, and compares its outputs with |device_out| (the
// device's) under the plan's compare modes; exact-compared words that differ
// count as agreeing when they are normal floats within kCheckSimUlps.
// Prints "sim check: ..." and returns false (with |error|) when they differ.
bool CheckSim(const Cli& cli, Module* m, uint32_t width, const Outputs& device_out,
              const std::string& name, std::string* error) {
  SimOptions options = MakeSimOptions(cli);
  options.lavapipe_layout = true;
  std::unique_ptr<Device> sim = CreateSimDevice(width, options);
  std::unique_ptr<Program> program =
      sim->CreateProgram(m->words, m->iface.entry_point, m->plan, error);
  Outputs out;
  double ns;
  if (!program || !program->Run(&out, &ns, error)) {
    *error = m->path + ": " + *error;
    return false;
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
    identical = identical && std::equal(out[u.output].begin() + u.begin,
                                        out[u.output].begin() + u.end,
                                        device_out[u.output].begin() + u.begin);
  }
  if (near_words > 0) {
    std::printf("sim check: %s equals the device's outputs but for %zu float word%s within %d "
                "ulps\n",
                name.c_str(), near_words, near_words == 1 ? "" : "s",
                static_cast<int>(kCheckSimUlps));
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
      std::printf("note: %s is declared only by %s: compared with its initial contents, which %s "
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
// kExitUncovered) and prints one line.
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
    std::printf("coverage: none of the %zu instructions b adds ran: these inputs do not exercise "
                "the rewrite\n",
                c.added);
    if (cli.require_coverage) return kExitUncovered;
    if (cli.auto_resolved) {
      std::fprintf(stderr,
                   "waverun: warning: the rewrite in %s never ran with the --auto inputs; an "
                   "equal result says nothing about it\n",
                   b.path.c_str());
    }
    return kExitOk;
  }
  std::printf("coverage: %zu of %zu instructions b adds ran (%" PRIu64 " subgroup, %" PRIu64
              " lane executions)\n",
              c.executed, c.added, c.subgroups, c.lanes);
  return kExitOk;
}

}  // namespace

int CommandDiff(const Cli& cli, Device* device, Module* a, Module* b) {
  std::string err;
  PrintOneSided(*a, *b);
  Outputs out_a, out_b, out_a2;
  double ns;
  bool sim = cli.sim;
  std::unique_ptr<Program> pa =
      device->CreateProgram(a->words, a->iface.entry_point, a->plan, &err);
  if (!pa || !pa->Run(&out_a, &ns, &err)) return Error(a->path + ": " + err);
  if (cli.counters) PrintCounters("a", pa.get());
  std::string oob_a = OutOfBounds(pa.get());
  // Self-check: the first module again. On a device the same pipeline runs
  // twice; on the simulator the second run starts with junk in undefined
  // memory and a different poison value.
  std::vector<std::string> unstable;
  std::vector<std::string> unstable_report;
  if (cli.self_check) {
    std::unique_ptr<Program> again;
    Program* second = pa.get();
    if (sim) {
      SimOptions options = MakeSimOptions(cli);
      options.junk_seed = 0x5eed;
      std::unique_ptr<Device> junk = CreateSimDevice(device->info().subgroup_size, options);
      again = junk->CreateProgram(a->words, a->iface.entry_point, a->plan, &err);
      if (!again) return Error(a->path + ": " + err);
      second = again.get();
    }
    if (!second->Run(&out_a2, &ns, &err)) return Error(a->path + ": " + err);
    CompareOutputs(a->plan, out_a, out_a2, "run1", "run2", &unstable_report, nullptr, &unstable);
  }
  SimOptions b_options = MakeSimOptions(cli);
  // Coverage: with --coverage; with --auto on the simulator (on a device it
  // would cost a simulation of b besides).
  bool want_coverage = cli.coverage || (cli.auto_resolved && sim);
  b_options.count_instructions = want_coverage;
  std::unique_ptr<Device> counting;
  Device* b_device = device;
  if (sim && b_options.count_instructions) {
    counting = CreateSimDevice(device->info().subgroup_size, b_options);
    b_device = counting.get();
  }
  std::unique_ptr<Program> pb =
      b_device->CreateProgram(b->words, b->iface.entry_point, b->plan, &err);
  if (!pb || !pb->Run(&out_b, &ns, &err)) return Error(b->path + ": " + err);
  if (cli.counters) PrintCounters("b", pb.get());
  std::string oob_b = OutOfBounds(pb.get());
  if (cli.check_sim) {
    uint32_t width = device->info().subgroup_size;
    if (!CheckSim(cli, a, width, out_a, "a", &err) || !CheckSim(cli, b, width, out_b, "b", &err)) {
      return Error(err);
    }
  }
  if (!oob_a.empty() || !oob_b.empty()) {
    std::printf("out of bounds: a %s, b %s (loads read zero, stores dropped)\n",
                oob_a.empty() ? "none" : oob_a.c_str(), oob_b.empty() ? "none" : oob_b.c_str());
  }
  // Coverage of b's added instructions.
  int coverage_status = kExitOk;
  if (want_coverage) {
    const waveopt::sim::Counters* counters = nullptr;
    std::string unavailable;
    std::unique_ptr<Program> pc;
    if (sim) {
      counters = SimCounters(pb.get());
    } else if (b->iface.stage == Stage::kFragment) {
      unavailable = "the wave simulator runs compute shaders only";
    } else {
      SimOptions options = b_options;
      options.lavapipe_layout = true;
      std::unique_ptr<Device> s = CreateSimDevice(device->info().subgroup_size, options);
      Outputs out_c;
      pc = s->CreateProgram(b->words, b->iface.entry_point, b->plan, &err);
      if (pc && pc->Run(&out_c, &ns, &err)) {
        counters = SimCounters(pc.get());
      } else {
        unavailable = err;
      }
    }
    coverage_status = ReportCoverage(cli, *a, *b, counters, unavailable);
    if (coverage_status == kExitError) return kExitError;
  }
  std::vector<std::string> report;
  int differing = CompareOutputs(a->plan, out_a, out_b, "a", "b", &report, &unstable);
  std::vector<CompareUnit> units = ComparedUnits(a->plan);
  int compared = 0;
  for (const CompareUnit& u : units) {
    if (std::find(unstable.begin(), unstable.end(), u.label) != unstable.end()) continue;
    ++compared;
    if (cli.verbose) {
      const Compare& c = u.output < a->plan.resources.size()
                             ? a->plan.resources[u.output].compare
                             : a->plan.pointees[u.output - a->plan.resources.size()].compare;
      std::printf("  %s [%s]\n", u.label.c_str(), CompareName(c).c_str());
    }
  }
  if (!unstable.empty()) {
    std::printf("NONDETERMINISTIC: a disagrees with itself on %zu of %zu bindings, not compared "
                "(a = %s)\n",
                unstable.size(), units.size(), a->path.c_str());
    for (const std::string& line : unstable_report) std::printf("  %s\n", line.c_str());
  }
  if (differing == 0) {
    std::printf("equal: %d binding%s compared (a = %s, b = %s)\n", compared,
                compared == 1 ? "" : "s", a->path.c_str(), b->path.c_str());
    if (!unstable.empty()) return kExitNondeterministic;
    if (coverage_status == kExitUncovered) {
      std::printf("NOT COVERED: the rewritten code never ran (--require-coverage)\n");
    }
    return coverage_status;
  }
  std::printf("DIFFERENT: %d of %d bindings differ (a = %s, b = %s)\n", differing, compared,
              a->path.c_str(), b->path.c_str());
  for (const std::string& line : report) std::printf("  %s\n", line.c_str());
  return kExitDiffer;
}

}  // namespace waverun
