// The simulator's tables of opcode families (one file each,
// machine_ops_*.cpp): pure instructions, and those on a subgroup's lanes
// (images, subgroup operations); and the dispatch through them.
#include <array>
#include <initializer_list>

#include "lib/sim/machine_impl.h"

namespace waveopt {
namespace sim {
namespace detail {

namespace {

// Pure opcodes are below this; GLSL.std.450 instructions below 128.
constexpr uint32_t kPureOps = 1024;
constexpr uint32_t kExtOps = 128;

}  // namespace

// clang-format off
Machine::Family Machine::PureFamily(uint32_t op) {
  static const std::array<Family, kPureOps> table = [] {
    std::array<Family, kPureOps> t{};
    auto add = [&t](Family run, std::initializer_list<uint32_t> ops) {
      for (uint32_t o : ops) t[o] = run;
    };
    add(&Machine::PureComposite, {spv::OpUndef, spv::OpCopyObject, spv::OpCopyLogical, spv::OpCompositeConstruct, spv::OpCompositeExtract, spv::OpCompositeInsert, spv::OpVectorExtractDynamic, spv::OpVectorInsertDynamic, spv::OpVectorShuffle});
    add(&Machine::PureIntArith, {spv::OpSNegate, spv::OpIAdd, spv::OpISub, spv::OpIMul, spv::OpUDiv, spv::OpUMod, spv::OpSDiv, spv::OpSRem, spv::OpSMod, spv::OpShiftLeftLogical, spv::OpShiftRightLogical, spv::OpShiftRightArithmetic});
    add(&Machine::PureIntBits, {spv::OpBitwiseAnd, spv::OpBitwiseOr, spv::OpBitwiseXor, spv::OpNot, spv::OpBitCount, spv::OpBitReverse, spv::OpBitFieldInsert, spv::OpBitFieldSExtract, spv::OpBitFieldUExtract, spv::OpIAddCarry, spv::OpISubBorrow, spv::OpUMulExtended, spv::OpSMulExtended});
    add(&Machine::PureFloat, {spv::OpFNegate, spv::OpFAdd, spv::OpFSub, spv::OpFMul, spv::OpFDiv, spv::OpFRem, spv::OpFMod, spv::OpVectorTimesScalar, spv::OpMatrixTimesScalar, spv::OpDot});
    add(&Machine::PureMatrix, {spv::OpMatrixTimesVector, spv::OpVectorTimesMatrix, spv::OpMatrixTimesMatrix, spv::OpOuterProduct, spv::OpTranspose});
    add(&Machine::PureConvert, {spv::OpConvertFToU, spv::OpConvertFToS, spv::OpConvertSToF, spv::OpConvertUToF, spv::OpUConvert, spv::OpSConvert, spv::OpFConvert, spv::OpQuantizeToF16, spv::OpConvertUToPtr, spv::OpConvertPtrToU, spv::OpBitcast});
    add(&Machine::PureCompare, {spv::OpIEqual, spv::OpINotEqual, spv::OpUGreaterThan, spv::OpSGreaterThan, spv::OpUGreaterThanEqual, spv::OpSGreaterThanEqual, spv::OpULessThan, spv::OpSLessThan, spv::OpULessThanEqual, spv::OpSLessThanEqual, spv::OpFOrdEqual, spv::OpFUnordEqual, spv::OpFOrdNotEqual, spv::OpFUnordNotEqual, spv::OpFOrdLessThan, spv::OpFUnordLessThan, spv::OpFOrdGreaterThan, spv::OpFUnordGreaterThan, spv::OpFOrdLessThanEqual, spv::OpFUnordLessThanEqual, spv::OpFOrdGreaterThanEqual, spv::OpFUnordGreaterThanEqual, spv::OpIsNan, spv::OpIsInf});
    add(&Machine::PureLogical, {spv::OpLogicalEqual, spv::OpLogicalNotEqual, spv::OpLogicalOr, spv::OpLogicalAnd, spv::OpLogicalNot, spv::OpAny, spv::OpAll, spv::OpSelect});
    return t;
  }();
  return op < table.size() ? table[op] : nullptr;
}

Machine::Family Machine::ExtFamily(uint32_t e) {
  static const std::array<Family, kExtOps> table = [] {
    std::array<Family, kExtOps> t{};
    auto add = [&t](Family run, std::initializer_list<uint32_t> ops) {
      for (uint32_t o : ops) t[o] = run;
    };
    add(&Machine::ExtFloatMap, {GLSLstd450Round, GLSLstd450RoundEven, GLSLstd450Trunc, GLSLstd450FAbs, GLSLstd450FSign, GLSLstd450Floor, GLSLstd450Ceil, GLSLstd450Fract, GLSLstd450Radians, GLSLstd450Degrees, GLSLstd450Sin, GLSLstd450Cos, GLSLstd450Tan, GLSLstd450Asin, GLSLstd450Acos, GLSLstd450Atan, GLSLstd450Sinh, GLSLstd450Cosh, GLSLstd450Tanh, GLSLstd450Asinh, GLSLstd450Acosh, GLSLstd450Atanh, GLSLstd450Atan2, GLSLstd450Pow, GLSLstd450Exp, GLSLstd450Log, GLSLstd450Exp2, GLSLstd450Log2, GLSLstd450Sqrt, GLSLstd450InverseSqrt});
    add(&Machine::ExtFloatMulti, {GLSLstd450FMin, GLSLstd450NMin, GLSLstd450FMax, GLSLstd450NMax, GLSLstd450FClamp, GLSLstd450NClamp, GLSLstd450FMix, GLSLstd450Step, GLSLstd450SmoothStep, GLSLstd450Fma, GLSLstd450Ldexp});
    add(&Machine::ExtInt, {GLSLstd450SAbs, GLSLstd450SSign, GLSLstd450UMin, GLSLstd450UMax, GLSLstd450SMin, GLSLstd450SMax, GLSLstd450UClamp, GLSLstd450SClamp, GLSLstd450FindILsb, GLSLstd450FindUMsb, GLSLstd450FindSMsb});
    add(&Machine::ExtGeometric, {GLSLstd450Length, GLSLstd450Distance, GLSLstd450Normalize, GLSLstd450Cross, GLSLstd450Reflect, GLSLstd450Refract, GLSLstd450FaceForward});
    add(&Machine::ExtPack, {GLSLstd450PackUnorm4x8, GLSLstd450PackSnorm4x8, GLSLstd450PackUnorm2x16, GLSLstd450PackSnorm2x16, GLSLstd450PackHalf2x16, GLSLstd450UnpackUnorm4x8, GLSLstd450UnpackSnorm4x8, GLSLstd450UnpackUnorm2x16, GLSLstd450UnpackSnorm2x16, GLSLstd450UnpackHalf2x16, GLSLstd450PackDouble2x32, GLSLstd450UnpackDouble2x32});
    add(&Machine::ExtModfFrexp, {GLSLstd450ModfStruct, GLSLstd450FrexpStruct, GLSLstd450Modf, GLSLstd450Frexp});
    add(&Machine::ExtMatrix, {GLSLstd450Determinant, GLSLstd450MatrixInverse});
    return t;
  }();
  return e < table.size() ? table[e] : nullptr;
}

Machine::LaneFamily Machine::LaneFamilyOf(uint32_t op) {
  static const std::array<LaneFamily, kPureOps> table = [] {
    std::array<LaneFamily, kPureOps> t{};
    auto add = [&t](LaneFamily run, std::initializer_list<uint32_t> ops) {
      for (uint32_t o : ops) t[o] = run;
    };
    auto add_range = [&t](LaneFamily run, uint32_t first, uint32_t last) {
      for (uint32_t o = first; o <= last; ++o) t[o] = run;
    };
    add(&Machine::ImageQuery, {spv::OpSampledImage, spv::OpImage, spv::OpImageQuerySize, spv::OpImageQuerySizeLod, spv::OpImageQueryLevels, spv::OpImageQuerySamples});
    add(&Machine::ImageFetch, {spv::OpImageRead, spv::OpImageFetch});
    add(&Machine::ImageWrite, {spv::OpImageWrite});
    add(&Machine::ImageTexelPointer, {spv::OpImageTexelPointer});
    add(&Machine::ImageSample, {spv::OpImageSampleImplicitLod, spv::OpImageSampleExplicitLod, spv::OpImageSampleProjImplicitLod, spv::OpImageSampleProjExplicitLod, spv::OpImageGather});
    // The sparse range holds OpNoLine (never executed) and OpAtomicFlag*,
    // rejected with it.
    add_range(&Machine::ImageUnsupported, spv::OpImageSparseSampleImplicitLod, spv::OpImageSparseRead);
    add(&Machine::ImageUnsupported, {spv::OpImageSampleDrefImplicitLod, spv::OpImageSampleDrefExplicitLod, spv::OpImageSampleProjDrefImplicitLod, spv::OpImageSampleProjDrefExplicitLod, spv::OpImageDrefGather, spv::OpImageQueryLod, spv::OpImageQueryFormat, spv::OpImageQueryOrder});
    // The arithmetic (OpGroupNonUniformIAdd to LogicalXor), then the rest.
    add_range(&Machine::GroupArith, spv::OpGroupNonUniformElect, spv::OpGroupNonUniformQuadSwap);
    add(&Machine::GroupVote, {spv::OpGroupNonUniformElect, spv::OpGroupNonUniformAll, spv::OpGroupNonUniformAny, spv::OpGroupNonUniformAllEqual});
    add(&Machine::GroupShuffle, {spv::OpGroupNonUniformBroadcast, spv::OpGroupNonUniformBroadcastFirst, spv::OpGroupNonUniformShuffle, spv::OpGroupNonUniformShuffleXor, spv::OpGroupNonUniformShuffleUp, spv::OpGroupNonUniformShuffleDown, spv::OpGroupNonUniformQuadBroadcast, spv::OpGroupNonUniformQuadSwap});
    add(&Machine::GroupBallot, {spv::OpGroupNonUniformBallot, spv::OpGroupNonUniformInverseBallot, spv::OpGroupNonUniformBallotBitExtract, spv::OpGroupNonUniformBallotBitCount, spv::OpGroupNonUniformBallotFindLSB, spv::OpGroupNonUniformBallotFindMSB});
    return t;
  }();
  if (op < table.size()) return table[op];
  switch (op) {  // SPV_KHR_shader_ballot and SPV_KHR_subgroup_vote
    case spv::OpSubgroupAllKHR:
    case spv::OpSubgroupAnyKHR:
    case spv::OpSubgroupAllEqualKHR:
      return &Machine::GroupVote;
    case spv::OpSubgroupFirstInvocationKHR:
    case spv::OpSubgroupReadInvocationKHR:
      return &Machine::GroupShuffle;
    case spv::OpSubgroupBallotKHR:
      return &Machine::GroupBallot;
    default:
      return nullptr;
  }
}
// clang-format on

const uint32_t* Machine::GroupOperands(const Inst& in) {
  if (in.op < spv::OpGroupNonUniformElect || in.op > spv::OpGroupNonUniformQuadSwap) {
    return in.ops;  // a KHR form
  }
  if (ScopeOf(in.ops[0]) != spv::ScopeSubgroup) {
    return Fail(OpcodeName(in.op) + " with a scope other than Subgroup is not supported"), nullptr;
  }
  return in.ops + 1;
}

int Machine::Pure(const Inst& in, const uint32_t* invs, uint32_t n) {
  if (in.op == spv::OpExtInst) return Ext(in, invs, n);
  const Family run = PureFamily(in.op);
  return run == nullptr ? 0 : (this->*run)(in, invs, n);
}

// GLSL.std.450.
int Machine::Ext(const Inst& in, const uint32_t* invs, uint32_t n) {
  // NonSemantic.* (debug printf, shader debug info): removable by definition.
  if (std::find(m_.ignored_sets.begin(), m_.ignored_sets.end(), in.ops[0]) !=
      m_.ignored_sets.end()) {
    return 1;
  }
  if (in.ops[0] != m_.glsl_set || m_.glsl_set == 0) {
    return Fail("unsupported extended instruction set in OpExtInst"), -1;
  }
  const uint32_t e = in.ops[1];
  const Family run = ExtFamily(e);
  if (run != nullptr) return (this->*run)(in, invs, n);
  switch (e) {
    case GLSLstd450IMix:
      return Fail(
                 "unsupported GLSL.std.450 instruction IMix (the specification leaves it "
                 "undefined)"),
             -1;
    case GLSLstd450InterpolateAtCentroid:
    case GLSLstd450InterpolateAtSample:
    case GLSLstd450InterpolateAtOffset:
      return Fail("unsupported GLSL.std.450 instruction InterpolateAt" +
                  std::string(e == GLSLstd450InterpolateAtCentroid ? "Centroid"
                              : e == GLSLstd450InterpolateAtSample ? "Sample"
                                                                   : "Offset") +
                  " (fragment shaders only)"),
             -1;
    default:
      return Fail("unsupported GLSL.std.450 instruction " + std::to_string(e) +
                  " (not in GLSL.std.450 version 1.00)"),
             -1;
  }
}

}  // namespace detail
}  // namespace sim
}  // namespace waveopt
