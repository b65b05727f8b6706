// Vulkan start-up shared by waverun's device (vulkan_runner.cpp) and `isa`
// (isa.cpp, RADV on null hardware): which ICD the loader sees, the
// instance, the physical devices, a queue family, descriptor types of the
// reflected interface, and readable VkResults.
#ifndef WAVEOPT_TOOLS_WAVERUN_VULKAN_SETUP_H_
#define WAVEOPT_TOOLS_WAVERUN_VULKAN_SETUP_H_

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tools/waverun/reflect.h"

namespace waverun {

// A zeroed Vulkan structure with its sType set.
template <typename T>
T Make(VkStructureType type) {
  T value{};
  value.sType = type;
  return value;
}

// "VK_ERROR_DEVICE_LOST", or "VkResult N".
std::string VkResultName(VkResult r);

// The first ICD json named |name_glob| (e.g. "lvp_icd*.json") under
// /usr/share/vulkan/icd.d, /usr/local/share/vulkan/icd.d and
// /etc/vulkan/icd.d, preferring the machine's x86_64 file; empty when none.
std::string FindIcd(const char* name_glob);

// Points the Vulkan loader at |icd| alone (VK_ICD_FILENAMES and
// VK_DRIVER_FILES) and turns Mesa's shader cache off (it ignores the
// settings that choose the code: LP_NATIVE_VECTOR_WIDTH, RADV_FORCE_FAMILY).
// Must run before the process's first Vulkan call.
void UseOnlyIcd(const std::string& icd);

// Creates an instance for Vulkan |api| (lowered to what the loader has when
// |lower_to_loader|). False with one line in |error|.
bool CreateInstance(const char* app_name, uint32_t api, bool lower_to_loader, VkInstance* instance,
                    uint32_t* api_out, std::string* error);

// The instance's physical devices.
std::vector<VkPhysicalDevice> PhysicalDevices(VkInstance instance);

// The first queue family with every flag of |need|; false when none has.
bool FindQueueFamily(VkPhysicalDevice device, VkQueueFlags need, uint32_t* family,
                     VkQueueFamilyProperties* props = nullptr);

// The descriptor type a reflected resource binds as.
VkDescriptorType DescriptorType(ResourceKind kind);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_VULKAN_SETUP_H_
