// A small instruction emitter for waveopt's rewrites: inserts instructions at
// a cursor, keeps def-use and instruction-to-block up to date, and turns id
// exhaustion into a sticky failure the pass checks once (the contract of
// SPIRV-Tools' passes: return Status::Failure, never crash).
//
// It also builds structured control flow (Mesa's nir_push_if/nir_pop_if/
// nir_if_phi): PushIf/PushElse/PopIf and PushLoop/LoopWhile/PopLoop make the
// blocks, emit each header's merge instruction with its branch and move the
// cursor into the block being built. New blocks are laid out in the order
// they are made, before PlaceBlocksBefore's block, else after the last one
// made (at first: after the block the emitter started in). Builder calls
// return null (or 0) once ids ran out, like the rest.
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
  // Which arms an if has: kThen: cond ? then : merge; kElse: cond ? merge :
  // else; kBoth: cond ? then : else.
  enum class Arms { kThen, kElse, kBoth };
  // An if between PushIf and PopIf (then IfPhi reads it).
  struct If {
    spvtools::opt::BasicBlock* header = nullptr;  // ends in the branch
    uint32_t cond = 0;
    Arms arms = Arms::kThen;
    spvtools::opt::BasicBlock* then_block = nullptr;  // first block of each arm
    spvtools::opt::BasicBlock* else_block = nullptr;
    spvtools::opt::BasicBlock* then_end = nullptr;  // last block of each arm
    spvtools::opt::BasicBlock* else_end = nullptr;
    spvtools::opt::BasicBlock* merge = nullptr;
    bool else_existing = false;  // ElseExisting's
  };
  // A loop between PushLoop and PopLoop.
  struct Loop {
    spvtools::opt::BasicBlock* pre = nullptr;     // branches to the header
    spvtools::opt::BasicBlock* header = nullptr;  // phis, the test, the merge
    spvtools::opt::BasicBlock* body = nullptr;    // first block of the body
    spvtools::opt::BasicBlock* merge = nullptr;
    spvtools::opt::BasicBlock* cont = nullptr;  // PopLoop's continue target
    uint32_t cond = 0;                          // LoopWhile's condition; 0: the body always runs
    std::vector<spvtools::opt::Instruction*> phis;  // LoopPhi's, in order
  };

  // Inserts before |where| in |block| (|where| may be block->end()).
  Emitter(spvtools::opt::IRContext* context, spvtools::opt::BasicBlock* block,
          spvtools::opt::BasicBlock::iterator where)
      : context_(context), block_(block), where_(where) {}
  // Appends at the end of |block|.
  Emitter(spvtools::opt::IRContext* context, spvtools::opt::BasicBlock* block)
      : Emitter(context, block, block->end()) {}

  // False once any emission failed (ids exhausted); stays false.
  bool ok() const { return ok_; }
  // The block the cursor is in.
  spvtools::opt::BasicBlock* block() const { return block_; }
  // Moves the cursor to the end of |block|.
  void MoveTo(spvtools::opt::BasicBlock* block);
  // New blocks go right before |block| (null: after the last one made).
  void PlaceBlocksBefore(spvtools::opt::BasicBlock* block) { place_before_ = block; }
  // A new empty block (see the layout rule above); null when ids ran out.
  spvtools::opt::BasicBlock* NewBlock();
  // A new block that the cursor moves to (the current block is left as it
  // is: the caller branches to it or it is a region's first block).
  spvtools::opt::BasicBlock* EnterNewBlock();
  // Splits the current block at the cursor: the instructions from the
  // cursor on (its branch with them) move to a new block laid out right
  // after it, which this returns and the cursor does not enter; successors'
  // phis name the new block. The cursor stays at the end of the current
  // block, which then has no branch. Null when ids ran out.
  spvtools::opt::BasicBlock* SplitHere();

  // if (cond) { then } [else { else }]: the current block becomes the
  // header, the cursor moves to the first arm's new block. |merge|, when
  // given, is an existing block (its instructions follow the if); else
  // PopIf makes one.
  If PushIf(uint32_t cond, Arms arms = Arms::kThen, spvtools::opt::BasicBlock* merge = nullptr);
  // Ends the then arm (of a kBoth if) and moves to a new else block.
  void PushElse(If* s);
  // Ends the then arm (of a kBoth if); the else arm is existing code from
  // |first| to |last|, which already branches to the merge. PopIf next.
  void ElseExisting(If* s, spvtools::opt::BasicBlock* first, spvtools::opt::BasicBlock* last);
  // Ends the last arm: it branches to the merge, the header gets its
  // OpSelectionMerge and OpBranchConditional, the cursor moves to the
  // merge's first non-phi instruction. False once ids ran out.
  bool PopIf(If* s);
  // A phi at the head of |s|'s merge: |then_value| from the then arm (or
  // from the header when there is none), |else_value| likewise.
  uint32_t IfPhi(const If& s, uint32_t type, uint32_t then_value, uint32_t else_value);
  // Makes the instructions [first, last] of one block (no phi, no branch)
  // an arm of an if on |cond| (kThen: they run when it holds, kElse: when
  // not), in place: the block is split before |first| and after |last|,
  // the part after becoming the merge. The cursor moves to the merge.
  If WrapInIf(spvtools::opt::Instruction* first, spvtools::opt::Instruction* last, uint32_t cond,
              Arms arm);
  // Makes room for control flow in a loop header (whose OpLoopMerge must
  // stay right before its branch): when the current block is one, it keeps
  // its phis and OpLoopMerge and branches to a new block laid out right
  // after it, to which its other instructions (its branch with them) and
  // the cursor move; the cursor must be past the phis. Returns the block
  // the cursor is then in (the current block, unchanged, when it is no
  // loop header); null when ids ran out.
  spvtools::opt::BasicBlock* SplitLoopHeader();

  // A loop: the current block branches to a new header where the cursor
  // goes (for LoopPhi, then the test). |merge| as for PushIf.
  Loop PushLoop(spvtools::opt::BasicBlock* merge = nullptr);
  // Same, when the current block already ends in a branch: its edges to
  // |target| go to the new header instead.
  Loop PushLoopInstead(uint32_t target, spvtools::opt::BasicBlock* merge = nullptr);
  // A header phi: |init| from the block before the loop; its value along
  // the back edge is PopLoop's.
  uint32_t LoopPhi(Loop* loop, uint32_t type, uint32_t init);
  // The body runs while |cond| holds (tested in the header; 0: always,
  // for a loop that PopLoop's |exit| leaves), from a new body block where
  // the cursor moves.
  void LoopWhile(Loop* loop, uint32_t cond);
  // Closes the loop: |next| are LoopPhi's values along the back edge, in
  // order. exit == 0: the current block is the continue target and
  // branches back; else it branches to a new continue block that leaves
  // the loop when |exit| holds. The header gets its OpLoopMerge and
  // branch; the cursor moves to the merge. False once ids ran out.
  bool PopLoop(Loop* loop, const std::vector<uint32_t>& next, uint32_t exit = 0);
  // Existing code that starts at |entry| and goes on at the block this
  // returns: the current block branches to |entry|, the cursor moves to a
  // new block, which the caller points that code's exits at (an existing
  // loop that becomes a new loop's body: the new block is its merge).
  spvtools::opt::BasicBlock* ThroughExisting(spvtools::opt::BasicBlock* entry);
  // The current block branches to a new block (see the layout rule above)
  // that the cursor moves to: straight-line code that starts a block of its
  // own. Null when ids ran out.
  spvtools::opt::BasicBlock* BranchToNewBlock();
  // A new block right before |target| on its edges from the blocks |from|:
  // they branch to it, it branches to |target|, and |target|'s phis take
  // from it what they took from them (through a phi of the new block where
  // they gave several values). The cursor moves into it, before its
  // branch. Null when ids ran out.
  spvtools::opt::BasicBlock* SplitEdges(spvtools::opt::BasicBlock* target,
                                        const std::vector<spvtools::opt::BasicBlock*>& from);
  // Adds (|value|, |pred|) to the phi |phi| (a back edge's value, once it
  // is made); false (and ok() == false) when |value| is 0.
  bool AddIncoming(uint32_t phi, uint32_t value, uint32_t pred);

  // An instruction with a result of |type| (0 → none); returns its id, or 0
  // (and ok() == false) when ids ran out. |result| != 0 uses that id.
  uint32_t Emit(spv::Op opcode, uint32_t type, const std::vector<spvtools::opt::Operand>& operands,
                uint32_t result = 0);
  // Same, every operand an id.
  uint32_t EmitIds(spv::Op opcode, uint32_t type, std::initializer_list<uint32_t> ids,
                   uint32_t result = 0);
  // An instruction without result (branches, merges, stores).
  void EmitVoid(spv::Op opcode, const std::vector<spvtools::opt::Operand>& operands);

  // Subgroup-scope OpGroupNonUniform* with a group operation
  // (Reduce/InclusiveScan/ExclusiveScan) or without one (|group_op| < 0).
  uint32_t Group(spv::Op opcode, uint32_t type, int group_op, std::initializer_list<uint32_t> ids);

  // A GLSL.std.450 extended instruction (the import is added on first use).
  uint32_t GlslStd450(uint32_t instruction, uint32_t type, std::initializer_list<uint32_t> ids);
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

  // Id for the Subgroup scope (a 32-bit constant).
  uint32_t SubgroupScope() { return UInt(static_cast<uint32_t>(spv::Scope::Subgroup)); }

 private:
  // False (and ok() == false) when ids are too close to the limit to call
  // SPIRV-Tools' type/constant managers safely.
  bool ManagerRoom();
  uint32_t Check(uint32_t id) {
    if (id == 0) ok_ = false;
    return id;
  }
  // The first non-phi position of |block|.
  static spvtools::opt::BasicBlock::iterator AfterPhis(spvtools::opt::BasicBlock* block);
  // Appends a terminator-side instruction at the end of |block| without
  // moving the cursor.
  void EmitVoidAt(spvtools::opt::BasicBlock* block, spv::Op opcode,
                  const std::vector<spvtools::opt::Operand>& operands);

  spvtools::opt::IRContext* context_;
  spvtools::opt::BasicBlock* block_;
  spvtools::opt::BasicBlock::iterator where_;
  spvtools::opt::BasicBlock* place_before_ = nullptr;
  spvtools::opt::BasicBlock* last_made_ = nullptr;  // null: block_ at start
  bool ok_ = true;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_EMITTER_H_
