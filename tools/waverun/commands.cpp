#include "tools/waverun/commands.h"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tools/waverun/compare.h"
#include "tools/waverun/diff.h"
#include "tools/waverun/isa.h"
#include "tools/waverun/modules.h"
#include "tools/waverun/plan.h"
#include "tools/waverun/reflect.h"
#include "tools/waverun/sim_runner.h"
#include "tools/waverun/vulkan_runner.h"
#include "tools/waverun/vulkan_setup.h"
#include "waveopt/io.h"
#include "waveopt/spirv_io.h"
#include "waveopt/waveopt.h"

namespace waverun {

int Error(const std::string& msg) {
  std::fprintf(stderr, "waverun: error: %s\n", msg.c_str());
  return kExitError;
}

SimOptions MakeSimOptions(const Cli& cli) {
  SimOptions o;
  o.instruction_limit = static_cast<uint64_t>(cli.sim_limit);
  o.detect_races = cli.command == "diff" && cli.race_check;
  return o;
}

namespace {

// Lavapipe runs loops for at most this many back-edges per subgroup (summed
// over all loops), then silently leaves them.
constexpr uint64_t kLavapipeBackEdgeLimit = 65535;

// --sim without --subgroup-size runs at this size.
constexpr uint32_t kDefaultSimWidth = 32;

bool SetUpEnvironment(const Cli& cli, uint32_t width, std::string* error) {
  std::string icd = cli.icd;
  if (icd.empty() && !cli.system_icds) {
    icd = FindIcd("lvp_icd*.json");
    if (icd.empty()) {
      *error =
          "no Vulkan device: lavapipe's ICD (lvp_icd*.json) is not installed "
          "(mesa-vulkan-drivers); use --system-icds or --icd=FILE for another driver";
      return false;
    }
  }
  if (!icd.empty() && access(icd.c_str(), R_OK) != 0) {
    *error = "no Vulkan device: cannot read ICD file '" + icd + "'";
    return false;
  }
  // Mesa's shader cache ignores LP_NATIVE_VECTOR_WIDTH: with it on, a sweep
  // would silently reuse one width's code at every width.
  UseOnlyIcd(icd);
  setenv("LP_NUM_THREADS", std::to_string(cli.lp_threads).c_str(), 1);
  if (width != 0) {
    setenv("LP_NATIVE_VECTOR_WIDTH", std::to_string(width * 32).c_str(), 1);
  }
  return true;
}

// Warns when a module with loops binds an array long enough that a subgroup
// looping over it would pass lavapipe's back-edge limit.
void WarnBackEdges(const Module& m) {
  if (!m.iface.has_loops) return;
  for (const ResourcePlan& r : m.plan.resources) {
    uint64_t n = r.width != 0 ? uint64_t{r.width} * r.height * r.depth : r.elements;
    if (n >= kLavapipeBackEdgeLimit) {
      std::fprintf(stderr,
                   "waverun: warning: %s: %s has %" PRIu64
                   " elements and the module loops: a subgroup that loops over it passes "
                   "lavapipe's limit of 65,535 back-edges per subgroup and stops looping "
                   "silently\n",
                   m.path.c_str(), ResourceLabel(r).c_str(), n);
      return;
    }
  }
}

// The probe: every invocation of a 128-wide workgroup writes how many lanes
// of its subgroup are active (subgroupBallotBitCount(subgroupBallot(true))
// at lanes[gl_LocalInvocationIndex]). Kept as assembly, not GLSL: it runs
// once per width of every run, and compiling GLSL there cost more than the
// run (glslang builds its built-in symbol tables in every process).
const char* kProbeAssembly = R"(
               OpCapability Shader
               OpCapability GroupNonUniform
               OpCapability GroupNonUniformBallot
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %index
               OpExecutionMode %main LocalSize 128 1 1
               OpDecorate %runtime ArrayStride 4
               OpDecorate %Lanes Block
               OpMemberDecorate %Lanes 0 Offset 0
               OpDecorate %lanes Binding 0
               OpDecorate %lanes DescriptorSet 0
               OpDecorate %index BuiltIn LocalInvocationIndex
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
    %runtime = OpTypeRuntimeArray %uint
      %Lanes = OpTypeStruct %runtime
    %p_Lanes = OpTypePointer StorageBuffer %Lanes
      %lanes = OpVariable %p_Lanes StorageBuffer
     %uint_0 = OpConstant %uint 0
     %p_uint = OpTypePointer Input %uint
      %index = OpVariable %p_uint Input
       %bool = OpTypeBool
       %true = OpConstantTrue %bool
      %uvec4 = OpTypeVector %uint 4
   %subgroup = OpConstant %uint 3
   %p_buffer = OpTypePointer StorageBuffer %uint
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %i = OpLoad %uint %index
     %ballot = OpGroupNonUniformBallot %uvec4 %subgroup %true
      %count = OpGroupNonUniformBallotBitCount %uint %subgroup Reduce %ballot
         %at = OpAccessChain %p_buffer %lanes %uint_0 %i
               OpStore %at %count
               OpReturn
               OpFunctionEnd
)";

// Runs a 128-invocation workgroup and returns the largest number of lanes
// that ran together in one subgroup.
bool ProbeLanes(Device* device, uint32_t* lanes, std::string* error) {
  std::vector<uint32_t> words;
  std::string err;
  if (!waveopt::AssembleText(kProbeAssembly, SPV_ENV_VULKAN_1_1, &words, &err)) {
    *error = "probe: " + err;
    return false;
  }
  ModuleInterface iface;
  RunSpec spec;
  Plan plan;
  if (!ReflectModule(words, {}, &iface, &err) ||
      !ApplySpecLine("binding 0.0 size=128 fill=zero", "probe", &spec, &err) ||
      !BuildPlan(iface, spec, &plan, &err)) {
    *error = "probe: " + err;
    return false;
  }
  std::unique_ptr<Program> program = device->CreateProgram(words, iface.entry_point, plan, &err);
  Outputs out;
  double ns;
  if (!program || !program->Run(&out, &ns, &err)) {
    *error = "probe: " + err;
    return false;
  }
  *lanes = 0;
  for (size_t i = 0; i + 4 <= out[0].size(); i += 4) {
    uint32_t v;
    std::memcpy(&v, out[0].data() + i, 4);
    *lanes = std::max(*lanes, v);
  }
  return true;
}

// Checks that |device| runs subgroups of |width| lanes (0: whatever it has).
bool CheckWidth(Device* device, uint32_t width, uint32_t* lanes_out, std::string* error) {
  const DeviceInfo& info = device->info();
  if (width != 0 && info.subgroup_size != width) {
    if (info.is_lavapipe) {
      *error = "lavapipe reports subgroup size " + std::to_string(info.subgroup_size) +
               " with LP_NATIVE_VECTOR_WIDTH=" + std::to_string(width * 32) + ", not " +
               std::to_string(width) + "; it can run 4, 8 and 16";
    } else {
      *error = "device '" + info.name + "' has subgroup size " +
               std::to_string(info.subgroup_size) + "; --subgroup-size=" + std::to_string(width) +
               " can be chosen only on lavapipe";
    }
    return false;
  }
  uint32_t lanes = 0;
  if (!ProbeLanes(device, &lanes, error)) return false;
  if (lanes_out) *lanes_out = lanes;
  if (lanes != info.subgroup_size) {
    std::string what = "device '" + info.name + "' reports subgroup size " +
                       std::to_string(info.subgroup_size) + " but runs " + std::to_string(lanes) +
                       " lanes per subgroup";
    if (info.is_lavapipe && info.subgroup_size > 16) {
      *error = "subgroup size " + std::to_string(info.subgroup_size) +
               " is not available: lavapipe (LP_NATIVE_VECTOR_WIDTH=" +
               std::to_string(info.subgroup_size * 32) + ") reports " +
               std::to_string(info.subgroup_size) + " but runs " + std::to_string(lanes) +
               " lanes; sizes 32 and 64 come from the wave simulator (--sim)";
    } else {
      *error = what;
    }
    return false;
  }
  return true;
}

std::string FormatWord(uint32_t v, const std::string& format) {
  char buf[48];
  if (format == "hex") {
    std::snprintf(buf, sizeof(buf), "0x%08" PRIx32, v);
  } else if (format == "i32") {
    std::snprintf(buf, sizeof(buf), "%" PRId32, static_cast<int32_t>(v));
  } else if (format == "f32") {
    float f;
    std::memcpy(&f, &v, 4);
    std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(f));
  } else {
    std::snprintf(buf, sizeof(buf), "%" PRIu32, v);
  }
  return buf;
}

}  // namespace

namespace {

int CommandRun(const Cli& cli, Device* device, Module* m) {
  std::string err;
  std::unique_ptr<Program> program =
      device->CreateProgram(m->words, m->iface.entry_point, m->plan, &err);
  Outputs out;
  double ns;
  if (!program || !program->Run(&out, &ns, &err)) return Error(m->path + ": " + err);
  if (cli.counters) PrintCounters("", program.get());
  for (size_t i = 0; i < m->plan.resources.size(); ++i) {
    const ResourcePlan& r = m->plan.resources[i];
    bool listed =
        std::find(cli.dump_keys.begin(), cli.dump_keys.end(), r.key) != cli.dump_keys.end();
    if (!(cli.dump_keys.empty() ? r.res.writable : listed)) continue;
    if (r.element_bytes == 0) continue;
    size_t words = out[i].size() / 4;
    std::printf("%s: %zu words, fnv1a64 %016" PRIx64 "\n", ResourceLabel(r).c_str(), words,
                Fingerprint(out[i]));
    if (!cli.dump) continue;
    for (size_t w = 0; w < words; w += 8) {
      std::string line = "  [" + std::to_string(w) + "]";
      for (size_t k = w; k < std::min(words, w + 8); ++k) {
        uint32_t v;
        std::memcpy(&v, out[i].data() + k * 4, 4);
        line += " " + FormatWord(v, cli.dump_format);
      }
      std::printf("%s\n", line.c_str());
    }
  }
  if (cli.dump_keys.empty()) {
    for (size_t k = 0; k < m->plan.pointees.size(); ++k) {
      const std::vector<uint8_t>& bytes = out[m->plan.resources.size() + k];
      std::printf("pointer %s: %zu words, fnv1a64 %016" PRIx64 "\n",
                  m->plan.pointees[k].label.c_str(), bytes.size() / 4, Fingerprint(bytes));
    }
  }
  std::string oob = OutOfBounds(program.get());
  if (!oob.empty()) {
    std::printf("out of bounds: %s (loads read zero, stores dropped)\n", oob.c_str());
  }
  return kExitOk;
}

int CommandTime(const Cli& cli, Device* device, std::vector<Module>* modules) {
  const DeviceInfo& info = device->info();
  std::printf("device: %s%s%s, subgroup size %u, %s\n", info.name.c_str(),
              info.driver.empty() ? "" : ", driver ", info.driver.c_str(), info.subgroup_size,
              info.timestamps ? "timestamp queries" : "wall clock (no timestamp queries)");
  struct Row {
    std::string name;
    double min_us, median_us;
  };
  std::vector<Row> rows;
  int status = kExitOk;
  for (Module& m : *modules) {
    std::string err;
    std::unique_ptr<Program> program =
        device->CreateProgram(m.words, m.iface.entry_point, m.plan, &err);
    Outputs first, out;
    double ns;
    // The first run compiles and warms caches: not timed.
    if (!program || !program->Run(&first, &ns, &err)) return Error(m.path + ": " + err);
    std::vector<double> times;
    for (uint32_t rep = 0; rep < m.plan.reps; ++rep) {
      if (!program->Run(&out, &ns, &err)) return Error(m.path + ": " + err);
      times.push_back(ns / 1000.0);
      std::vector<std::string> report;
      if (CompareOutputs(m.plan, first, out, "first", "rep" + std::to_string(rep + 1), &report) !=
          0) {
        std::printf("%s: rep %u's outputs differ from the first run's:\n", m.path.c_str(), rep + 1);
        for (const std::string& line : report) std::printf("  %s\n", line.c_str());
        status = kExitDiffer;
        break;
      }
    }
    if (cli.counters) PrintCounters(m.path, program.get());
    std::sort(times.begin(), times.end());
    size_t n = times.size();
    double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    rows.push_back({m.path, times[0], median});
  }
  size_t width = 6;
  for (const Row& r : rows) width = std::max(width, r.name.size());
  std::printf("%-*s %12s %12s %6s %10s\n", static_cast<int>(width), "module", "min_us", "median_us",
              "reps", "vs_first");
  for (size_t i = 0; i < rows.size(); ++i) {
    std::printf("%-*s %12.3f %12.3f %6u %9.2fx\n", static_cast<int>(width), rows[i].name.c_str(),
                rows[i].min_us, rows[i].median_us, (*modules)[i].plan.reps,
                rows[i].median_us > 0 ? rows[0].median_us / rows[i].median_us : 0.0);
  }
  return status;
}

// Fails (one line in |error|) when |m| needs a descriptor feature the
// device lacks: drivers do not check, they read the wrong descriptors.
bool CheckDeviceFeatures(const DeviceInfo& info, const Module& m, std::string* error) {
  for (const ResourcePlan& r : m.plan.resources) {
    if (r.declared && r.res.descriptor_array && r.res.descriptor_count == 0 &&
        !info.runtime_descriptor_arrays) {
      *error = ResourceLabel(r) +
               ": a runtime-sized descriptor array needs "
               "runtimeDescriptorArray, which device '" +
               info.name + "' does not have; run it on the simulator (--sim)";
      return false;
    }
  }
  static const struct {
    uint32_t capability;
    bool DeviceInfo::*feature;
    const char* what;
  } kNonUniform[] = {
      {5306, &DeviceInfo::nonuniform_ubo, "uniform buffers"},
      {5307, &DeviceInfo::nonuniform_sampled, "sampled images"},
      {5308, &DeviceInfo::nonuniform_ssbo, "storage buffers"},
      {5309, &DeviceInfo::nonuniform_storage_image, "storage images"},
      {5311, &DeviceInfo::nonuniform_utb, "uniform texel buffers"},
      {5312, &DeviceInfo::nonuniform_stb, "storage texel buffers"},
  };
  for (const auto& n : kNonUniform) {
    if (std::find(m.iface.capabilities.begin(), m.iface.capabilities.end(), n.capability) !=
            m.iface.capabilities.end() &&
        !(info.*n.feature)) {
      *error = std::string("the module indexes arrays of ") + n.what +
               " non-uniformly, which device '" + info.name +
               "' does not support; run it on the simulator (--sim)";
      return false;
    }
  }
  return true;
}

}  // namespace

int CommandIsa(const Cli& cli) {
  std::vector<IsaModule> modules(cli.inputs.size());
  std::string err;
  for (size_t i = 0; i < cli.inputs.size(); ++i) {
    modules[i].path = cli.inputs[i];
    if (!LoadModule(cli, cli.inputs[i], &modules[i].words, &err)) return Error(err);
  }
  IsaOptions options = cli.isa;
  // The specialization constants as run and diff take them: the first
  // shader's spec file (or --spec), then -s and --const lines.
  RunSpec spec;
  if (!LoadSpec(cli, cli.inputs[0], &spec, &err)) return Error(err);
  options.constants = spec.constants;
  options.icd = cli.icd;
  options.jobs = cli.jobs;
  return RunIsa(modules, options);
}

int RunCommand(const Cli& cli, uint32_t width) {
  std::string err;
  if (!cli.sim && !SetUpEnvironment(cli, width, &err)) return Error(err);
  std::vector<Module> modules(cli.inputs.size());
  RunSpec spec;
  if (!cli.inputs.empty()) {
    if (!LoadSpec(cli, cli.inputs[0], &spec, &err)) return Error(err);
    if (!PrepareModules(cli, spec, &modules, &err)) return Error(err);
  }
  for (const Module& m : modules) {
    if (m.iface.stage != Stage::kFragment) continue;
    if (cli.sim || cli.check_sim) {
      return Error(m.path + ": a fragment shader: the wave simulator (" +
                   (cli.sim ? "--sim" : "--check-sim") +
                   ") runs compute shaders only; run it on lavapipe at sizes 4, 8 and 16");
    }
  }
  SimOptions options = MakeSimOptions(cli);
  std::unique_ptr<Device> device =
      cli.sim ? CreateSimDevice(width != 0 ? width : kDefaultSimWidth, options)
              : CreateVulkanDevice(cli.device, /*robust=*/cli.command != "time", &err);
  if (!device) return Error(err);
  if (cli.command == "probe") {
    const DeviceInfo& info = device->info();
    uint32_t lanes = 0;
    bool ok = CheckWidth(device.get(), width, &lanes, &err);
    std::printf("device: %s\nreported subgroup size: %u\nlanes per full subgroup: %u\n",
                info.name.c_str(), info.subgroup_size, lanes);
    if (!ok) return Error(err);
    std::printf("honest: yes\n");
    return kExitOk;
  }
  if (width != 0 && !CheckWidth(device.get(), width, nullptr, &err)) return Error(err);
  if (!cli.sim) {
    for (const Module& m : modules) {
      if (!CheckDeviceFeatures(device->info(), m, &err)) return Error(m.path + ": " + err);
    }
  }
  if (device->info().is_lavapipe) {
    for (const Module& m : modules) WarnBackEdges(m);
  }
  if (cli.command == "run") return CommandRun(cli, device.get(), &modules[0]);
  if (cli.command == "diff") return CommandDiff(cli, device.get(), &modules[0], &modules[1]);
  return CommandTime(cli, device.get(), &modules);
}

}  // namespace waverun
