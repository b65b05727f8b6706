// Workgroup trace: what every invocation of a compute workgroup does with
// one shared (Workgroup) array from a barrier on, found by running the
// entry point's SPIR-V concretely for each invocation.
//
// The interpreter follows the invocation's control flow from a start
// instruction to the end of the function: integer and boolean arithmetic of
// the invocation's identity (LocalInvocationIndex/Id), constants and
// specialization constants (given values, or unknown), phis by the edge
// taken. Loads of the traced array are events whose values are symbolic
// ("the value load #k read"); a store's value is recorded as the
// operation that made it (an operation of two loaded values, a copy, or
// anything else). Every barrier is an event. Memory other than the traced
// array is not modelled: its loads are unknown values, its writes events.
//
// Contract (what a pass may rely on when Run() succeeds):
//   - Every access to the traced array and every barrier that an
//     invocation executes from |start| to its return is in its event list,
//     in program order, with the element it touches (arrays of scalars or
//     vectors, or arrays of those arrays: the innermost index, the row of
//     the outer indices and the component, evaluated bit for bit).
//   - A branch is followed only when its condition is known; a selection
//     or loop construct whose condition is unknown is skipped only when it
//     contains no access to the array, no barrier and no call (its values
//     are then unknown); otherwise Run() fails. A condition that is the
//     same for every invocation of the workgroup and for every time it is
//     evaluated (computed only from constants, push constants, uniform
//     buffer blocks and WorkgroupId/NumWorkgroups) is followed the way
//     |config.branches| says; when it says nothing, Run() fails with
//     "UniformBranch" and PendingBranch() names the condition, so that the
//     caller can run each outcome as a configuration of its own.
//   - Values loaded from the array never decide a branch or an index (Run()
//     fails), so every invocation's events are independent of the array's
//     contents.
// Run() fails (with a reason and a sentence) on anything else: calls,
// unknown indices, more than a budget of executed instructions.
#ifndef WAVEOPT_LIB_ANALYSIS_WORKGROUP_TRACE_H_
#define WAVEOPT_LIB_ANALYSIS_WORKGROUP_TRACE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace spvtools {
namespace opt {
class Function;
class Instruction;
class IRContext;
}  // namespace opt
}  // namespace spvtools

namespace waveopt {

// The values of the specialization constants (by SpecId) a trace assumes;
// a specialization constant not listed is unknown (not its default).
struct TraceConfig {
  std::map<uint32_t, uint64_t> spec;
  // The outcomes assumed for conditional branches on values that are the
  // same for the whole workgroup but unknown (push constants, uniform
  // buffers, the workgroup's id: WorkgroupTrace::PendingBranch), by the
  // condition's id: 0 or 1.
  std::map<uint32_t, uint64_t> branches;
};

// How a stored value was made.
struct TraceStoreValue {
  enum class Kind : uint8_t {
    kOther,     // anything else (a value from outside the array)
    kCopy,      // the value of load |a|
    kCombined,  // |op|/|ext| applied to loads |a| and |b|
  };
  Kind kind = Kind::kOther;
  uint32_t op = 0;        // spv::Op of the combining instruction
  uint32_t ext = 0;       // GLSL.std.450 number when op is OpExtInst
  uint32_t a = 0, b = 0;  // indices into the invocation's events
  uint32_t id = 0;        // kOther: the stored value's id
};

struct TraceEvent {
  enum class Kind : uint8_t {
    kLoad,         // a load of the traced array
    kStore,        // a store to it
    kBarrier,      // OpControlBarrier
    kMemoryWrite,  // a write to other memory, a memory barrier, an atomic
    kSubgroupOp,   // an OpGroupNonUniform* instruction
  };
  Kind kind = Kind::kLoad;
  spvtools::opt::Instruction* inst = nullptr;
  int64_t element = -1;    // loads and stores: the innermost array index
  int64_t row = 0;         // the outer levels' indices, flattened
  int32_t component = -1;  // a vector element's component; -1: all of it
  TraceStoreValue value;   // stores
};

class WorkgroupTrace {
 public:
  // Traces accesses to the Workgroup variable |array| (an array, or array
  // of arrays, of scalars or vectors)
  // in |entry|, a GLCompute entry point's function of a module in SSA form.
  WorkgroupTrace(spvtools::opt::IRContext* context, spvtools::opt::Function* entry, uint32_t array);
  ~WorkgroupTrace();
  WorkgroupTrace(const WorkgroupTrace&) = delete;
  WorkgroupTrace& operator=(const WorkgroupTrace&) = delete;

  // The workgroup size under |config|; false when a dimension is unknown.
  bool WorkgroupCount(const TraceConfig& config, uint32_t size[3]);

  // Whether |start|'s block can be reached under |config|: false when a
  // conditional branch that dominates it is known to go the other way.
  bool Reaches(spvtools::opt::Instruction* start, const TraceConfig& config);

  // Runs every invocation of the workgroup under |config| from |start| (an
  // instruction of |entry| outside any loop) to its return. False with a
  // remark name in |*reason|, a sentence in |*why| and the instruction to
  // blame in |*where| when an invocation cannot be followed (see the
  // contract).
  bool Run(spvtools::opt::Instruction* start, const TraceConfig& config, std::string* reason,
           std::string* why, spvtools::opt::Instruction** where);

  // After Run() failed with "UniformBranch": the condition's id (see the
  // contract); 0 otherwise.
  uint32_t PendingBranch() const;

  // After a successful Run(): events[invocation].
  const std::vector<std::vector<TraceEvent>>& events() const;

  // Evaluates |id| (an integer or boolean, a function of the identity of
  // invocation |index| and constants) under |config|; false when unknown.
  bool EvalFor(uint32_t id, uint32_t index, const TraceConfig& config, uint64_t* value);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace waveopt

#endif  // WAVEOPT_LIB_ANALYSIS_WORKGROUP_TRACE_H_
