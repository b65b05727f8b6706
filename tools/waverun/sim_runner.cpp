#include "tools/waverun/sim_runner.h"

#include <chrono>
#include <utility>
#include <vector>

#include "lib/sim/sim.h"

namespace waverun {
namespace {

namespace sim = waveopt::sim;

bool ToTexelFormat(ImageFormat f, sim::TexelFormat* out) {
  switch (f) {
    case ImageFormat::kR32ui:
      *out = sim::TexelFormat::kR32ui;
      return true;
    case ImageFormat::kR32i:
      *out = sim::TexelFormat::kR32i;
      return true;
    case ImageFormat::kR32f:
      *out = sim::TexelFormat::kR32f;
      return true;
    case ImageFormat::kRgba8:
      *out = sim::TexelFormat::kRgba8;
      return true;
    case ImageFormat::kRgba16f:
      *out = sim::TexelFormat::kRgba16f;
      return true;
    case ImageFormat::kRgba32f:
      *out = sim::TexelFormat::kRgba32f;
      return true;
    case ImageFormat::kRgba32ui:
      *out = sim::TexelFormat::kRgba32ui;
      return true;
    case ImageFormat::kRgba32i:
      *out = sim::TexelFormat::kRgba32i;
      return true;
    default:
      return false;
  }
}

class SimProgram : public Program {
 public:
  SimProgram(std::unique_ptr<sim::Program> program, const Plan& plan, uint32_t subgroup_size,
             bool lavapipe_layout, uint64_t instruction_limit)
      : program_(std::move(program)), plan_(plan) {
    launch_.subgroup_size = subgroup_size;
    if (instruction_limit != 0) launch_.instruction_limit = instruction_limit;
    launch_.lavapipe_layout = lavapipe_layout;
    for (int i = 0; i < 3; ++i) launch_.workgroups[i] = plan.dispatch[i];
    launch_.push_constants = plan.push;
    for (const SpecValue& v : plan.constants) launch_.spec_constants[v.constant_id] = v.bits;
  }

  bool Init(std::string* error) {
    for (const ResourcePlan& p : plan_.resources) {
      sim::Resource r;
      r.set = p.key.first;
      r.binding = p.key.second;
      switch (p.res.kind) {
        case ResourceKind::kStorageBuffer:
          r.kind = sim::Resource::Kind::kStorageBuffer;
          break;
        case ResourceKind::kUniformBuffer:
          r.kind = sim::Resource::Kind::kUniformBuffer;
          break;
        case ResourceKind::kStorageImage:
          r.kind = sim::Resource::Kind::kStorageImage;
          break;
        case ResourceKind::kSampledImage:
          r.kind = sim::Resource::Kind::kSampledImage;
          break;
      }
      if (p.width != 0) {
        r.width = p.width;
        r.height = p.height;
        if (!ToTexelFormat(p.format, &r.format)) {
          *error = ResourceLabel(p) + ": the simulator does not support its image format";
          return false;
        }
      }
      templates_.push_back(std::move(r));
    }
    return true;
  }

  bool Run(Outputs* outputs, double* ns, std::string* error) override {
    std::vector<sim::Resource> resources = templates_;
    for (size_t i = 0; i < resources.size(); ++i) resources[i].data = plan_.resources[i].initial;
    sim::Counters counters;
    auto start = std::chrono::steady_clock::now();
    bool ok = program_->Run(launch_, &resources, &counters, error);
    auto end = std::chrono::steady_clock::now();
    if (!ok) {
      *error = "simulator: " + *error;
      return false;
    }
    *ns = std::chrono::duration<double, std::nano>(end - start).count();
    counters_text_ = counters.Format();
    outputs->resize(resources.size());
    for (size_t i = 0; i < resources.size(); ++i) (*outputs)[i] = std::move(resources[i].data);
    return true;
  }

  const std::string& counters_text() const { return counters_text_; }

 private:
  std::unique_ptr<sim::Program> program_;
  Plan plan_;
  sim::Launch launch_;
  std::vector<sim::Resource> templates_;
  std::string counters_text_;
};

class SimDevice : public Device {
 public:
  SimDevice(uint32_t subgroup_size, bool lavapipe_layout, uint64_t instruction_limit)
      : lavapipe_layout_(lavapipe_layout), instruction_limit_(instruction_limit) {
    info_.name = "waveopt wave simulator";
    info_.driver = "lib/sim";
    info_.subgroup_size = subgroup_size;
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
    auto program = std::make_unique<SimProgram>(std::move(p), plan, info_.subgroup_size,
                                                lavapipe_layout_, instruction_limit_);
    if (!program->Init(error)) return nullptr;
    return program;
  }

 private:
  DeviceInfo info_;
  bool lavapipe_layout_;
  uint64_t instruction_limit_;
};

}  // namespace

std::unique_ptr<Device> CreateSimDevice(uint32_t subgroup_size, bool lavapipe_layout,
                                        uint64_t instruction_limit) {
  return std::make_unique<SimDevice>(subgroup_size, lavapipe_layout, instruction_limit);
}

std::string SimCountersText(const Program* program) {
  const SimProgram* p = dynamic_cast<const SimProgram*>(program);
  return p ? p->counters_text() : std::string();
}

}  // namespace waverun
