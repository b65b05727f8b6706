#include "tools/waverun/vulkan_setup.h"

#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace waverun {

std::string VkResultName(VkResult r) {
  switch (r) {
#define WAVERUN_CASE(x) \
  case x:               \
    return #x;
    WAVERUN_CASE(VK_SUCCESS)
    WAVERUN_CASE(VK_NOT_READY)
    WAVERUN_CASE(VK_TIMEOUT)
    WAVERUN_CASE(VK_INCOMPLETE)
    WAVERUN_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    WAVERUN_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    WAVERUN_CASE(VK_ERROR_INITIALIZATION_FAILED)
    WAVERUN_CASE(VK_ERROR_DEVICE_LOST)
    WAVERUN_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    WAVERUN_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    WAVERUN_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    WAVERUN_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    WAVERUN_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    WAVERUN_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    WAVERUN_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    WAVERUN_CASE(VK_ERROR_UNKNOWN)
    WAVERUN_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef WAVERUN_CASE
    default:
      return "VkResult " + std::to_string(static_cast<int>(r));
  }
}

std::string FindIcd(const char* name_glob) {
  const char* dirs[] = {"/usr/share/vulkan/icd.d/", "/usr/local/share/vulkan/icd.d/",
                        "/etc/vulkan/icd.d/"};
  std::string icd;
  for (const char* dir : dirs) {
    glob_t g;
    std::string pattern = std::string(dir) + name_glob;
    if (icd.empty() && glob(pattern.c_str(), 0, nullptr, &g) == 0) {
      // Prefer the machine's own architecture's file.
      for (size_t i = 0; i < g.gl_pathc && icd.empty(); ++i) {
        if (std::strstr(g.gl_pathv[i], "x86_64") || g.gl_pathc == 1) icd = g.gl_pathv[i];
      }
      if (icd.empty() && g.gl_pathc > 0) icd = g.gl_pathv[0];
      globfree(&g);
    }
  }
  return icd;
}

void UseOnlyIcd(const std::string& icd) {
  if (!icd.empty()) {
    setenv("VK_ICD_FILENAMES", icd.c_str(), 1);
    setenv("VK_DRIVER_FILES", icd.c_str(), 1);
  }
  setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
}

bool CreateInstance(const char* app_name, uint32_t api, bool lower_to_loader, VkInstance* instance,
                    uint32_t* api_out, std::string* error) {
  if (lower_to_loader) {
    uint32_t loader_version = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS) {
      loader_version = VK_API_VERSION_1_0;
    }
    api = std::min(api, loader_version);
    if (api < VK_API_VERSION_1_1) {
      *error = "the Vulkan loader supports only Vulkan 1.0 (1.1 needed)";
      return false;
    }
  }
  VkApplicationInfo app = Make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = app_name;
  app.apiVersion = api;
  VkInstanceCreateInfo ici = Make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  ici.pApplicationInfo = &app;
  VkResult r = vkCreateInstance(&ici, nullptr, instance);
  if (r != VK_SUCCESS) {
    *instance = VK_NULL_HANDLE;
    *error = "vkCreateInstance failed (" + VkResultName(r) +
             "); is a Vulkan driver installed (mesa-vulkan-drivers)?";
    return false;
  }
  if (api_out) *api_out = api;
  return true;
}

std::vector<VkPhysicalDevice> PhysicalDevices(VkInstance instance) {
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (count > 0) vkEnumeratePhysicalDevices(instance, &count, devices.data());
  devices.resize(count);
  return devices;
}

bool FindQueueFamily(VkPhysicalDevice device, VkQueueFlags need, uint32_t* family,
                     VkQueueFamilyProperties* props) {
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &families, nullptr);
  std::vector<VkQueueFamilyProperties> fam(families);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &families, fam.data());
  for (uint32_t i = 0; i < families; ++i) {
    if ((fam[i].queueFlags & need) == need) {
      *family = i;
      if (props) *props = fam[i];
      return true;
    }
  }
  return false;
}

VkDescriptorType DescriptorType(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::kStorageBuffer:
      return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case ResourceKind::kUniformBuffer:
      return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case ResourceKind::kStorageImage:
      return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    case ResourceKind::kSampledImage:
      return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    case ResourceKind::kSeparateImage:
      return VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    case ResourceKind::kSampler:
      return VK_DESCRIPTOR_TYPE_SAMPLER;
    case ResourceKind::kUniformTexelBuffer:
      return VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    case ResourceKind::kStorageTexelBuffer:
      return VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
    case ResourceKind::kAccelerationStructure:
      return VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
  }
  return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

}  // namespace waverun
