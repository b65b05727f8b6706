// The device waverun runs modules on, as the commands see it: a Vulkan
// device (vulkan_runner.h) or the wave simulator (sim_runner.h). One device
// per process; one Program per module and plan.
#ifndef WAVEOPT_TOOLS_WAVERUN_DEVICE_H_
#define WAVEOPT_TOOLS_WAVERUN_DEVICE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tools/waverun/compare.h"
#include "tools/waverun/plan.h"

namespace waverun {

struct DeviceInfo {
  std::string name;    // VkPhysicalDeviceProperties::deviceName
  std::string driver;  // driver name and info (Vulkan 1.2+), may be empty
  uint32_t api_version = 0;
  uint32_t subgroup_size = 0;  // as reported
  bool timestamps = false;     // the compute queue has timestamp queries
  double timestamp_period_ns = 1.0;
  bool is_lavapipe = false;
  bool robust = false;            // robust buffer access is on
  bool robustness2 = false;       // ... with VK_EXT_robustness2 (loads out of bounds read 0)
  bool device_addresses = false;  // bufferDeviceAddress is on
  bool runtime_descriptor_arrays = false;  // runtimeDescriptorArray
  // Per descriptor kind, descriptor arrays indexed non-uniformly
  // (shader*ArrayNonUniformIndexing): uniform buffers, sampled images,
  // storage buffers, storage images, uniform and storage texel buffers.
  bool nonuniform_ubo = false, nonuniform_sampled = false, nonuniform_ssbo = false,
       nonuniform_storage_image = false, nonuniform_utb = false, nonuniform_stb = false;
};

class Device;

// A module bound to one plan's resources, ready to run any number of times.
class Program {
 public:
  virtual ~Program() = default;
  // Resets every input to the plan's initial bytes, dispatches (or draws), waits and
  // reads every resource back into |outputs| (plan order, then the
  // pointees; device addresses in them given back as the plan's canonical
  // addresses). |ns|: the
  // dispatch's duration from timestamp queries (wall clock of the submission
  // when the queue has none). Returns false with one line in |error|.
  virtual bool Run(Outputs* outputs, double* ns, std::string* error) = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;
  // Creates the pipeline (entry point |entry|, the plan's specialization
  // constants) and the plan's resources. Errors: the driver rejects the
  // shader, an image format the device cannot store/sample, out of memory.
  virtual std::unique_ptr<Program> CreateProgram(const std::vector<uint32_t>& words,
                                                 const std::string& entry, const Plan& plan,
                                                 std::string* error) = 0;
};

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_DEVICE_H_
