// Resource binding options (glslangValidator's and DXC's spellings) and the
// check for resources that land on one binding. No glslang here: the front
// end (frontend_glslang.cpp) applies the options.
#include "lib/resource_bindings.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

#include "spirv/unified1/spirv.hpp11"
#include "waveopt/frontend.h"

namespace waveopt {
namespace {

bool IsNumber(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool IsStageName(const std::string& s) {
  static const char* kStages[] = {"vert", "tesc", "tese", "geom",  "frag",  "comp",  "task",
                                  "mesh", "rgen", "rint", "rahit", "rchit", "rmiss", "rcall"};
  for (const char* k : kStages) {
    if (s == k) return true;
  }
  return false;
}

// glslangValidator: --shift-<kind>-binding and its short spellings.
bool GlslangShiftKind(const std::string& flag, ResourceKind* kind) {
  static const struct {
    const char* long_name;
    const char* short_name;
    ResourceKind kind;
  } kFlags[] = {
      {"--shift-sampler-binding", "--ssb", ResourceKind::kSampler},
      {"--shift-texture-binding", "--stb", ResourceKind::kTexture},
      {"--shift-image-binding", "--sib", ResourceKind::kImage},
      {"--shift-UBO-binding", "--sub", ResourceKind::kUbo},
      {"--shift-ubo-binding", "--sub", ResourceKind::kUbo},
      {"--shift-cbuffer-binding", "--scb", ResourceKind::kUbo},
      {"--shift-ssbo-binding", "--sbb", ResourceKind::kSsbo},
      {"--shift-uav-binding", "--suavb", ResourceKind::kUav},
  };
  for (const auto& f : kFlags) {
    if (flag == f.long_name || flag == f.short_name) {
      *kind = f.kind;
      return true;
    }
  }
  return false;
}

// DXC: -fvk-<b|t|u|s>-shift N SPACE (register classes).
bool DxcShiftKind(const std::string& flag, ResourceKind* kind) {
  if (flag == "-fvk-b-shift")
    *kind = ResourceKind::kUbo;
  else if (flag == "-fvk-t-shift")
    *kind = ResourceKind::kTexture;
  else if (flag == "-fvk-u-shift")
    *kind = ResourceKind::kUav;
  else if (flag == "-fvk-s-shift")
    *kind = ResourceKind::kSampler;
  else
    return false;
  return true;
}

// The values after args[*i]: [stage] N, or [stage] (N SET)+ (glslang).
BindingOptionStatus ParseGlslangShift(const std::vector<std::string>& args, size_t* i,
                                      ResourceKind kind, ResourceBindings* out,
                                      std::string* error) {
  const std::string flag = args[*i];
  size_t k = *i + 1;
  std::string only_stage;
  if (k < args.size() && IsStageName(args[k])) only_stage = args[k++];
  if (k >= args.size() || !IsNumber(args[k])) {
    *error = flag + " needs [stage] <base> or [stage] <base> <set>...";
    return BindingOptionStatus::kError;
  }
  std::vector<ResourceBindings::Shift> shifts;
  if (k + 1 < args.size() && IsNumber(args[k + 1])) {
    while (k + 1 < args.size() && IsNumber(args[k]) && IsNumber(args[k + 1])) {
      shifts.push_back({kind, static_cast<uint32_t>(std::atoi(args[k].c_str())),
                        std::atoi(args[k + 1].c_str()), only_stage});
      k += 2;
    }
  } else {
    shifts.push_back({kind, static_cast<uint32_t>(std::atoi(args[k].c_str())), -1, only_stage});
    ++k;
  }
  out->shifts.insert(out->shifts.end(), shifts.begin(), shifts.end());
  *i = k - 1;
  return BindingOptionStatus::kOk;
}

// --resource-set-binding [stage] SET | <stage> (NAME SET BINDING)+. The
// triples are read while they look like one (a name and two numbers), so the
// input file that follows is not taken for a value.
BindingOptionStatus ParseResourceSetBinding(const std::vector<std::string>& args, size_t* i,
                                            ResourceBindings* out, std::string* error) {
  const std::string flag = args[*i];
  size_t k = *i + 1;
  std::string only_stage;
  if (k < args.size() && IsStageName(args[k])) only_stage = args[k++];
  std::vector<std::string> values;
  if (k < args.size() && IsNumber(args[k])) {
    values.push_back(args[k++]);
  } else if (!only_stage.empty()) {
    while (k + 2 < args.size() && !args[k].empty() && args[k][0] != '-' && IsNumber(args[k + 1]) &&
           IsNumber(args[k + 2])) {
      values.insert(values.end(), {args[k], args[k + 1], args[k + 2]});
      k += 3;
    }
  }
  if (values.empty()) {
    *error = flag +
             " needs <set>, or <stage> <set>, or <stage> followed by <register> <set> "
             "<binding> triples";
    return BindingOptionStatus::kError;
  }
  out->resource_set_binding.push_back({only_stage, values});
  *i = k - 1;
  return BindingOptionStatus::kOk;
}

}  // namespace

BindingOptionStatus ParseBindingOption(const std::vector<std::string>& args, size_t* i,
                                       ResourceBindings* bindings, std::string* error) {
  const std::string& a = args[*i];
  ResourceKind kind;
  if (a == "--auto-map-bindings" || a == "--amb") {
    bindings->auto_map = true;
    return BindingOptionStatus::kOk;
  }
  if (a == "--hlsl-iomap" || a == "--hlsl-iomapper" || a == "--hlsl-iomapping") {
    bindings->hlsl_iomap = true;
    return BindingOptionStatus::kOk;
  }
  if (GlslangShiftKind(a, &kind)) {
    return ParseGlslangShift(args, i, kind, bindings, error);
  }
  if (a == "--resource-set-binding" || a == "--rsb") {
    return ParseResourceSetBinding(args, i, bindings, error);
  }
  if (DxcShiftKind(a, &kind)) {
    // -fvk-<x>-shift N SPACE: SPACE is a number or "all".
    if (*i + 2 >= args.size() || !IsNumber(args[*i + 1]) ||
        !(IsNumber(args[*i + 2]) || args[*i + 2] == "all")) {
      *error = a + " needs <shift> <space> (a number or 'all')";
      return BindingOptionStatus::kError;
    }
    const int set = args[*i + 2] == "all" ? -1 : std::atoi(args[*i + 2].c_str());
    bindings->shifts.push_back(
        {kind, static_cast<uint32_t>(std::atoi(args[*i + 1].c_str())), set, ""});
    bindings->hlsl_iomap = true;
    *i += 2;
    return BindingOptionStatus::kOk;
  }
  if (a == "-fvk-bind-register") {
    // -fvk-bind-register <register> <space> <binding> <set>. glslang matches
    // the register's name ("t3") in any space (docs/cli.md).
    if (*i + 4 >= args.size() || args[*i + 1].size() < 2 ||
        std::string("btus").find(static_cast<char>(std::tolower(args[*i + 1][0]))) ==
            std::string::npos ||
        !IsNumber(args[*i + 1].substr(1)) || !IsNumber(args[*i + 2]) || !IsNumber(args[*i + 3]) ||
        !IsNumber(args[*i + 4])) {
      *error = a + " needs <register, e.g. t3> <space> <binding> <set>";
      return BindingOptionStatus::kError;
    }
    auto& list = bindings->resource_set_binding;
    if (list.empty() || !list.back().stage.empty() || list.back().values.size() % 3 != 0) {
      list.push_back({"", {}});
    }
    list.back().values.insert(list.back().values.end(), {args[*i + 1], args[*i + 4], args[*i + 3]});
    *i += 4;
    return BindingOptionStatus::kOk;
  }
  if (a == "-auto-binding-space") {
    if (*i + 1 >= args.size() || !IsNumber(args[*i + 1])) {
      *error = a + " needs <space>";
      return BindingOptionStatus::kError;
    }
    bindings->auto_map = true;
    bindings->resource_set_binding.push_back({"", {args[*i + 1]}});
    *i += 1;
    return BindingOptionStatus::kOk;
  }
  return BindingOptionStatus::kNotBinding;
}

namespace {

struct ResourceVar {
  std::string name;
  std::string kind;  // descriptor type, in words
  char reg_class = 0;
  uint32_t set = 0, binding = 0;
};

// What the module's declarations say about its resource variables.
struct ModuleDecls {
  std::map<uint32_t, std::string> names;
  std::map<uint32_t, std::vector<uint32_t>> types;
  std::map<uint32_t, bool> buffer_block;
  std::map<uint32_t, uint32_t> non_writable_members;  // struct -> how many
  std::map<uint32_t, uint32_t> set_of, binding_of, pointee;
  // id, (pointer type, storage class)
  std::vector<std::pair<uint32_t, std::pair<uint32_t, spv::StorageClass>>> vars;
};

// |type| with arrays unwrapped.
uint32_t ElementType(const ModuleDecls& m, uint32_t type) {
  for (int depth = 0; depth < 8; ++depth) {
    auto it = m.types.find(type);
    if (it == m.types.end()) return type;
    const spv::Op op = static_cast<spv::Op>(it->second[0] & 0xffff);
    if (op != spv::Op::OpTypeArray && op != spv::Op::OpTypeRuntimeArray) return type;
    type = it->second[2];
  }
  return type;
}

// The descriptor type a resource variable of |type| has, or "" when it is
// not a descriptor (push constants, plain globals).
std::string DescriptorKind(const ModuleDecls& m, uint32_t type, spv::StorageClass sc) {
  type = ElementType(m, type);
  auto it = m.types.find(type);
  if (it == m.types.end()) return "";
  const std::vector<uint32_t>& t = it->second;
  const spv::Op op = static_cast<spv::Op>(t[0] & 0xffff);
  if (sc == spv::StorageClass::StorageBuffer) return "storage buffer";
  if (sc == spv::StorageClass::Uniform) {
    return m.buffer_block.count(type) ? "storage buffer" : "uniform buffer";
  }
  if (op == spv::Op::OpTypeSampler) return "sampler";
  if (op == spv::Op::OpTypeSampledImage) return "combined image sampler";
  if (op == spv::Op::OpTypeAccelerationStructureKHR) return "acceleration structure";
  if (op == spv::Op::OpTypeImage && t.size() > 7) {
    const bool is_buffer = t[3] == static_cast<uint32_t>(spv::Dim::Buffer);
    const bool storage = t[7] == 2;
    if (is_buffer) return storage ? "storage texel buffer" : "uniform texel buffer";
    if (t[3] == static_cast<uint32_t>(spv::Dim::SubpassData)) return "input attachment";
    return storage ? "storage image" : "sampled image";
  }
  return "";
}

// HLSL's register class of a resource of |kind| whose block is |type|: a
// storage buffer every member of which is NonWritable is a t (SRV:
// StructuredBuffer, ByteAddressBuffer), else a u (UAV).
char RegisterClass(const ModuleDecls& m, const std::string& kind, uint32_t type) {
  if (kind == "uniform buffer") return 'b';
  if (kind == "sampler") return 's';
  if (kind == "storage image" || kind == "storage texel buffer") return 'u';
  if (kind == "storage buffer") {
    type = ElementType(m, type);
    auto t = m.types.find(type);
    auto ro = m.non_writable_members.find(type);
    const bool read_only = t != m.types.end() && ro != m.non_writable_members.end() &&
                           ro->second >= t->second.size() - 2;
    return read_only ? 't' : 'u';
  }
  return 't';
}

std::string NameOf(const std::map<uint32_t, std::string>& names, uint32_t id) {
  auto it = names.find(id);
  return it == names.end() ? "" : it->second;
}

// Reads the declarations up to the first function.
ModuleDecls ReadDecls(const std::vector<uint32_t>& words) {
  ModuleDecls m;
  for (size_t i = 5; i < words.size();) {
    const uint32_t wc = words[i] >> 16;
    const spv::Op op = static_cast<spv::Op>(words[i] & 0xffff);
    if (wc == 0 || i + wc > words.size()) break;
    const uint32_t* w = &words[i];
    if (op == spv::Op::OpName && wc >= 3) {
      m.names[w[1]] = std::string(reinterpret_cast<const char*>(&w[2]),
                                  strnlen(reinterpret_cast<const char*>(&w[2]), (wc - 2) * 4));
    } else if (op == spv::Op::OpDecorate && wc >= 3) {
      const spv::Decoration d = static_cast<spv::Decoration>(w[2]);
      if (d == spv::Decoration::DescriptorSet && wc >= 4) m.set_of[w[1]] = w[3];
      if (d == spv::Decoration::Binding && wc >= 4) m.binding_of[w[1]] = w[3];
      if (d == spv::Decoration::BufferBlock) m.buffer_block[w[1]] = true;
    } else if (op == spv::Op::OpMemberDecorate && wc >= 4 &&
               w[3] == static_cast<uint32_t>(spv::Decoration::NonWritable)) {
      ++m.non_writable_members[w[1]];
    } else if (op == spv::Op::OpTypePointer && wc >= 4) {
      m.pointee[w[1]] = w[3];
    } else if ((op == spv::Op::OpTypeArray || op == spv::Op::OpTypeRuntimeArray ||
                op == spv::Op::OpTypeImage || op == spv::Op::OpTypeSampler ||
                op == spv::Op::OpTypeSampledImage || op == spv::Op::OpTypeStruct ||
                op == spv::Op::OpTypeAccelerationStructureKHR) &&
               wc >= 2) {
      m.types[w[1]] = std::vector<uint32_t>(w, w + wc);
    } else if (op == spv::Op::OpVariable && wc >= 4) {
      const spv::StorageClass sc = static_cast<spv::StorageClass>(w[3]);
      if (sc == spv::StorageClass::UniformConstant || sc == spv::StorageClass::Uniform ||
          sc == spv::StorageClass::StorageBuffer) {
        m.vars.push_back({w[2], {w[1], sc}});
      }
    } else if (op == spv::Op::OpFunction) {
      break;
    }
    i += wc;
  }
  return m;
}

// The module's descriptors that have a binding, in declaration order. A
// variable without a name (glslang's instance of a cbuffer) is called by its
// block's name.
std::vector<ResourceVar> ResourceVars(const std::vector<uint32_t>& words) {
  ModuleDecls m = ReadDecls(words);
  std::vector<ResourceVar> out;
  for (const auto& v : m.vars) {
    const uint32_t type = m.pointee[v.second.first];
    ResourceVar r;
    r.name = NameOf(m.names, v.first);
    if (r.name.empty()) r.name = NameOf(m.names, ElementType(m, type));
    if (r.name.empty()) r.name = "%" + std::to_string(v.first);
    r.kind = DescriptorKind(m, type, v.second.second);
    if (r.kind.empty() || !m.binding_of.count(v.first)) continue;
    r.reg_class = RegisterClass(m, r.kind, type);
    r.set = m.set_of.count(v.first) ? m.set_of[v.first] : 0;
    r.binding = m.binding_of[v.first];
    out.push_back(r);
  }
  return out;
}

}  // namespace

std::vector<BindingCollision> FindBindingCollisions(const std::vector<uint32_t>& words) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<ResourceVar>> by_binding;
  for (const ResourceVar& r : ResourceVars(words)) by_binding[{r.set, r.binding}].push_back(r);
  std::vector<BindingCollision> out;
  for (const auto& [where, rs] : by_binding) {
    for (size_t a = 0; a < rs.size(); ++a) {
      for (size_t b = a + 1; b < rs.size(); ++b) {
        if (rs[a].kind == rs[b].kind) continue;  // aliasing one descriptor type is legal
        out.push_back({rs[a].name, rs[a].kind, rs[b].name, rs[b].kind, rs[a].reg_class,
                       rs[b].reg_class, where.first, where.second});
      }
    }
  }
  return out;
}

std::string ClassShiftOptions(const std::vector<uint32_t>& words) {
  std::map<char, uint32_t> highest;  // class -> highest binding
  for (const ResourceVar& r : ResourceVars(words)) {
    if (r.reg_class == 0) continue;
    uint32_t& h = highest[r.reg_class];
    h = std::max(h, r.binding);
  }
  std::string options;
  bool first = true;
  uint32_t next = 0;  // the lowest binding the next class may start at
  for (char c : std::string("tubs")) {
    auto it = highest.find(c);
    if (it == highest.end()) continue;
    const uint32_t shift = first ? 0 : (next + 9) / 10 * 10;
    if (!first) {
      options += std::string(options.empty() ? "" : " ") + "-fvk-" + c + "-shift " +
                 std::to_string(shift) + " all";
    }
    first = false;
    next = shift + it->second + 1;
  }
  return options;
}

}  // namespace waveopt
