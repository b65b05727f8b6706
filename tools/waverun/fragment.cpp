// See fragment.h. The color-output rewrite works on SPIRV-Tools' IR
// (IRContext, TypeManager, InstructionBuilder), like waveopt's passes.
#include "tools/waverun/fragment.h"

#include <algorithm>
#include <memory>

#include "source/opt/build_module.h"
#include "source/opt/ir_builder.h"
#include "source/opt/ir_context.h"
#include "spirv-tools/libspirv.hpp"
#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waverun {
namespace {

namespace opt = spvtools::opt;
namespace an = spvtools::opt::analysis;

// One color output variable: where its components go.
struct OutputVar {
  opt::Instruction* var = nullptr;
  uint32_t location = 0, component = 0, count = 1;
  uint32_t pointee = 0, scalar = 0;  // type ids
  bool is_float = false;
};

class Lowering {
 public:
  Lowering(opt::IRContext* ctx, uint32_t width) : ctx_(ctx), width_(width) {}
  bool Run(const std::vector<ColorBuffer>& buffers, std::string* error);

 private:
  bool FindEntry(std::string* error);
  bool CollectOutputs(std::string* error);
  bool RetypeUsers(opt::Instruction* ptr, std::string* error);
  void MakePrivate(OutputVar* o);
  void MoveToEnd(opt::Instruction* global);
  void SetInterface(uint32_t id, bool present);
  uint32_t FragCoord();
  uint32_t Buffer(const ColorBuffer& b);
  bool StoreAt(opt::Instruction* ret, const std::vector<uint32_t>& buffer_vars,
               const std::vector<ColorBuffer>& buffers, std::string* error);

  opt::IRContext* ctx_;
  uint32_t width_;
  opt::Instruction* entry_ = nullptr;  // the OpEntryPoint
  opt::Function* fn_ = nullptr;
  std::vector<OutputVar> outputs_;
  uint32_t frag_coord_ = 0, vec4_ = 0;
  spv::StorageClass buffer_class_ = spv::StorageClass::StorageBuffer;
};

bool Lowering::FindEntry(std::string* error) {
  for (opt::Instruction& ep : ctx_->module()->entry_points()) {
    if (spv::ExecutionModel(ep.GetSingleWordInOperand(0)) == spv::ExecutionModel::Fragment) {
      entry_ = &ep;
      fn_ = ctx_->GetFunction(ep.GetSingleWordInOperand(1));
      break;
    }
  }
  if (!fn_) *error = "no Fragment entry point";
  return fn_ != nullptr;
}

bool Lowering::CollectOutputs(std::string* error) {
  an::DecorationManager* deco = ctx_->get_decoration_mgr();
  an::TypeManager* types = ctx_->get_type_mgr();
  for (opt::Instruction& inst : ctx_->types_values()) {
    if (inst.opcode() != spv::Op::OpVariable ||
        spv::StorageClass(inst.GetSingleWordInOperand(0)) != spv::StorageClass::Output) {
      continue;
    }
    OutputVar o;
    o.var = &inst;
    bool located = false, builtin = false;
    for (const opt::Instruction* d : deco->GetDecorationsFor(inst.result_id(), false)) {
      if (d->opcode() != spv::Op::OpDecorate) continue;
      auto kind = spv::Decoration(d->GetSingleWordInOperand(1));
      if (kind == spv::Decoration::BuiltIn) builtin = true;
      if (kind == spv::Decoration::Location) {
        located = true;
        o.location = d->GetSingleWordInOperand(2);
      }
      if (kind == spv::Decoration::Component) o.component = d->GetSingleWordInOperand(2);
    }
    if (builtin || !located) continue;
    const an::Pointer* pt = types->GetType(inst.type_id())->AsPointer();
    const an::Type* pointee = pt->pointee_type();
    o.pointee = types->GetId(pointee);
    const an::Type* scalar = pointee;
    if (const an::Vector* v = pointee->AsVector()) {
      o.count = v->element_count();
      scalar = v->element_type();
    }
    o.scalar = types->GetId(scalar);
    o.is_float = scalar->AsFloat() != nullptr;
    if (!scalar->AsFloat() && !scalar->AsInteger()) {
      *error = "a color output that is not a scalar or vector";
      return false;
    }
    outputs_.push_back(o);
  }
  return true;
}

// Gives every pointer derived from |ptr| (access chains, copies) the
// Private storage class.
bool Lowering::RetypeUsers(opt::Instruction* ptr, std::string* error) {
  std::vector<opt::Instruction*> users;
  ctx_->get_def_use_mgr()->ForEachUser(ptr, [&](opt::Instruction* u) { users.push_back(u); });
  an::TypeManager* types = ctx_->get_type_mgr();
  for (opt::Instruction* u : users) {
    switch (u->opcode()) {
      case spv::Op::OpAccessChain:
      case spv::Op::OpInBoundsAccessChain:
      case spv::Op::OpCopyObject: {
        if (u->GetSingleWordInOperand(0) != ptr->result_id()) break;
        const an::Pointer* pt = types->GetType(u->type_id())->AsPointer();
        uint32_t pointee = types->GetId(pt->pointee_type());
        u->SetResultType(types->FindPointerToType(pointee, spv::StorageClass::Private));
        if (!RetypeUsers(u, error)) return false;
        break;
      }
      case spv::Op::OpFunctionCall:
        *error = "a color output passed to a function by pointer";
        return false;
      default:
        break;  // loads, stores, decorations, the entry point
    }
  }
  return true;
}

void Lowering::MoveToEnd(opt::Instruction* global) {
  global->RemoveFromList();
  ctx_->module()->AddGlobalValue(std::unique_ptr<opt::Instruction>(global));
}

// Adds |id| to (or removes it from) the entry point's interface.
void Lowering::SetInterface(uint32_t id, bool present) {
  std::vector<opt::Operand> ops;
  for (uint32_t i = 0; i < entry_->NumInOperands(); ++i) {
    const opt::Operand& op = entry_->GetInOperand(i);
    if (i >= 3 && op.words[0] == id) continue;
    ops.push_back(op);
  }
  if (present) ops.push_back({SPV_OPERAND_TYPE_ID, {id}});
  entry_->SetInOperands(std::move(ops));
}

// The output becomes a Private variable starting at zero, with no Location.
void Lowering::MakePrivate(OutputVar* o) {
  an::TypeManager* types = ctx_->get_type_mgr();
  uint32_t ptr = types->FindPointerToType(o->pointee, spv::StorageClass::Private);
  uint32_t zero = ctx_->get_constant_mgr()->GetNullConstId(types->GetType(o->pointee));
  opt::Instruction* var = o->var;
  var->SetResultType(ptr);
  var->SetInOperand(0, {uint32_t(spv::StorageClass::Private)});
  if (var->NumInOperands() < 2) var->AddOperand({SPV_OPERAND_TYPE_ID, {zero}});
  ctx_->get_decoration_mgr()->RemoveDecorationsFrom(
      var->result_id(), [](const opt::Instruction& d) {
        if (d.opcode() != spv::Op::OpDecorate) return false;
        auto kind = spv::Decoration(d.GetSingleWordInOperand(1));
        return kind == spv::Decoration::Location || kind == spv::Decoration::Component ||
               kind == spv::Decoration::Index;
      });
  MoveToEnd(var);  // after the types and the constant it uses now
  // Before SPIR-V 1.4 the interface lists Input and Output variables only.
  SetInterface(var->result_id(), ctx_->module()->version() >= 0x10400);
}

// gl_FragCoord: the module's, or a new one.
uint32_t Lowering::FragCoord() {
  an::TypeManager* types = ctx_->get_type_mgr();
  for (opt::Instruction& inst : ctx_->types_values()) {
    if (inst.opcode() != spv::Op::OpVariable) continue;
    for (const opt::Instruction* d :
         ctx_->get_decoration_mgr()->GetDecorationsFor(inst.result_id(), false)) {
      if (d->opcode() == spv::Op::OpDecorate &&
          spv::Decoration(d->GetSingleWordInOperand(1)) == spv::Decoration::BuiltIn &&
          spv::BuiltIn(d->GetSingleWordInOperand(2)) == spv::BuiltIn::FragCoord) {
        vec4_ = types->GetId(types->GetType(inst.type_id())->AsPointer()->pointee_type());
        return inst.result_id();
      }
    }
  }
  an::Vector v4(types->GetType(types->GetFloatTypeId()), 4);
  vec4_ = types->GetTypeInstruction(&v4);
  uint32_t ptr = types->FindPointerToType(vec4_, spv::StorageClass::Input);
  uint32_t id = ctx_->TakeNextId();
  if (id == 0) return 0;
  ctx_->module()->AddGlobalValue(std::make_unique<opt::Instruction>(
      ctx_, spv::Op::OpVariable, ptr, id,
      std::initializer_list<opt::Operand>{
          {SPV_OPERAND_TYPE_STORAGE_CLASS, {uint32_t(spv::StorageClass::Input)}}}));
  ctx_->get_decoration_mgr()->AddDecorationVal(id, uint32_t(spv::Decoration::BuiltIn),
                                               uint32_t(spv::BuiltIn::FragCoord));
  SetInterface(id, true);
  return id;
}

// A storage buffer { uint data[]; } at |b|'s set and binding.
uint32_t Lowering::Buffer(const ColorBuffer& b) {
  an::TypeManager* types = ctx_->get_type_mgr();
  bool ssbo = ctx_->module()->version() >= 0x10300;
  buffer_class_ = ssbo ? spv::StorageClass::StorageBuffer : spv::StorageClass::Uniform;
  an::RuntimeArray rt(types->GetType(types->GetUIntTypeId()));
  rt.AddDecoration({uint32_t(spv::Decoration::ArrayStride), 4});
  an::Struct st({types->GetType(types->GetTypeInstruction(&rt))});
  st.AddMemberDecoration(0, {uint32_t(spv::Decoration::Offset), 0});
  st.AddDecoration({uint32_t(ssbo ? spv::Decoration::Block : spv::Decoration::BufferBlock)});
  uint32_t ptr = types->FindPointerToType(types->GetTypeInstruction(&st), buffer_class_);
  uint32_t id = ctx_->TakeNextId();
  if (id == 0) return 0;
  ctx_->module()->AddGlobalValue(std::make_unique<opt::Instruction>(
      ctx_, spv::Op::OpVariable, ptr, id,
      std::initializer_list<opt::Operand>{
          {SPV_OPERAND_TYPE_STORAGE_CLASS, {uint32_t(buffer_class_)}}}));
  an::DecorationManager* deco = ctx_->get_decoration_mgr();
  deco->AddDecorationVal(id, uint32_t(spv::Decoration::DescriptorSet), b.set);
  deco->AddDecorationVal(id, uint32_t(spv::Decoration::Binding), b.binding);
  if (ctx_->module()->version() >= 0x10400) SetInterface(id, true);
  return id;
}

// Before the OpReturn |ret|: stores every output into its buffer at this
// pixel.
bool Lowering::StoreAt(opt::Instruction* ret, const std::vector<uint32_t>& buffer_vars,
                       const std::vector<ColorBuffer>& buffers, std::string* error) {
  an::TypeManager* types = ctx_->get_type_mgr();
  an::ConstantManager* consts = ctx_->get_constant_mgr();
  uint32_t f32 = types->GetFloatTypeId(), u32 = types->GetUIntTypeId();
  uint32_t uint_ptr = types->FindPointerToType(u32, buffer_class_);
  opt::InstructionBuilder b(ctx_, ret, opt::IRContext::kAnalysisNone);
  bool ok = true;
  auto id = [&](opt::Instruction* i) {
    ok = ok && i != nullptr;
    return i ? i->result_id() : 0;
  };
  uint32_t fc = id(b.AddLoad(vec4_, frag_coord_));
  uint32_t x =
      id(b.AddUnaryOp(u32, spv::Op::OpConvertFToU, id(b.AddCompositeExtract(f32, fc, {0}))));
  uint32_t y =
      id(b.AddUnaryOp(u32, spv::Op::OpConvertFToU, id(b.AddCompositeExtract(f32, fc, {1}))));
  uint32_t row = id(b.AddBinaryOp(u32, spv::Op::OpIMul, y, consts->GetUIntConstId(width_)));
  uint32_t pixel = id(b.AddIAdd(u32, row, x));
  uint32_t base = id(b.AddBinaryOp(u32, spv::Op::OpIMul, pixel, consts->GetUIntConstId(4)));
  for (const OutputVar& o : outputs_) {
    size_t k = 0;
    while (k < buffers.size() && buffers[k].location != o.location) ++k;
    if (k == buffers.size()) {
      *error = "no buffer for color output location " + std::to_string(o.location);
      return false;
    }
    uint32_t value = id(b.AddLoad(o.pointee, o.var->result_id()));
    for (uint32_t c = 0; c < o.count && ok; ++c) {
      uint32_t comp = o.count == 1 ? value : id(b.AddCompositeExtract(o.scalar, value, {c}));
      uint32_t bits = o.scalar == u32 ? comp : id(b.AddUnaryOp(u32, spv::Op::OpBitcast, comp));
      uint32_t word = id(b.AddIAdd(u32, base, consts->GetUIntConstId(o.component + c)));
      uint32_t ptr =
          id(b.AddAccessChain(uint_ptr, buffer_vars[k], {consts->GetUIntConstId(0), word}));
      ok = ok && b.AddStore(ptr, bits) != nullptr;
    }
  }
  if (!ok) *error = "ran out of ids";
  return ok;
}

bool Lowering::Run(const std::vector<ColorBuffer>& buffers, std::string* error) {
  if (!FindEntry(error) || !CollectOutputs(error)) return false;
  for (OutputVar& o : outputs_) {
    if (!RetypeUsers(o.var, error)) return false;
  }
  for (OutputVar& o : outputs_) MakePrivate(&o);
  frag_coord_ = FragCoord();
  std::vector<uint32_t> vars;
  for (const ColorBuffer& b : buffers) vars.push_back(Buffer(b));
  if (frag_coord_ == 0 || std::find(vars.begin(), vars.end(), 0u) != vars.end()) {
    *error = "ran out of ids";
    return false;
  }
  ctx_->InvalidateAnalysesExceptFor(opt::IRContext::kAnalysisNone);
  std::vector<opt::Instruction*> returns;
  for (opt::BasicBlock& block : *fn_) {
    if (block.terminator()->opcode() == spv::Op::OpReturn) returns.push_back(block.terminator());
  }
  for (opt::Instruction* ret : returns) {
    if (!StoreAt(ret, vars, buffers, error)) return false;
  }
  return true;
}

const char* TypeName(ComponentType t, uint32_t count) {
  static const char* kNames[3][5] = {{"", "float", "vec2", "vec3", "vec4"},
                                     {"", "int", "ivec2", "ivec3", "ivec4"},
                                     {"", "uint", "uvec2", "uvec3", "uvec4"}};
  int k = t == ComponentType::kFloat ? 0 : t == ComponentType::kInt ? 1 : 2;
  return kNames[k][std::min<uint32_t>(count, 4)];
}

// One component's value at grid vertex g: |key| names the component.
std::string Value(ComponentType t, uint32_t key) {
  std::string k = std::to_string(key) + "u";
  switch (t) {
    case ComponentType::kFloat:
      return "F(g, " + k + ")";
    case ComponentType::kInt:
      return "int(H(g, " + k + ") % 16u)";
    case ComponentType::kUint:
      return "(H(g, " + k + ") % 16u)";
  }
  return "0";
}

}  // namespace

std::string VertexShaderSource(const std::vector<FragmentInput>& inputs) {
  std::string decls, body;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const FragmentInput& in = inputs[i];
    std::string var = "v" + std::to_string(i);
    const char* qualifier = in.interpolation == FragmentInput::Interpolation::kFlat ? "flat "
                            : in.interpolation == FragmentInput::Interpolation::kNoPerspective
                                ? "noperspective "
                                : "";
    decls += "layout(location = " + std::to_string(in.location) +
             ", component = " + std::to_string(in.component) + ") " + qualifier + "out " +
             TypeName(in.type, in.count) + " " + var +
             (in.array > 1 ? "[" + std::to_string(in.array) + "]" : "") + ";\n";
    for (uint32_t e = 0; e < in.array; ++e) {
      std::string target = var + (in.array > 1 ? "[" + std::to_string(e) + "]" : "");
      std::string value = std::string(TypeName(in.type, in.count)) + "(";
      for (uint32_t c = 0; c < in.count; ++c) {
        value += (c ? ", " : "") + Value(in.type, (in.location + e) * 4 + in.component + c);
      }
      body += "  " + target + " = " + value + ");\n";
    }
  }
  return "#version 450\n" + decls +
         "uint Hash(uint x) {\n"
         "  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;\n"
         "  return x;\n"
         "}\n"
         "uint H(ivec2 g, uint k) {\n"
         "  return Hash(uint(g.x) * 73856093u ^ uint(g.y) * 19349663u ^ (k + 1u) * 83492791u);\n"
         "}\n"
         "float F(ivec2 g, uint k) { return float(H(g, k) >> 8) * (1.0 / 16777216.0); }\n"
         "void main() {\n"
         "  const int K = " +
         std::to_string(kGridQuads) +
         ";\n"
         "  int t = gl_VertexIndex / 3, c = gl_VertexIndex % 3, q = t / 2;\n"
         "  ivec2 corner = t % 2 == 0 ? ivec2(c == 1 ? 1 : 0, c == 2 ? 1 : 0)\n"
         "                            : ivec2(c == 1 ? 0 : 1, c == 2 ? 0 : 1);\n"
         "  ivec2 g = ivec2(q % K, q / K) + corner;\n"
         "  float w = 1.0 + F(g, 1000000u);\n"
         "  gl_Position = vec4((vec2(g) / float(K) * 2.0 - 1.0) * w, 0.0, w);\n" +
         body + "}\n";
}

bool LowerColorOutputs(std::vector<uint32_t>* words, const std::vector<ColorBuffer>& buffers,
                       uint32_t width, std::string* error) {
  std::string diag;
  std::unique_ptr<opt::IRContext> ctx = spvtools::BuildModule(
      SPV_ENV_UNIVERSAL_1_6,
      [&](spv_message_level_t, const char*, const spv_position_t&, const char* m) {
        if (diag.empty()) diag = m;
      },
      words->data(), words->size());
  if (!ctx) {
    *error = "cannot read the fragment module: " + diag;
    return false;
  }
  Lowering lowering(ctx.get(), width);
  if (!lowering.Run(buffers, error)) {
    *error = "cannot move the color outputs to buffers: " + *error;
    return false;
  }
  std::vector<uint32_t> out;
  ctx->module()->ToBinary(&out, /*skip_nop=*/false);
  // What the driver gets must be valid: a rewrite that is not would be
  // waverun's bug, reported as such rather than run.
  std::string invalid;
  if (!waveopt::ValidateModule(out, waveopt::DefaultTargetEnv(out), &invalid)) {
    spvtools::SpirvTools tools(waveopt::DefaultTargetEnv(out));
    spvtools::ValidatorOptions options;
    options.SetRelaxBlockLayout(true);
    options.SetScalarBlockLayout(true);
    options.SetUniformBufferStandardLayout(true);
    if (!tools.Validate(out.data(), out.size(), options)) {
      *error =
          "moving the color outputs to buffers made an invalid module (a waverun bug): " + invalid;
      return false;
    }
  }
  *words = std::move(out);
  return true;
}

}  // namespace waverun
