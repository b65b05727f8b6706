// Why workgroup-reduce leaves a candidate tree alone: the names of its
// missed remarks, as an enum the pass decides on (a tree in a block no
// configuration reaches is skipped; a tree whose step branches on the
// array's values may be a pair tree). WorkgroupReduceReasonName spells
// each one, in one table (workgroup_reduce_pass.cpp);
// docs/design/workgroup-reduce.md explains them. The module's own
// refusals (WavePass::ModuleRefusal) stay strings.
#ifndef WAVEOPT_PASSES_WORKGROUP_REDUCE_REASON_H_
#define WAVEOPT_PASSES_WORKGROUP_REDUCE_REASON_H_

#include <string>

namespace waveopt {

enum class WorkgroupReduceReason {
  kNone,  // no refusal
  // Where the tree is, what it reduces.
  kNotInEntryPoint,
  kUnknownWorkgroupSize,
  kUnknownRowCount,
  kTooManyRows,
  kUnsupportedType,
  kFloatReassociation,
  kUnreached,
  // WorkgroupTrace's (it names its failures as remarks).
  kBranchOnArrayValue,
  kCallInTree,
  kIndexFromArray,
  kOutOfBounds,
  kTraceTooLong,
  kUnknownBranch,
  kUnknownIndex,
  kUnsupportedAccess,
  kUnsupportedControlFlow,
  // The replay of the trace.
  kNonUniformBarriers,
  kRaceInTree,
  kReadsPartialValue,
  kIncompleteTree,
  kNotATreeStep,
  kNoTreeSteps,
  kMixedOperations,
  kOtherWorkInTree,
  kReaderInsideTree,
  kNoReader,
  kDependsOnConfiguration,
  kPartialElementWrite,
  kRowsDiffer,
  kReaderSpansRows,
  kValueEscapesTree,
  // The form.
  kTooFewSlots,
  kStoreAfterTree,
  kNotProfitable,
  kNotExpressibleInHlsl,
  // Pair trees.
  kPairTreeShape,
  kPairFloatKey,
  kPairCondition,
  kCount,
};

// The remark name of |reason| ("" for kNone).
const char* WorkgroupReduceReasonName(WorkgroupReduceReason reason);
// The reason WorkgroupTrace::Run names |name| (its failures are remark
// names, all in the table; "" is kNone).
WorkgroupReduceReason WorkgroupReduceReasonFromTrace(const std::string& name);

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_WORKGROUP_REDUCE_REASON_H_
