// Parsing SPIR-V words into ModuleData, and instantiating it (Instance):
// type layouts, constants, register slots, variable placement.
#include "lib/sim/module.h"

#define SPV_ENABLE_UTILITY_CODE
#include <algorithm>
#include <functional>
#include <set>
#include <spirv/unified1/spirv.hpp>

#include "lib/sim/binary.h"

namespace waveopt {
namespace sim {
namespace {

bool IsTerminator(uint32_t op) {
  switch (op) {
    case spv::OpBranch:
    case spv::OpBranchConditional:
    case spv::OpSwitch:
    case spv::OpReturn:
    case spv::OpReturnValue:
    case spv::OpUnreachable:
    case spv::OpKill:
    case spv::OpTerminateInvocation:
      return true;
    default:
      return false;
  }
}

uint64_t RoundUp(uint64_t v, uint64_t a) { return a == 0 ? v : (v + a - 1) / a * a; }

// Orders the blocks of |f| structurally: a reverse post-order of a depth-first
// walk that visits a header's merge block first and its continue target
// second, so that every construct's blocks come before its merge block, a
// loop's continue construct after its body, and a branch's true target before
// its false target.
void ComputeStructuredOrder(Function* f, const std::vector<uint32_t>& literal_words) {
  size_t n = f->blocks.size();
  std::vector<std::vector<uint32_t>> succ(n);
  for (size_t b = 0; b < n; ++b) {
    const Block& blk = f->blocks[b];
    std::vector<uint32_t> targets;
    uint32_t cont = 0;
    for (uint32_t i = blk.begin; i < blk.end; ++i) {
      const Inst& in = f->insts[i];
      if (in.op == spv::OpLoopMerge) cont = in.ops[1];
    }
    if (blk.end > blk.begin) {
      const Inst& t = f->insts[blk.end - 1];
      if (t.op == spv::OpBranch) {
        targets.push_back(t.ops[0]);
      } else if (t.op == spv::OpBranchConditional) {
        targets.push_back(t.ops[1]);
        targets.push_back(t.ops[2]);
      } else if (t.op == spv::OpSwitch) {
        targets.push_back(t.ops[1]);
        uint32_t lw = t.ops[0] < literal_words.size() ? literal_words[t.ops[0]] : 1;
        for (uint32_t k = 2; k + lw < t.num_ops; k += lw + 1) targets.push_back(t.ops[k + lw]);
      }
    }
    std::vector<uint32_t>& s = succ[b];
    auto add = [&](uint32_t label) {
      auto it = f->block_index.find(label);
      if (it != f->block_index.end()) s.push_back(it->second);
    };
    if (blk.merge) add(blk.merge);
    if (cont) add(cont);
    for (auto it = targets.rbegin(); it != targets.rend(); ++it) add(*it);
  }
  std::vector<uint8_t> seen(n, 0);
  std::vector<uint32_t> post;
  // Iterative DFS.
  std::vector<std::pair<uint32_t, size_t>> stack;
  if (n > 0) {
    stack.push_back({0, 0});
    seen[0] = 1;
  }
  while (!stack.empty()) {
    auto& top = stack.back();
    if (top.second < succ[top.first].size()) {
      uint32_t next = succ[top.first][top.second++];
      if (!seen[next]) {
        seen[next] = 1;
        stack.push_back({next, 0});
      }
    } else {
      post.push_back(top.first);
      stack.pop_back();
    }
  }
  uint32_t pos = 0;
  for (auto it = post.rbegin(); it != post.rend(); ++it) f->blocks[*it].order = pos++;
  for (size_t b = 0; b < n; ++b) {
    if (!seen[b]) f->blocks[b].order = pos++;
  }
}

}  // namespace

bool IsExplicitStorage(uint32_t storage) {
  return storage == spv::StorageClassUniform || storage == spv::StorageClassStorageBuffer ||
         storage == spv::StorageClassPushConstant ||
         storage == spv::StorageClassPhysicalStorageBuffer;
}

void ModuleData::ReadDecoration(const uint32_t* w, uint32_t wc) {
  Decorations& d = deco[w[0]];
  uint32_t kind = w[1];
  uint32_t arg = wc > 3 ? w[2] : 0;
  if (kind == spv::DecorationBuiltIn) d.builtin = static_cast<int32_t>(arg);
  if (kind == spv::DecorationSpecId) d.spec_id = static_cast<int32_t>(arg);
  if (kind == spv::DecorationDescriptorSet) d.set = arg;
  if (kind == spv::DecorationBinding) {
    d.binding = arg;
    d.has_binding = true;
  }
  if (kind == spv::DecorationArrayStride) d.array_stride = arg;
  if (kind == spv::DecorationBlock) d.block = true;
  if (kind == spv::DecorationBufferBlock) d.buffer_block = true;
}

void ModuleData::ReadMemberDecoration(const uint32_t* w, uint32_t wc) {
  MemberDecorations& d = member_deco[{w[0], w[1]}];
  uint32_t kind = w[2];
  uint32_t arg = wc > 4 ? w[3] : 0;
  if (kind == spv::DecorationOffset) {
    d.offset = arg;
    d.has_offset = true;
  }
  if (kind == spv::DecorationMatrixStride) d.matrix_stride = arg;
  if (kind == spv::DecorationRowMajor) d.row_major = true;
}

// Switch literals are as wide as the selector: 2 words for 64-bit ones.
std::vector<uint32_t> ModuleData::LiteralWords() const {
  std::vector<uint32_t> literal_words(bound, 1);
  std::unordered_map<uint32_t, uint32_t> wide;
  for (const Inst& g : globals) {
    if (g.op == spv::OpTypeInt && g.ops[0] == 64) wide[g.result] = 2;
  }
  auto note = [&](const Inst& in) {
    if (in.result != 0 && in.type != 0 && wide.count(in.type)) literal_words[in.result] = 2;
  };
  for (const Inst& g : globals) note(g);
  for (const Function& f : functions) {
    for (const Inst& in : f.insts) note(in);
  }
  return literal_words;
}

// The entry point's LocalSize or LocalSizeId.
void ModuleData::ReadModes(const std::vector<std::pair<uint32_t, std::vector<uint32_t>>>& modes,
                           uint32_t entry_id) {
  for (const auto& mode : modes) {
    if (mode.first != entry_id || mode.second.empty()) continue;
    if (mode.second[0] == spv::ExecutionModeLocalSize && mode.second.size() >= 4) {
      for (int d = 0; d < 3; ++d) local_size[d] = mode.second[1 + d];
    }
    if (mode.second[0] == spv::ExecutionModeLocalSizeId && mode.second.size() >= 4) {
      for (int d = 0; d < 3; ++d) local_size_ids[d] = mode.second[1 + d];
    }
  }
}

void ModuleData::FindMatrixLayouts() {
  // From struct members (through arrays).
  std::unordered_map<uint32_t, uint32_t> array_elem;
  std::unordered_map<uint32_t, std::vector<uint32_t>> struct_members;
  std::set<uint32_t> matrices;
  for (const Inst& g : globals) {
    if (g.op == spv::OpTypeArray || g.op == spv::OpTypeRuntimeArray) {
      array_elem[g.result] = g.ops[0];
    } else if (g.op == spv::OpTypeStruct) {
      struct_members[g.result].assign(g.ops, g.ops + g.num_ops);
    } else if (g.op == spv::OpTypeMatrix) {
      matrices.insert(g.result);
    }
  }
  for (const auto& md : member_deco) {
    if (md.second.matrix_stride == 0) continue;
    auto sm = struct_members.find(md.first.first);
    if (sm == struct_members.end() || md.first.second >= sm->second.size()) continue;
    uint32_t t = sm->second[md.first.second];
    while (array_elem.count(t)) t = array_elem[t];
    if (matrices.count(t) && !matrix_layout.count(t)) {
      matrix_layout[t] = {md.second.matrix_stride, md.second.row_major};
    }
  }
}

bool ModuleData::Parse(const std::vector<uint32_t>& in_words, const std::string& entry,
                       std::string* error) {
  words = in_words;
  bound = words.size() >= 5 ? words[3] : 0;
  Function* fn = nullptr;
  Block* block = nullptr;
  bool found_entry = false;
  uint32_t entry_id = 0;
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> modes;  // (fn, words)
  std::unordered_map<uint32_t, std::vector<uint32_t>> group_decorations;
  bool ok = ReadBinary(
      words,
      [&](const BinaryInstruction& bi) {
        Inst in;
        in.op = bi.op;
        in.type = bi.type;
        in.result = bi.result;
        in.ops = bi.ops;
        in.num_ops = bi.num_ops;
        in.word = bi.word;
        uint32_t op = bi.op;
        uint32_t wc = bi.word_count;
        const uint32_t* w = bi.words;  // all operands, raw
        switch (op) {
          case spv::OpCapability:
          case spv::OpExtension:
          case spv::OpMemoryModel:
          case spv::OpSource:
          case spv::OpSourceContinued:
          case spv::OpSourceExtension:
          case spv::OpString:
          case spv::OpMemberName:
          case spv::OpModuleProcessed:
          case spv::OpLine:
          case spv::OpNoLine:
          case spv::OpNop:
          case spv::OpDecorateString:
          case spv::OpMemberDecorateString:
          case spv::OpDecorationGroup:
            return true;
          case spv::OpName:
            if (wc >= 3) names[w[0]] = LiteralString(w + 1, wc - 2);
            return true;
          case spv::OpExtInstImport: {
            std::string name = LiteralString(in.ops, in.num_ops);
            if (name == "GLSL.std.450") glsl_set = in.result;
            if (name.rfind("NonSemantic.", 0) == 0) ignored_sets.push_back(in.result);
            return true;
          }
          case spv::OpEntryPoint: {
            std::string name = LiteralString(w + 2, wc - 3);
            if (!found_entry && w[0] == spv::ExecutionModelGLCompute &&
                (entry.empty() || entry == name)) {
              found_entry = true;
              entry_id = w[1];
            }
            return true;
          }
          case spv::OpExecutionMode:
          case spv::OpExecutionModeId:
            modes.push_back({w[0], std::vector<uint32_t>(w + 1, w + wc - 1)});
            return true;
          case spv::OpDecorate:
          case spv::OpDecorateId:
            ReadDecoration(w, wc);
            return true;
          case spv::OpMemberDecorate:
            ReadMemberDecoration(w, wc);
            return true;
          case spv::OpGroupDecorate:
          case spv::OpGroupMemberDecorate:
            *error = "unsupported instruction " + OpcodeName(op) + " (decoration groups)";
            return false;
          case spv::OpFunction:
            functions.emplace_back();
            fn = &functions.back();
            fn->id = in.result;
            fn->return_type = in.type;
            block = nullptr;
            return true;
          case spv::OpFunctionEnd:
            fn = nullptr;
            block = nullptr;
            return true;
          default:
            break;
        }
        if (fn == nullptr) {
          if (op == spv::OpExtInst && std::find(ignored_sets.begin(), ignored_sets.end(),
                                                in.ops[0]) != ignored_sets.end()) {
            return true;
          }
          globals.push_back(in);
          return true;
        }
        in.index = num_function_insts++;
        if (op == spv::OpFunctionParameter) {
          fn->params.push_back(in.result);
          fn->insts.push_back(in);
          return true;
        }
        if (op == spv::OpLabel) {
          fn->block_index[in.result] = static_cast<uint32_t>(fn->blocks.size());
          fn->blocks.emplace_back();
          block = &fn->blocks.back();
          block->label = in.result;
          block->begin = block->end = static_cast<uint32_t>(fn->insts.size());
          return true;
        }
        if (block == nullptr) {
          // SPIRV-Tools writes a DebugNoScope between a function's last
          // terminator and OpFunctionEnd when the scope changes there; it
          // carries no semantics.
          if (op == spv::OpExtInst && std::find(ignored_sets.begin(), ignored_sets.end(),
                                                in.ops[0]) != ignored_sets.end()) {
            return true;
          }
          *error = "malformed SPIR-V: " + OpcodeName(op) + " outside a block";
          return false;
        }
        if (op == spv::OpSelectionMerge || op == spv::OpLoopMerge) block->merge = in.ops[0];
        fn->insts.push_back(in);
        block->end = static_cast<uint32_t>(fn->insts.size());
        if (IsTerminator(op)) block = nullptr;
        return true;
      },
      error);
  if (!ok) return false;
  if (!found_entry) {
    *error = entry.empty() ? "the module has no GLCompute entry point"
                           : "the module has no GLCompute entry point '" + entry + "'";
    return false;
  }
  entry_function = entry_id;
  const std::vector<uint32_t> literal_words = LiteralWords();
  for (size_t f = 0; f < functions.size(); ++f) {
    function_index[functions[f].id] = static_cast<uint32_t>(f);
    ComputeStructuredOrder(&functions[f], literal_words);
  }
  if (!function_index.count(entry_id)) {
    *error = "the entry point's function is not defined";
    return false;
  }
  ReadModes(modes, entry_id);
  FindMatrixLayouts();
  return true;
}

void Instance::Poison(uint32_t type, uint64_t* out) const {
  const TypeInfo& t = types[type];
  switch (t.kind) {
    case TypeKind::kBool:
      out[0] = 1;
      return;
    case TypeKind::kInt:
    case TypeKind::kFloat:
      out[0] = poison & (t.width >= 64 ? ~uint64_t{0} : (uint64_t{1} << t.width) - 1);
      return;
    case TypeKind::kVector:
    case TypeKind::kMatrix:
    case TypeKind::kArray: {
      uint32_t n = types[t.elem].slots;
      for (uint32_t i = 0; i < t.count; ++i) Poison(t.elem, out + i * n);
      return;
    }
    case TypeKind::kStruct:
      for (size_t k = 0; k < t.members.size(); ++k) Poison(t.members[k], out + t.member_slot[k]);
      return;
    default:
      for (uint32_t k = 0; k < t.slots; ++k) out[k] = poison;
      return;
  }
}

void Instance::Alloc(uint32_t id, uint32_t type) {
  value_type[id] = type;
  slot_base[id] = num_slots;
  num_slots += types[type].slots;
  if (cvals.size() < num_slots) cvals.resize(num_slots, 0);
}

const Decorations* Instance::DecorationsOf(uint32_t id) const {
  auto it = m->deco.find(id);
  return it == m->deco.end() ? nullptr : &it->second;
}

bool Instance::Build(const ModuleData& md, const std::map<uint32_t, uint64_t>& spec,
                     ConstantOpEval eval, std::string* error) {
  m = &md;
  types.assign(md.bound, TypeInfo());
  value_type.assign(md.bound, 0);
  slot_base.assign(md.bound, 0);
  is_constant.assign(md.bound, false);
  global_index.assign(md.bound, -1);
  num_slots = 0;
  cvals.clear();
  // The global section in order: types, constants, module variables.
  uint64_t input_private = 0;
  uint64_t workgroup = 0;
  for (const Inst& in : md.globals) {
    bool ok = false;
    if (LayOutType(in, &ok, error)) {
      if (!ok) return false;
    } else if (EvalConstant(in, spec, eval, &ok, error)) {
      if (!ok) return false;
    } else if (in.op == spv::OpVariable) {
      if (!PlaceGlobal(in, &input_private, &workgroup, error)) return false;
    } else {
      *error = "unsupported instruction " + OpcodeName(in.op) + " in the global section";
      return false;
    }
  }
  stack_base = RoundUp(input_private, 16);
  workgroup_arena = workgroup;
  std::vector<std::vector<uint32_t>> callees;
  return LayOutFunctions(&callees, error) && SizeStack(callees, error) && SetWorkgroupSize(error);
}

// The layout of a type: its slots, natural and explicit sizes.
bool Instance::LayOutType(const Inst& in, bool* ok, std::string* error) {
  TypeInfo& t = types[in.result < m->bound ? in.result : 0];
  *ok = true;
  switch (in.op) {
    case spv::OpTypeVoid:
      t.kind = TypeKind::kVoid;
      return true;
    case spv::OpTypeBool:
      t.kind = TypeKind::kBool;
      t.slots = 1;
      t.nsize = t.esize = 4;
      t.nalign = 4;
      return true;
    case spv::OpTypeInt:
    case spv::OpTypeFloat:
      *ok = LayOutScalar(in, &t, error);
      return true;
    case spv::OpTypeVector: {
      const TypeInfo& c = types[in.ops[0]];
      t.kind = TypeKind::kVector;
      t.elem = in.ops[0];
      t.count = in.ops[1];
      t.slots = t.count;
      t.nsize = t.esize = c.nsize * t.count;
      t.nalign = c.nalign;
      return true;
    }
    case spv::OpTypeMatrix:
      LayOutMatrix(in, &t);
      return true;
    case spv::OpTypeArray:
    case spv::OpTypeRuntimeArray:
      *ok = LayOutArray(in, &t, error);
      return true;
    case spv::OpTypeStruct:
      LayOutStruct(in, &t);
      return true;
    case spv::OpTypeForwardPointer:
      return true;
    case spv::OpTypeFunction:
      t.kind = TypeKind::kFunction;
      return true;
    case spv::OpTypeImage:
      *ok = LayOutImage(in, &t, error);
      return true;
    case spv::OpTypePointer:
    case spv::OpTypeSampledImage:
    case spv::OpTypeSampler:
      LayOutHandle(in, &t);
      return true;
    default:
      return false;
  }
}

bool Instance::LayOutScalar(const Inst& in, TypeInfo* t, std::string* error) {
  t->kind = in.op == spv::OpTypeInt ? TypeKind::kInt : TypeKind::kFloat;
  t->width = in.ops[0];
  t->is_signed = in.op == spv::OpTypeInt && in.ops[1] != 0;
  if (t->width != 8 && t->width != 16 && t->width != 32 && t->width != 64) {
    *error = "unsupported " + std::to_string(t->width) + "-bit type";
    return false;
  }
  if (t->kind == TypeKind::kFloat && t->width == 8) {
    *error = "unsupported 8-bit float type";
    return false;
  }
  t->slots = 1;
  t->nsize = t->esize = t->width / 8;
  t->nalign = t->width / 8;
  return true;
}

void Instance::LayOutMatrix(const Inst& in, TypeInfo* t) {
  const TypeInfo& c = types[in.ops[0]];
  t->kind = TypeKind::kMatrix;
  t->elem = in.ops[0];
  t->count = in.ops[1];
  t->slots = c.slots * t->count;
  t->nsize = c.nsize * t->count;
  t->nalign = c.nalign;
  auto ml = m->matrix_layout.find(in.result);
  if (ml != m->matrix_layout.end()) {
    t->matrix_stride = ml->second.first;
    t->row_major = ml->second.second;
  } else {
    t->matrix_stride = static_cast<uint32_t>(RoundUp(c.esize, 16));
  }
  t->esize = uint64_t{t->matrix_stride} * (t->row_major ? c.count : t->count);
}

bool Instance::LayOutArray(const Inst& in, TypeInfo* t, std::string* error) {
  const TypeInfo& e = types[in.ops[0]];
  t->kind = in.op == spv::OpTypeArray ? TypeKind::kArray : TypeKind::kRuntimeArray;
  t->elem = in.ops[0];
  if (in.op == spv::OpTypeArray) {
    uint32_t len_id = in.ops[1];
    if (!is_constant[len_id]) {
      *error = "array length %" + std::to_string(len_id) + " is not a constant";
      return false;
    }
    uint64_t len = cvals[slot_base[len_id]];
    if (len > (1u << 24)) {
      *error = "array of " + std::to_string(len) + " elements is too large to simulate";
      return false;
    }
    t->count = static_cast<uint32_t>(len);
  }
  const Decorations* d = DecorationsOf(in.result);
  t->array_stride = d ? d->array_stride : 0;
  t->slots = e.slots * t->count;
  t->nalign = e.nalign;
  t->nstride = RoundUp(e.nsize, e.nalign);
  t->nsize = t->nstride * t->count;
  t->esize = uint64_t{t->count} * (t->array_stride ? t->array_stride : e.esize);
  return true;
}

void Instance::LayOutStruct(const Inst& in, TypeInfo* t) {
  t->kind = TypeKind::kStruct;
  t->members.assign(in.ops, in.ops + in.num_ops);
  uint64_t off = 0;
  uint32_t align = 1;
  for (uint32_t k = 0; k < in.num_ops; ++k) {
    const TypeInfo& mt = types[in.ops[k]];
    t->member_slot.push_back(t->slots);
    t->slots += mt.slots;
    off = RoundUp(off, mt.nalign);
    t->noffsets.push_back(off);
    off += mt.nsize;
    align = std::max(align, mt.nalign);
    auto mdit = m->member_deco.find({in.result, k});
    uint64_t eoff = mdit != m->member_deco.end() && mdit->second.has_offset
                        ? mdit->second.offset
                        : (k == 0 ? 0 : t->eoffsets.back() + types[in.ops[k - 1]].esize);
    t->eoffsets.push_back(eoff);
    t->esize = std::max(t->esize, eoff + mt.esize);
  }
  t->nalign = align;
  t->nsize = RoundUp(off, align);
}

bool Instance::LayOutImage(const Inst& in, TypeInfo* t, std::string* error) {
  t->kind = TypeKind::kImage;
  t->elem = in.ops[0];
  t->slots = 1;
  t->nsize = t->esize = 8;
  t->nalign = 8;
  t->image_dim = in.ops[1];
  t->image_arrayed = in.ops[3] != 0;
  t->image_sampled = in.ops[5];
  t->image_format = in.ops[6];
  if (in.ops[4] != 0) {
    *error = "unsupported image type: multisampled images";
    return false;
  }
  if (t->image_dim == spv::DimSubpassData) {
    *error =
        "unsupported image type: subpass inputs (input attachments) exist only in "
        "fragment shaders";
    return false;
  }
  if (t->image_dim == spv::DimRect || t->image_dim > spv::DimSubpassData) {
    *error = "unsupported image type: dimension " + std::to_string(t->image_dim);
    return false;
  }
  return true;
}

// Pointers, sampled images and samplers: one 8-byte slot.
void Instance::LayOutHandle(const Inst& in, TypeInfo* t) {
  t->kind = in.op == spv::OpTypePointer        ? TypeKind::kPointer
            : in.op == spv::OpTypeSampledImage ? TypeKind::kSampledImage
                                               : TypeKind::kSampler;
  if (in.op == spv::OpTypePointer) {
    t->storage = in.ops[0];
    t->elem = in.ops[1];
    const Decorations* d = DecorationsOf(in.result);
    t->array_stride = d ? d->array_stride : 0;
  } else if (in.op == spv::OpTypeSampledImage) {
    t->elem = in.ops[0];
  }
  t->slots = 1;
  t->nsize = t->esize = 8;
  t->nalign = 8;
}

// A constant's value in its slots (|spec| overrides SpecId defaults).
bool Instance::EvalConstant(const Inst& in, const std::map<uint32_t, uint64_t>& spec,
                            ConstantOpEval eval, bool* ok, std::string* error) {
  switch (in.op) {
    case spv::OpConstantTrue:
    case spv::OpConstantFalse:
    case spv::OpSpecConstantTrue:
    case spv::OpSpecConstantFalse:
    case spv::OpConstant:
    case spv::OpSpecConstant:
    case spv::OpConstantComposite:
    case spv::OpSpecConstantComposite:
    case spv::OpConstantNull:
    case spv::OpUndef:
    case spv::OpSpecConstantOp:
      break;
    default:
      return false;
  }
  Alloc(in.result, in.type);
  is_constant[in.result] = true;
  constants.push_back(in.result);
  *ok = true;
  if (in.op == spv::OpConstantComposite || in.op == spv::OpSpecConstantComposite) {
    uint32_t s = slot_base[in.result];
    for (uint32_t k = 0; k < in.num_ops; ++k) {
      uint32_t c = in.ops[k];
      uint32_t n = types[value_type[c]].slots;
      for (uint32_t j = 0; j < n; ++j) cvals[s++] = cvals[slot_base[c] + j];
    }
  } else if (in.op == spv::OpUndef) {
    Poison(in.type, cvals.data() + slot_base[in.result]);
  } else if (in.op == spv::OpSpecConstantOp) {
    Inst inner;
    inner.op = in.ops[0];
    inner.type = in.type;
    inner.result = in.result;
    inner.ops = in.ops + 1;
    inner.num_ops = in.num_ops - 1;
    *ok = eval(*this, inner, &cvals, error);
  } else if (in.op != spv::OpConstantNull) {
    cvals[slot_base[in.result]] = ScalarConstant(in, spec);
  }
  return true;
}

uint64_t Instance::ScalarConstant(const Inst& in, const std::map<uint32_t, uint64_t>& spec) const {
  uint64_t v = 0;
  const TypeInfo& ty = types[in.type];
  if (in.op == spv::OpConstantTrue || in.op == spv::OpSpecConstantTrue) v = 1;
  if (in.op == spv::OpConstant || in.op == spv::OpSpecConstant) {
    v = in.ops[0];
    if (ty.width == 64 && in.num_ops > 1) v |= uint64_t{in.ops[1]} << 32;
  }
  bool is_spec = in.op == spv::OpSpecConstant || in.op == spv::OpSpecConstantTrue ||
                 in.op == spv::OpSpecConstantFalse;
  const Decorations* d = DecorationsOf(in.result);
  if (is_spec && d && d->spec_id >= 0) {
    auto it = spec.find(static_cast<uint32_t>(d->spec_id));
    if (it != spec.end()) v = ty.kind == TypeKind::kBool ? (it->second != 0) : it->second;
  }
  if (ty.width > 0 && ty.width < 64) v &= (uint64_t{1} << ty.width) - 1;
  return v;
}

// A module variable: its place in the invocation or workgroup arena.
bool Instance::PlaceGlobal(const Inst& in, uint64_t* input_private, uint64_t* workgroup,
                           std::string* error) {
  Alloc(in.result, in.type);
  const TypeInfo& pt = types[in.type];
  GlobalVar g;
  g.id = in.result;
  g.storage = in.ops[0];
  g.pointee = pt.elem;
  g.initializer = in.num_ops > 1 ? in.ops[1] : 0;
  const TypeInfo& vt = types[g.pointee];
  switch (g.storage) {
    case spv::StorageClassInput:
    case spv::StorageClassPrivate:
      *input_private = RoundUp(*input_private, 16);
      g.offset = *input_private;
      *input_private += vt.nsize;
      break;
    case spv::StorageClassWorkgroup:
      *workgroup = RoundUp(*workgroup, 16);
      g.offset = *workgroup;
      *workgroup += vt.nsize;
      break;
    case spv::StorageClassUniform:
    case spv::StorageClassStorageBuffer:
    case spv::StorageClassUniformConstant:
    case spv::StorageClassPushConstant:
      break;
    case spv::StorageClassOutput:
      break;  // unused by compute shaders; loads/stores go to nowhere
    default:
      *error = "unsupported storage class " + std::to_string(g.storage) + " for a module variable";
      return false;
  }
  global_index[in.result] = static_cast<int32_t>(globals.size());
  globals.push_back(g);
  return true;
}

// Function results and variables: slots, frames, return slots; |callees|
// of each function.
bool Instance::LayOutFunctions(std::vector<std::vector<uint32_t>>* callees, std::string* error) {
  const ModuleData& md = *m;
  frame_size.assign(md.functions.size(), 0);
  return_slot.assign(md.functions.size(), 0);
  callees->assign(md.functions.size(), {});
  for (size_t f = 0; f < md.functions.size(); ++f) {
    const Function& fn = md.functions[f];
    uint64_t frame = 0;
    for (const Inst& in : fn.insts) {
      if (in.result != 0 && in.type != 0) Alloc(in.result, in.type);
      if (in.op == spv::OpVariable) {
        const TypeInfo& vt = types[types[in.type].elem];
        frame = RoundUp(frame, std::max<uint64_t>(vt.nalign, 4));
        local_offset[in.result] = frame;
        frame += vt.nsize;
      }
      if (in.op == spv::OpFunctionCall) {
        auto it = md.function_index.find(in.ops[0]);
        if (it == md.function_index.end()) {
          *error = "call of an undefined function %" + std::to_string(in.ops[0]);
          return false;
        }
        (*callees)[f].push_back(it->second);
      }
    }
    frame_size[f] = RoundUp(frame, 16);
    return_slot[f] = num_slots;
    num_slots += types[fn.return_type].slots;
    if (cvals.size() < num_slots) cvals.resize(num_slots, 0);
  }
  return true;
}

// The deepest stack from the entry point (recursion is not allowed in
// SPIR-V): the invocation arena's size.
bool Instance::SizeStack(const std::vector<std::vector<uint32_t>>& callees, std::string* error) {
  const ModuleData& md = *m;
  std::vector<int> state(md.functions.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<uint64_t> depth(md.functions.size(), 0);
  bool recursive = false;
  std::function<uint64_t(uint32_t)> visit = [&](uint32_t f) -> uint64_t {
    if (state[f] == 2) return depth[f];
    if (state[f] == 1) {
      recursive = true;
      return 0;
    }
    state[f] = 1;
    uint64_t deepest = 0;
    for (uint32_t c : callees[f]) deepest = std::max(deepest, visit(c));
    state[f] = 2;
    depth[f] = frame_size[f] + deepest;
    return depth[f];
  };
  uint64_t stack = visit(md.function_index.at(md.entry_function));
  if (recursive) {
    *error = "the module calls functions recursively";
    return false;
  }
  invocation_arena = stack_base + stack;
  return true;
}

// The workgroup size: the WorkgroupSize built-in, else LocalSizeId, else
// LocalSize.
bool Instance::SetWorkgroupSize(std::string* error) {
  const ModuleData& md = *m;
  for (int d = 0; d < 3; ++d) local_size[d] = md.local_size[d];
  if (md.local_size_ids[0] != 0) {
    for (int d = 0; d < 3; ++d) {
      uint32_t id = md.local_size_ids[d];
      local_size[d] = static_cast<uint32_t>(cvals[slot_base[id]]);
    }
  }
  for (uint32_t id : constants) {
    const Decorations* d = DecorationsOf(id);
    if (d && d->builtin == spv::BuiltInWorkgroupSize) {
      for (int k = 0; k < 3; ++k) local_size[k] = static_cast<uint32_t>(cvals[slot_base[id] + k]);
    }
  }
  uint64_t total = uint64_t{local_size[0]} * local_size[1] * local_size[2];
  if (total == 0 || total > 4096) {
    *error = "unsupported workgroup size " + std::to_string(local_size[0]) + "x" +
             std::to_string(local_size[1]) + "x" + std::to_string(local_size[2]);
    return false;
  }
  return true;
}

}  // namespace sim
}  // namespace waveopt
