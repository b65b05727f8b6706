#include "tools/waverun/vulkan_runner.h"

#include "tools/waverun/fragment.h"
#include "tools/waverun/vulkan_setup.h"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

#include <unistd.h>

#include "waveopt/io.h"

namespace waverun {
namespace {

int g_compile_fd = -1;  // ReportCompilesTo

void ReportCompile(char what) {
  if (g_compile_fd >= 0 && write(g_compile_fd, &what, 1) < 0) g_compile_fd = -1;
}

constexpr uint64_t kFenceTimeoutNs = 300ull * 1000 * 1000 * 1000;

VkFormat ToVkFormat(ImageFormat f) {
  using F = ImageFormat;
  switch (f) {
    case F::kRgba32f:
      return VK_FORMAT_R32G32B32A32_SFLOAT;
    case F::kRgba16f:
      return VK_FORMAT_R16G16B16A16_SFLOAT;
    case F::kR32f:
      return VK_FORMAT_R32_SFLOAT;
    case F::kRgba8:
      return VK_FORMAT_R8G8B8A8_UNORM;
    case F::kRgba8Snorm:
      return VK_FORMAT_R8G8B8A8_SNORM;
    case F::kRg32f:
      return VK_FORMAT_R32G32_SFLOAT;
    case F::kRg16f:
      return VK_FORMAT_R16G16_SFLOAT;
    case F::kR11fG11fB10f:
      return VK_FORMAT_B10G11R11_UFLOAT_PACK32;
    case F::kR16f:
      return VK_FORMAT_R16_SFLOAT;
    case F::kRgba16:
      return VK_FORMAT_R16G16B16A16_UNORM;
    case F::kRgb10A2:
      return VK_FORMAT_A2B10G10R10_UNORM_PACK32;
    case F::kRg16:
      return VK_FORMAT_R16G16_UNORM;
    case F::kRg8:
      return VK_FORMAT_R8G8_UNORM;
    case F::kR16:
      return VK_FORMAT_R16_UNORM;
    case F::kR8:
      return VK_FORMAT_R8_UNORM;
    case F::kRgba16Snorm:
      return VK_FORMAT_R16G16B16A16_SNORM;
    case F::kRg16Snorm:
      return VK_FORMAT_R16G16_SNORM;
    case F::kRg8Snorm:
      return VK_FORMAT_R8G8_SNORM;
    case F::kR16Snorm:
      return VK_FORMAT_R16_SNORM;
    case F::kR8Snorm:
      return VK_FORMAT_R8_SNORM;
    case F::kRgba32i:
      return VK_FORMAT_R32G32B32A32_SINT;
    case F::kRgba16i:
      return VK_FORMAT_R16G16B16A16_SINT;
    case F::kRgba8i:
      return VK_FORMAT_R8G8B8A8_SINT;
    case F::kR32i:
      return VK_FORMAT_R32_SINT;
    case F::kRg32i:
      return VK_FORMAT_R32G32_SINT;
    case F::kRg16i:
      return VK_FORMAT_R16G16_SINT;
    case F::kRg8i:
      return VK_FORMAT_R8G8_SINT;
    case F::kR16i:
      return VK_FORMAT_R16_SINT;
    case F::kR8i:
      return VK_FORMAT_R8_SINT;
    case F::kRgba32ui:
      return VK_FORMAT_R32G32B32A32_UINT;
    case F::kRgba16ui:
      return VK_FORMAT_R16G16B16A16_UINT;
    case F::kRgba8ui:
      return VK_FORMAT_R8G8B8A8_UINT;
    case F::kR32ui:
      return VK_FORMAT_R32_UINT;
    case F::kRgb10A2ui:
      return VK_FORMAT_A2B10G10R10_UINT_PACK32;
    case F::kRg32ui:
      return VK_FORMAT_R32G32_UINT;
    case F::kRg16ui:
      return VK_FORMAT_R16G16_UINT;
    case F::kRg8ui:
      return VK_FORMAT_R8G8_UINT;
    case F::kR16ui:
      return VK_FORMAT_R16_UINT;
    case F::kR8ui:
      return VK_FORMAT_R8_UINT;
    case F::kR64ui:
      return VK_FORMAT_R64_UINT;
    case F::kR64i:
      return VK_FORMAT_R64_SINT;
    default:
      break;
  }
  return VK_FORMAT_UNDEFINED;
}

// One buffer with host-visible, host-coherent memory, mapped for its life.
struct HostBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDeviceSize size = 0;
};

struct Bound {
  HostBuffer host;  // a buffer or texel buffer itself, or an image's staging buffer
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory image_memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  VkBufferView buffer_view = VK_NULL_HANDLE;
  VkDeviceAddress address = 0;  // pointees
};

// The infos vkUpdateDescriptorSets reads through the writes' pointers:
// reserved up front so that they stay put.
struct DescriptorInfos {
  std::vector<VkDescriptorBufferInfo> buffers;
  std::vector<VkDescriptorImageInfo> images;
  std::vector<VkBufferView> texel_views;
};

// The features a device is created with, chained from |features| (Chain
// appends one), and the extensions that bring some of them. It points into
// itself: neither copied nor moved.
struct FeatureChain {
  FeatureChain() = default;
  FeatureChain(const FeatureChain&) = delete;
  FeatureChain& operator=(const FeatureChain&) = delete;
  template <typename T>
  void Chain(T* s) {
    *tail = s;
    tail = &s->pNext;
  }

  VkPhysicalDeviceVulkan13Features f13 =
      Make<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  VkPhysicalDeviceVulkan12Features f12 =
      Make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  VkPhysicalDeviceVulkan11Features f11 =
      Make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  VkPhysicalDeviceRobustness2FeaturesEXT rob2 = Make<VkPhysicalDeviceRobustness2FeaturesEXT>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT);
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af =
      Make<VkPhysicalDeviceShaderAtomicFloatFeaturesEXT>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT);
  VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT af2 =
      Make<VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_2_FEATURES_EXT);
  VkPhysicalDeviceShaderClockFeaturesKHR clock = Make<VkPhysicalDeviceShaderClockFeaturesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR);
  VkPhysicalDeviceFeatures2 features =
      Make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  std::vector<const char*> extensions;
  void** tail = &features.pNext;
};

class DeviceImpl : public Device {
 public:
  ~DeviceImpl() override;
  bool Init(int index, bool robust, std::string* error);
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<Program> CreateProgram(const std::vector<uint32_t>& words,
                                         const std::string& entry, const Plan& plan,
                                         std::string* error) override;

  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  // A memory type index allowing |bits| with all of |required| (and, when
  // possible, all of |preferred|); -1 if none.
  int FindMemoryType(uint32_t bits, VkMemoryPropertyFlags required,
                     VkMemoryPropertyFlags preferred) const;
  bool CreateHostBuffer(VkDeviceSize size, VkBufferUsageFlags usage, HostBuffer* out,
                        std::string* error);
  void DestroyHostBuffer(HostBuffer* b);
  VkPhysicalDevice physical() const { return physical_; }
  const VkPhysicalDeviceLimits& limits() const { return limits_; }
  bool graphics_queue() const { return graphics_queue_; }

 private:
  // Init's steps, in order; the failing ones with a one-line |error|.
  // The instance and physical device |index| (|api|: the instance's version).
  bool PickPhysicalDevice(int index, uint32_t* api, std::string* error);
  // info_ from |props| and the subgroup (and, |v12|, driver) properties.
  void ReadInfo(const VkPhysicalDeviceProperties& props, bool v12);
  bool FindQueue(const VkPhysicalDeviceProperties& props, std::string* error);
  // The feature structs and extensions the device has, chained into |c|.
  void ChainFeatures(bool robust, bool v12, bool v13, FeatureChain* c) const;
  // After the query: turns off what waverun does not want, records the rest.
  void SelectFeatures(bool robust, bool v12, bool v13, FeatureChain* c);
  bool CreateLogicalDevice(const FeatureChain& c, std::string* error);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  bool graphics_queue_ = false;  // the queue draws too
  VkPhysicalDeviceMemoryProperties memory_{};
  VkPhysicalDeviceLimits limits_{};
  DeviceInfo info_;
};

class ProgramImpl : public Program {
 public:
  explicit ProgramImpl(DeviceImpl* device) : dev_(device) {}
  ~ProgramImpl() override;
  bool Create(const std::vector<uint32_t>& words, const std::string& entry, const Plan& plan,
              std::string* error);
  bool Run(Outputs* outputs, double* ns, std::string* error) override;

 private:
  bool ran_ = false;  // Run has finished once (ReportCompilesTo)
  // The steps of Create, in order; each fails with a one-line |error|.
  // The shader module (a fragment shader's with its color outputs lowered).
  bool CreateModule(const std::vector<uint32_t>& words, std::string* error);
  // The device binds |num_sets| sets and the plan's descriptors per stage.
  bool CheckDescriptorLimits(uint32_t num_sets, std::string* error) const;
  // Set layouts and the pipeline layout; |type_counts|: descriptors by type.
  bool CreateLayouts(uint32_t num_sets, std::map<VkDescriptorType, uint32_t>* type_counts,
                     std::string* error);
  // The compute or graphics pipeline, with the plan's specialization.
  bool CreatePipeline(const std::string& entry, std::string* error);
  bool CreateDescriptorSets(uint32_t num_sets,
                            const std::map<VkDescriptorType, uint32_t>& type_counts,
                            std::string* error);
  // Every descriptor's buffers, images and views, and the sets' writes.
  bool CreateResources(std::string* error);
  bool CreateCommandBuffer(std::string* error);
  // CreateResources' steps: the pointees' buffers (with their addresses),
  // the sampler when a descriptor needs one, and one resource's |p.count|
  // descriptors |bs| of each kind, with their infos for |w|.
  bool CreatePointees(std::string* error);
  bool CreateSampler(std::string* error);
  VkFormatProperties FormatProperties(VkFormat format) const;
  bool BindBuffers(const ResourcePlan& p, const std::string& label, std::vector<Bound>* bs,
                   VkWriteDescriptorSet* w, DescriptorInfos* infos, std::string* error);
  bool BindTexelBuffers(const ResourcePlan& p, const std::string& label, std::vector<Bound>* bs,
                        VkWriteDescriptorSet* w, DescriptorInfos* infos, std::string* error);
  bool BindImages(const ResourcePlan& p, const std::string& label, std::vector<Bound>* bs,
                  VkWriteDescriptorSet* w, DescriptorInfos* infos, std::string* error);
  // Fragment shaders: the render pass, color attachments, framebuffer and
  // the graphics pipeline of waverun's full-screen triangle and |fragment|.
  bool CreateGraphicsPipeline(const std::string& entry, const VkSpecializationInfo* spec,
                              std::string* error);
  bool CreateImage(const ResourcePlan& p, Bound* b, const std::string& label, std::string* error);
  void Record();
  // Canonical device addresses in |bytes| at |slots| -> the pointees' real
  // ones (|to_real|), or back.
  void Translate(const std::vector<PointerSlot>& slots, uint8_t* bytes, size_t size,
                 bool to_real) const;
  // Every 8-byte aligned word of |bytes| that is a real pointee address ->
  // the canonical one.
  void CanonicalizeAll(std::vector<uint8_t>* bytes) const;

  DeviceImpl* dev_;
  Plan plan_;
  std::vector<uint8_t> push_;  // with real addresses
  VkShaderModule module_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSetLayout> set_layouts_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets_;
  VkSampler sampler_ = VK_NULL_HANDLE;
  std::vector<std::vector<Bound>> bound_;  // plan order, one per descriptor
  std::vector<Bound> pointees_;            // plan order
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  // Fragment shaders.
  bool fragment_ = false;
  VkShaderModule vertex_module_ = VK_NULL_HANDLE;
  VkRenderPass render_pass_ = VK_NULL_HANDLE;
  VkFramebuffer framebuffer_ = VK_NULL_HANDLE;
};

DeviceImpl::~DeviceImpl() {
  if (device_) vkDestroyDevice(device_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

bool DeviceImpl::Init(int index, bool robust, std::string* error) {
  uint32_t api = 0;
  if (!PickPhysicalDevice(index, &api, error)) return false;
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  limits_ = props.limits;
  const bool v12 = props.apiVersion >= VK_API_VERSION_1_2 && api >= VK_API_VERSION_1_2;
  const bool v13 = props.apiVersion >= VK_API_VERSION_1_3 && api >= VK_API_VERSION_1_3;
  ReadInfo(props, v12);
  if (props.apiVersion < VK_API_VERSION_1_1) {
    *error = "device '" + info_.name + "' supports only Vulkan 1.0 (1.1 needed)";
    return false;
  }
  if (!FindQueue(props, error)) return false;
  FeatureChain chain;
  ChainFeatures(robust, v12, v13, &chain);
  vkGetPhysicalDeviceFeatures2(physical_, &chain.features);
  SelectFeatures(robust, v12, v13, &chain);
  return CreateLogicalDevice(chain, error);
}

bool DeviceImpl::PickPhysicalDevice(int index, uint32_t* api, std::string* error) {
  if (!CreateInstance("waverun", VK_API_VERSION_1_3, true, &instance_, api, error)) {
    *error = "no Vulkan device: " + *error;
    return false;
  }
  std::vector<VkPhysicalDevice> devices = PhysicalDevices(instance_);
  uint32_t count = static_cast<uint32_t>(devices.size());
  if (count == 0) {
    *error = "no Vulkan device: the driver lists no physical device";
    return false;
  }
  if (index >= static_cast<int>(count)) {
    *error = "no Vulkan device " + std::to_string(index) + ": there are " + std::to_string(count);
    return false;
  }
  physical_ = devices[index < 0 ? 0 : index];
  return true;
}

void DeviceImpl::ReadInfo(const VkPhysicalDeviceProperties& props, bool v12) {
  VkPhysicalDeviceSubgroupProperties subgroup = Make<VkPhysicalDeviceSubgroupProperties>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
  VkPhysicalDeviceDriverProperties driver =
      Make<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
  VkPhysicalDeviceProperties2 props2 =
      Make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  props2.pNext = &subgroup;
  if (v12) subgroup.pNext = &driver;
  vkGetPhysicalDeviceProperties2(physical_, &props2);
  info_.name = props.deviceName;
  info_.api_version = props.apiVersion;
  info_.subgroup_size = subgroup.subgroupSize;
  if (v12) info_.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  info_.is_lavapipe = info_.name.find("llvmpipe") != std::string::npos;
  info_.timestamp_period_ns = props.limits.timestampPeriod;
}

bool DeviceImpl::FindQueue(const VkPhysicalDeviceProperties& props, std::string* error) {
  // A compute queue, one that also draws when there is one (fragment shaders).
  VkQueueFamilyProperties qprops{};
  graphics_queue_ = FindQueueFamily(physical_, VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT,
                                    &queue_family_, &qprops);
  bool found =
      graphics_queue_ || FindQueueFamily(physical_, VK_QUEUE_COMPUTE_BIT, &queue_family_, &qprops);
  info_.timestamps = found && qprops.timestampValidBits > 0 && props.limits.timestampPeriod > 0;
  if (!found) {
    *error = "device '" + info_.name + "' has no compute queue";
    return false;
  }
  return true;
}

void DeviceImpl::ChainFeatures(bool robust, bool v12, bool v13, FeatureChain* c) const {
  // Extensions waverun enables when the device has them, with their features.
  uint32_t ext_count = 0;
  vkEnumerateDeviceExtensionProperties(physical_, nullptr, &ext_count, nullptr);
  std::vector<VkExtensionProperties> exts(ext_count);
  if (ext_count) vkEnumerateDeviceExtensionProperties(physical_, nullptr, &ext_count, exts.data());
  auto has = [&](const char* name) {
    for (const VkExtensionProperties& e : exts) {
      if (std::strcmp(e.extensionName, name) == 0) return true;
    }
    return false;
  };
  if (v12) {
    c->Chain(&c->f11);
    c->Chain(&c->f12);
    if (v13) c->Chain(&c->f13);
  }
  if (robust && has(VK_EXT_ROBUSTNESS_2_EXTENSION_NAME)) {
    c->extensions.push_back(VK_EXT_ROBUSTNESS_2_EXTENSION_NAME);
    c->Chain(&c->rob2);
  }
  if (has(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
    c->extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    c->Chain(&c->af);
  }
  if (has(VK_EXT_SHADER_ATOMIC_FLOAT_2_EXTENSION_NAME) &&
      has(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
    c->extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_2_EXTENSION_NAME);
    c->Chain(&c->af2);
  }
  if (has(VK_KHR_SHADER_CLOCK_EXTENSION_NAME)) {
    c->extensions.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
    c->Chain(&c->clock);
  }
}

void DeviceImpl::SelectFeatures(bool robust, bool v12, bool v13, FeatureChain* c) {
  VkPhysicalDeviceFeatures2& features = c->features;
  VkPhysicalDeviceVulkan12Features& f12 = c->f12;
  // Every supported feature; robust access only when asked (it changes what
  // out-of-bounds accesses do and costs time).
  if (!robust) {
    features.features.robustBufferAccess = VK_FALSE;
    if (v13) c->f13.robustImageAccess = VK_FALSE;
  }
  info_.robust = features.features.robustBufferAccess == VK_TRUE;
  info_.robustness2 = c->rob2.robustBufferAccess2 == VK_TRUE && robust;
  if (robust && c->rob2.robustBufferAccess2 && !features.features.robustBufferAccess) {
    c->rob2.robustBufferAccess2 = VK_FALSE;  // requires robustBufferAccess
    info_.robustness2 = false;
  }
  info_.device_addresses = v12 && f12.bufferDeviceAddress == VK_TRUE;
  if (v12) {
    info_.runtime_descriptor_arrays = f12.runtimeDescriptorArray == VK_TRUE;
    info_.nonuniform_ubo = f12.shaderUniformBufferArrayNonUniformIndexing == VK_TRUE;
    info_.nonuniform_sampled = f12.shaderSampledImageArrayNonUniformIndexing == VK_TRUE;
    info_.nonuniform_ssbo = f12.shaderStorageBufferArrayNonUniformIndexing == VK_TRUE;
    info_.nonuniform_storage_image = f12.shaderStorageImageArrayNonUniformIndexing == VK_TRUE;
    info_.nonuniform_utb = f12.shaderUniformTexelBufferArrayNonUniformIndexing == VK_TRUE;
    info_.nonuniform_stb = f12.shaderStorageTexelBufferArrayNonUniformIndexing == VK_TRUE;
  }
  if (v12) {
    f12.bufferDeviceAddressCaptureReplay = VK_FALSE;
    f12.bufferDeviceAddressMultiDevice = VK_FALSE;
  }
}

bool DeviceImpl::CreateLogicalDevice(const FeatureChain& c, std::string* error) {
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci =
      Make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  qci.queueFamilyIndex = queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci = Make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  dci.pNext = &c.features;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = static_cast<uint32_t>(c.extensions.size());
  dci.ppEnabledExtensionNames = c.extensions.data();
  VkResult r = vkCreateDevice(physical_, &dci, nullptr, &device_);
  if (r != VK_SUCCESS) {
    device_ = VK_NULL_HANDLE;
    *error = "cannot create a device on '" + info_.name + "' (" + VkResultName(r) + ")";
    return false;
  }
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
  return true;
}

int DeviceImpl::FindMemoryType(uint32_t bits, VkMemoryPropertyFlags required,
                               VkMemoryPropertyFlags preferred) const {
  int fallback = -1;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if (!(bits & (1u << i))) continue;
    VkMemoryPropertyFlags f = memory_.memoryTypes[i].propertyFlags;
    if ((f & required) != required) continue;
    if ((f & preferred) == preferred) return static_cast<int>(i);
    if (fallback < 0) fallback = static_cast<int>(i);
  }
  return fallback;
}

bool DeviceImpl::CreateHostBuffer(VkDeviceSize size, VkBufferUsageFlags usage, HostBuffer* out,
                                  std::string* error) {
  if (info_.device_addresses &&
      (usage & (VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT))) {
    usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  }
  VkBufferCreateInfo bci = Make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  bci.size = size;
  bci.usage = usage;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = vkCreateBuffer(device_, &bci, nullptr, &out->buffer);
  if (r != VK_SUCCESS) {
    out->buffer = VK_NULL_HANDLE;
    *error =
        "cannot create a buffer of " + std::to_string(size) + " bytes (" + VkResultName(r) + ")";
    return false;
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, out->buffer, &req);
  int type =
      FindMemoryType(req.memoryTypeBits,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (type < 0) {
    *error = "the device has no host-visible, host-coherent memory for buffers";
    return false;
  }
  VkMemoryAllocateFlagsInfo flags =
      Make<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo mai = Make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  if (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) mai.pNext = &flags;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = static_cast<uint32_t>(type);
  r = vkAllocateMemory(device_, &mai, nullptr, &out->memory);
  if (r == VK_SUCCESS) r = vkBindBufferMemory(device_, out->buffer, out->memory, 0);
  if (r == VK_SUCCESS) r = vkMapMemory(device_, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
  if (r != VK_SUCCESS) {
    *error = "cannot allocate " + std::to_string(size) + " bytes of buffer memory (" +
             VkResultName(r) + ")";
    return false;
  }
  out->size = size;
  return true;
}

void DeviceImpl::DestroyHostBuffer(HostBuffer* b) {
  if (b->buffer) vkDestroyBuffer(device_, b->buffer, nullptr);
  if (b->memory) vkFreeMemory(device_, b->memory, nullptr);
  *b = HostBuffer();
}

std::unique_ptr<Program> DeviceImpl::CreateProgram(const std::vector<uint32_t>& words,
                                                   const std::string& entry, const Plan& plan,
                                                   std::string* error) {
  auto program = std::make_unique<ProgramImpl>(this);
  ReportCompile('b');
  if (!program->Create(words, entry, plan, error)) {
    ReportCompile('e');
    return nullptr;
  }
  return program;
}

ProgramImpl::~ProgramImpl() {
  VkDevice d = dev_->device();
  vkDeviceWaitIdle(d);
  if (queries_) vkDestroyQueryPool(d, queries_, nullptr);
  if (fence_) vkDestroyFence(d, fence_, nullptr);
  if (command_pool_) vkDestroyCommandPool(d, command_pool_, nullptr);
  auto destroy = [&](Bound& b) {
    if (b.buffer_view) vkDestroyBufferView(d, b.buffer_view, nullptr);
    if (b.view) vkDestroyImageView(d, b.view, nullptr);
    if (b.image) vkDestroyImage(d, b.image, nullptr);
    if (b.image_memory) vkFreeMemory(d, b.image_memory, nullptr);
    dev_->DestroyHostBuffer(&b.host);
  };
  for (std::vector<Bound>& bs : bound_) {
    for (Bound& b : bs) destroy(b);
  }
  for (Bound& b : pointees_) destroy(b);
  if (sampler_) vkDestroySampler(d, sampler_, nullptr);
  if (pool_) vkDestroyDescriptorPool(d, pool_, nullptr);
  if (pipeline_) vkDestroyPipeline(d, pipeline_, nullptr);
  if (framebuffer_) vkDestroyFramebuffer(d, framebuffer_, nullptr);
  if (render_pass_) vkDestroyRenderPass(d, render_pass_, nullptr);
  if (vertex_module_) vkDestroyShaderModule(d, vertex_module_, nullptr);
  if (layout_) vkDestroyPipelineLayout(d, layout_, nullptr);
  for (VkDescriptorSetLayout l : set_layouts_) vkDestroyDescriptorSetLayout(d, l, nullptr);
  if (module_) vkDestroyShaderModule(d, module_, nullptr);
}

bool ProgramImpl::Create(const std::vector<uint32_t>& words, const std::string& entry,
                         const Plan& plan, std::string* error) {
  plan_ = plan;
  fragment_ = plan_.stage == Stage::kFragment;
  if (fragment_ && !dev_->graphics_queue()) {
    *error = "device '" + dev_->info().name +
             "' has no queue that draws: fragment shaders "
             "cannot run on it";
    return false;
  }
  if (!plan_.pointees.empty() && !dev_->info().device_addresses) {
    *error = "the module uses buffer device addresses, which device '" + dev_->info().name +
             "' does not support";
    return false;
  }
  if (!CreateModule(words, error)) return false;
  // One layout per set index up to the largest; gaps get empty layouts.
  uint32_t num_sets = 0;
  for (const ResourcePlan& p : plan_.resources) {
    if (p.declared) num_sets = std::max(num_sets, p.key.first + 1);
  }
  std::map<VkDescriptorType, uint32_t> type_counts;
  if (!CheckDescriptorLimits(num_sets, error) || !CreateLayouts(num_sets, &type_counts, error) ||
      !CreatePipeline(entry, error) || !CreateDescriptorSets(num_sets, type_counts, error) ||
      !CreateResources(error)) {
    return false;
  }
  Translate(plan_.push_pointers, push_.data(), push_.size(), /*to_real=*/true);
  if (!CreateCommandBuffer(error)) return false;
  Record();
  return true;
}

bool ProgramImpl::CreateModule(const std::vector<uint32_t>& words, std::string* error) {
  // A fragment shader's color outputs go to storage buffers (fragment.h).
  std::vector<uint32_t> lowered;
  if (fragment_) {
    lowered = words;
    std::vector<ColorBuffer> buffers;
    for (const ResourcePlan& p : plan_.resources) {
      if (p.res.color_location >= 0 && p.declared) {
        buffers.push_back({static_cast<uint32_t>(p.res.color_location), p.key.first, p.key.second});
      }
    }
    if (!LowerColorOutputs(&lowered, buffers, plan_.draw_width, error)) return false;
  }
  const std::vector<uint32_t>& code = fragment_ ? lowered : words;
  VkShaderModuleCreateInfo smci =
      Make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  smci.codeSize = code.size() * 4;
  smci.pCode = code.data();
  VkResult r = vkCreateShaderModule(dev_->device(), &smci, nullptr, &module_);
  if (r != VK_SUCCESS) {
    module_ = VK_NULL_HANDLE;
    *error = "the driver rejected the shader module (" + VkResultName(r) + ")";
    return false;
  }
  return true;
}

bool ProgramImpl::CheckDescriptorLimits(uint32_t num_sets, std::string* error) const {
  if (num_sets > dev_->limits().maxBoundDescriptorSets) {
    *error = "the module uses descriptor set " + std::to_string(num_sets - 1) + "; device '" +
             dev_->info().name + "' binds at most " +
             std::to_string(dev_->limits().maxBoundDescriptorSets) + " sets";
    return false;
  }
  // Per-stage descriptor limits: drivers crash past them rather than fail.
  uint64_t samplers = 0, sampled = 0, storage_images = 0, ubos = 0, ssbos = 0;
  for (const ResourcePlan& p : plan_.resources) {
    if (!p.declared) continue;
    switch (p.res.kind) {
      case ResourceKind::kStorageBuffer:
        ssbos += p.count;
        break;
      case ResourceKind::kUniformBuffer:
        ubos += p.count;
        break;
      case ResourceKind::kSampledImage:
        samplers += p.count;
        sampled += p.count;
        break;
      case ResourceKind::kSampler:
        samplers += p.count;
        break;
      case ResourceKind::kSeparateImage:
      case ResourceKind::kUniformTexelBuffer:
        sampled += p.count;
        break;
      case ResourceKind::kStorageImage:
      case ResourceKind::kStorageTexelBuffer:
        storage_images += p.count;
        break;
      case ResourceKind::kAccelerationStructure:
        break;  // reflected for isa only, never run
    }
  }
  const VkPhysicalDeviceLimits& l = dev_->limits();
  const struct {
    uint64_t n;
    uint32_t limit;
    const char* what;
  } checks[] = {
      {samplers, l.maxPerStageDescriptorSamplers, "samplers"},
      {sampled, l.maxPerStageDescriptorSampledImages, "sampled images and uniform texel buffers"},
      {storage_images, l.maxPerStageDescriptorStorageImages,
       "storage images and storage texel buffers"},
      {ubos, l.maxPerStageDescriptorUniformBuffers, "uniform buffers"},
      {ssbos, l.maxPerStageDescriptorStorageBuffers, "storage buffers"},
      {sampled + storage_images + ubos + ssbos, l.maxPerStageResources, "resources"},
  };
  for (const auto& c : checks) {
    if (c.n > c.limit) {
      *error = "the module binds " + std::to_string(c.n) + " " + c.what + "; device '" +
               dev_->info().name + "' allows " + std::to_string(c.limit) + " per shader stage";
      return false;
    }
  }
  return true;
}

bool ProgramImpl::CreateLayouts(uint32_t num_sets,
                                std::map<VkDescriptorType, uint32_t>* type_counts,
                                std::string* error) {
  VkDevice d = dev_->device();
  const VkShaderStageFlags stage =
      fragment_ ? VK_SHADER_STAGE_FRAGMENT_BIT : VK_SHADER_STAGE_COMPUTE_BIT;
  std::vector<std::vector<VkDescriptorSetLayoutBinding>> per_set(num_sets);
  for (const ResourcePlan& p : plan_.resources) {
    if (!p.declared) continue;
    VkDescriptorSetLayoutBinding b{};
    b.binding = p.key.second;
    b.descriptorType = DescriptorType(p.res.kind);
    b.descriptorCount = p.count;
    b.stageFlags = stage;
    per_set[p.key.first].push_back(b);
    (*type_counts)[b.descriptorType] += p.count;
  }
  for (uint32_t s = 0; s < num_sets; ++s) {
    VkDescriptorSetLayoutCreateInfo lci =
        Make<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    lci.bindingCount = static_cast<uint32_t>(per_set[s].size());
    lci.pBindings = per_set[s].data();
    VkDescriptorSetLayout l;
    if (vkCreateDescriptorSetLayout(d, &lci, nullptr, &l) != VK_SUCCESS) {
      *error = "cannot create descriptor set layout " + std::to_string(s);
      return false;
    }
    set_layouts_.push_back(l);
  }
  push_ = plan_.push;
  VkPushConstantRange range{stage, 0, static_cast<uint32_t>(plan_.push.size())};
  if (range.size > dev_->limits().maxPushConstantsSize) {
    *error = "the module's push constants take " + std::to_string(range.size) + " bytes; device '" +
             dev_->info().name + "' allows " + std::to_string(dev_->limits().maxPushConstantsSize);
    return false;
  }
  VkPipelineLayoutCreateInfo plci =
      Make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  plci.setLayoutCount = num_sets;
  plci.pSetLayouts = set_layouts_.data();
  plci.pushConstantRangeCount = plan_.push.empty() ? 0 : 1;
  plci.pPushConstantRanges = &range;
  VkResult r = vkCreatePipelineLayout(d, &plci, nullptr, &layout_);
  if (r != VK_SUCCESS) {
    layout_ = VK_NULL_HANDLE;
    *error = "cannot create the pipeline layout (" + VkResultName(r) + ")";
    return false;
  }
  return true;
}

bool ProgramImpl::CreatePipeline(const std::string& entry, std::string* error) {
  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint8_t> spec_data;
  for (const SpecValue& v : plan_.constants) {
    entries.push_back({v.constant_id, static_cast<uint32_t>(spec_data.size()), v.bytes});
    spec_data.resize(spec_data.size() + v.bytes);
    std::memcpy(spec_data.data() + spec_data.size() - v.bytes, &v.bits, v.bytes);
  }
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(), spec_data.size(),
                            spec_data.data()};
  if (fragment_) return CreateGraphicsPipeline(entry, entries.empty() ? nullptr : &spec, error);
  VkComputePipelineCreateInfo cpci =
      Make<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module_;
  cpci.stage.pName = entry.c_str();
  cpci.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
  cpci.layout = layout_;
  VkResult r =
      vkCreateComputePipelines(dev_->device(), VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline_);
  if (r != VK_SUCCESS) {
    pipeline_ = VK_NULL_HANDLE;
    *error = "the driver rejected the shader: vkCreateComputePipelines returned " + VkResultName(r);
    return false;
  }
  return true;
}

bool ProgramImpl::CreateDescriptorSets(uint32_t num_sets,
                                       const std::map<VkDescriptorType, uint32_t>& type_counts,
                                       std::string* error) {
  if (num_sets == 0) return true;
  VkDevice d = dev_->device();
  std::vector<VkDescriptorPoolSize> sizes;
  for (const auto& tc : type_counts) sizes.push_back({tc.first, tc.second});
  VkDescriptorPoolCreateInfo dpci =
      Make<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  dpci.maxSets = num_sets;
  dpci.poolSizeCount = static_cast<uint32_t>(sizes.size());
  dpci.pPoolSizes = sizes.data();
  if (vkCreateDescriptorPool(d, &dpci, nullptr, &pool_) != VK_SUCCESS) {
    *error = "cannot create a descriptor pool";
    return false;
  }
  VkDescriptorSetAllocateInfo dsai =
      Make<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  dsai.descriptorPool = pool_;
  dsai.descriptorSetCount = num_sets;
  dsai.pSetLayouts = set_layouts_.data();
  sets_.resize(num_sets);
  if (vkAllocateDescriptorSets(d, &dsai, sets_.data()) != VK_SUCCESS) {
    *error = "cannot allocate descriptor sets";
    return false;
  }
  return true;
}

bool ProgramImpl::CreateCommandBuffer(std::string* error) {
  VkDevice d = dev_->device();
  VkCommandPoolCreateInfo cpi =
      Make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  cpi.queueFamilyIndex = dev_->queue_family();
  VkCommandBufferAllocateInfo cbai =
      Make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  VkFenceCreateInfo fci = Make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  if (vkCreateCommandPool(d, &cpi, nullptr, &command_pool_) != VK_SUCCESS ||
      (cbai.commandPool = command_pool_, cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
       cbai.commandBufferCount = 1, vkAllocateCommandBuffers(d, &cbai, &cmd_) != VK_SUCCESS) ||
      vkCreateFence(d, &fci, nullptr, &fence_) != VK_SUCCESS) {
    *error = "cannot create a command buffer or fence";
    return false;
  }
  if (dev_->info().timestamps) {
    VkQueryPoolCreateInfo qpci =
        Make<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    qpci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpci.queryCount = 2;
    if (vkCreateQueryPool(d, &qpci, nullptr, &queries_) != VK_SUCCESS) queries_ = VK_NULL_HANDLE;
  }
  return true;
}

bool ProgramImpl::CreateGraphicsPipeline(const std::string& entry, const VkSpecializationInfo* spec,
                                         std::string* error) {
  VkDevice d = dev_->device();
  const uint32_t width = plan_.draw_width, height = plan_.draw_height;
  const VkPhysicalDeviceLimits& limits = dev_->limits();
  if (width > limits.maxFramebufferWidth || height > limits.maxFramebufferHeight) {
    *error = "a " + std::to_string(width) + "x" + std::to_string(height) +
             " target is larger than device '" + dev_->info().name + "' draws (" +
             std::to_string(limits.maxFramebufferWidth) + "x" +
             std::to_string(limits.maxFramebufferHeight) + ")";
    return false;
  }
  // The vertex shader, compiled here (it is small).
  std::vector<uint32_t> vertex_words;
  waveopt::CompileOptions options;
  options.stage = "vert";
  std::string err;
  if (!waveopt::CompileShader(VertexShaderSource(plan_.fragment_inputs), "waverun.vert", options,
                              &vertex_words, &err)) {
    *error = "waverun's vertex shader: " + err;
    return false;
  }
  VkShaderModuleCreateInfo smci =
      Make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  smci.codeSize = vertex_words.size() * 4;
  smci.pCode = vertex_words.data();
  if (vkCreateShaderModule(d, &smci, nullptr, &vertex_module_) != VK_SUCCESS) {
    vertex_module_ = VK_NULL_HANDLE;
    *error = "the driver rejected waverun's vertex shader";
    return false;
  }
  // No attachments: the color outputs go to storage buffers.
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;

  VkRenderPassCreateInfo rpci =
      Make<VkRenderPassCreateInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO);
  rpci.subpassCount = 1;
  rpci.pSubpasses = &subpass;
  if (vkCreateRenderPass(d, &rpci, nullptr, &render_pass_) != VK_SUCCESS) {
    render_pass_ = VK_NULL_HANDLE;
    *error = "cannot create the render pass";
    return false;
  }
  VkFramebufferCreateInfo fci =
      Make<VkFramebufferCreateInfo>(VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO);
  fci.renderPass = render_pass_;
  fci.width = width;
  fci.height = height;
  fci.layers = 1;
  if (vkCreateFramebuffer(d, &fci, nullptr, &framebuffer_) != VK_SUCCESS) {
    framebuffer_ = VK_NULL_HANDLE;
    *error = "cannot create the framebuffer";
    return false;
  }

  VkPipelineShaderStageCreateInfo stages[2] = {
      Make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO),
      Make<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO)};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vertex_module_;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = module_;
  stages[1].pName = entry.c_str();
  stages[1].pSpecializationInfo = spec;
  VkPipelineVertexInputStateCreateInfo vertex_input = Make<VkPipelineVertexInputStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO);
  VkPipelineInputAssemblyStateCreateInfo assembly = Make<VkPipelineInputAssemblyStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO);
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkViewport viewport{0.0f, 0.0f, static_cast<float>(width), static_cast<float>(height),
                      0.0f, 1.0f};
  VkRect2D scissor{{0, 0}, {width, height}};
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
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample = Make<VkPipelineMultisampleStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO);
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendStateCreateInfo blend = Make<VkPipelineColorBlendStateCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO);
  VkGraphicsPipelineCreateInfo gpci =
      Make<VkGraphicsPipelineCreateInfo>(VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO);
  gpci.stageCount = 2;
  gpci.pStages = stages;
  gpci.pVertexInputState = &vertex_input;
  gpci.pInputAssemblyState = &assembly;
  gpci.pViewportState = &viewport_state;
  gpci.pRasterizationState = &raster;
  gpci.pMultisampleState = &multisample;
  gpci.pColorBlendState = &blend;
  gpci.layout = layout_;
  gpci.renderPass = render_pass_;
  gpci.subpass = 0;
  VkResult r = vkCreateGraphicsPipelines(d, VK_NULL_HANDLE, 1, &gpci, nullptr, &pipeline_);
  if (r != VK_SUCCESS) {
    pipeline_ = VK_NULL_HANDLE;
    *error =
        "the driver rejected the shader: vkCreateGraphicsPipelines returned " + VkResultName(r);
    return false;
  }
  return true;
}

bool ProgramImpl::CreateImage(const ResourcePlan& p, Bound* b, const std::string& label,
                              std::string* error) {
  VkDevice d = dev_->device();
  VkFormat format = ToVkFormat(p.format);
  bool storage = p.res.kind == ResourceKind::kStorageImage;
  bool cube = p.res.dim == ImageDim::kCube;
  bool three_d = p.res.dim == ImageDim::k3D;
  uint32_t layers = three_d ? 1 : p.depth;
  VkImageCreateInfo ici = Make<VkImageCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO);
  ici.flags = cube ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0;
  ici.imageType = p.res.dim == ImageDim::k1D ? VK_IMAGE_TYPE_1D
                  : three_d                  ? VK_IMAGE_TYPE_3D
                                             : VK_IMAGE_TYPE_2D;
  ici.format = format;
  ici.extent = {p.width, p.height, three_d ? p.depth : 1};
  ici.mipLevels = 1;
  ici.arrayLayers = layers;
  ici.samples = VK_SAMPLE_COUNT_1_BIT;
  ici.tiling = VK_IMAGE_TILING_OPTIMAL;
  ici.usage = (storage ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT) |
              VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkImageFormatProperties ifp;
  VkResult r = vkGetPhysicalDeviceImageFormatProperties(dev_->physical(), format, ici.imageType,
                                                        ici.tiling, ici.usage, ici.flags, &ifp);
  if (r != VK_SUCCESS || ifp.maxExtent.width < ici.extent.width ||
      ifp.maxExtent.height < ici.extent.height || ifp.maxExtent.depth < ici.extent.depth ||
      ifp.maxArrayLayers < layers) {
    *error = label + ": the device cannot create a " + ImageDimName(p.res.dim, p.res.arrayed) +
             " " + GetFormatInfo(p.format).name + " image of " + std::to_string(p.width) + "x" +
             std::to_string(p.height) + "x" + std::to_string(p.depth);
    return false;
  }
  r = vkCreateImage(d, &ici, nullptr, &b->image);
  if (r != VK_SUCCESS) {
    b->image = VK_NULL_HANDLE;
    *error = label + ": cannot create the image (" + VkResultName(r) + ")";
    return false;
  }
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(d, b->image, &req);
  int type = dev_->FindMemoryType(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VkMemoryAllocateInfo mai = Make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = static_cast<uint32_t>(type);
  if (type < 0 || vkAllocateMemory(d, &mai, nullptr, &b->image_memory) != VK_SUCCESS ||
      vkBindImageMemory(d, b->image, b->image_memory, 0) != VK_SUCCESS) {
    *error = label + ": cannot allocate image memory";
    return false;
  }
  VkImageViewCreateInfo vci = Make<VkImageViewCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO);
  vci.image = b->image;
  switch (p.res.dim) {
    case ImageDim::k1D:
      vci.viewType = p.res.arrayed ? VK_IMAGE_VIEW_TYPE_1D_ARRAY : VK_IMAGE_VIEW_TYPE_1D;
      break;
    case ImageDim::k3D:
      vci.viewType = VK_IMAGE_VIEW_TYPE_3D;
      break;
    case ImageDim::kCube:
      vci.viewType = p.res.arrayed ? VK_IMAGE_VIEW_TYPE_CUBE_ARRAY : VK_IMAGE_VIEW_TYPE_CUBE;
      break;
    default:
      vci.viewType = p.res.arrayed ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D;
      break;
  }
  vci.format = format;
  vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers};
  if (vkCreateImageView(d, &vci, nullptr, &b->view) != VK_SUCCESS) {
    *error = label + ": cannot create an image view";
    return false;
  }
  return true;
}

bool ProgramImpl::CreateResources(std::string* error) {
  bound_.resize(plan_.resources.size());
  // Infos must stay put until vkUpdateDescriptorSets: reserve them all.
  size_t total = 0;
  for (const ResourcePlan& p : plan_.resources) total += p.count;
  DescriptorInfos infos;
  infos.buffers.reserve(total);
  infos.images.reserve(total);
  infos.texel_views.reserve(total);
  std::vector<VkWriteDescriptorSet> writes;
  // Pointees first: resources' bytes hold their addresses.
  if (!CreatePointees(error) || !CreateSampler(error)) return false;
  for (size_t i = 0; i < plan_.resources.size(); ++i) {
    const ResourcePlan& p = plan_.resources[i];
    if (!p.declared) continue;
    std::vector<Bound>& bs = bound_[i];
    bs.resize(p.count);
    std::string label = ResourceLabel(p);
    VkWriteDescriptorSet w = Make<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    w.dstSet = sets_[p.key.first];
    w.dstBinding = p.key.second;
    w.descriptorCount = p.count;
    w.descriptorType = DescriptorType(p.res.kind);
    bool ok = true;
    switch (p.res.kind) {
      case ResourceKind::kStorageBuffer:
      case ResourceKind::kUniformBuffer:
        ok = BindBuffers(p, label, &bs, &w, &infos, error);
        break;
      case ResourceKind::kUniformTexelBuffer:
      case ResourceKind::kStorageTexelBuffer:
        ok = BindTexelBuffers(p, label, &bs, &w, &infos, error);
        break;
      case ResourceKind::kSampler:
        w.pImageInfo = infos.images.data() + infos.images.size();
        for (uint32_t e = 0; e < p.count; ++e) {
          infos.images.push_back({sampler_, VK_NULL_HANDLE, VK_IMAGE_LAYOUT_UNDEFINED});
        }
        break;
      default:
        ok = BindImages(p, label, &bs, &w, &infos, error);
        break;
    }
    if (!ok) return false;
    writes.push_back(w);
  }
  if (!writes.empty()) {
    vkUpdateDescriptorSets(dev_->device(), static_cast<uint32_t>(writes.size()), writes.data(), 0,
                           nullptr);
  }
  return true;
}

bool ProgramImpl::CreatePointees(std::string* error) {
  pointees_.resize(plan_.pointees.size());
  for (size_t k = 0; k < plan_.pointees.size(); ++k) {
    const PointeePlan& pp = plan_.pointees[k];
    Bound& b = pointees_[k];
    if (!dev_->CreateHostBuffer(pp.initial.size() + kPointeeGuardBytes,
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &b.host, error)) {
      *error = "pointer " + pp.label + ": " + *error;
      return false;
    }
    VkBufferDeviceAddressInfo ai =
        Make<VkBufferDeviceAddressInfo>(VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO);
    ai.buffer = b.host.buffer;
    b.address = vkGetBufferDeviceAddress(dev_->device(), &ai);
    if (b.address == 0) {
      *error = "pointer " + pp.label + ": the device gave the buffer no address";
      return false;
    }
  }
  return true;
}

bool ProgramImpl::CreateSampler(std::string* error) {
  if (sampler_) return true;
  bool any = false;
  for (const ResourcePlan& p : plan_.resources) {
    any = any || (p.declared && (p.res.kind == ResourceKind::kSampledImage ||
                                 p.res.kind == ResourceKind::kSampler));
  }
  if (!any) return true;
  VkSamplerCreateInfo sci = Make<VkSamplerCreateInfo>(VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO);
  sci.magFilter = VK_FILTER_NEAREST;
  sci.minFilter = VK_FILTER_NEAREST;
  sci.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  sci.addressModeU = sci.addressModeV = sci.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  if (vkCreateSampler(dev_->device(), &sci, nullptr, &sampler_) != VK_SUCCESS) {
    *error = "cannot create a sampler";
    return false;
  }
  return true;
}

VkFormatProperties ProgramImpl::FormatProperties(VkFormat format) const {
  VkFormatProperties fp{};
  if (format != VK_FORMAT_UNDEFINED)
    vkGetPhysicalDeviceFormatProperties(dev_->physical(), format, &fp);
  return fp;
}

bool ProgramImpl::BindBuffers(const ResourcePlan& p, const std::string& label,
                              std::vector<Bound>* bs, VkWriteDescriptorSet* w,
                              DescriptorInfos* infos, std::string* error) {
  bool uniform = p.res.kind == ResourceKind::kUniformBuffer;
  if (uniform && p.element_bytes > dev_->limits().maxUniformBufferRange) {
    *error = label + ": a uniform buffer of " + std::to_string(p.element_bytes) +
             " bytes is larger than device '" + dev_->info().name + "' allows (" +
             std::to_string(dev_->limits().maxUniformBufferRange) + ")";
    return false;
  }
  w->pBufferInfo = infos->buffers.data() + infos->buffers.size();
  for (uint32_t e = 0; e < p.count; ++e) {
    Bound& b = (*bs)[e];
    if (!dev_->CreateHostBuffer(
            p.element_bytes,
            uniform ? VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
            &b.host, error)) {
      *error = label + ": " + *error;
      return false;
    }
    infos->buffers.push_back({b.host.buffer, 0, VK_WHOLE_SIZE});
  }
  return true;
}

bool ProgramImpl::BindTexelBuffers(const ResourcePlan& p, const std::string& label,
                                   std::vector<Bound>* bs, VkWriteDescriptorSet* w,
                                   DescriptorInfos* infos, std::string* error) {
  VkFormat format = ToVkFormat(p.format);
  VkFormatProperties fp = FormatProperties(format);
  bool storage = p.res.kind == ResourceKind::kStorageTexelBuffer;
  VkFormatFeatureFlags need = storage ? VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT
                                      : VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT;
  if (format == VK_FORMAT_UNDEFINED || (fp.bufferFeatures & need) != need) {
    *error = label + ": the device cannot use format " + std::string(GetFormatInfo(p.format).name) +
             " as a " + ResourceKindName(p.res.kind);
    return false;
  }
  if (p.width > dev_->limits().maxTexelBufferElements) {
    *error = label + ": " + std::to_string(p.width) + " texels is more than device '" +
             dev_->info().name + "' allows in a texel buffer (" +
             std::to_string(dev_->limits().maxTexelBufferElements) + ")";
    return false;
  }
  w->pTexelBufferView = infos->texel_views.data() + infos->texel_views.size();
  for (uint32_t e = 0; e < p.count; ++e) {
    Bound& b = (*bs)[e];
    if (!dev_->CreateHostBuffer(p.element_bytes,
                                storage ? VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT
                                        : VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT,
                                &b.host, error)) {
      *error = label + ": " + *error;
      return false;
    }
    VkBufferViewCreateInfo bv =
        Make<VkBufferViewCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO);
    bv.buffer = b.host.buffer;
    bv.format = format;
    bv.range = VK_WHOLE_SIZE;
    if (vkCreateBufferView(dev_->device(), &bv, nullptr, &b.buffer_view) != VK_SUCCESS) {
      *error = label + ": cannot create a buffer view";
      return false;
    }
    infos->texel_views.push_back(b.buffer_view);
  }
  return true;
}

bool ProgramImpl::BindImages(const ResourcePlan& p, const std::string& label,
                             std::vector<Bound>* bs, VkWriteDescriptorSet* w,
                             DescriptorInfos* infos, std::string* error) {
  VkFormat format = ToVkFormat(p.format);
  VkFormatProperties fp = FormatProperties(format);
  bool storage = p.res.kind == ResourceKind::kStorageImage;
  VkFormatFeatureFlags need =
      storage ? VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT : VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
  if (storage && p.res.image_atomics) need |= VK_FORMAT_FEATURE_STORAGE_IMAGE_ATOMIC_BIT;
  if (format == VK_FORMAT_UNDEFINED || (fp.optimalTilingFeatures & need) != need) {
    *error = label + ": the device cannot use format " + std::string(GetFormatInfo(p.format).name) +
             (storage ? (p.res.image_atomics ? " as a storage image with atomics"
                                             : " as a storage image")
                      : " as a sampled image");
    return false;
  }
  w->pImageInfo = infos->images.data() + infos->images.size();
  for (uint32_t e = 0; e < p.count; ++e) {
    Bound& b = (*bs)[e];
    if (!dev_->CreateHostBuffer(p.element_bytes,
                                VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                &b.host, error)) {
      *error = label + ": " + *error;
      return false;
    }
    if (!CreateImage(p, &b, label, error)) return false;
    infos->images.push_back({p.res.kind == ResourceKind::kSampledImage ? sampler_ : VK_NULL_HANDLE,
                             b.view, VK_IMAGE_LAYOUT_GENERAL});
  }
  return true;
}

void ProgramImpl::Translate(const std::vector<PointerSlot>& slots, uint8_t* bytes, size_t size,
                            bool to_real) const {
  for (const PointerSlot& s : slots) {
    if (s.offset + 8 > size) continue;
    uint64_t v;
    std::memcpy(&v, bytes + s.offset, 8);
    for (size_t k = 0; k < plan_.pointees.size(); ++k) {
      uint64_t from = to_real ? plan_.pointees[k].address : pointees_[k].address;
      uint64_t to = to_real ? pointees_[k].address : plan_.pointees[k].address;
      uint64_t span = to_real ? kPointeeAddressSpan : pointees_[k].host.size;
      if (v - from < span) {
        v = to + (v - from);
        std::memcpy(bytes + s.offset, &v, 8);
        break;
      }
    }
  }
}

void ProgramImpl::CanonicalizeAll(std::vector<uint8_t>* bytes) const {
  if (plan_.pointees.empty()) return;
  for (size_t off = 0; off + 8 <= bytes->size(); off += 8) {
    uint64_t v;
    std::memcpy(&v, bytes->data() + off, 8);
    for (size_t k = 0; k < plan_.pointees.size(); ++k) {
      if (v - pointees_[k].address < pointees_[k].host.size) {
        v = plan_.pointees[k].address + (v - pointees_[k].address);
        std::memcpy(bytes->data() + off, &v, 8);
        break;
      }
    }
  }
}

void ProgramImpl::Record() {
  const VkPipelineStageFlags shader_stage =
      fragment_ ? VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  const VkPipelineBindPoint bind_point =
      fragment_ ? VK_PIPELINE_BIND_POINT_GRAPHICS : VK_PIPELINE_BIND_POINT_COMPUTE;
  VkCommandBufferBeginInfo bi =
      Make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  vkBeginCommandBuffer(cmd_, &bi);
  auto image_barrier = [&](VkImage image, uint32_t layers, VkImageLayout from, VkImageLayout to,
                           VkAccessFlags src_access, VkAccessFlags dst_access,
                           VkPipelineStageFlags src, VkPipelineStageFlags dst) {
    VkImageMemoryBarrier b = Make<VkImageMemoryBarrier>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER);
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers};
    vkCmdPipelineBarrier(cmd_, src, dst, 0, 0, nullptr, 0, nullptr, 1, &b);
  };
  auto region = [](const ResourcePlan& p) {
    bool three_d = p.res.dim == ImageDim::k3D;
    VkBufferImageCopy copy{};
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, three_d ? 1 : p.depth};
    copy.imageExtent = {p.width, p.height, three_d ? p.depth : 1};
    return copy;
  };
  auto layers_of = [](const ResourcePlan& p) { return p.res.dim == ImageDim::k3D ? 1 : p.depth; };
  // Upload every image from its staging buffer (inputs are reset each run).
  for (size_t i = 0; i < bound_.size(); ++i) {
    const ResourcePlan& p = plan_.resources[i];
    for (Bound& b : bound_[i]) {
      if (!b.image) continue;
      image_barrier(b.image, layers_of(p), VK_IMAGE_LAYOUT_UNDEFINED,
                    VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT);
      VkBufferImageCopy copy = region(p);
      vkCmdCopyBufferToImage(cmd_, b.host.buffer, b.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                             &copy);
      image_barrier(b.image, layers_of(p), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                    VK_IMAGE_LAYOUT_GENERAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT, shader_stage);
    }
  }
  if (queries_) vkCmdResetQueryPool(cmd_, queries_, 0, 2);
  vkCmdBindPipeline(cmd_, bind_point, pipeline_);
  if (!sets_.empty()) {
    vkCmdBindDescriptorSets(cmd_, bind_point, layout_, 0, static_cast<uint32_t>(sets_.size()),
                            sets_.data(), 0, nullptr);
  }
  if (!push_.empty()) {
    vkCmdPushConstants(cmd_, layout_,
                       fragment_ ? VK_SHADER_STAGE_FRAGMENT_BIT : VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       static_cast<uint32_t>(push_.size()), push_.data());
  }
  // Timestamps after everything before the dispatch completed, and after the
  // dispatch completed: their difference is the dispatch.
  if (queries_) vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 0);
  if (fragment_) {
    // The grid of triangles covers the whole target (fragment.h).
    VkRenderPassBeginInfo rbi =
        Make<VkRenderPassBeginInfo>(VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO);
    rbi.renderPass = render_pass_;
    rbi.framebuffer = framebuffer_;
    rbi.renderArea = {{0, 0}, {plan_.draw_width, plan_.draw_height}};
    vkCmdBeginRenderPass(cmd_, &rbi, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdDraw(cmd_, kDrawVertices, 1, 0, 0);
    vkCmdEndRenderPass(cmd_);
  } else {
    vkCmdDispatch(cmd_, plan_.dispatch[0], plan_.dispatch[1], plan_.dispatch[2]);
  }
  if (queries_) vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
  VkMemoryBarrier mb = Make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(cmd_, shader_stage,
                       VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0,
                       nullptr, 0, nullptr);
  for (size_t i = 0; i < bound_.size(); ++i) {
    const ResourcePlan& p = plan_.resources[i];
    if (!p.res.writable) continue;
    for (Bound& b : bound_[i]) {
      if (!b.image) continue;
      image_barrier(b.image, layers_of(p), VK_IMAGE_LAYOUT_GENERAL,
                    VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_SHADER_WRITE_BIT,
                    VK_ACCESS_TRANSFER_READ_BIT, shader_stage, VK_PIPELINE_STAGE_TRANSFER_BIT);
      VkBufferImageCopy copy = region(p);
      vkCmdCopyImageToBuffer(cmd_, b.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, b.host.buffer, 1,
                             &copy);
    }
  }
  VkMemoryBarrier hb = Make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  hb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb,
                       0, nullptr, 0, nullptr);
  vkEndCommandBuffer(cmd_);
}

bool ProgramImpl::Run(Outputs* outputs, double* ns, std::string* error) {
  VkDevice d = dev_->device();
  for (size_t i = 0; i < bound_.size(); ++i) {
    const ResourcePlan& p = plan_.resources[i];
    for (size_t e = 0; e < bound_[i].size(); ++e) {
      uint8_t* dst = static_cast<uint8_t*>(bound_[i][e].host.mapped);
      if (!dst || p.element_bytes == 0) continue;
      std::memcpy(dst, p.initial.data() + e * p.element_bytes, p.element_bytes);
    }
    if (!p.pointers.empty() && !bound_[i].empty()) {
      // Slots are offsets into the concatenated descriptors' bytes.
      for (const PointerSlot& s : p.pointers) {
        size_t e = static_cast<size_t>(s.offset / p.element_bytes);
        if (e >= bound_[i].size()) continue;
        PointerSlot local{s.offset - e * p.element_bytes, s.pointee};
        Translate({local}, static_cast<uint8_t*>(bound_[i][e].host.mapped), p.element_bytes, true);
      }
    }
  }
  for (size_t k = 0; k < pointees_.size(); ++k) {
    const PointeePlan& pp = plan_.pointees[k];
    uint8_t* dst = static_cast<uint8_t*>(pointees_[k].host.mapped);
    std::memcpy(dst, pp.initial.data(), pp.initial.size());
    std::memset(dst + pp.initial.size(), 0, pointees_[k].host.size - pp.initial.size());
    Translate(pp.pointers, dst, pp.initial.size(), true);
  }
  vkResetFences(d, 1, &fence_);
  VkSubmitInfo si = Make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd_;
  auto start = std::chrono::steady_clock::now();
  VkResult r = vkQueueSubmit(dev_->queue(), 1, &si, fence_);
  if (r == VK_SUCCESS) r = vkWaitForFences(d, 1, &fence_, VK_TRUE, kFenceTimeoutNs);
  auto end = std::chrono::steady_clock::now();
  if (!ran_) ReportCompile('e');
  ran_ = true;
  if (r != VK_SUCCESS) {
    *error = "the dispatch failed (" + VkResultName(r) + ")";
    return false;
  }
  *ns = std::chrono::duration<double, std::nano>(end - start).count();
  if (queries_) {
    uint64_t stamps[2] = {0, 0};
    r = vkGetQueryPoolResults(d, queries_, 0, 2, sizeof(stamps), stamps, sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r == VK_SUCCESS) {
      *ns = static_cast<double>(stamps[1] - stamps[0]) * dev_->info().timestamp_period_ns;
    }
  }
  outputs->assign(bound_.size() + pointees_.size(), {});
  for (size_t i = 0; i < bound_.size(); ++i) {
    const ResourcePlan& p = plan_.resources[i];
    std::vector<uint8_t>& out = (*outputs)[i];
    if (!p.declared || !p.res.writable || bound_[i].empty()) {
      out = p.initial;
      continue;
    }
    out.resize(p.initial.size());
    for (size_t e = 0; e < bound_[i].size(); ++e) {
      const uint8_t* src = static_cast<const uint8_t*>(bound_[i][e].host.mapped);
      if (src && p.element_bytes)
        std::memcpy(out.data() + e * p.element_bytes, src, p.element_bytes);
    }
    CanonicalizeAll(&out);
  }
  for (size_t k = 0; k < pointees_.size(); ++k) {
    const PointeePlan& pp = plan_.pointees[k];
    const uint8_t* src = static_cast<const uint8_t*>(pointees_[k].host.mapped);
    std::vector<uint8_t>& out = (*outputs)[bound_.size() + k];
    out.assign(src, src + pp.initial.size());
    CanonicalizeAll(&out);
  }
  return true;
}

}  // namespace

std::unique_ptr<Device> CreateVulkanDevice(int index, bool robust, std::string* error) {
  auto device = std::make_unique<DeviceImpl>();
  if (!device->Init(index, robust, error)) return nullptr;
  return device;
}

void ReportCompilesTo(int fd) { g_compile_fd = fd; }

}  // namespace waverun
