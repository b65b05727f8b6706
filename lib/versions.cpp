// Joins versions of one module behind boolean specialization constants
// (versions.h).
#include "lib/versions.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <unordered_map>

#include "source/operand.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"
#include "source/util/string_utils.h"

namespace waveopt {
namespace {

using spvtools::opt::BasicBlock;
using spvtools::opt::Function;
using spvtools::opt::Instruction;
using spvtools::opt::IRContext;
using spvtools::opt::Operand;
using Key = std::vector<uint32_t>;
using IdMap = std::function<uint32_t(uint32_t)>;

std::unique_ptr<IRContext> Build(const std::vector<uint32_t>& words, spv_target_env env) {
  return spvtools::BuildModule(
      env, [](spv_message_level_t, const char*, const spv_position_t&, const char*) {},
      words.data(), words.size());
}

void AppendOperands(const Instruction& inst, uint32_t first, const IdMap& map, Key* key) {
  for (uint32_t i = first; i < inst.NumInOperands(); ++i) {
    const Operand& op = inst.GetInOperand(i);
    key->push_back(0xFFFFFFFFu);
    key->push_back(static_cast<uint32_t>(op.type));
    for (uint32_t w : op.words) key->push_back(spvIsIdType(op.type) ? map(w) : w);
  }
}

// What makes two module-scope instructions the same value: opcode, type,
// operands (ids through |map|) and the decorations of the result.
Key KeyOf(IRContext* ctx, const Instruction& inst, const IdMap& map) {
  Key key = {static_cast<uint32_t>(inst.opcode()), inst.type_id() ? map(inst.type_id()) : 0};
  AppendOperands(inst, 0, map, &key);
  std::vector<Key> decorations;
  for (const Instruction* d :
       ctx->get_decoration_mgr()->GetDecorationsFor(inst.result_id(), false)) {
    Key dk = {static_cast<uint32_t>(d->opcode())};
    AppendOperands(*d, 1, map, &dk);
    decorations.push_back(std::move(dk));
  }
  std::sort(decorations.begin(), decorations.end());
  for (const Key& d : decorations) {
    key.push_back(0xFFFFFFFEu);
    key.insert(key.end(), d.begin(), d.end());
  }
  return key;
}

// KeyOf, and for a variable also how many variables with the same key
// came before it in its module (|seen| counts them): distinct variables
// that look alike (ggml's a_offset, b_offset, d_offset: Private uints)
// stay distinct, each matched to at most one of the other module's.
Key GlobalKey(IRContext* ctx, const Instruction& inst, const IdMap& map,
              std::map<Key, uint32_t>* seen) {
  Key key = KeyOf(ctx, inst, map);
  if (inst.opcode() == spv::Op::OpVariable) {
    const uint32_t n = (*seen)[key]++;
    key.push_back(0xFFFFFFFDu);
    key.push_back(n);
  }
  return key;
}

// Why |ctx| cannot take part in a join, or "".
std::string Unjoinable(IRContext* ctx) {
  spvtools::opt::Module* m = ctx->module();
  for (const Instruction& inst : m->types_values()) {
    if (inst.opcode() == spv::Op::OpTypeForwardPointer) return "it declares a forward pointer";
    if (inst.opcode() == spv::Op::OpExtInst) return "it has module-scope debug information";
  }
  if (m->ext_inst_debuginfo_begin() != m->ext_inst_debuginfo_end()) {
    return "it has module-scope debug information";
  }
  for (const Instruction& inst : m->annotations()) {
    if (inst.opcode() == spv::Op::OpDecorationGroup) return "it uses decoration groups";
  }
  if (m->entry_points().empty()) return "it has no entry point";
  std::set<uint32_t> entries;
  for (const Instruction& ep : m->entry_points()) {
    if (!entries.insert(ep.GetSingleWordInOperand(1)).second) {
      return "two entry points share one function";
    }
  }
  std::string why;
  for (Function& f : *m) {
    f.ForEachInst([&](Instruction* inst) {
      if (inst->opcode() == spv::Op::OpFunctionCall &&
          entries.count(inst->GetSingleWordInOperand(0))) {
        why = "an entry point's function is also called";
      }
    });
  }
  return why;
}

// The execution modes of entry function |fn|, as keys through |map|.
std::multiset<Key> ModesOf(IRContext* ctx, uint32_t fn, const IdMap& map) {
  std::multiset<Key> modes;
  for (const Instruction& inst : ctx->module()->execution_modes()) {
    if (inst.GetSingleWordInOperand(0) != fn) continue;
    Key key = {static_cast<uint32_t>(inst.opcode())};
    AppendOperands(inst, 1, map, &key);
    modes.insert(std::move(key));
  }
  return modes;
}

std::unique_ptr<Instruction> MakeInst(IRContext* ctx, spv::Op op, uint32_t type, uint32_t id,
                                      std::vector<uint32_t> ids) {
  std::vector<Operand> operands;
  for (uint32_t i : ids) operands.push_back(Operand(SPV_OPERAND_TYPE_ID, {i}));
  return std::make_unique<Instruction>(ctx, op, type, id, operands);
}

std::unique_ptr<Instruction> MakeName(IRContext* ctx, uint32_t id, const std::string& name) {
  std::vector<Operand> operands = {Operand(SPV_OPERAND_TYPE_ID, {id})};
  operands.push_back(Operand(SPV_OPERAND_TYPE_LITERAL_STRING, spvtools::utils::MakeVector(name)));
  return std::make_unique<Instruction>(ctx, spv::Op::OpName, 0, 0, operands);
}

// Adds versions to one base module, then wraps its entry points.
class Joiner {
 public:
  explicit Joiner(IRContext* base) : base_(base) {}

  bool Prepare(std::string* why);
  bool Add(IRContext* v, const VersionModule& info, std::string* why);
  bool Finish(std::string* why);

 private:
  struct Entry {
    Instruction* inst;  // the base's OpEntryPoint
    uint32_t function;
    std::vector<std::pair<uint32_t, uint32_t>> versions;  // (constant, function)
    std::set<uint32_t> interface;
  };

  uint32_t Fresh() {
    const uint32_t id = base_->module()->TakeNextIdBound();
    if (id == 0) out_of_ids_ = true;
    return id;
  }
  uint32_t Map(uint32_t id) {
    auto it = map_.find(id);
    if (it != map_.end()) return it->second;
    unmapped_ = true;
    return id;
  }
  void Remap(Instruction* inst) {
    inst->ForEachId([this](uint32_t* id) { *id = Map(*id); });
    for (Instruction& line : inst->dbg_line_insts()) {
      line.ForEachId([this](uint32_t* id) { *id = Map(*id); });
    }
  }
  std::unique_ptr<Instruction> CloneRemapped(const Instruction& inst) {
    std::unique_ptr<Instruction> c(inst.Clone(base_));
    Remap(c.get());
    return c;
  }
  void AddPreamble(IRContext* v);
  void AddGlobals(IRContext* v);
  void AddFunctions(IRContext* v, const VersionModule& info);
  bool MatchEntries(IRContext* v, uint32_t constant, std::string* why);
  uint32_t AddConstant(const VersionModule& info);
  uint32_t BoolType();
  uint32_t AddSpecBool(uint32_t bool_type, const VersionConstant& info);
  void Wrap(Entry* entry);

  IRContext* base_;
  std::map<Key, uint32_t> index_;
  std::map<std::string, uint32_t> strings_, imports_;
  std::set<uint32_t> capabilities_;
  std::set<std::string> extensions_;
  std::vector<Entry> entries_;
  std::unordered_map<uint32_t, uint32_t> map_;
  std::set<uint32_t> new_ids_;  // ids of |map_| that are new in the base
  bool unmapped_ = false, out_of_ids_ = false;
};

bool Joiner::Prepare(std::string* why) {
  *why = Unjoinable(base_);
  if (!why->empty()) return false;
  spvtools::opt::Module* m = base_->module();
  IdMap same = [](uint32_t id) { return id; };
  std::map<Key, uint32_t> seen;
  for (Instruction& inst : m->types_values()) {
    if (inst.result_id() != 0)
      index_.emplace(GlobalKey(base_, inst, same, &seen), inst.result_id());
  }
  for (Instruction& inst : m->debugs1()) {
    if (inst.opcode() == spv::Op::OpString) {
      strings_.emplace(inst.GetInOperand(0).AsString(), inst.result_id());
    }
  }
  for (Instruction& inst : m->ext_inst_imports()) {
    imports_.emplace(inst.GetInOperand(0).AsString(), inst.result_id());
  }
  for (Instruction& inst : m->capabilities()) capabilities_.insert(inst.GetSingleWordInOperand(0));
  for (Instruction& inst : m->extensions()) extensions_.insert(inst.GetInOperand(0).AsString());
  for (Instruction& ep : m->entry_points()) {
    Entry e{&ep, ep.GetSingleWordInOperand(1), {}, {}};
    for (uint32_t i = 3; i < ep.NumInOperands(); ++i)
      e.interface.insert(ep.GetSingleWordInOperand(i));
    entries_.push_back(std::move(e));
  }
  return true;
}

// Capabilities, extensions, imports and strings: shared by name.
void Joiner::AddPreamble(IRContext* v) {
  spvtools::opt::Module* m = base_->module();
  for (Instruction& inst : v->module()->capabilities()) {
    if (capabilities_.insert(inst.GetSingleWordInOperand(0)).second) {
      m->AddCapability(std::unique_ptr<Instruction>(inst.Clone(base_)));
    }
  }
  for (Instruction& inst : v->module()->extensions()) {
    if (extensions_.insert(inst.GetInOperand(0).AsString()).second) {
      m->AddExtension(std::unique_ptr<Instruction>(inst.Clone(base_)));
    }
  }
  auto share = [&](Instruction& inst, std::map<std::string, uint32_t>* known, bool import) {
    const std::string name = inst.GetInOperand(0).AsString();
    auto it = known->find(name);
    if (it != known->end()) {
      map_[inst.result_id()] = it->second;
      return;
    }
    const uint32_t id = Fresh();
    map_[inst.result_id()] = id;
    (*known)[name] = id;
    std::unique_ptr<Instruction> c(inst.Clone(base_));
    c->SetResultId(id);
    if (import) {
      m->AddExtInstImport(std::move(c));
    } else {
      m->AddDebug1Inst(std::move(c));
    }
  };
  for (Instruction& inst : v->module()->ext_inst_imports()) share(inst, &imports_, true);
  for (Instruction& inst : v->module()->debugs1()) {
    if (inst.opcode() == spv::Op::OpString) share(inst, &strings_, false);
  }
}

// Types, constants and module-scope variables: the base's own where equal.
void Joiner::AddGlobals(IRContext* v) {
  IdMap map = [this](uint32_t id) { return Map(id); };
  std::map<Key, uint32_t> seen;
  for (Instruction& inst : v->module()->types_values()) {
    if (inst.result_id() == 0) continue;
    Key key = GlobalKey(v, inst, map, &seen);
    auto found = index_.find(key);
    if (found != index_.end()) {
      map_[inst.result_id()] = found->second;
      continue;
    }
    const uint32_t id = Fresh();
    map_[inst.result_id()] = id;
    new_ids_.insert(inst.result_id());
    index_.emplace(std::move(key), id);
    base_->module()->AddGlobalValue(CloneRemapped(inst));
    for (const Instruction* d :
         v->get_decoration_mgr()->GetDecorationsFor(inst.result_id(), false)) {
      base_->module()->AddAnnotationInst(CloneRemapped(*d));
    }
  }
}

// Every function of |v|, with new ids; decorations and names of new ids.
void Joiner::AddFunctions(IRContext* v, const VersionModule& info) {
  std::set<uint32_t> local;
  for (Function& f : *v->module()) {
    f.ForEachInst(
        [&](Instruction* inst) {
          if (inst->result_id() == 0) return;
          map_[inst->result_id()] = Fresh();
          local.insert(inst->result_id());
          new_ids_.insert(inst->result_id());
        },
        true, true);
  }
  for (Function& f : *v->module()) {
    std::unique_ptr<Function> c(f.Clone(base_));
    c->ForEachInst([this](Instruction* inst) { Remap(inst); }, true, true);
    base_->module()->AddFunction(std::move(c));
  }
  for (Instruction& inst : v->module()->annotations()) {
    if (local.count(inst.GetSingleWordInOperand(0))) {
      base_->module()->AddAnnotationInst(CloneRemapped(inst));
    }
  }
  std::set<uint32_t> entry_functions;
  for (Instruction& ep : v->module()->entry_points()) {
    entry_functions.insert(ep.GetSingleWordInOperand(1));
  }
  for (Instruction& inst : v->module()->debugs2()) {
    const uint32_t target = inst.GetSingleWordInOperand(0);
    if (!new_ids_.count(target)) continue;
    if (inst.opcode() == spv::Op::OpName && entry_functions.count(target)) {
      base_->module()->AddDebug2Inst(
          MakeName(base_, Map(target), inst.GetInOperand(1).AsString() + info.suffix));
    } else if (inst.opcode() == spv::Op::OpName || inst.opcode() == spv::Op::OpMemberName) {
      base_->module()->AddDebug2Inst(CloneRemapped(inst));
    }
  }
}

uint32_t Joiner::AddConstant(const VersionModule& info) {
  uint32_t bool_type = BoolType();
  uint32_t any = 0;
  for (const VersionConstant& c : info.constants) {
    const uint32_t id = AddSpecBool(bool_type, c);
    if (any == 0) {
      any = id;
      continue;
    }
    const uint32_t both = Fresh();
    std::vector<Operand> operands = {Operand(SPV_OPERAND_TYPE_SPEC_CONSTANT_OP_NUMBER,
                                             {static_cast<uint32_t>(spv::Op::OpLogicalOr)}),
                                     Operand(SPV_OPERAND_TYPE_ID, {any}),
                                     Operand(SPV_OPERAND_TYPE_ID, {id})};
    base_->module()->AddGlobalValue(
        std::make_unique<Instruction>(base_, spv::Op::OpSpecConstantOp, bool_type, both, operands));
    any = both;
  }
  return any;
}

uint32_t Joiner::BoolType() {
  uint32_t bool_type = 0;
  auto found = index_.find(Key{static_cast<uint32_t>(spv::Op::OpTypeBool), 0});
  if (found != index_.end()) {
    bool_type = found->second;
  } else {
    bool_type = Fresh();
    index_.emplace(Key{static_cast<uint32_t>(spv::Op::OpTypeBool), 0}, bool_type);
    base_->module()->AddType(MakeInst(base_, spv::Op::OpTypeBool, 0, bool_type, {}));
  }
  return bool_type;
}

uint32_t Joiner::AddSpecBool(uint32_t bool_type, const VersionConstant& info) {
  const uint32_t id = Fresh();
  base_->module()->AddGlobalValue(MakeInst(base_, spv::Op::OpSpecConstantFalse, bool_type, id, {}));
  base_->module()->AddAnnotationInst(std::make_unique<Instruction>(
      base_, spv::Op::OpDecorate, 0, 0,
      std::vector<Operand>{
          Operand(SPV_OPERAND_TYPE_ID, {id}),
          Operand(SPV_OPERAND_TYPE_DECORATION, {static_cast<uint32_t>(spv::Decoration::SpecId)}),
          Operand(SPV_OPERAND_TYPE_LITERAL_INTEGER, {info.spec_id})}));
  base_->module()->AddDebug2Inst(MakeName(base_, id, info.name));
  return id;
}

// Each base entry point finds its twin in |v| (same model and name) with the
// same execution modes; |v|'s interface joins the base's.
bool Joiner::MatchEntries(IRContext* v, uint32_t constant, std::string* why) {
  IdMap map = [this](uint32_t id) { return Map(id); };
  IdMap same = [](uint32_t id) { return id; };
  for (Entry& e : entries_) {
    const Instruction* twin = nullptr;
    for (const Instruction& ep : v->module()->entry_points()) {
      if (ep.GetSingleWordInOperand(0) == e.inst->GetSingleWordInOperand(0) &&
          ep.GetInOperand(2).AsString() == e.inst->GetInOperand(2).AsString()) {
        twin = &ep;
      }
    }
    if (twin == nullptr) {
      *why = "an entry point is missing from a version";
      return false;
    }
    const uint32_t fn = twin->GetSingleWordInOperand(1);
    if (ModesOf(v, fn, map) != ModesOf(base_, e.function, same)) {
      *why = "an entry point's execution modes differ between versions";
      return false;
    }
    e.versions.push_back({constant, Map(fn)});
    for (uint32_t i = 3; i < twin->NumInOperands(); ++i) {
      e.interface.insert(Map(twin->GetSingleWordInOperand(i)));
    }
  }
  return true;
}

bool Joiner::Add(IRContext* v, const VersionModule& info, std::string* why) {
  *why = Unjoinable(v);
  if (!why->empty()) return false;
  const uint32_t vv = v->module()->version(), bv = base_->module()->version();
  if ((vv >= 0x10400) != (bv >= 0x10400)) {
    *why = "the versions' SPIR-V versions differ across 1.4";
    return false;
  }
  if (vv > bv) base_->module()->set_version(vv);
  map_.clear();
  new_ids_.clear();
  AddPreamble(v);
  AddGlobals(v);
  AddFunctions(v, info);
  const uint32_t constant = AddConstant(info);
  if (!MatchEntries(v, constant, why)) return false;
  if (unmapped_ || out_of_ids_) {
    *why = out_of_ids_ ? "ids ran out" : "an id is used before its definition";
    return false;
  }
  return true;
}

void Joiner::Wrap(Entry* entry) {
  Function* portable = nullptr;
  for (Function& f : *base_->module()) {
    if (f.result_id() == entry->function) portable = &f;
  }
  const uint32_t void_type = portable->type_id();
  const uint32_t fn_type = portable->DefInst().GetSingleWordInOperand(1);
  const uint32_t renamed = Fresh();
  portable->DefInst().SetResultId(renamed);
  base_->module()->AddDebug2Inst(
      MakeName(base_, renamed, entry->inst->GetInOperand(2).AsString() + "_portable"));
  auto wrapper = std::make_unique<Function>(std::make_unique<Instruction>(
      base_, spv::Op::OpFunction, void_type, entry->function,
      std::vector<Operand>{Operand(SPV_OPERAND_TYPE_FUNCTION_CONTROL, {0}),
                           Operand(SPV_OPERAND_TYPE_ID, {fn_type})}));
  auto block = [this](uint32_t label) {
    return std::make_unique<BasicBlock>(MakeInst(base_, spv::Op::OpLabel, 0, label, {}));
  };
  auto call = [&](BasicBlock* b, uint32_t callee, uint32_t then) {
    b->AddInstruction(MakeInst(base_, spv::Op::OpFunctionCall, void_type, Fresh(), {callee}));
    b->AddInstruction(MakeInst(base_, spv::Op::OpBranch, 0, 0, {then}));
  };
  const size_t n = entry->versions.size();
  std::vector<uint32_t> heads(n + 1), merges(n);
  for (uint32_t& id : heads) id = Fresh();
  for (uint32_t& id : merges) id = Fresh();
  for (size_t i = 0; i < n; ++i) {
    auto head = block(heads[i]);
    const uint32_t then = Fresh();
    head->AddInstruction(std::make_unique<Instruction>(
        base_, spv::Op::OpSelectionMerge, 0, 0,
        std::vector<Operand>{Operand(SPV_OPERAND_TYPE_ID, {merges[i]}),
                             Operand(SPV_OPERAND_TYPE_SELECTION_CONTROL, {0})}));
    head->AddInstruction(MakeInst(base_, spv::Op::OpBranchConditional, 0, 0,
                                  {entry->versions[i].first, then, heads[i + 1]}));
    auto taken = block(then);
    call(taken.get(), entry->versions[i].second, merges[i]);
    wrapper->AddBasicBlock(std::move(head));
    wrapper->AddBasicBlock(std::move(taken));
  }
  auto last = block(heads[n]);
  call(last.get(), renamed, merges[n - 1]);
  wrapper->AddBasicBlock(std::move(last));
  for (size_t i = n; i-- > 0;) {
    auto merge = block(merges[i]);
    if (i == 0) {
      merge->AddInstruction(MakeInst(base_, spv::Op::OpReturn, 0, 0, {}));
    } else {
      merge->AddInstruction(MakeInst(base_, spv::Op::OpBranch, 0, 0, {merges[i - 1]}));
    }
    wrapper->AddBasicBlock(std::move(merge));
  }
  wrapper->SetFunctionEnd(MakeInst(base_, spv::Op::OpFunctionEnd, 0, 0, {}));
  base_->module()->AddFunction(std::move(wrapper));
  std::set<uint32_t> listed;
  for (uint32_t i = 3; i < entry->inst->NumInOperands(); ++i) {
    listed.insert(entry->inst->GetSingleWordInOperand(i));
  }
  for (uint32_t id : entry->interface) {
    if (!listed.count(id)) entry->inst->AddOperand(Operand(SPV_OPERAND_TYPE_ID, {id}));
  }
}

bool Joiner::Finish(std::string* why) {
  for (Entry& e : entries_) Wrap(&e);
  if (out_of_ids_) *why = "ids ran out";
  return !out_of_ids_;
}

}  // namespace

bool JoinVersions(const std::vector<uint32_t>& base, const std::vector<VersionModule>& versions,
                  spv_target_env env, std::vector<uint32_t>* out, std::string* why) {
  std::unique_ptr<IRContext> ctx = Build(base, env);
  if (!ctx) {
    *why = "the module cannot be read";
    return false;
  }
  Joiner joiner(ctx.get());
  if (!joiner.Prepare(why)) return false;
  for (const VersionModule& v : versions) {
    std::unique_ptr<IRContext> vctx = Build(v.words, env);
    if (!vctx) {
      *why = "a version cannot be read";
      return false;
    }
    if (!joiner.Add(vctx.get(), v, why)) return false;
  }
  if (!joiner.Finish(why)) return false;
  out->clear();
  ctx->module()->ToBinary(out, /* skip_nop = */ true);
  return true;
}

std::map<uint32_t, std::string> DeclaredSpecIds(const std::vector<uint32_t>& words,
                                                spv_target_env env) {
  std::map<uint32_t, std::string> ids;
  std::unique_ptr<IRContext> ctx = Build(words, env);
  if (!ctx) return ids;
  std::map<uint32_t, std::string> names;
  for (const Instruction& inst : ctx->module()->debugs2()) {
    if (inst.opcode() == spv::Op::OpName) {
      names.emplace(inst.GetSingleWordInOperand(0), inst.GetInOperand(1).AsString());
    }
  }
  for (const Instruction& inst : ctx->module()->annotations()) {
    if (inst.opcode() != spv::Op::OpDecorate ||
        inst.GetSingleWordInOperand(1) != static_cast<uint32_t>(spv::Decoration::SpecId)) {
      continue;
    }
    const uint32_t target = inst.GetSingleWordInOperand(0);
    auto name = names.find(target);
    ids.emplace(inst.GetSingleWordInOperand(2),
                name != names.end() ? name->second : "%" + std::to_string(target));
  }
  return ids;
}

}  // namespace waveopt
