// --auto: a spec for a module nobody wrote one for. From the interface alone:
// a dispatch of a few thousand invocations shaped like the ids the module
// reads, runtime arrays and images sized from it, fills that keep typical
// loops bounded (small integers, floats in [0, 1)), multiset compares for
// bindings whose contents depend on the order atomics return values.
#ifndef WAVEOPT_TOOLS_WAVERUN_AUTO_SPEC_H_
#define WAVEOPT_TOOLS_WAVERUN_AUTO_SPEC_H_

#include <string>
#include <vector>

#include "tools/waverun/reflect.h"
#include "tools/waverun/spec.h"

namespace waverun {

// The fills --auto gives what a spec leaves without one: |data| for storage
// buffers, texel buffers, images and pointees; |params| for uniform buffers
// and push constants.
struct AutoFills {
  Fill data;
  Fill params;
};
// floats in [0, 1), integers in [0, 16) for data (indices and counts stay
// small, so loops bounded by data stay short and indices stay in bounds);
// integers in [1, 9) for params (counts, sizes and strides, never 0, so
// loops stepping by them end).
AutoFills DefaultAutoFills();

// The dimensions (1 to 3) of the grid of workgroups --auto lays out: the
// invocation id components the module reads, the workgroup's shape and its
// writable 2-D/3-D storage images.
uint32_t GridDims(const ModuleInterface& iface);

// The grid of about 4,096 invocations (at most twice that) --auto used
// before it searched: the largest it tries.
void LargeGrid(const ModuleInterface& iface, uint32_t grid[3]);

// Fills |spec| for |iface| (for diff: the merged interface of both modules)
// with |fills| where it has none; a spec without a dispatch gets LargeGrid.
// Sizes follow the dispatch. |notes| gets one line per binding compared
// other than exactly, and why.
void AutoSpec(const ModuleInterface& iface, const AutoFills& fills, RunSpec* spec,
              std::vector<std::string>* notes);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_AUTO_SPEC_H_
