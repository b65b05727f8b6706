// workgroup-reduce over rows: the shapes of shared arrays beyond an array
// of scalars that the pass reduces, and the helpers its analysis and
// rewrite share for them.
//
//   shared float t[C][R][N];     // arrays of arrays: C * R rows of N
//   ... t[c][r][tid] += t[c][r][tid + s]; ...   // every row, same steps
//   shared vec4 v[N];            // vector elements: reduced component-wise
//   ... v[tid] += v[tid + s]; ...                // (the vector operation)
//
// Each row (one index of every outer level) is its own tree over the
// innermost level: the pass replays every row's events on their own
// (ProjectRow), requires every row to be the same tree, and rewrites all of
// them under one barrier. A vector element is reduced whole, with the
// subgroup operations' vector forms; loads of one component read the
// component of the result, stores to one component are refused.
#ifndef WAVEOPT_PASSES_WORKGROUP_REDUCE_ROWS_H_
#define WAVEOPT_PASSES_WORKGROUP_REDUCE_ROWS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/workgroup_trace.h"
#include "passes/emitter.h"
#include "passes/workgroup_reduce_reason.h"

namespace spvtools {
namespace opt {
class Instruction;
class IRContext;
}  // namespace opt
}  // namespace spvtools

namespace waveopt {

// The most rows one tree may have: each row is a value and a subgroup
// operation of every invocation.
constexpr uint64_t kMaxTreeRows = 64;

// The shape of a Workgroup array a tree reduces.
struct RowLayout {
  uint32_t elem_type = 0;       // a 32-bit scalar, or a vector of them
  uint32_t scalar_type = 0;     // its component type (elem_type for scalars)
  uint32_t components = 0;      // the vector's size; 0 for a scalar element
  uint32_t length_id = 0;       // the innermost level's length: a row's elements
  std::vector<uint64_t> outer;  // the outer levels' lengths, outer first
  uint64_t rows = 1;            // their product
  // Outer lengths that are specialization constants: each one's id, SpecId
  // and the value the pass traces and rewrites for (its default); other
  // values keep the original tree.
  struct SpecRow {
    uint32_t id = 0, spec_id = 0;
    uint64_t value = 0;
  };
  std::vector<SpecRow> spec_rows;
  // An array of scalars: the pass's original shape, no row to project.
  bool Plain() const { return outer.empty() && components == 0; }
};

// The layout of the Workgroup array variable |var|; false with |*reason|
// (a missed-remark name) and |*why| when the pass cannot reduce it.
bool ArrayRowLayout(spvtools::opt::IRContext* context, const spvtools::opt::Instruction* var,
                    RowLayout* layout, WorkgroupReduceReason* reason, std::string* why);

// The events of row |row| of a trace (per invocation): loads and stores of
// other rows dropped, the store values' load indices renumbered; a store
// made from loads of another row or of single components is made of
// "other" values (not a tree step). False with |*why| and |*where| when
// the trace writes one component of a vector element.
bool ProjectRow(const std::vector<std::vector<TraceEvent>>& events, int64_t row,
                std::vector<std::vector<TraceEvent>>* out, std::string* why,
                spvtools::opt::Instruction** where);

// |opcode| of the ids |ids| (a list built at run time).
uint32_t EmitIdList(Emitter* e, spv::Op opcode, uint32_t type, const std::vector<uint32_t>& ids);

// The element constant with every component's bits |bits|.
uint32_t ElementConstant(Emitter* e, const RowLayout& layout, uint32_t bits);

// |cond| ? |a| : |b| for element values (|cond| a scalar bool).
uint32_t SelectElement(Emitter* e, const RowLayout& layout, uint32_t cond, uint32_t a, uint32_t b);

// The indices (uint constants, outer first) of row |row|.
std::vector<uint32_t> RowIndices(Emitter* e, const RowLayout& layout, uint64_t row);

// Replaces the load |reader| of a tree's result with |value| (the row's
// result, an element): the component it loads when it loads one, inserted
// before it. False when ids ran out.
bool ReplaceReader(spvtools::opt::IRContext* context, const RowLayout& layout,
                   spvtools::opt::Instruction* reader, uint32_t value);

// Moves the instructions strictly between |store| and |barrier| (one
// block; the forwarded store S0 and B0), but the stores into the array
// |var| (the other rows' forwarded stores), to before |store|: the rewrite
// replaces the code from S0 on, and the forwarding lets values, loads of
// other memory and stores to private memory lie between them, which must
// stay. No memory order changes that another invocation could observe:
// nothing synchronizes between S0 and B0.
void HoistAboveStore(spvtools::opt::IRContext* context, spvtools::opt::Instruction* store,
                     spvtools::opt::Instruction* barrier, uint32_t var);

// The row the access chain |chain| into the array addresses when its
// outer indices are constants and it reaches one whole element; -1
// otherwise. |*index| gets the innermost index's id.
int64_t ConstantRow(spvtools::opt::IRContext* context, const RowLayout& layout,
                    const spvtools::opt::Instruction* chain, uint32_t* index);

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_WORKGROUP_REDUCE_ROWS_H_
