#include "tools/waverun/sim_runner.h"

#include <chrono>
#include <utility>
#include <vector>

namespace waverun {
namespace {

namespace sim = waveopt::sim;

sim::Resource::Kind SimKind(ResourceKind kind) {
  switch (kind) {
    case ResourceKind::kStorageBuffer: return sim::Resource::Kind::kStorageBuffer;
    case ResourceKind::kUniformBuffer: return sim::Resource::Kind::kUniformBuffer;
    case ResourceKind::kStorageImage: return sim::Resource::Kind::kStorageImage;
    case ResourceKind::kSampledImage: return sim::Resource::Kind::kSampledImage;
    case ResourceKind::kSeparateImage: return sim::Resource::Kind::kSeparateImage;
    case ResourceKind::kSampler: return sim::Resource::Kind::kSampler;
    case ResourceKind::kUniformTexelBuffer: return sim::Resource::Kind::kUniformTexelBuffer;
    case ResourceKind::kStorageTexelBuffer: return sim::Resource::Kind::kStorageTexelBuffer;
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

 private:
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

std::string SimCountersText(const Program* program) {
  const waveopt::sim::Counters* c = SimCounters(program);
  return c ? c->Format() : std::string();
}

}  // namespace waverun
