// -O's versions (the pipeline layer, internal): after Optimize() built the
// portable module, the modules of the targets whose facts differ join it
// behind boolean specialization constants (lib/versions.h).
#ifndef WAVEOPT_LIB_PIPELINE_VERSIONS_H_
#define WAVEOPT_LIB_PIPELINE_VERSIONS_H_

#include <functional>
#include <vector>

#include "waveopt/pipeline.h"

namespace waveopt {

// Builds the module of one target into a Result, as Optimize() does.
using BuildForTarget = std::function<bool(Target, Result*)>;

// The targets -O builds versions for, in SpecId order.
const std::vector<Target>& VersionTargets();

// Adds to |result| (the portable build, successful) the versions of
// VersionTargets() that differ from it, their remarks and Result::versions.
// A version that cannot be built or joined leaves the portable module alone
// with a warning or a missed remark. False (|result| then failed) only when
// a version's SpecId is the module's own.
bool AddVersions(const Options& options, spv_target_env env, BlockLayout layout,
                 const BuildForTarget& build, Result* result);

}  // namespace waveopt

#endif  // WAVEOPT_LIB_PIPELINE_VERSIONS_H_
