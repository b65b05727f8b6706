// SPIRV-Cross reflection. This file must not include glslang headers.
#include "tools/waverun/reflect.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <spirv_cross/spirv_cross.hpp>

namespace waverun {
namespace {

ImageFormat FromSpirvFormat(spv::ImageFormat f) {
  switch (f) {
    case spv::ImageFormatR32ui: return ImageFormat::kR32ui;
    case spv::ImageFormatR32i: return ImageFormat::kR32i;
    case spv::ImageFormatR32f: return ImageFormat::kR32f;
    case spv::ImageFormatRgba8: return ImageFormat::kRgba8;
    case spv::ImageFormatRgba16f: return ImageFormat::kRgba16f;
    case spv::ImageFormatRgba32f: return ImageFormat::kRgba32f;
    case spv::ImageFormatRgba32ui: return ImageFormat::kRgba32ui;
    case spv::ImageFormatRgba32i: return ImageFormat::kRgba32i;
    default: return ImageFormat::kUnknown;
  }
}

std::string Where(const spirv_cross::Compiler& c, const spirv_cross::Resource& r) {
  return "binding " + std::to_string(c.get_decoration(r.id, spv::DecorationDescriptorSet)) +
         "." + std::to_string(c.get_decoration(r.id, spv::DecorationBinding)) + " ('" +
         r.name + "')";
}

bool Reflect(const std::vector<uint32_t>& words, ModuleInterface* iface,
             std::string* error) {
  spirv_cross::Compiler c(words);
  bool found = false;
  for (const spirv_cross::EntryPoint& ep : c.get_entry_points_and_stages()) {
    if (ep.execution_model == spv::ExecutionModelGLCompute) {
      c.set_entry_point(ep.name, ep.execution_model);
      iface->entry_point = ep.name;
      found = true;
      break;
    }
  }
  if (!found) {
    *error = "the module has no GLCompute entry point";
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    uint32_t v = c.get_execution_mode_argument(spv::ExecutionModeLocalSize, i);
    iface->local_size[i] = v == 0 ? 1 : v;
  }
  // Every declared resource, used or not, so that a rewrite that drops a use
  // keeps the same interface as its original.
  spirv_cross::ShaderResources res = c.get_shader_resources();
  if (!res.separate_images.empty() || !res.separate_samplers.empty() ||
      !res.atomic_counters.empty() || !res.acceleration_structures.empty() ||
      !res.subpass_inputs.empty()) {
    *error = "the module uses a descriptor kind waverun does not support "
             "(separate images/samplers, atomic counters, acceleration structures)";
    return false;
  }
  auto common = [&](const spirv_cross::Resource& r, ResourceKind kind, Resource* out) {
    out->kind = kind;
    out->set = c.get_decoration(r.id, spv::DecorationDescriptorSet);
    out->binding = c.get_decoration(r.id, spv::DecorationBinding);
    out->name = r.name;
    const spirv_cross::SPIRType& var_type = c.get_type(r.type_id);
    if (!var_type.array.empty()) {
      *error = Where(c, r) + ": arrays of descriptors are not supported";
      return false;
    }
    return true;
  };
  auto buffer = [&](const spirv_cross::Resource& r, ResourceKind kind) {
    Resource out;
    if (!common(r, kind, &out)) return false;
    const spirv_cross::SPIRType& type = c.get_type(r.base_type_id);
    out.writable = kind == ResourceKind::kStorageBuffer &&
                   !c.get_buffer_block_flags(r.id).get(spv::DecorationNonWritable);
    size_t members = type.member_types.size();
    out.head_bytes = static_cast<uint32_t>(c.get_declared_struct_size(type));
    if (members > 0) {
      const spirv_cross::SPIRType& last = c.get_type(type.member_types[members - 1]);
      if (!last.array.empty()) {
        uint32_t offset = c.type_struct_member_offset(type, static_cast<uint32_t>(members - 1));
        out.array_stride =
            c.type_struct_member_array_stride(type, static_cast<uint32_t>(members - 1));
        out.runtime_array = last.array.back() == 0 && last.array_size_literal.back();
        out.array_length = out.runtime_array ? 0 : last.array.back();
        if (last.array.size() == 1 && last.array_size_literal.back()) {
          out.head_bytes = offset;  // the array is compared element-wise
        } else if (out.runtime_array) {
          out.head_bytes = offset;
          out.array_stride = static_cast<uint32_t>(
              c.get_declared_struct_size_runtime_array(type, 1) -
              c.get_declared_struct_size_runtime_array(type, 0));
        } else {
          out.array_stride = 0;  // multi-dimensional or spec-sized: one blob
          out.array_length = 0;
          out.head_bytes = static_cast<uint32_t>(c.get_declared_struct_size(type));
        }
      }
    }
    iface->resources.push_back(out);
    return true;
  };
  for (const auto& r : res.storage_buffers) {
    if (!buffer(r, ResourceKind::kStorageBuffer)) return false;
  }
  for (const auto& r : res.uniform_buffers) {
    if (!buffer(r, ResourceKind::kUniformBuffer)) return false;
  }
  auto image = [&](const spirv_cross::Resource& r, ResourceKind kind) {
    Resource out;
    if (!common(r, kind, &out)) return false;
    const spirv_cross::SPIRType& type = c.get_type(r.base_type_id);
    if (type.image.dim != spv::Dim2D || type.image.arrayed || type.image.ms) {
      *error = Where(c, r) + ": only non-arrayed, single-sample 2D images are supported";
      return false;
    }
    if (kind == ResourceKind::kStorageImage) {
      out.format = FromSpirvFormat(type.image.format);
      out.writable = !c.has_decoration(r.id, spv::DecorationNonWritable);
      if (out.format == ImageFormat::kUnknown) {
        *error = Where(c, r) + ": unsupported storage image format (supported: r32ui, r32i, "
                 "r32f, rgba8, rgba16f, rgba32f, rgba32ui, rgba32i)";
        return false;
      }
    } else {
      const spirv_cross::SPIRType& sampled = c.get_type(type.image.type);
      out.sampled_type = sampled.basetype == spirv_cross::SPIRType::Int    ? ComponentType::kInt
                         : sampled.basetype == spirv_cross::SPIRType::UInt ? ComponentType::kUint
                                                                           : ComponentType::kFloat;
    }
    iface->resources.push_back(out);
    return true;
  };
  for (const auto& r : res.storage_images) {
    if (!image(r, ResourceKind::kStorageImage)) return false;
  }
  for (const auto& r : res.sampled_images) {
    if (!image(r, ResourceKind::kSampledImage)) return false;
  }
  std::sort(iface->resources.begin(), iface->resources.end(),
            [](const Resource& a, const Resource& b) {
              return std::make_pair(a.set, a.binding) < std::make_pair(b.set, b.binding);
            });
  for (size_t i = 1; i < iface->resources.size(); ++i) {
    if (iface->resources[i].set == iface->resources[i - 1].set &&
        iface->resources[i].binding == iface->resources[i - 1].binding) {
      *error = "two variables share binding " + std::to_string(iface->resources[i].set) + "." +
               std::to_string(iface->resources[i].binding);
      return false;
    }
  }
  for (const auto& r : res.push_constant_buffers) {
    const spirv_cross::SPIRType& type = c.get_type(r.base_type_id);
    iface->push_constant_bytes = static_cast<uint32_t>(c.get_declared_struct_size(type));
  }
  for (const spirv_cross::SpecializationConstant& sc : c.get_specialization_constants()) {
    const spirv_cross::SPIRConstant& constant = c.get_constant(sc.id);
    const spirv_cross::SPIRType& type = c.get_type(constant.constant_type);
    SpecConstant out;
    out.constant_id = sc.constant_id;
    out.bytes = type.width == 64 ? 8 : 4;
    out.default_bits = out.bytes == 8 ? constant.scalar_u64() : constant.scalar();
    iface->spec_constants.push_back(out);
  }
  std::sort(iface->spec_constants.begin(), iface->spec_constants.end(),
            [](const SpecConstant& a, const SpecConstant& b) {
              return a.constant_id < b.constant_id;
            });
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16;
    if (count == 0) break;
    if ((words[i] & 0xffffu) == spv::OpLoopMerge) iface->has_loops = true;
    i += count;
  }
  return true;
}

}  // namespace

const char* ResourceKindName(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::kStorageBuffer: return "storage buffer";
    case ResourceKind::kUniformBuffer: return "uniform buffer";
    case ResourceKind::kStorageImage: return "storage image";
    case ResourceKind::kSampledImage: return "combined image sampler";
  }
  return "?";
}

bool ReflectModule(const std::vector<uint32_t>& words, ModuleInterface* iface,
                   std::string* error) {
  *iface = ModuleInterface();
  try {
    return Reflect(words, iface, error);
  } catch (const std::exception& e) {
    *error = std::string("cannot reflect the module: ") + e.what();
    return false;
  }
}

}  // namespace waverun
