// -O's selective inliner: inlines the small functions called inside loops
// (accessors such as getLight(i) or fetchWeight(i)), so that the loads they
// do belong to the loop that calls them and batch-uniform-loads can see
// them. It also inlines every call of a function that runs a barrier and
// stores a combination of two elements of a shared array into it (a
// reduction tree's step, HoldsWorkgroupTreeStep), and of the functions
// calling one: workgroup-reduce follows a tree only in the entry point's
// own function.
// Everything else stays a call: inlining every function into the
// entry point (spirv-opt's --inline-entry-points-exhaustive) makes one huge
// function, on which SPIRV-Tools' later steps grow faster than linearly.
#ifndef WAVEOPT_LIB_INLINE_LOOP_CALLEES_H_
#define WAVEOPT_LIB_INLINE_LOOP_CALLEES_H_

#include <cstdint>
#include <memory>

namespace spvtools {
namespace opt {
class Pass;
}  // namespace opt
}  // namespace spvtools

namespace waveopt {

// The flag that names the pass, in -O's preparation step and on the command
// line (not a spirv-opt flag: waveopt::RegisterFlags registers the pass
// itself). Part of the passes layer; public as CreateInlineLoopCalleesPass()
// in waveopt/passes.h.
constexpr const char* kInlineLoopCalleesFlag = "--inline-loop-callees";

// A callee is inlined when it has at most this many instructions.
constexpr uint32_t kInlineLoopCalleeMaxInstructions = 200;

std::unique_ptr<spvtools::opt::Pass> MakeInlineLoopCalleesPass();

}  // namespace waveopt

#endif  // WAVEOPT_LIB_INLINE_LOOP_CALLEES_H_
