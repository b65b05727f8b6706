// `waverun isa`: RADV/ACO on null hardware as an offline cost oracle.
//
// Per (family, wave size) one child process sets RADV_FORCE_FAMILY (read by
// RADV's null winsys when the physical device is created), points the Vulkan
// loader at RADV's ICD alone, creates a device and, per module, a compute
// pipeline with VK_PIPELINE_CREATE_CAPTURE_{STATISTICS,INTERNAL_REPRESENTATIONS}
// _BIT_KHR. Its descriptor set layouts and push-constant range are built from
// waverun's own reflection of the module (reflect.h), so they match the shader. The child
// writes what it read back (statistics, the "Assembly" representation) to a
// temporary file in a small line format; the parent prints the report. When
// the driver crashes on a module, the parent reports that module and starts a
// new child for the rest.
//
// This file must not include glslang headers (SPIRV-Cross's spirv.hpp
// clashes with glslang's).
#include "tools/waverun/isa.h"

#include <glob.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lib/support/child_process.h"
#include "tools/waverun/fragment.h"
#include "tools/waverun/reflect.h"
#include "tools/waverun/vulkan_setup.h"
#include "waveopt/frontend.h"

namespace waverun {
namespace {

// RADV's family names (ac_get_family_name, compared without case by its null
// winsys) in Mesa 22.3 (bookworm) and Mesa 25.0 (scripts/deps-radv.sh), with
// the architecture each belongs to. Mesa 25 renamed the gfx1036 and gfx11
// families (kRenamed) and added gfx1150-1153 and gfx12; a driver rejects the
// names it does not know ("Unknown family", see Collect).
struct Family {
  const char* name;
  const char* arch;
  int gfx;  // major hardware generation: 6..12 (10 covers 10.1 and 10.3)
};

constexpr Family kFamilies[] = {
    {"tahiti", "GCN1 gfx6", 6},
    {"pitcairn", "GCN1 gfx6", 6},
    {"verde", "GCN1 gfx6", 6},
    {"oland", "GCN1 gfx6", 6},
    {"hainan", "GCN1 gfx6", 6},
    {"bonaire", "GCN2 gfx7", 7},
    {"kaveri", "GCN2 gfx7", 7},
    {"kabini", "GCN2 gfx7", 7},
    {"hawaii", "GCN2 gfx7", 7},
    {"tonga", "GCN3 gfx8", 8},
    {"iceland", "GCN3 gfx8", 8},
    {"carrizo", "GCN3 gfx8", 8},
    {"fiji", "GCN3 gfx8", 8},
    {"stoney", "GCN3 gfx8", 8},
    {"polaris10", "GCN4 gfx8", 8},
    {"polaris11", "GCN4 gfx8", 8},
    {"polaris12", "GCN4 gfx8", 8},
    {"vegam", "GCN4 gfx8", 8},
    {"vega10", "GCN5 gfx9", 9},
    {"raven", "GCN5 gfx9", 9},
    {"vega12", "GCN5 gfx9", 9},
    {"vega20", "GCN5 gfx9", 9},
    {"raven2", "GCN5 gfx9", 9},
    {"renoir", "GCN5 gfx9", 9},
    {"navi10", "RDNA1 gfx10.1", 10},
    {"navi12", "RDNA1 gfx10.1", 10},
    {"navi14", "RDNA1 gfx10.1", 10},
    {"navi21", "RDNA2 gfx10.3", 10},
    {"navi22", "RDNA2 gfx10.3", 10},
    {"navi23", "RDNA2 gfx10.3", 10},
    {"vangogh", "RDNA2 gfx10.3", 10},
    {"navi24", "RDNA2 gfx10.3", 10},
    {"rembrandt", "RDNA2 gfx10.3", 10},
    {"gfx1036", "RDNA2 gfx10.3", 10},
    {"gfx1100", "RDNA3 gfx11", 11},
    {"gfx1101", "RDNA3 gfx11", 11},
    {"gfx1102", "RDNA3 gfx11", 11},
    {"gfx1103_r1", "RDNA3 gfx11", 11},
    {"gfx1103_r2", "RDNA3 gfx11", 11},
    // Mesa 25's names.
    {"raphael_mendocino", "RDNA2 gfx10.3", 10},
    {"navi31", "RDNA3 gfx11", 11},
    {"navi32", "RDNA3 gfx11", 11},
    {"navi33", "RDNA3 gfx11", 11},
    {"phoenix", "RDNA3 gfx11", 11},
    {"phoenix2", "RDNA3 gfx11", 11},
    {"gfx1150", "RDNA3.5 gfx11.5", 11},
    {"gfx1151", "RDNA3.5 gfx11.5", 11},
    {"gfx1152", "RDNA3.5 gfx11.5", 11},
    {"gfx1153", "RDNA3.5 gfx11.5", 11},
    {"gfx1200", "RDNA4 gfx12", 12},
    {"gfx1201", "RDNA4 gfx12", 12},
};

// One family's name in Mesa 22.3 and in Mesa 25.
constexpr const char* kRenamed[][2] = {
    {"gfx1036", "raphael_mendocino"},
    {"gfx1100", "navi31"},
    {"gfx1101", "navi32"},
    {"gfx1102", "navi33"},
    {"gfx1103_r1", "phoenix"},
    {"gfx1103_r2", "phoenix2"},
};

// Why the loaded RADV rejected |name|, and the name to use instead.
std::string UnknownFamily(const std::string& name) {
  std::string msg = "this RADV does not know the family '" + name + "'";
  for (const auto& r : kRenamed) {
    if (name == r[0]) return msg + " (Mesa 25 calls it " + r[1] + ")";
    if (name == r[1]) return msg + " (Mesa 22.3 calls it " + r[0] + ")";
  }
  return msg +
         " (newer than this driver? bash scripts/deps-radv.sh builds Mesa 25's RADV; "
         "then --icd=.deps/radv/icd.json)";
}

const Family* FindFamily(const std::string& name) {
  for (const Family& f : kFamilies) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// ---------------------------------------------------------------------------
// Memory instructions by kind, counted in the ISA text.

struct MemoryCounts {
  uint64_t vector_loads = 0;   // buffer/global/flat/tbuffer loads, image loads and samples
  uint64_t vector_stores = 0;  // buffer/global/flat/tbuffer/image stores
  uint64_t scalar_loads = 0;   // s_load_*, s_buffer_load_*
  uint64_t lds = 0;            // ds_* reads and writes (not atomics, not permutes)
  uint64_t lds_atomics = 0;    // ds_* read-modify-writes, append/consume
  uint64_t atomics = 0;        // buffer/global/flat/image atomics
  uint64_t scratch = 0;  // scratch_* (and buffer accesses with the scratch flag are not told apart)
};

bool HasPrefix(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Classifies one mnemonic into |counts|.
void CountMnemonic(const std::string& op, MemoryCounts* counts) {
  if (HasPrefix(op, "s_load_") || HasPrefix(op, "s_buffer_load_")) {
    ++counts->scalar_loads;
    return;
  }
  if (HasPrefix(op, "scratch_")) {
    ++counts->scratch;
    return;
  }
  bool vmem = HasPrefix(op, "buffer_") || HasPrefix(op, "tbuffer_") || HasPrefix(op, "global_") ||
              HasPrefix(op, "flat_") || HasPrefix(op, "image_");
  if (vmem) {
    if (op.find("_atomic") != std::string::npos) {
      ++counts->atomics;
    } else if (op.find("_store") != std::string::npos) {
      ++counts->vector_stores;
    } else if (op.find("_load") != std::string::npos || HasPrefix(op, "image_sample") ||
               HasPrefix(op, "image_gather")) {
      ++counts->vector_loads;
    }
    // buffer_wbinvl1*, buffer_gl*_inv, image_get_resinfo, ...: no memory access.
    return;
  }
  if (HasPrefix(op, "ds_")) {
    if (op == "ds_swizzle_b32" || op == "ds_permute_b32" || op == "ds_bpermute_b32" ||
        op == "ds_nop") {
      return;  // cross-lane through the LDS crossbar, no memory
    }
    bool plain = HasPrefix(op, "ds_read") || HasPrefix(op, "ds_write") ||
                 HasPrefix(op, "ds_load") || HasPrefix(op, "ds_store");
    // ds_write_addtid/ds_read_addtid are plain; ds_wrxchg* are atomics.
    if (plain && !HasPrefix(op, "ds_wrxchg")) {
      ++counts->lds;
    } else {
      ++counts->lds_atomics;
    }
  }
}

// Counts the memory instructions of an ACO disassembly: one instruction per
// line, its mnemonic first; labels ("BB3:"), comments and blank lines skipped.
MemoryCounts CountMemory(const std::string& isa) {
  MemoryCounts counts;
  std::stringstream ss(isa);
  std::string line;
  while (std::getline(ss, line)) {
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    size_t e = line.find_first_of(" \t;", b);
    std::string op = line.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (op.empty() || op[0] == ';' || op.back() == ':') continue;
    CountMnemonic(op, &counts);
  }
  return counts;
}

// ---------------------------------------------------------------------------
// Descriptor set layouts from waverun's reflection.

struct Binding {
  uint32_t set = 0;
  uint32_t binding = 0;
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  uint32_t count = 1;
};

struct Interface {
  std::string entry_point;
  bool fragment = false;                       // a Fragment entry point (else GLCompute)
  std::vector<ColorOutput> color_outputs;      // fragment
  std::vector<FragmentInput> fragment_inputs;  // fragment: what the vertex shader feeds
  std::vector<Binding> bindings;               // sorted by (set, binding), unique
  uint32_t push_constant_bytes = 0;
  std::vector<SpecConstant> spec_constants;
};

// Every declared descriptor (used or not: the layout may have more
// bindings than the shader uses, never fewer) and the push constants of
// |*words|' GLCompute or Fragment entry point (with its color outputs and
// inputs). Variables of different kinds on one
// binding (HLSL registers without binding shifts) are moved to a binding
// per kind first, as `run` does with separate-kinds: the compiled code is
// the same.
bool Reflect(std::vector<uint32_t>* words, Interface* iface, std::string* error) {
  ModuleInterface mi;
  if (!ReflectModule(*words, {}, &mi, error, true)) {
    if (error->find("variables of different kinds share it") == std::string::npos) return false;
    if (UsesRayQueries(*words)) {  // B*8+K has no kind for it (SeparateBindingKinds)
      *error = error->substr(0, error->find("; the spec line")) +
               "; isa cannot move an acceleration structure to a binding of its own: give each "
               "variable its own binding";
      return false;
    }
    if (!SeparateBindingKinds(words, error) || !ReflectModule(*words, {}, &mi, error, true)) {
      return false;
    }
    error->clear();  // the first reflection's complaint is answered: not the row's error
  }
  iface->entry_point = mi.entry_point;
  iface->fragment = mi.stage == Stage::kFragment;
  iface->color_outputs = mi.color_outputs;
  iface->fragment_inputs = mi.fragment_inputs;
  for (const Resource& r : mi.resources) {
    Binding b;
    b.set = r.set;
    b.binding = r.binding;
    b.type = DescriptorType(r.kind);
    b.count = r.descriptor_array && r.descriptor_count > 0 ? r.descriptor_count : 1;  // runtime: 1
    iface->bindings.push_back(b);
  }
  iface->push_constant_bytes = mi.push_constant_bytes;
  iface->spec_constants = mi.spec_constants;
  return true;
}

// ---------------------------------------------------------------------------
// The child: one RADV device, every module compiled on it.

// Whether |exts| has the |count| extensions |names|.
bool HasExtensions(const std::vector<VkExtensionProperties>& exts, const char* const* names,
                   size_t count) {
  for (size_t i = 0; i < count; ++i) {
    bool found = false;
    for (const VkExtensionProperties& e : exts) {
      found = found || std::strcmp(e.extensionName, names[i]) == 0;
    }
    if (!found) return false;
  }
  return true;
}

// A statistic as RADV reports it; |text| is its value formatted.
struct Statistic {
  std::string name;
  std::string text;
  double value = 0;
};

struct Row {
  size_t module = 0;
  std::string family;
  uint32_t wave = 0;  // the executable's subgroup size
  std::string error;  // empty: compiled
  std::vector<Statistic> stats;
  MemoryCounts memory;
  std::string isa;
};

struct CompileObjects;

class RadvCompiler {
 public:
  ~RadvCompiler();
  // Creates the instance and device; checks that it is RADV's null device for
  // |family| and that it can compile at |wave| (0: any).
  // |ray_query|: some module needs ray queries; enabled where the family
  // has them (a module that needs them fails on one without).
  bool Init(const Family& family, uint32_t wave, bool ray_query, std::string* error);
  // Compiles |words| into |row|; false with |row->error| when the driver
  // rejects it.
  void Compile(const std::vector<uint32_t>& words, uint32_t wave, Row* row);
  // A graphics pipeline of waverun's full-screen triangle (vertex shader)
  // and |module|'s fragment shader, its color outputs written to
  // attachments of their types (not lowered to buffers as `run` does: the
  // exports are part of the code); |render_pass| is created for it.
  VkResult CreateFragmentPipeline(const Interface& iface, VkShaderModule module,
                                  VkPipelineLayout layout, const VkSpecializationInfo* spec,
                                  VkRenderPass* render_pass, VkShaderModule* vertex,
                                  VkPipeline* pipeline, std::string* error);
  // Specialization constants (SpecId -> bits) for every module that has them.
  void SetConstants(const std::map<uint32_t, uint64_t>& constants) { constants_ = constants; }

 private:
  // Compile's steps; the failing ones with a one-line |error| (row->error).
  // The shader module of |words|, its set layouts and pipeline layout.
  bool CreateLayouts(const std::vector<uint32_t>& words, const Interface& iface,
                     VkShaderStageFlagBits stage, CompileObjects* o, std::string* error);
  // The compute (at |wave|, 0: the driver's) or graphics pipeline.
  bool CreatePipeline(const Interface& iface, uint32_t wave, CompileObjects* o, std::string* error);
  // |index|: the executable of |stage| in |pipeline|; sets row->wave.
  bool FindExecutable(VkPipeline pipeline, VkShaderStageFlagBits stage, uint32_t* index, Row* row);
  // ACO's statistics and the ISA of the executable |einfo| into |row|.
  void ReadStatistics(const VkPipelineExecutableInfoKHR& einfo, Row* row);
  void ReadIsa(const VkPipelineExecutableInfoKHR& einfo, Row* row);

  std::map<uint32_t, uint64_t> constants_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  bool fixed_wave_ = false;  // the family has one wave size: no required size
  const Family* family_ = nullptr;
  bool ray_query_ = false;  // the device has VK_KHR_ray_query enabled
  PFN_vkGetPipelineExecutablePropertiesKHR get_executables_ = nullptr;
  PFN_vkGetPipelineExecutableStatisticsKHR get_statistics_ = nullptr;
  PFN_vkGetPipelineExecutableInternalRepresentationsKHR get_representations_ = nullptr;
};

RadvCompiler::~RadvCompiler() {
  if (device_) vkDestroyDevice(device_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

bool RadvCompiler::Init(const Family& family, uint32_t wave, bool ray_query, std::string* error) {
  family_ = &family;
  if (!CreateInstance("waverun isa", VK_API_VERSION_1_3, false, &instance_, nullptr, error)) {
    *error = "RADV: " + *error;
    return false;
  }
  std::vector<VkPhysicalDevice> devices = PhysicalDevices(instance_);
  std::string want = Upper(family.name);
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(d, &props);
    std::string name = props.deviceName;
    if (name.find("RADV") != std::string::npos && name.find(want) != std::string::npos) {
      physical_ = d;
      if (props.apiVersion < VK_API_VERSION_1_3) {
        *error = std::string("RADV's ") + family.name + " device supports only Vulkan " +
                 std::to_string(VK_API_VERSION_MAJOR(props.apiVersion)) + "." +
                 std::to_string(VK_API_VERSION_MINOR(props.apiVersion)) +
                 " (1.3 needed for subgroup size control)";
        return false;
      }
      break;
    }
  }
  if (!physical_) {
    *error = "RADV lists no null-hardware device for family " + std::string(family.name);
    return false;
  }
  VkPhysicalDeviceSubgroupSizeControlProperties size_control =
      Make<VkPhysicalDeviceSubgroupSizeControlProperties>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES);
  VkPhysicalDeviceProperties2 props2 =
      Make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  props2.pNext = &size_control;
  vkGetPhysicalDeviceProperties2(physical_, &props2);
  // A family with one wave size (gfx6-9: 64) takes no required size.
  bool only_size = size_control.minSubgroupSize == size_control.maxSubgroupSize;
  if (wave != 0 && only_size && wave == size_control.minSubgroupSize) {
    fixed_wave_ = true;
  } else if (wave != 0 &&
             (wave < size_control.minSubgroupSize || wave > size_control.maxSubgroupSize ||
              !(size_control.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT))) {
    *error = std::string(family.name) + " (" + family.arch + ") has no wave" +
             std::to_string(wave) + " for compute shaders (subgroup sizes " +
             std::to_string(size_control.minSubgroupSize) + ".." +
             std::to_string(size_control.maxSubgroupSize) + ")";
    return false;
  }

  uint32_t ext_count = 0;
  vkEnumerateDeviceExtensionProperties(physical_, nullptr, &ext_count, nullptr);
  std::vector<VkExtensionProperties> exts(ext_count);
  vkEnumerateDeviceExtensionProperties(physical_, nullptr, &ext_count, exts.data());
  bool has_exec = false;
  for (const VkExtensionProperties& e : exts) {
    has_exec = has_exec || std::strcmp(e.extensionName,
                                       VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) == 0;
  }
  if (!has_exec) {
    *error = "RADV does not offer VK_KHR_pipeline_executable_properties";
    return false;
  }

  // Every core feature the device has (a module may need any of them), and
  // pipeline executable info.
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec =
      Make<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
  VkPhysicalDeviceVulkan13Features f13 =
      Make<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  VkPhysicalDeviceVulkan12Features f12 =
      Make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  VkPhysicalDeviceVulkan11Features f11 =
      Make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  VkPhysicalDeviceFeatures2 features =
      Make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  features.pNext = &f11;
  f11.pNext = &f12;
  f12.pNext = &f13;
  f13.pNext = &exec;
  // Ray queries only for modules that need them: other modules compile on
  // the device they always did.
  VkPhysicalDeviceAccelerationStructureFeaturesKHR accel =
      Make<VkPhysicalDeviceAccelerationStructureFeaturesKHR>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR);
  VkPhysicalDeviceRayQueryFeaturesKHR rq = Make<VkPhysicalDeviceRayQueryFeaturesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR);
  const char* ext_names[] = {VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME,
                             VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME,
                             VK_KHR_RAY_QUERY_EXTENSION_NAME,
                             VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME};
  if (ray_query && HasExtensions(exts, ext_names + 1, 3)) {
    exec.pNext = &accel;
    accel.pNext = &rq;
  }
  vkGetPhysicalDeviceFeatures2(physical_, &features);
  ray_query_ = accel.accelerationStructure && rq.rayQuery && f12.bufferDeviceAddress;
  if (ray_query_) {  // these two only (not capture/replay, host commands, ...)
    accel = Make<VkPhysicalDeviceAccelerationStructureFeaturesKHR>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR);
    accel.accelerationStructure = VK_TRUE;
    accel.pNext = &rq;
  } else {
    exec.pNext = nullptr;
  }
  // What the application would normally run with: no robustness.
  features.features.robustBufferAccess = VK_FALSE;
  f13.robustImageAccess = VK_FALSE;
  if (!exec.pipelineExecutableInfo) {
    *error = "RADV does not support pipelineExecutableInfo";
    return false;
  }

  uint32_t queue_family = 0;
  FindQueueFamily(physical_, VK_QUEUE_COMPUTE_BIT, &queue_family);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci =
      Make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  qci.queueFamilyIndex = queue_family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci = Make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  dci.pNext = &features;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = ray_query_ ? 4 : 1;
  dci.ppEnabledExtensionNames = ext_names;
  VkResult r = vkCreateDevice(physical_, &dci, nullptr, &device_);
  if (r != VK_SUCCESS) {
    device_ = VK_NULL_HANDLE;
    *error =
        "RADV: cannot create a " + std::string(family.name) + " device (" + VkResultName(r) + ")";
    return false;
  }
  get_executables_ = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetDeviceProcAddr(device_, "vkGetPipelineExecutablePropertiesKHR"));
  get_statistics_ = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(device_, "vkGetPipelineExecutableStatisticsKHR"));
  get_representations_ = reinterpret_cast<PFN_vkGetPipelineExecutableInternalRepresentationsKHR>(
      vkGetDeviceProcAddr(device_, "vkGetPipelineExecutableInternalRepresentationsKHR"));
  if (!get_executables_ || !get_statistics_ || !get_representations_) {
    *error = "RADV does not export the VK_KHR_pipeline_executable_properties entry points";
    return false;
  }
  return true;
}

std::string FormatStatistic(const VkPipelineExecutableStatisticKHR& s, double* value) {
  char buf[64];
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      *value = s.value.b32 ? 1 : 0;
      return s.value.b32 ? "1" : "0";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      *value = static_cast<double>(s.value.i64);
      std::snprintf(buf, sizeof(buf), "%" PRId64, s.value.i64);
      return buf;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      *value = static_cast<double>(s.value.u64);
      std::snprintf(buf, sizeof(buf), "%" PRIu64, s.value.u64);
      return buf;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      *value = s.value.f64;
      std::snprintf(buf, sizeof(buf), "%.6g", s.value.f64);
      return buf;
    default:
      *value = 0;
      return "?";
  }
}

// The Vulkan objects of one compile, destroyed with it.
struct CompileObjects {
  explicit CompileObjects(VkDevice d) : device(d) {}
  CompileObjects(const CompileObjects&) = delete;
  CompileObjects& operator=(const CompileObjects&) = delete;
  ~CompileObjects() {
    if (pipeline) vkDestroyPipeline(device, pipeline, nullptr);
    if (render_pass) vkDestroyRenderPass(device, render_pass, nullptr);
    if (vertex) vkDestroyShaderModule(device, vertex, nullptr);
    if (layout) vkDestroyPipelineLayout(device, layout, nullptr);
    for (VkDescriptorSetLayout l : set_layouts) {
      if (l) vkDestroyDescriptorSetLayout(device, l, nullptr);
    }
    if (module) vkDestroyShaderModule(device, module, nullptr);
  }

  VkDevice device;
  VkShaderModule module = VK_NULL_HANDLE;
  std::vector<VkDescriptorSetLayout> set_layouts;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkRenderPass render_pass = VK_NULL_HANDLE;  // fragment
  VkShaderModule vertex = VK_NULL_HANDLE;     // fragment
};

void RadvCompiler::Compile(const std::vector<uint32_t>& module_words, uint32_t wave, Row* row) {
  Interface iface;
  std::vector<uint32_t> words = module_words;
  if (!Reflect(&words, &iface, &row->error)) return;
  if (!ray_query_ && UsesRayQueries(words)) {
    row->error = std::string(family_->name) + " (" + family_->arch +
                 ") has no ray queries in RADV (gfx10.3 and later have them): use another family";
    return;
  }
  CompileObjects o(device_);
  const VkShaderStageFlagBits stage =
      iface.fragment ? VK_SHADER_STAGE_FRAGMENT_BIT : VK_SHADER_STAGE_COMPUTE_BIT;
  if (!CreateLayouts(words, iface, stage, &o, &row->error) ||
      !CreatePipeline(iface, wave, &o, &row->error)) {
    return;
  }
  uint32_t index = 0;
  if (!FindExecutable(o.pipeline, stage, &index, row)) return;
  if (iface.fragment && wave != 0 && row->wave != wave) {
    row->error = "RADV compiled the fragment shader for wave" + std::to_string(row->wave) +
                 ": --wave sets compute shaders' wave size only";
    return;
  }
  VkPipelineExecutableInfoKHR einfo =
      Make<VkPipelineExecutableInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR);
  einfo.pipeline = o.pipeline;
  einfo.executableIndex = index;
  ReadStatistics(einfo, row);
  ReadIsa(einfo, row);
  if (row->isa.empty()) {
    row->error = "RADV returned no \"Assembly\" representation";
    return;
  }
  row->memory = CountMemory(row->isa);
}

bool RadvCompiler::CreateLayouts(const std::vector<uint32_t>& words, const Interface& iface,
                                 VkShaderStageFlagBits stage, CompileObjects* o,
                                 std::string* error) {
  VkShaderModuleCreateInfo smci =
      Make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  smci.codeSize = words.size() * 4;
  smci.pCode = words.data();
  VkResult r = vkCreateShaderModule(device_, &smci, nullptr, &o->module);
  if (r != VK_SUCCESS) {
    o->module = VK_NULL_HANDLE;
    *error = "RADV rejects the module (vkCreateShaderModule: " + VkResultName(r) + ")";
    return false;
  }
  uint32_t sets = 0;
  for (const Binding& b : iface.bindings) sets = std::max(sets, b.set + 1);
  for (uint32_t s = 0; s < sets; ++s) {
    std::vector<VkDescriptorSetLayoutBinding> lb;
    for (const Binding& b : iface.bindings) {
      if (b.set != s) continue;
      VkDescriptorSetLayoutBinding x{};
      x.binding = b.binding;
      x.descriptorType = b.type;
      x.descriptorCount = b.count;
      x.stageFlags = stage;
      lb.push_back(x);
    }
    VkDescriptorSetLayoutCreateInfo dslci =
        Make<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    dslci.bindingCount = static_cast<uint32_t>(lb.size());
    dslci.pBindings = lb.data();
    VkDescriptorSetLayout l = VK_NULL_HANDLE;
    r = vkCreateDescriptorSetLayout(device_, &dslci, nullptr, &l);
    if (r != VK_SUCCESS) {
      *error =
          "cannot create descriptor set layout " + std::to_string(s) + " (" + VkResultName(r) + ")";
      return false;
    }
    o->set_layouts.push_back(l);
  }
  VkPushConstantRange push{static_cast<VkShaderStageFlags>(stage), 0, iface.push_constant_bytes};
  VkPipelineLayoutCreateInfo plci =
      Make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  plci.setLayoutCount = sets;
  plci.pSetLayouts = o->set_layouts.data();
  plci.pushConstantRangeCount = iface.push_constant_bytes > 0 ? 1 : 0;
  plci.pPushConstantRanges = &push;
  r = vkCreatePipelineLayout(device_, &plci, nullptr, &o->layout);
  if (r != VK_SUCCESS) {
    o->layout = VK_NULL_HANDLE;
    *error = "cannot create the pipeline layout (" + VkResultName(r) + ")";
    return false;
  }
  return true;
}

bool RadvCompiler::CreatePipeline(const Interface& iface, uint32_t wave, CompileObjects* o,
                                  std::string* error) {
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required =
      Make<VkPipelineShaderStageRequiredSubgroupSizeCreateInfo>(
          VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO);
  required.requiredSubgroupSize = wave;
  VkComputePipelineCreateInfo cpci =
      Make<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  cpci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
               VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  cpci.stage =
      Make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  if (wave != 0 && !fixed_wave_) cpci.stage.pNext = &required;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = o->module;
  cpci.stage.pName = iface.entry_point.c_str();
  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint8_t> spec_data;
  for (const SpecConstant& sc : iface.spec_constants) {
    auto it = constants_.find(sc.constant_id);
    if (it == constants_.end()) continue;
    entries.push_back({sc.constant_id, static_cast<uint32_t>(spec_data.size()), sc.bytes});
    spec_data.resize(spec_data.size() + sc.bytes);
    std::memcpy(spec_data.data() + spec_data.size() - sc.bytes, &it->second, sc.bytes);
  }
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(), spec_data.size(),
                            spec_data.data()};
  if (!entries.empty()) cpci.stage.pSpecializationInfo = &spec;
  cpci.layout = o->layout;
  VkResult r;
  if (iface.fragment) {
    r = CreateFragmentPipeline(iface, o->module, o->layout, entries.empty() ? nullptr : &spec,
                               &o->render_pass, &o->vertex, &o->pipeline, error);
  } else {
    r = vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &cpci, nullptr, &o->pipeline);
  }
  if (r != VK_SUCCESS) {
    o->pipeline = VK_NULL_HANDLE;
    if (error->empty()) {
      *error = std::string("RADV rejects the module (") +
               (iface.fragment ? "vkCreateGraphicsPipelines: " : "vkCreateComputePipelines: ") +
               VkResultName(r) + ")";
    }
    return false;
  }
  return true;
}

bool RadvCompiler::FindExecutable(VkPipeline pipeline, VkShaderStageFlagBits stage, uint32_t* index,
                                  Row* row) {
  VkPipelineInfoKHR pinfo = Make<VkPipelineInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR);
  pinfo.pipeline = pipeline;
  uint32_t n = 0;
  get_executables_(device_, &pinfo, &n, nullptr);
  std::vector<VkPipelineExecutablePropertiesKHR> execs(
      n, Make<VkPipelineExecutablePropertiesKHR>(
             VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR));
  if (n > 0) get_executables_(device_, &pinfo, &n, execs.data());
  if (n == 0) {
    row->error = "RADV reports no executable for the pipeline";
    return false;
  }
  // A compute pipeline has one executable; a graphics one has the vertex
  // shader's too: the fragment shader's is the row's.
  *index = 0;
  while (*index + 1 < n && !(execs[*index].stages & stage)) ++*index;
  row->wave = execs[*index].subgroupSize;
  return true;
}

void RadvCompiler::ReadStatistics(const VkPipelineExecutableInfoKHR& einfo, Row* row) {
  uint32_t ns = 0;
  get_statistics_(device_, &einfo, &ns, nullptr);
  std::vector<VkPipelineExecutableStatisticKHR> stats(
      ns,
      Make<VkPipelineExecutableStatisticKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR));
  if (ns > 0) get_statistics_(device_, &einfo, &ns, stats.data());
  for (uint32_t i = 0; i < ns; ++i) {
    Statistic s;
    s.name = stats[i].name;
    s.text = FormatStatistic(stats[i], &s.value);
    row->stats.push_back(s);
  }
}

void RadvCompiler::ReadIsa(const VkPipelineExecutableInfoKHR& einfo, Row* row) {
  uint32_t nr = 0;
  get_representations_(device_, &einfo, &nr, nullptr);
  std::vector<VkPipelineExecutableInternalRepresentationKHR> reps(
      nr, Make<VkPipelineExecutableInternalRepresentationKHR>(
              VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR));
  if (nr > 0) get_representations_(device_, &einfo, &nr, reps.data());
  std::vector<std::vector<char>> data(nr);
  for (uint32_t i = 0; i < nr; ++i) {
    data[i].resize(reps[i].dataSize + 1, '\0');
    reps[i].pData = data[i].data();
  }
  if (nr > 0) get_representations_(device_, &einfo, &nr, reps.data());
  for (uint32_t i = 0; i < nr; ++i) {
    if (std::string(reps[i].name).find("Assembly") != std::string::npos) {
      row->isa.assign(data[i].data(), strnlen(data[i].data(), reps[i].dataSize));
    }
  }
}

// The attachment format that holds a color output of |type| as written.
VkFormat ColorFormat(ComponentType type) {
  return type == ComponentType::kFloat ? VK_FORMAT_R32G32B32A32_SFLOAT
         : type == ComponentType::kInt ? VK_FORMAT_R32G32B32A32_SINT
                                       : VK_FORMAT_R32G32B32A32_UINT;
}

VkResult RadvCompiler::CreateFragmentPipeline(const Interface& iface, VkShaderModule module,
                                              VkPipelineLayout layout,
                                              const VkSpecializationInfo* spec,
                                              VkRenderPass* render_pass, VkShaderModule* vertex,
                                              VkPipeline* pipeline, std::string* error) {
  std::vector<uint32_t> vertex_words;
  waveopt::CompileOptions options;
  options.stage = "vert";
  if (!waveopt::CompileShader(VertexShaderSource(iface.fragment_inputs), "waverun.vert", options,
                              &vertex_words, error)) {
    *error = "waverun's vertex shader: " + *error;
    return VK_ERROR_UNKNOWN;
  }
  VkShaderModuleCreateInfo smci =
      Make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  smci.codeSize = vertex_words.size() * 4;
  smci.pCode = vertex_words.data();
  VkResult r = vkCreateShaderModule(device_, &smci, nullptr, vertex);
  if (r != VK_SUCCESS) return r;
  // One attachment per location up to the highest; the gaps unused.
  uint32_t count = 0;
  for (const ColorOutput& o : iface.color_outputs) count = std::max(count, o.location + 1);
  std::vector<VkAttachmentDescription> attachments;
  std::vector<VkAttachmentReference> refs(count, {VK_ATTACHMENT_UNUSED, VK_IMAGE_LAYOUT_UNDEFINED});
  for (const ColorOutput& o : iface.color_outputs) {
    VkAttachmentDescription a{};
    a.format = ColorFormat(o.type);
    a.samples = VK_SAMPLE_COUNT_1_BIT;
    a.loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    a.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    a.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    a.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    a.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    refs[o.location] = {static_cast<uint32_t>(attachments.size()),
                        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    attachments.push_back(a);
  }
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = count;
  subpass.pColorAttachments = refs.data();
  VkRenderPassCreateInfo rpci =
      Make<VkRenderPassCreateInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO);
  rpci.attachmentCount = static_cast<uint32_t>(attachments.size());
  rpci.pAttachments = attachments.data();
  rpci.subpassCount = 1;
  rpci.pSubpasses = &subpass;
  r = vkCreateRenderPass(device_, &rpci, nullptr, render_pass);
  if (r != VK_SUCCESS) return r;

  VkPipelineShaderStageCreateInfo stages[2] = {
      Make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO),
      Make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO)};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = *vertex;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = module;
  stages[1].pName = iface.entry_point.c_str();
  stages[1].pSpecializationInfo = spec;
  VkPipelineVertexInputStateCreateInfo vertex_input = Make<VkPipelineVertexInputStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO);
  VkPipelineInputAssemblyStateCreateInfo assembly = Make<VkPipelineInputAssemblyStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO);
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkViewport viewport{0.0f, 0.0f, 64.0f, 64.0f, 0.0f, 1.0f};
  VkRect2D scissor{{0, 0}, {64, 64}};
  VkPipelineViewportStateCreateInfo viewport_state = Make<VkPipelineViewportStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO);
  viewport_state.viewportCount = 1;
  viewport_state.pViewports = &viewport;
  viewport_state.scissorCount = 1;
  viewport_state.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo raster = Make<VkPipelineRasterizationStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO);
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample = Make<VkPipelineMultisampleStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO);
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  std::vector<VkPipelineColorBlendAttachmentState> blends(count);
  for (VkPipelineColorBlendAttachmentState& b : blends) {
    b = {};
    b.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                       VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  }
  VkPipelineColorBlendStateCreateInfo blend = Make<VkPipelineColorBlendStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO);
  blend.attachmentCount = count;
  blend.pAttachments = blends.data();
  VkGraphicsPipelineCreateInfo gpci =
      Make<VkGraphicsPipelineCreateInfo>(VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO);
  gpci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
               VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  gpci.stageCount = 2;
  gpci.pStages = stages;
  gpci.pVertexInputState = &vertex_input;
  gpci.pInputAssemblyState = &assembly;
  gpci.pViewportState = &viewport_state;
  gpci.pRasterizationState = &raster;
  gpci.pMultisampleState = &multisample;
  gpci.pColorBlendState = &blend;
  gpci.layout = layout;
  gpci.renderPass = *render_pass;
  return vkCreateGraphicsPipelines(device_, VK_NULL_HANDLE, 1, &gpci, nullptr, pipeline);
}

// ---------------------------------------------------------------------------
// The child's record format, one record per line ("K payload"); the ISA is
// length-prefixed:
//   B <module>          compilation of module begins (a crash after it blames it)
//   W <wave>            the executable's subgroup size
//   S <name>\t<text>\t<value>
//   I <bytes>\n<bytes>  the ISA
//   X <error>           the module failed
//   E <module>          compilation of module ended
//   F <error>           the device could not be set up (no module compiled)

void WriteRow(FILE* out, const Row& row) {
  std::fprintf(out, "W %u\n", row.wave);
  for (const Statistic& s : row.stats) {
    std::fprintf(out, "S %s\t%s\t%.17g\n", s.name.c_str(), s.text.c_str(), s.value);
  }
  if (!row.isa.empty()) {
    std::fprintf(out, "I %zu\n", row.isa.size());
    std::fwrite(row.isa.data(), 1, row.isa.size(), out);
    std::fputc('\n', out);
  }
  if (!row.error.empty()) {
    std::string e = row.error;
    std::replace(e.begin(), e.end(), '\n', ' ');
    std::fprintf(out, "X %s\n", e.c_str());
  }
}

std::string FindRadvIcd() { return FindIcd("radeon_icd*.json"); }

// Runs in the child: compiles modules [first, end) for |family| at |wave|.
int ChildMain(const std::vector<IsaModule>& modules, size_t first, const Family& family,
              uint32_t wave, const std::string& icd, const std::string& runtime_dir,
              const std::map<uint32_t, uint64_t>& constants, FILE* out) {
  UseOnlyIcd(icd);
  setenv("RADV_FORCE_FAMILY", family.name, 1);
  setenv("XDG_RUNTIME_DIR", runtime_dir.c_str(), 1);
  setenv("NODEVICE_SELECT", "1", 1);  // Mesa's device-select layer: not needed
  // The wave size comes from the pipeline (required subgroup size), not from
  // the environment: a user's RADV_PERFTEST/RADV_DEBUG would change the code.
  unsetenv("RADV_PERFTEST");
  unsetenv("RADV_DEBUG");
  unsetenv("ACO_DEBUG");
  RadvCompiler compiler;
  compiler.SetConstants(constants);
  std::string error;
  bool ray_query = false;
  for (size_t i = first; i < modules.size(); ++i) {
    ray_query = ray_query || UsesRayQueries(modules[i].words);
  }
  if (!compiler.Init(family, wave, ray_query, &error)) {
    std::replace(error.begin(), error.end(), '\n', ' ');
    std::fprintf(out, "F %s\n", error.c_str());
    std::fflush(out);
    return 1;
  }
  for (size_t i = first; i < modules.size(); ++i) {
    std::fprintf(out, "B %zu\n", i);
    std::fflush(out);
    Row row;
    compiler.Compile(modules[i].words, wave, &row);
    WriteRow(out, row);
    std::fprintf(out, "E %zu\n", i);
    std::fflush(out);
  }
  return 0;
}

// ---------------------------------------------------------------------------
// The parent.

struct Job {
  const Family* family = nullptr;
  uint32_t wave = 0;
  size_t next = 0;        // the first module not yet reported
  std::string fatal;      // the device could not be set up
  std::vector<Row> rows;  // module order, filled as children report
  // The child compiling from |next| on: its records come on its channel,
  // RADV's messages on its captured standard error.
  std::unique_ptr<waveopt::support::ChildProcess> child;
};

// Reads a finished child's records into |job|.
void Collect(Job* job, const waveopt::support::ChildResult& result, size_t module_count) {
  using Status = waveopt::support::ChildResult::Status;
  const std::string& text = result.channel;
  const std::string& err_text = result.err;
  size_t pos = 0;
  Row* row = nullptr;
  bool open = false;  // a B without its E
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.size() < 2) continue;
    char kind = line[0];
    std::string payload = line.substr(2);
    if (kind == 'F') {
      job->fatal = payload;
    } else if (kind == 'B') {
      size_t m = std::strtoull(payload.c_str(), nullptr, 10);
      if (m >= job->rows.size()) break;
      row = &job->rows[m];
      row->error.clear();
      row->stats.clear();
      open = true;
    } else if (kind == 'E' && row) {
      open = false;
      job->next = row->module + 1;
      row = nullptr;
    } else if (kind == 'W' && row) {
      row->wave = static_cast<uint32_t>(std::strtoul(payload.c_str(), nullptr, 10));
    } else if (kind == 'S' && row) {
      Statistic s;
      size_t t1 = payload.find('\t');
      size_t t2 = payload.find('\t', t1 == std::string::npos ? t1 : t1 + 1);
      if (t1 == std::string::npos || t2 == std::string::npos) continue;
      s.name = payload.substr(0, t1);
      s.text = payload.substr(t1 + 1, t2 - t1 - 1);
      s.value = std::strtod(payload.c_str() + t2 + 1, nullptr);
      row->stats.push_back(s);
    } else if (kind == 'I' && row) {
      size_t bytes = std::strtoull(payload.c_str(), nullptr, 10);
      row->isa = text.substr(pos, bytes);
      pos += bytes + 1;
      row->memory = CountMemory(row->isa);
    } else if (kind == 'X' && row) {
      row->error = payload;
    }
  }
  const bool exited = result.status == Status::kExited;
  const bool crashed = !(exited && (result.exit_code == 0 || result.exit_code == 1));
  if (job->fatal.empty() && crashed) {
    std::string why = exited ? "exit status " + std::to_string(result.exit_code)
                             : "signal " + std::to_string(result.signal);
    // RADV's own last words, e.g. "radv: Unknown family: x".
    std::string last;
    std::stringstream ss(err_text);
    std::string l;
    while (std::getline(ss, l)) {
      if (!l.empty()) last = l;
    }
    if (open && row) {
      row->error =
          "RADV crashed compiling the module (" + why + ")" + (last.empty() ? "" : ": " + last);
      job->next = row->module + 1;
    } else if (last.find("Unknown family") != std::string::npos) {
      job->fatal = UnknownFamily(job->family->name);
    } else {
      job->fatal = "RADV failed before compiling (" + why + ")" + (last.empty() ? "" : ": " + last);
    }
  }
  if (!job->fatal.empty()) job->next = module_count;
}

const Statistic* FindStat(const Row& row, const char* name) {
  for (const Statistic& s : row.stats) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// A column of the report: a statistic of ACO's (by name) or a memory count.
struct Column {
  const char* key;   // tsv/json key and table header
  const char* stat;  // RADV's statistic name; nullptr: a memory count
  uint64_t MemoryCounts::*count;
};

const Column kColumns[] = {
    {"instructions", "Instructions", nullptr},
    {"copies", "Copies", nullptr},
    {"branches", "Branches", nullptr},
    {"sgprs", "SGPRs", nullptr},
    {"vgprs", "VGPRs", nullptr},
    {"spilled_sgprs", "Spilled SGPRs", nullptr},
    {"spilled_vgprs", "Spilled VGPRs", nullptr},
    {"code_bytes", "Code size", nullptr},
    {"lds_bytes", "LDS size", nullptr},
    {"scratch_bytes", "Scratch size", nullptr},
    {"subgroups_per_simd", "Subgroups per SIMD", nullptr},
    {"latency", "Latency", nullptr},
    {"inverse_throughput", "Inverse Throughput", nullptr},
    {"vmem_clauses", "VMEM Clause", nullptr},
    {"smem_clauses", "SMEM Clause", nullptr},
    {"vector_loads", nullptr, &MemoryCounts::vector_loads},
    {"vector_stores", nullptr, &MemoryCounts::vector_stores},
    {"scalar_loads", nullptr, &MemoryCounts::scalar_loads},
    {"lds_ops", nullptr, &MemoryCounts::lds},
    {"lds_atomics", nullptr, &MemoryCounts::lds_atomics},
    {"atomics", nullptr, &MemoryCounts::atomics},
    {"scratch_ops", nullptr, &MemoryCounts::scratch},
};

// Short table headers, in kColumns order.
const char* kHeaders[] = {"instr",    "copy",     "branch",  "sgpr",      "vgpr",   "spill_s",
                          "spill_v",  "code",     "lds_b",   "scratch_b", "occup",  "latency",
                          "inv_tput", "vmem_cl",  "smem_cl", "vload",     "vstore", "sload",
                          "lds",      "lds_atom", "atomic",  "scratch"};

static_assert(sizeof(kHeaders) / sizeof(kHeaders[0]) == sizeof(kColumns) / sizeof(kColumns[0]),
              "one table header per column");

bool ColumnValue(const Row& row, const Column& c, double* value, std::string* text) {
  if (c.stat) {
    const Statistic* s = FindStat(row, c.stat);
    if (!s) return false;
    *value = s->value;
    *text = s->text;
    return true;
  }
  uint64_t v = row.memory.*(c.count);
  *value = static_cast<double>(v);
  *text = std::to_string(v);
  return true;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string Ratio(double a, double b) {
  if (b == 0) return a == 0 ? "=" : "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", a / b);
  return buf;
}

void PrintTable(const std::vector<IsaModule>& modules, const std::vector<Job>& jobs, bool disasm) {
  const size_t ncol = sizeof(kColumns) / sizeof(kColumns[0]);
  std::vector<std::vector<std::string>> cells;
  cells.push_back({"module", "family", "wave"});
  for (size_t c = 0; c < ncol; ++c) cells.back().push_back(kHeaders[c]);
  for (const Job& job : jobs) {
    if (!job.fatal.empty()) continue;
    const Row* base = nullptr;
    for (const Row& row : job.rows) {
      if (!row.error.empty()) continue;
      std::vector<std::string> line = {modules[row.module].path, row.family,
                                       std::to_string(row.wave)};
      for (size_t c = 0; c < ncol; ++c) {
        double v;
        std::string t;
        line.push_back(ColumnValue(row, kColumns[c], &v, &t) ? t : "-");
      }
      cells.push_back(line);
      if (modules.size() > 1 && row.module == 0) base = &row;
      if (base && &row != base) {
        std::vector<std::string> ratio = {"  ÷ " + modules[0].path, "", ""};
        for (size_t c = 0; c < ncol; ++c) {
          double a, b;
          std::string t;
          bool ok =
              ColumnValue(row, kColumns[c], &a, &t) && ColumnValue(*base, kColumns[c], &b, &t);
          ratio.push_back(ok ? Ratio(a, b) : "-");
        }
        cells.push_back(ratio);
      }
    }
  }
  if (cells.size() == 1) return;  // nothing compiled: the errors say why
  // Column widths count UTF-8 code points (the "÷").
  auto width = [](const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  std::vector<size_t> w(cells[0].size(), 0);
  for (const auto& line : cells) {
    for (size_t i = 0; i < line.size(); ++i) w[i] = std::max(w[i], width(line[i]));
  }
  for (const auto& line : cells) {
    std::string out;
    for (size_t i = 0; i < line.size(); ++i) {
      std::string pad(w[i] - width(line[i]), ' ');
      out += i == 0 ? line[i] + pad : " " + pad + line[i];
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    std::printf("%s\n", out.c_str());
  }
  if (!disasm) return;
  for (const Job& job : jobs) {
    for (const Row& row : job.rows) {
      if (!row.error.empty() || row.isa.empty()) continue;
      std::printf("\n; %s, %s, wave%u\n%s", modules[row.module].path.c_str(), row.family.c_str(),
                  row.wave, row.isa.c_str());
      if (row.isa.back() != '\n') std::printf("\n");
    }
  }
}

void PrintTsv(const std::vector<IsaModule>& modules, const std::vector<Job>& jobs) {
  std::string header = "module\tfamily\tarch\twave\tstatus";
  for (const Column& c : kColumns) header += std::string("\t") + c.key;
  std::printf("%s\n", header.c_str());
  for (const Job& job : jobs) {
    for (const Row& row : job.rows) {
      uint32_t wave = row.wave ? row.wave : job.wave;
      std::string line = modules[row.module].path + "\t" + job.family->name + "\t" +
                         job.family->arch + "\t" + (wave ? std::to_string(wave) : "-") + "\t";
      std::string status = !job.fatal.empty() ? job.fatal : row.error;
      std::replace(status.begin(), status.end(), '\t', ' ');
      line += status.empty() ? "ok" : "error: " + status;
      for (const Column& c : kColumns) {
        double v;
        std::string t;
        bool ok = status.empty() && ColumnValue(row, c, &v, &t);
        line += "\t" + (ok ? t : std::string("-"));
      }
      std::printf("%s\n", line.c_str());
    }
  }
}

void PrintJson(const std::vector<IsaModule>& modules, const std::vector<Job>& jobs, bool disasm) {
  std::printf("[");
  bool first = true;
  for (const Job& job : jobs) {
    for (const Row& row : job.rows) {
      std::string status = !job.fatal.empty() ? job.fatal : row.error;
      uint32_t wave = row.wave ? row.wave : job.wave;
      std::printf("%s\n  {\"module\": %s, \"family\": %s, \"arch\": %s, \"wave\": %s, ",
                  first ? "" : ",", JsonString(modules[row.module].path).c_str(),
                  JsonString(job.family->name).c_str(), JsonString(job.family->arch).c_str(),
                  wave ? std::to_string(wave).c_str() : "null");
      first = false;
      if (!status.empty()) {
        std::printf("\"error\": %s}", JsonString(status).c_str());
        continue;
      }
      std::printf("\"error\": null,\n   \"statistics\": {");
      for (size_t i = 0; i < row.stats.size(); ++i) {
        const Statistic& s = row.stats[i];
        bool number = !s.text.empty() && s.text != "?" &&
                      s.text.find_first_not_of("0123456789.-e+") == std::string::npos;
        std::printf("%s%s: %s", i ? ", " : "", JsonString(s.name).c_str(),
                    number ? s.text.c_str() : JsonString(s.text).c_str());
      }
      std::printf("},\n   \"memory\": {");
      bool mfirst = true;
      for (const Column& c : kColumns) {
        if (c.stat) continue;
        std::printf("%s\"%s\": %" PRIu64, mfirst ? "" : ", ", c.key, row.memory.*(c.count));
        mfirst = false;
      }
      std::printf("}");
      if (disasm) std::printf(",\n   \"isa\": %s", JsonString(row.isa).c_str());
      std::printf("}");
    }
  }
  std::printf("\n]\n");
}

}  // namespace

bool ParseAmdFamilies(const std::string& list, std::vector<std::string>* families,
                      std::string* error) {
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::string name = Lower(item);
    if (!FindFamily(name)) {
      std::string known;
      for (const Family& f : kFamilies) known += (known.empty() ? "" : ", ") + std::string(f.name);
      *error = "unknown AMD family '" + item + "' (RADV's names: " + known + ")";
      return false;
    }
    if (std::find(families->begin(), families->end(), name) == families->end()) {
      families->push_back(name);
    }
  }
  if (families->empty()) {
    *error = "--amd needs a family, e.g. --amd=navi21";
    return false;
  }
  return true;
}

bool ParseWaves(const std::string& list, std::vector<uint32_t>* waves, std::string* error) {
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item != "32" && item != "64") {
      *error = "--wave takes 32, 64 or 32,64, not '" + item + "'";
      return false;
    }
    uint32_t w = item == "32" ? 32 : 64;
    if (std::find(waves->begin(), waves->end(), w) == waves->end()) waves->push_back(w);
  }
  if (waves->empty()) {
    *error = "--wave takes 32, 64 or 32,64";
    return false;
  }
  return true;
}

bool ParseIsaFormat(const std::string& name, IsaFormat* format) {
  if (name == "table") {
    *format = IsaFormat::kTable;
  } else if (name == "tsv") {
    *format = IsaFormat::kTsv;
  } else if (name == "json") {
    *format = IsaFormat::kJson;
  } else {
    return false;
  }
  return true;
}

// Starts a child that compiles |job|'s modules from job->next on; false
// (job->fatal says why) when it cannot.
bool StartJob(const std::vector<IsaModule>& modules, const IsaOptions& options,
              const std::string& icd, const char* runtime_dir, Job* job) {
  waveopt::support::ChildOptions child_options;
  child_options.err = waveopt::support::StreamMode::kCapture;
  child_options.flush_std_streams = true;
  child_options.default_crash_signals = false;
  job->child = std::make_unique<waveopt::support::ChildProcess>();
  const bool started = job->child->Start(
      [&](int channel) {
        FILE* out = fdopen(channel, "w");
        if (out == nullptr) return 2;
        const int rc = ChildMain(modules, job->next, *job->family, job->wave, icd, runtime_dir,
                                 options.constants, out);
        std::fflush(out);
        return rc;
      },
      child_options);
  if (!started) {
    job->fatal = "cannot start a child process: " + job->child->result().error;
    job->next = modules.size();
    job->child.reset();
  }
  return started;
}

// Runs the children of |jobs|, at most |limit| at a time, until each job's
// modules are all reported (a child that crashed on a module is followed
// by one that starts after it).
void RunJobs(const std::vector<IsaModule>& modules, const IsaOptions& options,
             const std::string& icd, const char* runtime_dir, size_t limit,
             std::vector<Job>* jobs) {
  bool failed_to_start = false;
  for (;;) {
    size_t running = 0;
    for (Job& job : *jobs) running += job.child && job.child->running() ? 1 : 0;
    for (Job& job : *jobs) {
      if (running >= limit || failed_to_start) break;
      if (job.child || job.next >= modules.size()) continue;
      if (!StartJob(modules, options, icd, runtime_dir, &job)) {
        failed_to_start = true;
      } else {
        ++running;
      }
    }
    std::vector<waveopt::support::ChildProcess*> children;
    for (Job& job : *jobs) children.push_back(job.child.get());
    const std::vector<size_t> ended = waveopt::support::ChildProcess::WaitForAny(children);
    if (ended.empty()) return;
    for (size_t k : ended) {
      Job& job = (*jobs)[k];
      const size_t before = job.next;
      Collect(&job, job.child->result(), modules.size());
      job.child.reset();
      if (job.next == before && job.fatal.empty()) {
        // No progress and no reason: do not loop forever.
        job.fatal = "RADV's child process ended without compiling anything";
        job.next = modules.size();
      }
    }
  }
}

int RunIsa(const std::vector<IsaModule>& modules, const IsaOptions& options) {
  std::string icd = options.icd.empty() ? FindRadvIcd() : options.icd;
  if (icd.empty()) {
    std::fprintf(stderr,
                 "waverun: error: RADV is not installed: no radeon_icd*.json in "
                 "/usr/share/vulkan/icd.d (Debian package mesa-vulkan-drivers)\n");
    return 1;
  }
  if (access(icd.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "waverun: error: cannot read RADV's ICD file '%s'\n", icd.c_str());
    return 1;
  }
  char dir_template[] = "/tmp/waverun-isa-XXXXXX";
  const char* runtime_dir = mkdtemp(dir_template);
  if (!runtime_dir) {
    std::fprintf(stderr, "waverun: error: cannot create a temporary directory\n");
    return 1;
  }

  std::vector<Job> jobs;
  std::vector<uint32_t> waves = options.waves.empty() ? std::vector<uint32_t>{0} : options.waves;
  for (const std::string& name : options.families) {
    for (uint32_t wave : waves) {
      Job job;
      job.family = FindFamily(name);
      job.wave = wave;
      job.rows.resize(modules.size());
      for (size_t i = 0; i < modules.size(); ++i) {
        job.rows[i].module = i;
        job.rows[i].family = name;
        job.rows[i].error = "not compiled";
      }
      jobs.push_back(std::move(job));
    }
  }

  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t limit = options.jobs > 0 ? static_cast<size_t>(options.jobs)
                                  : static_cast<size_t>(std::max(1L, cpus));
  RunJobs(modules, options, icd, runtime_dir, limit, &jobs);
  rmdir(runtime_dir);

  int rc = 0;
  for (const Job& job : jobs) {
    std::string where = std::string(job.family->name) +
                        (job.wave ? ", wave" + std::to_string(job.wave) : std::string());
    if (!job.fatal.empty()) {
      std::fprintf(stderr, "waverun: error: %s: %s\n", where.c_str(), job.fatal.c_str());
      rc = 1;
      continue;
    }
    for (const Row& row : job.rows) {
      if (row.error.empty()) continue;
      std::fprintf(stderr, "waverun: error: %s (%s): %s\n", modules[row.module].path.c_str(),
                   where.c_str(), row.error.c_str());
      rc = 1;
    }
  }
  switch (options.format) {
    case IsaFormat::kTable:
      PrintTable(modules, jobs, options.disasm);
      break;
    case IsaFormat::kTsv:
      PrintTsv(modules, jobs);
      break;
    case IsaFormat::kJson:
      PrintJson(modules, jobs, options.disasm);
      break;
  }
  return rc;
}

}  // namespace waverun
