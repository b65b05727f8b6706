#include "tools/waverun/vulkan_runner.h"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

namespace waverun {
namespace {

// A zeroed Vulkan structure with its sType set.
template <typename T>
T Make(VkStructureType type) {
  T value{};
  value.sType = type;
  return value;
}

constexpr uint64_t kFenceTimeoutNs = 300ull * 1000 * 1000 * 1000;

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

VkFormat ToVkFormat(ImageFormat f) {
  switch (f) {
    case ImageFormat::kR32ui: return VK_FORMAT_R32_UINT;
    case ImageFormat::kR32i: return VK_FORMAT_R32_SINT;
    case ImageFormat::kR32f: return VK_FORMAT_R32_SFLOAT;
    case ImageFormat::kRgba8: return VK_FORMAT_R8G8B8A8_UNORM;
    case ImageFormat::kRgba16f: return VK_FORMAT_R16G16B16A16_SFLOAT;
    case ImageFormat::kRgba32f: return VK_FORMAT_R32G32B32A32_SFLOAT;
    case ImageFormat::kRgba32ui: return VK_FORMAT_R32G32B32A32_UINT;
    case ImageFormat::kRgba32i: return VK_FORMAT_R32G32B32A32_SINT;
    case ImageFormat::kUnknown: break;
  }
  return VK_FORMAT_UNDEFINED;
}

VkDescriptorType DescriptorType(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::kStorageBuffer: return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case ResourceKind::kUniformBuffer: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case ResourceKind::kStorageImage: return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    case ResourceKind::kSampledImage: return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  }
  return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}


// One buffer with host-visible, host-coherent memory, mapped for its life.
struct HostBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDeviceSize size = 0;
};

struct Bound {
  HostBuffer host;  // the buffer itself, or an image's staging buffer
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory image_memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
};

class DeviceImpl : public Device {
 public:
  ~DeviceImpl() override;
  bool Init(int index, std::string* error);
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

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkPhysicalDeviceMemoryProperties memory_{};
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
  bool CreateResources(std::string* error);
  void Record();

  DeviceImpl* dev_;
  Plan plan_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSetLayout> set_layouts_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets_;
  VkSampler sampler_ = VK_NULL_HANDLE;
  std::vector<Bound> bound_;  // plan order
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
};

DeviceImpl::~DeviceImpl() {
  if (device_) vkDestroyDevice(device_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

bool DeviceImpl::Init(int index, std::string* error) {
  uint32_t loader_version = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS) {
    loader_version = VK_API_VERSION_1_0;
  }
  uint32_t api = std::min<uint32_t>(loader_version, VK_API_VERSION_1_3);
  if (api < VK_API_VERSION_1_1) {
    *error = "no Vulkan device: the Vulkan loader supports only Vulkan 1.0 (1.1 needed)";
    return false;
  }
  VkApplicationInfo app = Make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "waverun";
  app.apiVersion = api;
  VkInstanceCreateInfo ici = Make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  ici.pApplicationInfo = &app;
  VkResult r = vkCreateInstance(&ici, nullptr, &instance_);
  if (r != VK_SUCCESS) {
    *error = "no Vulkan device: vkCreateInstance failed (" + VkResultName(r) +
             "); is a Vulkan driver installed (mesa-vulkan-drivers for lavapipe)?";
    instance_ = VK_NULL_HANDLE;
    return false;
  }
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> devices(count);
  if (count > 0) vkEnumeratePhysicalDevices(instance_, &count, devices.data());
  if (count == 0) {
    *error = "no Vulkan device: the driver lists no physical device";
    return false;
  }
  if (index >= static_cast<int>(count)) {
    *error = "no Vulkan device " + std::to_string(index) + ": there are " +
             std::to_string(count);
    return false;
  }
  physical_ = devices[index < 0 ? 0 : index];

  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(physical_, &props);
  VkPhysicalDeviceSubgroupProperties subgroup = Make<VkPhysicalDeviceSubgroupProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
  VkPhysicalDeviceDriverProperties driver = Make<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
  VkPhysicalDeviceProperties2 props2 = Make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  props2.pNext = &subgroup;
  bool v12 = props.apiVersion >= VK_API_VERSION_1_2 && api >= VK_API_VERSION_1_2;
  bool v13 = props.apiVersion >= VK_API_VERSION_1_3 && api >= VK_API_VERSION_1_3;
  if (v12) subgroup.pNext = &driver;
  vkGetPhysicalDeviceProperties2(physical_, &props2);
  info_.name = props.deviceName;
  info_.api_version = props.apiVersion;
  info_.subgroup_size = subgroup.subgroupSize;
  if (v12) info_.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  info_.is_lavapipe = info_.name.find("llvmpipe") != std::string::npos;
  info_.timestamp_period_ns = props.limits.timestampPeriod;
  if (props.apiVersion < VK_API_VERSION_1_1) {
    *error = "device '" + info_.name + "' supports only Vulkan 1.0 (1.1 needed)";
    return false;
  }

  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &families, nullptr);
  std::vector<VkQueueFamilyProperties> fam(families);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &families, fam.data());
  bool found = false;
  for (uint32_t i = 0; i < families && !found; ++i) {
    if (fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      queue_family_ = i;
      found = true;
      info_.timestamps = fam[i].timestampValidBits > 0 && props.limits.timestampPeriod > 0;
    }
  }
  if (!found) {
    *error = "device '" + info_.name + "' has no compute queue";
    return false;
  }

  // Every supported feature except robustBufferAccess (which changes what
  // out-of-bounds accesses do and costs time).
  VkPhysicalDeviceVulkan13Features f13 = Make<VkPhysicalDeviceVulkan13Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
  VkPhysicalDeviceVulkan12Features f12 = Make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  VkPhysicalDeviceVulkan11Features f11 = Make<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  VkPhysicalDeviceFeatures2 features = Make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  if (v12) {
    features.pNext = &f11;
    f11.pNext = &f12;
    if (v13) f12.pNext = &f13;
  }
  vkGetPhysicalDeviceFeatures2(physical_, &features);
  features.features.robustBufferAccess = VK_FALSE;
  if (v13) f13.robustImageAccess = VK_FALSE;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci = Make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  qci.queueFamilyIndex = queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci = Make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  dci.pNext = &features;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  r = vkCreateDevice(physical_, &dci, nullptr, &device_);
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
  VkBufferCreateInfo bci = Make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  bci.size = size;
  bci.usage = usage;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = vkCreateBuffer(device_, &bci, nullptr, &out->buffer);
  if (r != VK_SUCCESS) {
    out->buffer = VK_NULL_HANDLE;
    *error = "cannot create a buffer of " + std::to_string(size) + " bytes (" +
             VkResultName(r) + ")";
    return false;
  }
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, out->buffer, &req);
  int type = FindMemoryType(
      req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (type < 0) {
    *error = "the device has no host-visible, host-coherent memory for buffers";
    return false;
  }
  VkMemoryAllocateInfo mai = Make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
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
  if (!program->Create(words, entry, plan, error)) return nullptr;
  return program;
}

ProgramImpl::~ProgramImpl() {
  VkDevice d = dev_->device();
  vkDeviceWaitIdle(d);
  if (queries_) vkDestroyQueryPool(d, queries_, nullptr);
  if (fence_) vkDestroyFence(d, fence_, nullptr);
  if (command_pool_) vkDestroyCommandPool(d, command_pool_, nullptr);
  for (Bound& b : bound_) {
    if (b.view) vkDestroyImageView(d, b.view, nullptr);
    if (b.image) vkDestroyImage(d, b.image, nullptr);
    if (b.image_memory) vkFreeMemory(d, b.image_memory, nullptr);
    dev_->DestroyHostBuffer(&b.host);
  }
  if (sampler_) vkDestroySampler(d, sampler_, nullptr);
  if (pool_) vkDestroyDescriptorPool(d, pool_, nullptr);
  if (pipeline_) vkDestroyPipeline(d, pipeline_, nullptr);
  if (layout_) vkDestroyPipelineLayout(d, layout_, nullptr);
  for (VkDescriptorSetLayout l : set_layouts_) vkDestroyDescriptorSetLayout(d, l, nullptr);
  if (module_) vkDestroyShaderModule(d, module_, nullptr);
}

bool ProgramImpl::Create(const std::vector<uint32_t>& words, const std::string& entry,
                         const Plan& plan, std::string* error) {
  plan_ = plan;
  VkDevice d = dev_->device();
  VkShaderModuleCreateInfo smci = Make<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  smci.codeSize = words.size() * 4;
  smci.pCode = words.data();
  VkResult r = vkCreateShaderModule(d, &smci, nullptr, &module_);
  if (r != VK_SUCCESS) {
    module_ = VK_NULL_HANDLE;
    *error = "the driver rejected the shader module (" + VkResultName(r) + ")";
    return false;
  }

  // One layout per set index up to the largest; gaps get empty layouts.
  uint32_t num_sets = 0;
  for (const ResourcePlan& p : plan_.resources) num_sets = std::max(num_sets, p.key.first + 1);
  std::vector<std::vector<VkDescriptorSetLayoutBinding>> per_set(num_sets);
  std::map<VkDescriptorType, uint32_t> type_counts;
  for (const ResourcePlan& p : plan_.resources) {
    VkDescriptorSetLayoutBinding b{};
    b.binding = p.key.second;
    b.descriptorType = DescriptorType(p.res.kind);
    b.descriptorCount = 1;
    b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    per_set[p.key.first].push_back(b);
    ++type_counts[b.descriptorType];
  }
  for (uint32_t s = 0; s < num_sets; ++s) {
    VkDescriptorSetLayoutCreateInfo lci = Make<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
    lci.bindingCount = static_cast<uint32_t>(per_set[s].size());
    lci.pBindings = per_set[s].data();
    VkDescriptorSetLayout l;
    if (vkCreateDescriptorSetLayout(d, &lci, nullptr, &l) != VK_SUCCESS) {
      *error = "cannot create descriptor set layout " + std::to_string(s);
      return false;
    }
    set_layouts_.push_back(l);
  }
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0,
                            static_cast<uint32_t>(plan_.push.size())};
  VkPipelineLayoutCreateInfo plci = Make<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  plci.setLayoutCount = num_sets;
  plci.pSetLayouts = set_layouts_.data();
  plci.pushConstantRangeCount = plan_.push.empty() ? 0 : 1;
  plci.pPushConstantRanges = &range;
  r = vkCreatePipelineLayout(d, &plci, nullptr, &layout_);
  if (r != VK_SUCCESS) {
    layout_ = VK_NULL_HANDLE;
    *error = "cannot create the pipeline layout (" + VkResultName(r) + ")";
    return false;
  }

  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint8_t> spec_data;
  for (const SpecValue& v : plan_.constants) {
    entries.push_back({v.constant_id, static_cast<uint32_t>(spec_data.size()), v.bytes});
    spec_data.resize(spec_data.size() + v.bytes);
    std::memcpy(spec_data.data() + spec_data.size() - v.bytes, &v.bits, v.bytes);
  }
  VkSpecializationInfo spec{static_cast<uint32_t>(entries.size()), entries.data(),
                            spec_data.size(), spec_data.data()};
  VkComputePipelineCreateInfo cpci = Make<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module_;
  cpci.stage.pName = entry.c_str();
  cpci.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
  cpci.layout = layout_;
  r = vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline_);
  if (r != VK_SUCCESS) {
    pipeline_ = VK_NULL_HANDLE;
    *error = "the driver rejected the shader: vkCreateComputePipelines returned " +
             VkResultName(r);
    return false;
  }

  std::vector<VkDescriptorPoolSize> sizes;
  for (const auto& tc : type_counts) sizes.push_back({tc.first, tc.second});
  if (num_sets > 0) {
    VkDescriptorPoolCreateInfo dpci = Make<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
    dpci.maxSets = num_sets;
    dpci.poolSizeCount = static_cast<uint32_t>(sizes.size());
    dpci.pPoolSizes = sizes.data();
    if (vkCreateDescriptorPool(d, &dpci, nullptr, &pool_) != VK_SUCCESS) {
      *error = "cannot create a descriptor pool";
      return false;
    }
    VkDescriptorSetAllocateInfo dsai = Make<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
    dsai.descriptorPool = pool_;
    dsai.descriptorSetCount = num_sets;
    dsai.pSetLayouts = set_layouts_.data();
    sets_.resize(num_sets);
    if (vkAllocateDescriptorSets(d, &dsai, sets_.data()) != VK_SUCCESS) {
      *error = "cannot allocate descriptor sets";
      return false;
    }
  }
  if (!CreateResources(error)) return false;

  VkCommandPoolCreateInfo cpi = Make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  cpi.queueFamilyIndex = dev_->queue_family();
  VkCommandBufferAllocateInfo cbai = Make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  VkFenceCreateInfo fci = Make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  if (vkCreateCommandPool(d, &cpi, nullptr, &command_pool_) != VK_SUCCESS ||
      (cbai.commandPool = command_pool_, cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
       cbai.commandBufferCount = 1, vkAllocateCommandBuffers(d, &cbai, &cmd_) != VK_SUCCESS) ||
      vkCreateFence(d, &fci, nullptr, &fence_) != VK_SUCCESS) {
    *error = "cannot create a command buffer or fence";
    return false;
  }
  if (dev_->info().timestamps) {
    VkQueryPoolCreateInfo qpci = Make<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    qpci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpci.queryCount = 2;
    if (vkCreateQueryPool(d, &qpci, nullptr, &queries_) != VK_SUCCESS) queries_ = VK_NULL_HANDLE;
  }
  Record();
  return true;
}

bool ProgramImpl::CreateResources(std::string* error) {
  VkDevice d = dev_->device();
  bound_.resize(plan_.resources.size());
  std::vector<VkDescriptorBufferInfo> buffer_infos(plan_.resources.size());
  std::vector<VkDescriptorImageInfo> image_infos(plan_.resources.size());
  std::vector<VkWriteDescriptorSet> writes;
  for (size_t i = 0; i < plan_.resources.size(); ++i) {
    const ResourcePlan& p = plan_.resources[i];
    Bound& b = bound_[i];
    VkWriteDescriptorSet w = Make<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    w.dstSet = sets_[p.key.first];
    w.dstBinding = p.key.second;
    w.descriptorCount = 1;
    w.descriptorType = DescriptorType(p.res.kind);
    std::string label = ResourceLabel(p);
    if (p.width == 0) {
      VkBufferUsageFlags usage = p.res.kind == ResourceKind::kUniformBuffer
                                     ? VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT
                                     : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
      if (!dev_->CreateHostBuffer(p.initial.size(), usage, &b.host, error)) {
        *error = label + ": " + *error;
        return false;
      }
      buffer_infos[i] = {b.host.buffer, 0, VK_WHOLE_SIZE};
      w.pBufferInfo = &buffer_infos[i];
    } else {
      VkFormat format = ToVkFormat(p.format);
      bool storage = p.res.kind == ResourceKind::kStorageImage;
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(dev_->physical(), format, &fp);
      VkFormatFeatureFlags need =
          storage ? VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT : VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
      if ((fp.optimalTilingFeatures & need) != need) {
        *error = label + ": the device cannot use format " +
                 std::string(GetFormatInfo(p.format).name) +
                 (storage ? " as a storage image" : " as a sampled image");
        return false;
      }
      if (!dev_->CreateHostBuffer(p.initial.size(),
                                  VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  &b.host, error)) {
        *error = label + ": " + *error;
        return false;
      }
      VkImageCreateInfo ici = Make<VkImageCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO);
      ici.imageType = VK_IMAGE_TYPE_2D;
      ici.format = format;
      ici.extent = {p.width, p.height, 1};
      ici.mipLevels = 1;
      ici.arrayLayers = 1;
      ici.samples = VK_SAMPLE_COUNT_1_BIT;
      ici.tiling = VK_IMAGE_TILING_OPTIMAL;
      ici.usage = (storage ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT) |
                  VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
      ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
      VkResult r = vkCreateImage(d, &ici, nullptr, &b.image);
      if (r != VK_SUCCESS) {
        b.image = VK_NULL_HANDLE;
        *error = label + ": cannot create a " + std::to_string(p.width) + "x" +
                 std::to_string(p.height) + " image (" + VkResultName(r) + ")";
        return false;
      }
      VkMemoryRequirements req;
      vkGetImageMemoryRequirements(d, b.image, &req);
      int type = dev_->FindMemoryType(req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
      VkMemoryAllocateInfo mai = Make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
      mai.allocationSize = req.size;
      mai.memoryTypeIndex = static_cast<uint32_t>(type);
      if (type < 0 || vkAllocateMemory(d, &mai, nullptr, &b.image_memory) != VK_SUCCESS ||
          vkBindImageMemory(d, b.image, b.image_memory, 0) != VK_SUCCESS) {
        *error = label + ": cannot allocate image memory";
        return false;
      }
      VkImageViewCreateInfo vci = Make<VkImageViewCreateInfo>(VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO);
      vci.image = b.image;
      vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
      vci.format = format;
      vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
      if (vkCreateImageView(d, &vci, nullptr, &b.view) != VK_SUCCESS) {
        *error = label + ": cannot create an image view";
        return false;
      }
      if (!storage && !sampler_) {
        VkSamplerCreateInfo sci = Make<VkSamplerCreateInfo>(VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO);
        sci.magFilter = VK_FILTER_NEAREST;
        sci.minFilter = VK_FILTER_NEAREST;
        sci.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
        sci.addressModeU = sci.addressModeV = sci.addressModeW =
            VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        if (vkCreateSampler(d, &sci, nullptr, &sampler_) != VK_SUCCESS) {
          *error = "cannot create a sampler";
          return false;
        }
      }
      image_infos[i] = {storage ? VK_NULL_HANDLE : sampler_, b.view, VK_IMAGE_LAYOUT_GENERAL};
      w.pImageInfo = &image_infos[i];
    }
    writes.push_back(w);
  }
  if (!writes.empty()) {
    vkUpdateDescriptorSets(d, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  }
  return true;
}

void ProgramImpl::Record() {
  VkCommandBufferBeginInfo bi = Make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  vkBeginCommandBuffer(cmd_, &bi);
  auto image_barrier = [&](VkImage image, VkImageLayout from, VkImageLayout to,
                           VkAccessFlags src_access, VkAccessFlags dst_access,
                           VkPipelineStageFlags src, VkPipelineStageFlags dst) {
    VkImageMemoryBarrier b = Make<VkImageMemoryBarrier>(VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER);
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cmd_, src, dst, 0, 0, nullptr, 0, nullptr, 1, &b);
  };
  // Upload every image from its staging buffer (inputs are reset each run).
  for (size_t i = 0; i < bound_.size(); ++i) {
    const ResourcePlan& p = plan_.resources[i];
    if (!bound_[i].image) continue;
    image_barrier(bound_[i].image, VK_IMAGE_LAYOUT_UNDEFINED,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                  VK_PIPELINE_STAGE_TRANSFER_BIT);
    VkBufferImageCopy copy{};
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = {p.width, p.height, 1};
    vkCmdCopyBufferToImage(cmd_, bound_[i].host.buffer, bound_[i].image,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
    image_barrier(bound_[i].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
                  VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                  VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
  }
  if (queries_) vkCmdResetQueryPool(cmd_, queries_, 0, 2);
  vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  if (!sets_.empty()) {
    vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0,
                            static_cast<uint32_t>(sets_.size()), sets_.data(), 0, nullptr);
  }
  if (!plan_.push.empty()) {
    vkCmdPushConstants(cmd_, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       static_cast<uint32_t>(plan_.push.size()), plan_.push.data());
  }
  // Timestamps after everything before the dispatch completed, and after the
  // dispatch completed: their difference is the dispatch.
  if (queries_) vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 0);
  vkCmdDispatch(cmd_, plan_.dispatch[0], plan_.dispatch[1], plan_.dispatch[2]);
  if (queries_) vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
  VkMemoryBarrier mb = Make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0,
                       nullptr, 0, nullptr);
  for (size_t i = 0; i < bound_.size(); ++i) {
    const ResourcePlan& p = plan_.resources[i];
    if (!bound_[i].image || !p.res.writable) continue;
    image_barrier(bound_[i].image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                  VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
    VkBufferImageCopy copy{};
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = {p.width, p.height, 1};
    vkCmdCopyImageToBuffer(cmd_, bound_[i].image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           bound_[i].host.buffer, 1, &copy);
  }
  VkMemoryBarrier hb = Make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  hb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                       &hb, 0, nullptr, 0, nullptr);
  vkEndCommandBuffer(cmd_);
}

bool ProgramImpl::Run(Outputs* outputs, double* ns, std::string* error) {
  VkDevice d = dev_->device();
  for (size_t i = 0; i < bound_.size(); ++i) {
    std::memcpy(bound_[i].host.mapped, plan_.resources[i].initial.data(),
                plan_.resources[i].initial.size());
  }
  vkResetFences(d, 1, &fence_);
  VkSubmitInfo si = Make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd_;
  auto start = std::chrono::steady_clock::now();
  VkResult r = vkQueueSubmit(dev_->queue(), 1, &si, fence_);
  if (r == VK_SUCCESS) r = vkWaitForFences(d, 1, &fence_, VK_TRUE, kFenceTimeoutNs);
  auto end = std::chrono::steady_clock::now();
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
  outputs->resize(bound_.size());
  for (size_t i = 0; i < bound_.size(); ++i) {
    const ResourcePlan& p = plan_.resources[i];
    if (bound_[i].image && !p.res.writable) {
      (*outputs)[i] = p.initial;
      continue;
    }
    const uint8_t* src = static_cast<const uint8_t*>(bound_[i].host.mapped);
    (*outputs)[i].assign(src, src + p.initial.size());
  }
  return true;
}

}  // namespace

std::unique_ptr<Device> Device::Create(int index, std::string* error) {
  auto device = std::make_unique<DeviceImpl>();
  if (!device->Init(index, error)) return nullptr;
  return device;
}

}  // namespace waverun
