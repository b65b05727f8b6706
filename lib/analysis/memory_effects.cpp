// What an instruction does to memory: lists of known instructions, with
// kUnknown for everything else (memory_effects.h).
#include "lib/analysis/memory_effects.h"

#include <string>

#include "analysis/ir_util.h"
#include "source/opcode.h"
#include "source/opt/ir_context.h"
#include "spirv/unified1/GLSL.std.450.h"

namespace waveopt {
namespace {

using spv::Op;
using spvtools::opt::Instruction;

bool ReadsOnly(Op op) {
  switch (op) {
    case Op::OpLoad:
    case Op::OpAtomicLoad:
    case Op::OpImageSampleImplicitLod:
    case Op::OpImageSampleExplicitLod:
    case Op::OpImageSampleDrefImplicitLod:
    case Op::OpImageSampleDrefExplicitLod:
    case Op::OpImageSampleProjImplicitLod:
    case Op::OpImageSampleProjExplicitLod:
    case Op::OpImageSampleProjDrefImplicitLod:
    case Op::OpImageSampleProjDrefExplicitLod:
    case Op::OpImageSparseSampleImplicitLod:
    case Op::OpImageSparseSampleExplicitLod:
    case Op::OpImageSparseSampleDrefImplicitLod:
    case Op::OpImageSparseSampleDrefExplicitLod:
    case Op::OpImageFetch:
    case Op::OpImageSparseFetch:
    case Op::OpImageGather:
    case Op::OpImageDrefGather:
    case Op::OpImageSparseGather:
    case Op::OpImageSparseDrefGather:
    case Op::OpImageRead:
    case Op::OpImageSparseRead:
    case Op::OpImageSampleFootprintNV:
    case Op::OpCooperativeMatrixLoadKHR:
    case Op::OpCooperativeMatrixLoadNV:
      return true;
    default:
      return false;
  }
}

// Writes other than atomics (which spvOpcodeIsAtomicOp names).
bool Writes(Op op) {
  switch (op) {
    case Op::OpStore:
    case Op::OpCopyMemory:
    case Op::OpCopyMemorySized:
    case Op::OpImageWrite:
    case Op::OpCooperativeMatrixStoreKHR:
    case Op::OpCooperativeMatrixStoreNV:
    case Op::OpEmitVertex:
    case Op::OpEndPrimitive:
    case Op::OpEmitStreamVertex:
    case Op::OpEndStreamPrimitive:
    case Op::OpSetMeshOutputsEXT:
    case Op::OpEmitMeshTasksEXT:
    case Op::OpTraceRayKHR:
    case Op::OpTraceNV:
    case Op::OpExecuteCallableKHR:
    case Op::OpExecuteCallableNV:
    case Op::OpReportIntersectionKHR:
    case Op::OpRayQueryInitializeKHR:
    case Op::OpRayQueryProceedKHR:
    case Op::OpRayQueryTerminateKHR:
    case Op::OpRayQueryConfirmIntersectionKHR:
    case Op::OpRayQueryGenerateIntersectionKHR:
      return true;
    default:
      return false;
  }
}

bool Orders(Op op) {
  switch (op) {
    case Op::OpControlBarrier:
    case Op::OpMemoryBarrier:
    case Op::OpMemoryNamedBarrier:
    case Op::OpControlBarrierArriveINTEL:
    case Op::OpControlBarrierWaitINTEL:
    case Op::OpBeginInvocationInterlockEXT:
    case Op::OpEndInvocationInterlockEXT:
      return true;
    default:
      return false;
  }
}

// No memory effect, beyond what SPIRV-Tools calls combinators: structure,
// control flow, debug lines, subgroup operations, pointer formation.
bool NoEffect(Op op) {
  if (spvOpcodeIsBranch(op) || spvOpcodeIsReturnOrAbort(op) ||
      spvOpcodeIsNonUniformGroupOperation(op) || spvOpcodeIsDebug(op) ||
      spvOpcodeIsDecoration(op) || spvOpcodeIsConstant(op) || spvOpcodeGeneratesType(op)) {
    return true;
  }
  switch (op) {
    case Op::OpLabel:
    case Op::OpLoopMerge:
    case Op::OpSelectionMerge:
    case Op::OpPhi:
    case Op::OpNop:
    case Op::OpUndef:
    case Op::OpFunction:
    case Op::OpFunctionParameter:
    case Op::OpFunctionEnd:
    case Op::OpVariable:
    case Op::OpDemoteToHelperInvocation:
    case Op::OpIsHelperInvocationEXT:
    case Op::OpReadClockKHR:
    case Op::OpAssumeTrueKHR:
    case Op::OpExpectKHR:
    case Op::OpCopyLogical:
    case Op::OpCopyObject:
    case Op::OpConvertUToPtr:
    case Op::OpConvertPtrToU:
    case Op::OpUntypedAccessChainKHR:
    case Op::OpUntypedInBoundsAccessChainKHR:
    case Op::OpUntypedPtrAccessChainKHR:
    case Op::OpUntypedInBoundsPtrAccessChainKHR:
    case Op::OpUntypedVariableKHR:
    case Op::OpPtrEqual:
    case Op::OpPtrNotEqual:
    case Op::OpPtrDiff:
    case Op::OpPtrAccessChain:
    case Op::OpInBoundsPtrAccessChain:
    case Op::OpAccessChain:
    case Op::OpInBoundsAccessChain:
    case Op::OpImageTexelPointer:
    case Op::OpArrayLength:
    case Op::OpSampledImage:
    case Op::OpImage:
    case Op::OpImageQuerySizeLod:
    case Op::OpImageQuerySize:
    case Op::OpImageQueryLod:
    case Op::OpImageQueryLevels:
    case Op::OpImageQuerySamples:
    case Op::OpImageQueryFormat:
    case Op::OpImageQueryOrder:
    case Op::OpImageSparseTexelsResident:
    case Op::OpCooperativeMatrixLengthKHR:
    case Op::OpCooperativeMatrixLengthNV:
    case Op::OpCooperativeMatrixMulAddKHR:
    case Op::OpCooperativeMatrixMulAddNV:
    case Op::OpDPdx:
    case Op::OpDPdy:
    case Op::OpFwidth:
    case Op::OpDPdxFine:
    case Op::OpDPdyFine:
    case Op::OpFwidthFine:
    case Op::OpDPdxCoarse:
    case Op::OpDPdyCoarse:
    case Op::OpFwidthCoarse:
    case Op::OpGroupAll:
    case Op::OpGroupAny:
    case Op::OpGroupBroadcast:
    case Op::OpGroupIAdd:
    case Op::OpGroupFAdd:
    case Op::OpGroupFMin:
    case Op::OpGroupUMin:
    case Op::OpGroupSMin:
    case Op::OpGroupFMax:
    case Op::OpGroupUMax:
    case Op::OpGroupSMax:
    case Op::OpSubgroupBallotKHR:
    case Op::OpSubgroupFirstInvocationKHR:
    case Op::OpSubgroupAllKHR:
    case Op::OpSubgroupAnyKHR:
    case Op::OpSubgroupAllEqualKHR:
    case Op::OpSubgroupReadInvocationKHR:
    case Op::OpGroupNonUniformQuadAllKHR:
    case Op::OpGroupNonUniformQuadAnyKHR:
      return true;
    default:
      return false;
  }
}

// The name of the extended-instruction set |inst| uses ("" when unknown).
std::string ExtInstSetName(spvtools::opt::IRContext* context, const Instruction* inst) {
  const Instruction* set = context->get_def_use_mgr()->GetDef(inst->GetSingleWordInOperand(0));
  if (set == nullptr || set->opcode() != Op::OpExtInstImport) return "";
  return set->GetInOperand(0).AsString();
}

MemoryEffect ExtInstEffect(spvtools::opt::IRContext* context, const Instruction* inst) {
  if (IsGlslStd450(context, inst)) {
    const uint32_t n = inst->GetSingleWordInOperand(1);
    if (n == GLSLstd450Modf || n == GLSLstd450Frexp) return MemoryEffect::kWrite;
    if (n == GLSLstd450InterpolateAtCentroid || n == GLSLstd450InterpolateAtSample ||
        n == GLSLstd450InterpolateAtOffset) {
      return MemoryEffect::kRead;
    }
    return MemoryEffect::kNone;
  }
  const std::string set = ExtInstSetName(context, inst);
  if (set.rfind("NonSemantic.", 0) == 0 || set == "DebugInfo" || set == "OpenCL.DebugInfo.100") {
    return MemoryEffect::kNone;
  }
  return MemoryEffect::kUnknown;
}

}  // namespace

MemoryEffect MemoryEffectOf(spvtools::opt::IRContext* context, const Instruction* inst) {
  const Op op = inst->opcode();
  if (op == Op::OpExtInst) return ExtInstEffect(context, inst);
  if (op == Op::OpFunctionCall) return MemoryEffect::kCall;
  if (ReadsOnly(op)) return MemoryEffect::kRead;
  if (Writes(op) || spvOpcodeIsAtomicOp(op)) return MemoryEffect::kWrite;
  if (Orders(op)) return MemoryEffect::kBarrier;
  if (NoEffect(op) || context->IsCombinatorInstruction(inst)) return MemoryEffect::kNone;
  return MemoryEffect::kUnknown;
}

int WrittenOperand(spvtools::opt::IRContext* context, const Instruction* inst) {
  const Op op = inst->opcode();
  if (op == Op::OpExtInst) {
    return MemoryEffectOf(context, inst) == MemoryEffect::kWrite ? 3 : -1;
  }
  if (spvOpcodeIsAtomicOp(op) && op != Op::OpAtomicLoad) return 0;
  switch (op) {
    case Op::OpStore:
    case Op::OpCopyMemory:
    case Op::OpCopyMemorySized:
    case Op::OpImageWrite:
    case Op::OpCooperativeMatrixStoreKHR:
    case Op::OpCooperativeMatrixStoreNV:
    case Op::OpRayQueryInitializeKHR:
    case Op::OpRayQueryProceedKHR:
    case Op::OpRayQueryTerminateKHR:
    case Op::OpRayQueryConfirmIntersectionKHR:
    case Op::OpRayQueryGenerateIntersectionKHR:
      return 0;
    default:
      return -1;
  }
}

}  // namespace waveopt
