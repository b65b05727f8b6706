// What one instruction does to memory, decided from a list of instructions
// known to this project, never assumed: an instruction the list does not
// know (a capability or extension newer than the pass) is kUnknown, and a
// pass that needs to know what a region writes refuses the region, naming
// the instruction (remark `UnknownInstruction`).
//
// Contract:
//   - kNone: reads and writes no memory visible to other invocations or to
//     later instructions (arithmetic, composites, conversions, control flow,
//     debug information, subgroup operations, derivatives, pointer
//     arithmetic and variables, OpSampledImage/OpImage/queries).
//   - kRead: reads memory, writes none (loads, image reads and samples,
//     OpAtomicLoad, OpCooperativeMatrixLoad*, ...).
//   - kWrite: writes memory, through the pointer (or image) operand
//     WrittenOperand() names when it has one; atomics other than loads,
//     stores, copies, image writes, cooperative-matrix stores, GLSL.std.450
//     Modf/Frexp (their pointer operand), mesh/geometry outputs, ray payloads.
//   - kBarrier: orders memory between invocations (control and memory
//     barriers, interlock begin/end): other invocations' writes may become
//     visible after it.
//   - kCall: OpFunctionCall; the callee's instructions decide.
//   - kUnknown: everything else.
#ifndef WAVEOPT_LIB_ANALYSIS_MEMORY_EFFECTS_H_
#define WAVEOPT_LIB_ANALYSIS_MEMORY_EFFECTS_H_

#include <cstdint>

namespace spvtools {
namespace opt {
class IRContext;
class Instruction;
}  // namespace opt
}  // namespace spvtools

namespace waveopt {

enum class MemoryEffect : uint8_t { kNone, kRead, kWrite, kBarrier, kCall, kUnknown };

// The effect of |inst| (see the contract above). OpExtInst is judged by its
// set: GLSL.std.450 (Modf/Frexp write, InterpolateAt* read, the rest none),
// NonSemantic.* and the debug-info sets (none); other sets are kUnknown.
MemoryEffect MemoryEffectOf(spvtools::opt::IRContext* context,
                            const spvtools::opt::Instruction* inst);

// For a kWrite instruction: the in-operand index of the pointer (or image)
// it writes through, or -1 when it writes memory no operand names (ray
// payloads, mesh outputs, EmitVertex's outputs).
int WrittenOperand(spvtools::opt::IRContext* context, const spvtools::opt::Instruction* inst);

}  // namespace waveopt

#endif  // WAVEOPT_LIB_ANALYSIS_MEMORY_EFFECTS_H_
