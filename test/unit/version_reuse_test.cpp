// -O's versions take from the builds before them every segment that would
// do the same again (lib/pipeline.cpp, BuildTrace): the output, remarks,
// diagnostics and versions must be exactly those of building every version
// in full, and the reuse must actually spare work.
#include <dirent.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/pipeline_testing.h"
#include "lib/pipeline_versions.h"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waveopt {
namespace {

std::atomic<int> g_steps{0};
void CountStep() { ++g_steps; }

// Everything an -O call reports, as one text to compare.
std::string Outcome(const std::vector<uint32_t>& input, bool reuse, int* steps) {
  SetVersionReuseForTesting(reuse);
  SetSpirvOptStepHookForTesting(&CountStep);
  g_steps = 0;
  Options options;
  std::string error;
  EXPECT_TRUE(ParseOptionFlag("-O", &options, &error));
  Result result;
  const bool ok = Optimize(input, options, &result);
  SetSpirvOptStepHookForTesting(nullptr);
  SetVersionReuseForTesting(true);
  *steps = g_steps;
  std::ostringstream out;
  out << "ok " << ok << "\nwords";
  for (uint32_t w : result.words) out << ' ' << w;
  for (const Remark& r : result.remarks) out << "\nremark " << FormatRemark(r);
  for (const std::string& d : result.diagnostics) out << "\ndiagnostic " << d;
  for (const SpecVersion& v : result.versions) out << "\nversion " << FormatSpecVersion(v);
  return out.str();
}

// The compute shaders of the passes' lit directories and the benchmark
// kernels: images, atomics, reductions, light loops.
std::vector<std::string> Shaders() {
  const std::string root = WAVEOPT_SOURCE_DIR;
  std::vector<std::string> files;
  for (const char* dir :
       {"/test/lit/morton-remap", "/test/lit/quad-exchange", "/test/lit/batch-uniform-loads",
        "/test/lit/prereduce-atomics", "/test/lit/workgroup-reduce",
        "/test/bench/kernels/light_loop", "/test/bench/kernels/histogram_global",
        "/test/bench/kernels/downsample"}) {
    DIR* d = opendir((root + dir).c_str());
    if (d == nullptr) continue;
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".comp") == 0) {
        files.push_back(root + dir + "/" + name);
      }
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(VersionReuse, SameOutcomeAsBuildingEveryVersionAndFewerSteps) {
  int compiled = 0, versioned = 0, with_reuse = 0, without = 0;
  for (const std::string& file : Shaders()) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::vector<uint32_t> input;
    std::string error;
    CompileOptions options;
    options.stage = "comp";
    if (!CompileShader(text.str(), file, options, &input, &error)) continue;  // needs -D
    ++compiled;
    int steps_reused = 0, steps_full = 0;
    const std::string reused = Outcome(input, true, &steps_reused);
    const std::string full = Outcome(input, false, &steps_full);
    EXPECT_EQ(reused, full) << file;
    if (reused.find("\nversion ") != std::string::npos) ++versioned;
    with_reuse += steps_reused;
    without += steps_full;
  }
  // The comparison means something: many modules, some with versions, and
  // the reuse ran fewer spirv-opt steps (the SSA preparation is shared).
  EXPECT_GE(compiled, 30);
  EXPECT_GE(versioned, 5);
  EXPECT_LT(with_reuse * 2, without)
      << with_reuse << " steps with reuse, " << without << " without";
}

std::atomic<int> g_contexts{0};
void CountContext() { ++g_contexts; }

// -O's outcome (Outcome's text) with the waveopt passes sharing an
// IRContext and its analyses (PassConfig::uniformity among them) or each
// building its own; |*contexts|: how many were built.
std::string SharingOutcome(const std::vector<uint32_t>& input, bool share, int* contexts) {
  SetContextSharingForTesting(share);
  SetContextBuildHookForTesting(&CountContext);
  g_contexts = 0;
  int steps = 0;
  const std::string outcome = Outcome(input, true, &steps);
  SetContextBuildHookForTesting(nullptr);
  SetContextSharingForTesting(true);
  *contexts = g_contexts;
  return outcome;
}

TEST(ContextSharing, SameOutcomeAsFreshContextsAndFewerBuilds) {
  int compiled = 0, shared = 0, fresh = 0;
  for (const std::string& file : Shaders()) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::vector<uint32_t> input;
    std::string error;
    CompileOptions options;
    options.stage = "comp";
    if (!CompileShader(text.str(), file, options, &input, &error)) continue;  // needs -D
    ++compiled;
    int built_shared = 0, built_fresh = 0;
    const std::string with = SharingOutcome(input, true, &built_shared);
    const std::string without = SharingOutcome(input, false, &built_fresh);
    EXPECT_EQ(with, without) << file;
    shared += built_shared;
    fresh += built_fresh;
  }
  // Many modules, and the sharing spared most of the builds (a pass that
  // changes nothing hands its context on).
  EXPECT_GE(compiled, 30);
  EXPECT_LT(shared * 2, fresh) << shared << " contexts shared, " << fresh << " fresh";
}

// A fact read past Fact() would go unrecorded, and a version that differs
// by it would be taken for the portable module.
TEST(VersionReuse, PassesReadFactsOnlyThroughFact) {
  const std::string dir = std::string(WAVEOPT_SOURCE_DIR) + "/passes";
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  int files = 0;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() < 4 || (name.compare(name.size() - 4, 4, ".cpp") != 0 &&
                            name.compare(name.size() - 2, 2, ".h") != 0)) {
      continue;
    }
    std::ifstream in(dir + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    ++files;
    EXPECT_EQ(text.str().find("facts."), std::string::npos)
        << "passes/" << name << " reads a target fact directly: use config().Fact(&TargetFacts::x)";
  }
  closedir(d);
  EXPECT_GT(files, 10);
}

}  // namespace
}  // namespace waveopt
