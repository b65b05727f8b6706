// The analyses' integer evaluator (lib/analysis/int_eval.h) against the
// simulator's (lib/sim), an independent implementation: every operation of
// the table, at 8, 16, 32 and 64 bits, signed and unsigned types, on edge
// values (0, 1, the largest and smallest numbers, shift amounts and
// bit-field offsets at and past the width). Where SPIR-V leaves a result
// undefined the analyses must know nothing (the fold fails) and the
// simulator's fixed choice is not compared.
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/int_eval.h"
#include "gtest/gtest.h"
#include "lib/sim/sim.h"
#include "waveopt/spirv_io.h"

namespace waveopt {
namespace {

// Operands of one evaluation, as 64-bit words (reduced to the operand width
// by the shader and by Masked()).
struct Tuple {
  uint64_t v[4];
};

std::string IntType(uint32_t width, bool is_signed) {
  return "%i" + std::to_string(width) + (is_signed ? "s" : "u");
}

// The result type of |op| on operands of |width| bits (|is_signed| types),
// and its width.
std::string ResultType(const IntOp& op, uint32_t width, bool is_signed, uint32_t* result_width) {
  *result_width = op.result == IntResult::kBool || op.logical ? 1 : width;
  if (*result_width == 1) return "%bool";
  if (op.op == spv::Op::OpUConvert || op.op == spv::Op::OpSConvert) {
    *result_width = width == 64 ? 32 : 64;
    return IntType(*result_width, op.op == spv::Op::OpSConvert);
  }
  if (op.op == spv::Op::OpBitcast) return IntType(width, !is_signed);
  return IntType(width, is_signed);
}

// A compute shader: invocation i reads tuple i (4 x 64 bits) from binding
// 0, applies each of |ops| to its first operands converted to |width|-bit
// (|is_signed|) integers, or booleans for logical ops, and writes result j
// zero-extended to out[j * count + i] (binding 1).
std::string Shader(const std::vector<const IntOp*>& ops, uint32_t width, bool is_signed,
                   uint32_t count) {
  std::ostringstream s;
  s << "OpCapability Shader\nOpCapability Int64\nOpCapability Int16\n"
       "OpCapability Int8\n%glsl = OpExtInstImport \"GLSL.std.450\"\n"
       "OpMemoryModel Logical GLSL450\n"
       "OpEntryPoint GLCompute %main \"main\" %index\n"
       "OpExecutionMode %main LocalSize "
    << count
    << " 1 1\nOpDecorate %index BuiltIn LocalInvocationIndex\n"
       "OpDecorate %rta ArrayStride 8\nOpMemberDecorate %blk 0 Offset 0\n"
       "OpDecorate %blk BufferBlock\n"
       "OpDecorate %in DescriptorSet 0\nOpDecorate %in Binding 0\n"
       "OpDecorate %out DescriptorSet 0\nOpDecorate %out Binding 1\n"
       "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n";
  for (uint32_t w : {8, 16, 32, 64}) {
    s << IntType(w, false) << " = OpTypeInt " << w << " 0\n";
    s << IntType(w, true) << " = OpTypeInt " << w << " 1\n";
  }
  s << "%rta = OpTypeRuntimeArray %i64u\n%blk = OpTypeStruct %rta\n"
       "%pblk = OpTypePointer Uniform %blk\n%pu64 = OpTypePointer Uniform %i64u\n"
       "%pidx = OpTypePointer Input %i32u\n%index = OpVariable %pidx Input\n"
       "%in = OpVariable %pblk Uniform\n%out = OpVariable %pblk Uniform\n"
       "%c0 = OpConstant %i32u 0\n%c4 = OpConstant %i32u 4\n"
       "%z64 = OpConstant %i64u 0\n%o64 = OpConstant %i64u 1\n";
  for (uint32_t k = 1; k < 4; ++k) s << "%c" << k << " = OpConstant %i32u " << k << "\n";
  for (size_t j = 0; j < ops.size(); ++j) {
    s << "%slot" << j << " = OpConstant %i32u " << j * count << "\n";
  }
  s << "%main = OpFunction %void None %fn\n%entry = OpLabel\n"
       "%i = OpLoad %i32u %index\n%base = OpIMul %i32u %i %c4\n";
  const std::string t = IntType(width, is_signed), tu = IntType(width, false);
  for (uint32_t k = 0; k < 4; ++k) {
    s << "%at" << k << " = OpIAdd %i32u %base %c" << k << "\n"
      << "%p" << k << " = OpAccessChain %pu64 %in %c0 %at" << k << "\n"
      << "%w" << k << " = OpLoad %i64u %p" << k << "\n"
      << "%u" << k << " = " << (width < 64 ? "OpUConvert " + tu + " %w" : "OpCopyObject %i64u %w")
      << k << "\n"
      << "%x" << k << " = " << (is_signed ? "OpBitcast " + t + " %u" : "OpCopyObject " + tu + " %u")
      << k << "\n"
      << "%b" << k << " = OpINotEqual %bool %w" << k << " %z64\n";
  }
  for (size_t j = 0; j < ops.size(); ++j) {
    const IntOp& op = *ops[j];
    uint32_t rw = 0;
    const std::string rt = ResultType(op, width, is_signed, &rw);
    s << "%r" << j << " = ";
    if (op.op == spv::Op::OpExtInst) {
      s << "OpExtInst " << rt << " %glsl " << op.name;
    } else {
      s << "Op" << op.name << " " << rt;
    }
    for (uint32_t a = 0; a < op.arity; ++a) s << (op.logical ? " %b" : " %x") << a;
    s << "\n";
    if (rt == "%bool") {
      s << "%q" << j << " = OpSelect %i64u %r" << j << " %o64 %z64\n";
    } else {
      const std::string rtu = IntType(rw, false);
      s << "%n" << j << " = OpBitcast " << rtu << " %r" << j << "\n"
        << "%q" << j << " = " << (rw < 64 ? "OpUConvert %i64u %n" : "OpCopyObject %i64u %n") << j
        << "\n";
    }
    s << "%d" << j << " = OpIAdd %i32u %i %slot" << j << "\n"
      << "%pd" << j << " = OpAccessChain %pu64 %out %c0 %d" << j << "\n"
      << "OpStore %pd" << j << " %q" << j << "\n";
  }
  s << "OpReturn\nOpFunctionEnd\n";
  return s.str();
}

// The simulator's results of |ops| on |tuples|: out[j][i]. Empty on failure
// (a test failure).
std::vector<std::vector<uint64_t>> Simulate(const std::vector<const IntOp*>& ops, uint32_t width,
                                            bool is_signed, const std::vector<Tuple>& tuples) {
  const uint32_t count = static_cast<uint32_t>(tuples.size());
  const std::string text = Shader(ops, width, is_signed, count);
  std::vector<uint32_t> words;
  std::string error;
  if (!AssembleText(text, SPV_ENV_UNIVERSAL_1_3, &words, &error)) {
    ADD_FAILURE() << error;
    return {};
  }
  auto program = sim::Program::Create(words, "", &error);
  if (program == nullptr) {
    ADD_FAILURE() << error;
    return {};
  }
  std::vector<sim::Resource> resources(2);
  resources[0].data.resize(tuples.size() * sizeof(Tuple));
  std::memcpy(resources[0].data.data(), tuples.data(), resources[0].data.size());
  resources[1].binding = 1;
  resources[1].data.assign(ops.size() * count * 8, 0);
  sim::Launch launch;
  if (!program->Run(launch, &resources, nullptr, &error)) {
    ADD_FAILURE() << error;
    return {};
  }
  std::vector<std::vector<uint64_t>> out(ops.size(), std::vector<uint64_t>(count));
  for (size_t j = 0; j < ops.size(); ++j) {
    std::memcpy(out[j].data(), resources[1].data.data() + j * count * 8, count * 8);
  }
  return out;
}

uint64_t AllOnes(uint32_t w) { return MaskTo(~uint64_t{0}, w); }

// Edge values of |w|-bit integers; shift amounts and bit-field offsets and
// counts near the width.
std::vector<uint64_t> Edges(uint32_t w) {
  const uint64_t sign = uint64_t{1} << (w - 1);
  return {0,      1,    2,        3,        7,          w - 1u,         w,
          w + 1u, sign, sign - 1, sign + 1, AllOnes(w), AllOnes(w) - 1, 0x5a5a5a5a5a5a5a5aull};
}

// Every pair of edge values as the first two operands (the others cycle
// through the small ones), then every pair of small values as the last two.
std::vector<Tuple> Tuples(uint32_t w) {
  const std::vector<uint64_t> e = Edges(w);
  const std::vector<uint64_t> small = {0, 1, 3, w - 1u, w, w + 1u, AllOnes(w)};
  std::vector<Tuple> out;
  for (size_t i = 0; i < e.size(); ++i) {
    for (size_t j = 0; j < e.size(); ++j) {
      const size_t k = out.size();
      out.push_back({{e[i], e[j], small[k % small.size()], small[(k / 7) % small.size()]}});
    }
  }
  for (size_t i = 0; i < small.size(); ++i) {
    for (size_t j = 0; j < small.size(); ++j) {
      const size_t k = out.size();
      out.push_back({{e[k % e.size()], e[(k / 3) % e.size()], small[i], small[j]}});
    }
  }
  return out;
}

// Whether SPIR-V leaves |op| on |x| (|w|-bit operands) undefined; written
// apart from the table, from the specification's words.
bool Undefined(const IntOp& op, const uint64_t* x, uint32_t w) {
  const int64_t a = SignExtend(x[0], w), b = SignExtend(x[1], w);
  const int64_t min = SignExtend(uint64_t{1} << (w - 1), w);
  switch (op.op) {
    case spv::Op::OpUDiv:
    case spv::Op::OpUMod:
      return x[1] == 0;
    case spv::Op::OpSDiv:
    case spv::Op::OpSRem:
    case spv::Op::OpSMod:
      return b == 0 || (b == -1 && a == min);
    case spv::Op::OpShiftLeftLogical:
    case spv::Op::OpShiftRightLogical:
    case spv::Op::OpShiftRightArithmetic:
      return x[1] >= w;
    case spv::Op::OpBitFieldInsert:
      return x[2] + x[3] > w || x[2] > w || x[3] > w;
    case spv::Op::OpBitFieldSExtract:
    case spv::Op::OpBitFieldUExtract:
      return x[1] + x[2] > w || x[1] > w || x[2] > w;
    case spv::Op::OpExtInst:
      if (op.ext == 44) return x[1] > x[2];              // UClamp
      if (op.ext == 45) return b > SignExtend(x[2], w);  // SClamp
      return false;
    default:
      return false;
  }
}

// Compares |op| with the simulator at |width| bits on every tuple; the
// number of disagreements (each one a test failure when |report|).
int Compare(const IntOp& op, uint32_t width, bool is_signed, bool report) {
  const uint32_t w = op.logical ? 1 : width;
  std::vector<Tuple> tuples =
      op.logical
          ? std::vector<Tuple>{{{0, 0, 0, 0}}, {{0, 1, 0, 0}}, {{1, 0, 0, 0}}, {{1, 1, 0, 0}}}
          : Tuples(width);
  const auto sim = Simulate({&op}, width, is_signed, tuples);
  if (sim.empty()) return 1;
  int wrong = 0;
  uint32_t rw = 0;
  ResultType(op, width, is_signed, &rw);
  for (size_t i = 0; i < tuples.size(); ++i) {
    uint64_t x[4];
    for (int k = 0; k < 4; ++k) x[k] = MaskTo(tuples[i].v[k], w);
    uint64_t got = 0;
    const bool known = FoldInt(op, x, w, rw, &got);
    const bool undefined = Undefined(op, x, w);
    if (known == undefined || (known && got != sim[0][i])) {
      ++wrong;
      if (report) {
        ADD_FAILURE() << op.name << " at " << width << (is_signed ? " signed" : " unsigned")
                      << " on " << x[0] << ", " << x[1] << ", " << x[2] << ", " << x[3]
                      << ": analyses " << (known ? std::to_string(got) : "undefined")
                      << ", simulator " << sim[0][i] << (undefined ? " (undefined in SPIR-V)" : "");
      }
    }
  }
  return wrong;
}

TEST(IntEval, AgreesWithTheSimulatorOnEveryOpAndWidth) {
  int checked = 0;
  for (const IntOp& op : IntOps()) {
    for (uint32_t width : {8, 16, 32, 64}) {
      for (bool is_signed : {false, true}) {
        Compare(op, width, is_signed, /*report=*/true);
        ++checked;
      }
      if (op.logical) break;  // booleans have one width
    }
  }
  EXPECT_GT(checked, 300);
}

// The comparison catches a wrong fold and a wrong undefined case.
TEST(IntEval, NegativeControls) {
  IntOp add = *FindIntOp(spv::Op::OpIAdd);
  add.fold = [](const uint64_t* x, uint32_t, uint64_t* out) {
    *out = x[0] - x[1];
    return true;
  };
  EXPECT_GT(Compare(add, 32, false, /*report=*/false), 0);
  IntOp div = *FindIntOp(spv::Op::OpUDiv);
  div.fold = [](const uint64_t* x, uint32_t, uint64_t* out) {
    *out = x[1] == 0 ? 0 : x[0] / x[1];
    return true;  // claims to know a division by zero
  };
  EXPECT_GT(Compare(div, 16, false, /*report=*/false), 0);
  IntOp sra = *FindIntOp(spv::Op::OpShiftRightArithmetic);
  sra.fold = [](const uint64_t* x, uint32_t w, uint64_t* out) {
    if (x[1] >= w) return false;
    *out = MaskTo(x[0], w) >> x[1];  // a logical shift
    return true;
  };
  EXPECT_GT(Compare(sra, 8, true, /*report=*/false), 0);
}

TEST(IntEval, TableLookups) {
  ASSERT_NE(FindIntOp(spv::Op::OpIAdd), nullptr);
  EXPECT_EQ(FindIntOp(spv::Op::OpFAdd), nullptr);
  ASSERT_NE(FindIntOp(spv::Op::OpExtInst, 39), nullptr);  // SMin
  EXPECT_STREQ(FindIntOp(spv::Op::OpExtInst, 39)->name, "SMin");
  EXPECT_EQ(FindIntOp(spv::Op::OpExtInst, 37), nullptr);  // FMin
  for (const IntOp& op : IntOps()) {
    EXPECT_EQ(FindIntOp(op.op, op.ext), &op) << op.name;
  }
}

}  // namespace
}  // namespace waveopt
