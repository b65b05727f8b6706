// Emitter's structured control-flow builder: the modules it builds validate,
// blocks are laid out in the order they are made, merges come with their
// branches, and running out of ids is a failure, not a crash.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "passes/emitter.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"
#include "spirv-tools/libspirv.hpp"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::IRContext;

// main: %entry stores nothing yet; the tests build between %entry and %end.
const char* kModule = R"(
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u4 = OpConstant %uint 4
%main = OpFunction %void None %fn
%entry = OpLabel
%c = OpULessThan %bool %u0 %u1
OpBranch %end
%end = OpLabel
OpReturn
OpFunctionEnd
)";

std::unique_ptr<IRContext> Build() {
  return spvtools::BuildModule(SPV_ENV_VULKAN_1_1, nullptr, kModule);
}

// The module's text (friendly names off: ids as numbers) and whether it
// validates.
std::string Text(IRContext* context, bool* valid) {
  std::vector<uint32_t> words;
  context->module()->ToBinary(&words, false);
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::string text;
  tools.Disassemble(words, &text, SPV_BINARY_TO_TEXT_OPTION_NO_HEADER);
  *valid = tools.Validate(words);
  return text;
}

// The entry block with its branch removed: the emitter continues there.
Emitter AtEntry(IRContext* context, BasicBlock** end) {
  BasicBlock* entry = &*context->module()->begin()->begin();
  *end = &*++context->module()->begin()->begin();
  context->KillInst(entry->terminator());
  Emitter e(context, entry);
  e.PlaceBlocksBefore(*end);
  return e;
}

TEST(EmitterBuilder, IfElseWithPhiValidates) {
  std::unique_ptr<IRContext> context = Build();
  BasicBlock* end = nullptr;
  Emitter e = AtEntry(context.get(), &end);
  const uint32_t cond = e.block()->begin()->result_id();  // %c
  Emitter::If s = e.PushIf(cond, Emitter::Arms::kBoth);
  const uint32_t a = e.EmitIds(spv::Op::OpIAdd, e.UIntType(32), {e.UInt(1), e.UInt(4)});
  e.PushElse(&s);
  const uint32_t b = e.EmitIds(spv::Op::OpISub, e.UIntType(32), {e.UInt(4), e.UInt(1)});
  ASSERT_TRUE(e.PopIf(&s));
  const uint32_t phi = e.IfPhi(s, e.UIntType(32), a, b);
  e.Branch(end->id());
  ASSERT_TRUE(e.ok());
  ASSERT_NE(phi, 0u);
  bool valid = false;
  const std::string text = Text(context.get(), &valid);
  EXPECT_TRUE(valid) << text;
  // Layout: header, then, else, merge, then the old %end.
  const size_t merge = text.find("OpSelectionMerge");
  const size_t then_at = text.find("OpIAdd");
  const size_t else_at = text.find("OpISub");
  const size_t phi_at = text.find("OpPhi");
  const size_t ret = text.find("OpReturn");
  EXPECT_LT(merge, then_at);
  EXPECT_LT(then_at, else_at);
  EXPECT_LT(else_at, phi_at);
  EXPECT_LT(phi_at, ret);
  EXPECT_EQ(text.find("OpSelectionMerge"), text.rfind("OpSelectionMerge"));
}

TEST(EmitterBuilder, WhileLoopValidates) {
  std::unique_ptr<IRContext> context = Build();
  BasicBlock* end = nullptr;
  Emitter e = AtEntry(context.get(), &end);
  const uint32_t uint_type = e.UIntType(32);
  Emitter::Loop loop = e.PushLoop();
  const uint32_t i = e.LoopPhi(&loop, uint_type, e.UInt(0));
  e.LoopWhile(&loop, e.EmitIds(spv::Op::OpULessThan, e.BoolType(), {i, e.UInt(4)}));
  const uint32_t next = e.EmitIds(spv::Op::OpIAdd, uint_type, {i, e.UInt(1)});
  ASSERT_TRUE(e.PopLoop(&loop, {next}));
  e.Branch(end->id());
  ASSERT_TRUE(e.ok());
  bool valid = false;
  const std::string text = Text(context.get(), &valid);
  EXPECT_TRUE(valid) << text;
  // The phi takes the add along the back edge, from the body.
  const std::string back = "%" + std::to_string(next) + " %" + std::to_string(loop.body->id());
  EXPECT_NE(text.find(back), std::string::npos) << text;
  EXPECT_NE(text.find("OpLoopMerge %" + std::to_string(loop.merge->id()) + " %" +
                      std::to_string(loop.body->id())),
            std::string::npos)
      << text;
}

TEST(EmitterBuilder, DoWhileLoopWithNestedIfValidates) {
  std::unique_ptr<IRContext> context = Build();
  BasicBlock* end = nullptr;
  Emitter e = AtEntry(context.get(), &end);
  const uint32_t uint_type = e.UIntType(32);
  Emitter::Loop loop = e.PushLoop(end);
  const uint32_t i = e.LoopPhi(&loop, uint_type, e.UInt(0));
  e.LoopWhile(&loop, 0);
  const uint32_t odd =
      e.EmitIds(spv::Op::OpINotEqual, e.BoolType(),
                {e.EmitIds(spv::Op::OpBitwiseAnd, uint_type, {i, e.UInt(1)}), e.UInt(0)});
  Emitter::If s = e.PushIf(odd, Emitter::Arms::kElse);
  const uint32_t doubled = e.EmitIds(spv::Op::OpIAdd, uint_type, {i, i});
  ASSERT_TRUE(e.PopIf(&s));
  const uint32_t step = e.IfPhi(s, uint_type, i, doubled);
  const uint32_t next = e.EmitIds(spv::Op::OpIAdd, uint_type, {step, e.UInt(1)});
  const uint32_t done = e.EmitIds(spv::Op::OpUGreaterThanEqual, e.BoolType(), {next, e.UInt(4)});
  ASSERT_TRUE(e.PopLoop(&loop, {next}, done));
  EXPECT_EQ(e.block(), end);
  bool valid = false;
  const std::string text = Text(context.get(), &valid);
  EXPECT_TRUE(valid) << text;
}

TEST(EmitterBuilder, WrapInIfSplitsAroundInstructions) {
  std::unique_ptr<IRContext> context = Build();
  BasicBlock* entry = &*context->module()->begin()->begin();
  spvtools::opt::Instruction* compare = &*entry->begin();
  Emitter e(context.get(), entry);
  const uint32_t cond = e.Bool(true);
  Emitter::If s = e.WrapInIf(compare, compare, cond, Emitter::Arms::kThen);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(context->get_instr_block(compare), s.then_block);
  EXPECT_EQ(s.merge->terminator()->opcode(), spv::Op::OpBranch);
  bool valid = false;
  const std::string text = Text(context.get(), &valid);
  EXPECT_TRUE(valid) << text;
}

// SplitHere cuts a block in two around a region; BranchToNewBlock starts
// the code that replaces it in a block of its own.
TEST(EmitterBuilder, SplitHereAndBranchToNewBlock) {
  std::unique_ptr<IRContext> context = Build();
  BasicBlock* entry = &*context->module()->begin()->begin();
  spvtools::opt::Instruction* compare = &*entry->begin();
  Emitter e(context.get(), entry, BasicBlock::iterator(compare));
  BasicBlock* rest = e.SplitHere();
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(context->get_instr_block(compare), rest);
  EXPECT_EQ(e.block(), entry);
  EXPECT_EQ(&*++context->module()->begin()->begin(), rest);  // right after
  e.PlaceBlocksBefore(rest);
  BasicBlock* start = e.BranchToNewBlock();
  ASSERT_NE(start, nullptr);
  EXPECT_EQ(e.block(), start);
  e.Branch(rest->id());
  ASSERT_TRUE(e.ok());
  std::vector<uint32_t> order;
  for (BasicBlock& b : *context->module()->begin()) order.push_back(b.id());
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[0], entry->id());
  EXPECT_EQ(order[1], start->id());
  EXPECT_EQ(order[2], rest->id());
  bool valid = false;
  const std::string text = Text(context.get(), &valid);
  EXPECT_TRUE(valid) << text;
  context->set_max_id_bound(context->module()->IdBound());  // no id left
  EXPECT_EQ(e.BranchToNewBlock(), nullptr);
  EXPECT_FALSE(e.ok());
}

// An existing loop (%head is its own continue target) wrapped in a new
// outer loop the way batch-uniform-loads wraps a loop: SplitEdges gives it
// a preheader, PushLoopInstead enters the outer loop from there, and
// ThroughExisting makes the block the existing loop now leaves to.
const char* kLoopModule = R"(
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u4 = OpConstant %uint 4
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %head
%head = OpLabel
%i = OpPhi %uint %u0 %entry %next %head
%next = OpIAdd %uint %i %u1
%more = OpULessThan %bool %next %u4
OpLoopMerge %end %head None
OpBranchConditional %more %head %end
%end = OpLabel
OpReturn
OpFunctionEnd
)";

TEST(EmitterBuilder, WrapsAnExistingLoopInANewOne) {
  std::unique_ptr<IRContext> context =
      spvtools::BuildModule(SPV_ENV_VULKAN_1_1, nullptr, kLoopModule);
  auto block = context->module()->begin()->begin();
  BasicBlock* entry = &*block;
  BasicBlock* head = &*++block;
  BasicBlock* end = &*++block;
  spvtools::opt::Instruction* phi = &*head->begin();
  Emitter pe(context.get(), head);
  BasicBlock* pre = pe.SplitEdges(head, {entry});
  ASSERT_NE(pre, nullptr);
  EXPECT_EQ(phi->GetSingleWordInOperand(3), pre->id());  // (%u0, pre)
  Emitter e(context.get(), pre);
  e.PlaceBlocksBefore(head);
  Emitter::Loop outer = e.PushLoopInstead(head->id(), end);
  const uint32_t uint_type = e.UIntType(32);
  const uint32_t j = e.LoopPhi(&outer, uint_type, e.UInt(0));
  e.LoopWhile(&outer, 0);
  phi->SetInOperand(3, {e.block()->id()});  // the inner loop starts from the body
  e.PlaceBlocksBefore(end);
  BasicBlock* inner_merge = e.ThroughExisting(head);
  ASSERT_NE(inner_merge, nullptr);
  head->GetLoopMergeInst()->SetInOperand(0, {inner_merge->id()});
  head->terminator()->SetInOperand(2, {inner_merge->id()});
  const uint32_t j_next = e.EmitIds(spv::Op::OpIAdd, uint_type, {j, e.UInt(1)});
  const uint32_t done = e.EmitIds(spv::Op::OpUGreaterThanEqual, e.BoolType(), {j_next, e.UInt(4)});
  ASSERT_TRUE(e.PopLoop(&outer, {j_next}, done));
  EXPECT_EQ(e.block(), end);
  bool valid = false;
  const std::string text = Text(context.get(), &valid);
  EXPECT_TRUE(valid) << text;
  // Layout: entry, pre, outer header, body, head, inner merge, latch, end.
  std::vector<uint32_t> order;
  for (BasicBlock& b : *context->module()->begin()) order.push_back(b.id());
  EXPECT_EQ(order,
            (std::vector<uint32_t>{entry->id(), pre->id(), outer.header->id(), outer.body->id(),
                                   head->id(), inner_merge->id(), outer.cont->id(), end->id()}));
}

// A loop header with a continue block of its own: the rewrites that put an
// if where an instruction of a header sits (prereduce-atomics).
const char* kHeaderModule = R"(
OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u4 = OpConstant %uint 4
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %head
%head = OpLabel
%i = OpPhi %uint %u0 %entry %next %cont
%more = OpULessThan %bool %i %u4
OpLoopMerge %end %cont None
OpBranchConditional %more %cont %end
%cont = OpLabel
%next = OpIAdd %uint %i %u1
OpBranch %head
%end = OpLabel
OpReturn
OpFunctionEnd
)";

TEST(EmitterBuilder, SplitsALoopHeaderForAnIfWhereAnInstructionIs) {
  std::unique_ptr<IRContext> context =
      spvtools::BuildModule(SPV_ENV_VULKAN_1_1, nullptr, kHeaderModule);
  auto block = context->module()->begin()->begin();
  BasicBlock* entry = &*block;
  BasicBlock* head = &*++block;
  spvtools::opt::Instruction* more = &*++head->begin();
  // Not a loop header: nothing to do.
  Emitter plain(context.get(), entry);
  EXPECT_EQ(plain.SplitLoopHeader(), entry);
  Emitter e(context.get(), head, BasicBlock::iterator(more));
  BasicBlock* body = e.SplitLoopHeader();
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(e.block(), body);
  BasicBlock* rest = e.SplitHere();
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(context->get_instr_block(more), rest);
  Emitter::If s = e.PushIf(e.Bool(true), Emitter::Arms::kThen, rest);
  e.EmitIds(spv::Op::OpIAdd, e.UIntType(32), {e.UInt(1), e.UInt(4)});
  ASSERT_TRUE(e.PopIf(&s));
  EXPECT_EQ(e.block(), rest);
  // The header keeps its phi and OpLoopMerge, with a branch to the body.
  std::vector<spv::Op> kept;
  for (spvtools::opt::Instruction& inst : *head) kept.push_back(inst.opcode());
  EXPECT_EQ(kept, (std::vector<spv::Op>{spv::Op::OpPhi, spv::Op::OpLoopMerge, spv::Op::OpBranch}));
  bool valid = false;
  const std::string text = Text(context.get(), &valid);
  EXPECT_TRUE(valid) << text;
  // Layout: entry, head, body, then, rest (the merge), the continue block, end.
  std::vector<uint32_t> order;
  for (BasicBlock& b : *context->module()->begin()) order.push_back(b.id());
  ASSERT_EQ(order.size(), 7u);
  EXPECT_EQ(order[1], head->id());
  EXPECT_EQ(order[2], body->id());
  EXPECT_EQ(order[3], s.then_block->id());
  EXPECT_EQ(order[4], rest->id());
}

// Too few ids for the merge: the builder fails (ok() false, null blocks),
// it does not crash and emits nothing more.
TEST(EmitterBuilder, FailsWhenIdsRunOut) {
  std::unique_ptr<IRContext> context = Build();
  BasicBlock* end = nullptr;
  Emitter e = AtEntry(context.get(), &end);
  const uint32_t cond = e.Bool(true);
  context->set_max_id_bound(context->module()->IdBound() + 1);  // one label
  Emitter::If s = e.PushIf(cond);
  ASSERT_NE(s.then_block, nullptr);
  EXPECT_FALSE(e.PopIf(&s));
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(s.merge, nullptr);
  EXPECT_EQ(e.PushLoop().header, nullptr);
  EXPECT_EQ(e.NewBlock(), nullptr);
  EXPECT_EQ(e.SplitHere(), nullptr);
}

}  // namespace
}  // namespace waveopt
