#include "tools/waverun/sim_runner.h"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace waverun {
namespace {

namespace sim = waveopt::sim;

sim::Resource::Kind SimKind(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::kStorageBuffer:
      return sim::Resource::Kind::kStorageBuffer;
    case ResourceKind::kUniformBuffer:
      return sim::Resource::Kind::kUniformBuffer;
    case ResourceKind::kStorageImage:
      return sim::Resource::Kind::kStorageImage;
    case ResourceKind::kSampledImage:
      return sim::Resource::Kind::kSampledImage;
    case ResourceKind::kSeparateImage:
      return sim::Resource::Kind::kSeparateImage;
    case ResourceKind::kSampler:
      return sim::Resource::Kind::kSampler;
    case ResourceKind::kUniformTexelBuffer:
      return sim::Resource::Kind::kUniformTexelBuffer;
    case ResourceKind::kStorageTexelBuffer:
      return sim::Resource::Kind::kStorageTexelBuffer;
    case ResourceKind::kAccelerationStructure:
      break;  // reflected for isa only, never run
  }
  return sim::Resource::Kind::kStorageBuffer;
}

class SimProgram : public Program {
 public:
  SimProgram(std::unique_ptr<sim::Program> program, const Plan& plan, uint32_t subgroup_size,
             const SimOptions& options)
      : program_(std::move(program)), plan_(plan) {
    launch_.subgroup_size = subgroup_size;
    if (options.instruction_limit != 0) launch_.instruction_limit = options.instruction_limit;
    launch_.lavapipe_layout = options.lavapipe_layout;
    launch_.junk_seed = options.junk_seed;
    launch_.count_instructions = options.count_instructions;
    launch_.detect_races = options.detect_races;
    for (int i = 0; i < 3; ++i) launch_.workgroups[i] = plan.dispatch[i];
    launch_.push_constants = plan.push;
    for (const SpecValue& v : plan.constants) launch_.spec_constants[v.constant_id] = v.bits;
  }

  bool Init(std::string* error) {
    for (size_t i = 0; i < plan_.resources.size(); ++i) {
      const ResourcePlan& p = plan_.resources[i];
      if (!p.declared) continue;
      for (uint32_t e = 0; e < p.count; ++e) {
        sim::Resource r;
        r.kind = SimKind(p.res.kind);
        r.set = p.key.first;
        r.binding = p.key.second;
        r.array_index = e;
        if (p.width != 0) {
          r.width = p.width;
          r.height = p.height;
          r.depth = p.depth;
          r.format = p.format;
          if (p.format == ImageFormat::kUnknown) {
            *error = ResourceLabel(p) + ": no image format";
            return false;
          }
        }
        templates_.push_back(std::move(r));
        origin_.push_back({i, e});
      }
    }
    for (const PointeePlan& pp : plan_.pointees) {
      sim::Resource r;
      r.kind = sim::Resource::Kind::kDeviceBuffer;
      r.device_address = pp.address;
      templates_.push_back(std::move(r));
      origin_.push_back({SIZE_MAX, 0});
    }
    return true;
  }

  bool Run(Outputs* outputs, double* ns, std::string* error) override {
    std::vector<sim::Resource> resources = templates_;
    size_t pointee = 0;
    for (size_t k = 0; k < resources.size(); ++k) {
      if (origin_[k].first == SIZE_MAX) {
        resources[k].data = plan_.pointees[pointee++].initial;
        continue;
      }
      const ResourcePlan& p = plan_.resources[origin_[k].first];
      uint64_t e = origin_[k].second;
      resources[k].data.assign(p.initial.begin() + e * p.element_bytes,
                               p.initial.begin() + (e + 1) * p.element_bytes);
    }
    counters_ = sim::Counters();
    auto start = std::chrono::steady_clock::now();
    bool ok = program_->Run(launch_, &resources, &counters_, error);
    auto end = std::chrono::steady_clock::now();
    if (!ok) {
      *error = "simulator: " + *error;
      ran_ = false;
      return false;
    }
    ran_ = true;
    *ns = std::chrono::duration<double, std::nano>(end - start).count();
    outputs->assign(plan_.resources.size() + plan_.pointees.size(), {});
    for (size_t i = 0; i < plan_.resources.size(); ++i) (*outputs)[i] = plan_.resources[i].initial;
    pointee = 0;
    for (size_t k = 0; k < resources.size(); ++k) {
      if (origin_[k].first == SIZE_MAX) {
        (*outputs)[plan_.resources.size() + pointee++] = std::move(resources[k].data);
        continue;
      }
      const ResourcePlan& p = plan_.resources[origin_[k].first];
      if (!p.res.writable || p.element_bytes == 0) continue;
      std::copy(resources[k].data.begin(), resources[k].data.end(),
                (*outputs)[origin_[k].first].begin() + origin_[k].second * p.element_bytes);
    }
    return true;
  }

  const sim::Counters* counters() const { return ran_ ? &counters_ : nullptr; }

  // The first race of the last run in one line; empty when none.
  std::string RaceText() const {
    if (!ran_ || counters_.races == 0) return "";
    const sim::Race& r = counters_.race;
    std::string where;
    if (r.resource < 0) {
      where = "shared variable " +
              (r.variable.empty() ? std::string("(unnamed)") : "'" + r.variable + "'") + " byte " +
              std::to_string(r.offset);
    } else {
      where = ResourceWhere(static_cast<size_t>(r.resource), r.offset);
    }
    auto who = [&](int k) {
      auto id = [](const uint32_t v[3]) {
        return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
               std::to_string(v[2]) + ")";
      };
      return std::string(r.wrote[k] ? "written" : "read") + " by invocation " + id(r.global[k]) +
             " of workgroup " + id(r.workgroup[k]);
    };
    return where + ": " + who(0) + " and " + who(1) + ", nothing orders them";
  }

 private:
  // "binding 0.1 ('Out') byte 64", "binding 1.0 ('img') texel (3,4)",
  // "binding 0.2 ('bufs')[1] byte 8", "pointer 0.0+8 byte 16" for byte
  // |offset| of simulator resource |k|.
  std::string ResourceWhere(size_t k, uint64_t offset) const {
    if (k >= origin_.size()) return "resource " + std::to_string(k);
    if (origin_[k].first == SIZE_MAX) {
      size_t pointee = 0;
      for (size_t j = 0; j < k; ++j) pointee += origin_[j].first == SIZE_MAX;
      return "pointer " + plan_.pointees[pointee].label + " byte " + std::to_string(offset);
    }
    const ResourcePlan& p = plan_.resources[origin_[k].first];
    std::string s = ResourceLabel(p);
    if (p.count > 1 || p.res.descriptor_array) s += "[" + std::to_string(origin_[k].second) + "]";
    const sim::Resource& t = templates_[k];
    if (p.width != 0 && t.height * t.depth > 1) {
      uint64_t texel = offset / std::max<uint32_t>(1, sim::GetTexelFormatInfo(t.format).bytes);
      uint64_t x = texel % t.width, y = (texel / t.width) % t.height,
               z = texel / t.width / t.height;
      return s + " texel (" + std::to_string(x) + "," + std::to_string(y) +
             (t.depth > 1 ? "," + std::to_string(z) : std::string()) + ")";
    }
    if (p.width != 0) {
      return s + " texel " +
             std::to_string(offset /
                            std::max<uint32_t>(1, sim::GetTexelFormatInfo(t.format).bytes));
    }
    return s + " byte " + std::to_string(offset);
  }

  std::unique_ptr<sim::Program> program_;
  Plan plan_;
  sim::Launch launch_;
  std::vector<sim::Resource> templates_;
  std::vector<std::pair<size_t, uint64_t>> origin_;  // (resource, element); SIZE_MAX: a pointee
  sim::Counters counters_;
  bool ran_ = false;
};

class SimDevice : public Device {
 public:
  SimDevice(uint32_t subgroup_size, const SimOptions& options) : options_(options) {
    info_.name = "waveopt wave simulator";
    info_.driver = "lib/sim";
    info_.subgroup_size = subgroup_size;
    info_.robust = info_.robustness2 = info_.device_addresses = true;
  }
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<Program> CreateProgram(const std::vector<uint32_t>& words,
                                         const std::string& entry, const Plan& plan,
                                         std::string* error) override {
    std::unique_ptr<sim::Program> p = sim::Program::Create(words, entry, error);
    if (!p) {
      *error = "simulator: " + *error;
      return nullptr;
    }
    auto program = std::make_unique<SimProgram>(std::move(p), plan, info_.subgroup_size, options_);
    if (!program->Init(error)) return nullptr;
    return program;
  }

 private:
  DeviceInfo info_;
  SimOptions options_;
};

}  // namespace

std::unique_ptr<Device> CreateSimDevice(uint32_t subgroup_size, const SimOptions& options) {
  return std::make_unique<SimDevice>(subgroup_size, options);
}

const waveopt::sim::Counters* SimCounters(const Program* program) {
  const SimProgram* p = dynamic_cast<const SimProgram*>(program);
  return p ? p->counters() : nullptr;
}

std::string SimRace(const Program* program) {
  const SimProgram* p = dynamic_cast<const SimProgram*>(program);
  return p ? p->RaceText() : std::string();
}

std::string SimCountersText(const Program* program) {
  const waveopt::sim::Counters* c = SimCounters(program);
  return c ? c->Format() : std::string();
}

void PrintCounters(const std::string& label, const Program* program) {
  std::printf("counters%s%s:\n", label.empty() ? "" : " ", label.c_str());
  std::stringstream ss(SimCountersText(program));
  std::string line;
  while (std::getline(ss, line)) std::printf("  %s\n", line.c_str());
}

std::string OutOfBounds(const Program* program) {
  const waveopt::sim::Counters* c = SimCounters(program);
  if (!c || c->out_of_bounds == 0) return "";
  std::string s = std::to_string(c->out_of_bounds) + " lane access" +
                  (c->out_of_bounds == 1 ? "" : "es") + " out of bounds";
  if (c->wild_pointer_accesses) {
    s += " (" + std::to_string(c->wild_pointer_accesses) +
         " through device addresses outside every buffer)";
  }
  return s;
}

}  // namespace waverun
