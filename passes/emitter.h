// A small instruction emitter for waveopt's rewrites: inserts instructions at
// a fixed point of a block, keeps def-use and instruction-to-block up to date,
// and turns id exhaustion into a sticky failure the pass checks once (the
// contract of SPIRV-Tools' passes: return Status::Failure, never crash).
#ifndef WAVEOPT_PASSES_EMITTER_H_
#define WAVEOPT_PASSES_EMITTER_H_

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "source/opt/basic_block.h"
#include "source/opt/ir_context.h"

namespace waveopt {

class Emitter {
 public:
  // Inserts before |where| in |block| (|where| may be block->end()).
  Emitter(spvtools::opt::IRContext* context, spvtools::opt::BasicBlock* block,
          spvtools::opt::BasicBlock::iterator where)
      : context_(context), block_(block), where_(where) {}
  // Appends at the end of |block|.
  Emitter(spvtools::opt::IRContext* context, spvtools::opt::BasicBlock* block)
      : Emitter(context, block, block->end()) {}

  // False once any emission failed (ids exhausted); stays false.
  bool ok() const { return ok_; }

  // An instruction with a result of |type| (0 → none); returns its id, or 0
  // (and ok() == false) when ids ran out. |result| != 0 uses that id.
  uint32_t Emit(spv::Op opcode, uint32_t type,
                const std::vector<spvtools::opt::Operand>& operands,
                uint32_t result = 0);
  // Same, every operand an id.
  uint32_t EmitIds(spv::Op opcode, uint32_t type,
                   std::initializer_list<uint32_t> ids, uint32_t result = 0);
  // An instruction without result (branches, merges, stores).
  void EmitVoid(spv::Op opcode,
                const std::vector<spvtools::opt::Operand>& operands);

  // Subgroup-scope OpGroupNonUniform* with a group operation
  // (Reduce/InclusiveScan/ExclusiveScan) or without one (|group_op| < 0).
  uint32_t Group(spv::Op opcode, uint32_t type, int group_op,
                 std::initializer_list<uint32_t> ids);

  // A GLSL.std.450 extended instruction (the import is added on first use).
  uint32_t GlslStd450(uint32_t instruction, uint32_t type,
                      std::initializer_list<uint32_t> ids);
  // The lowest set bit of the uvec4 |ballot| among its first |max_lanes|
  // bits, as OpGroupNonUniformBallotFindLSB gives it, built from FindILsb of
  // its words and selects: HLSL has no spelling of BallotFindLSB (SPIRV-Cross
  // refuses to emit it), FindILsb is firstbitlow. Undefined for a ballot with
  // no bit set, like the instruction it replaces.
  uint32_t BallotLowestBit(uint32_t ballot, uint32_t max_lanes);

  void Branch(uint32_t target);
  void SelectionMerge(uint32_t merge);
  void LoopMerge(uint32_t merge, uint32_t continue_target);
  void BranchConditional(uint32_t cond, uint32_t on_true, uint32_t on_false);

  // Common ids; 0 (and ok() == false) on failure.
  uint32_t UInt(uint32_t value);
  uint32_t Bool(bool value);
  uint32_t Zero(uint32_t int_type);  // 0 of a 32- or 64-bit integer type
  uint32_t Null(uint32_t type);      // OpConstantNull (or 0/false) of |type|
  // A scalar constant of |type| with these literal words (e.g. float bits).
  uint32_t Constant(uint32_t type, const std::vector<uint32_t>& words);
  uint32_t BoolType();
  uint32_t UIntType(uint32_t width);
  uint32_t UIntVectorType(uint32_t count);
  uint32_t IntType(uint32_t width, bool is_signed);
  // A vector of |count| |component|s (|component| itself when count is 1).
  uint32_t VectorType(uint32_t component, uint32_t count);

  // Id for the Subgroup scope (a 32-bit constant 3).
  uint32_t SubgroupScope() { return UInt(3); }

 private:
  // False (and ok() == false) when ids are too close to the limit to call
  // SPIRV-Tools' type/constant managers safely.
  bool ManagerRoom();
  uint32_t Check(uint32_t id) {
    if (id == 0) ok_ = false;
    return id;
  }

  spvtools::opt::IRContext* context_;
  spvtools::opt::BasicBlock* block_;
  spvtools::opt::BasicBlock::iterator where_;
  bool ok_ = true;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_EMITTER_H_
