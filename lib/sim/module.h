// The simulator's view of a module: instructions split into the global
// section and functions (ModuleData, parsed once), and the per-dispatch
// Instance (types laid out and constants evaluated for one set of
// specialization constants, every result id given its register slots).
// Internal to lib/sim.
#ifndef WAVEOPT_LIB_SIM_MODULE_H_
#define WAVEOPT_LIB_SIM_MODULE_H_

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/sim/launch.h"

namespace waveopt {
namespace sim {

// One instruction. |ops| points into ModuleData::words: the operands after
// the result type and result id.
struct Inst {
  uint32_t op = 0;
  uint32_t type = 0;    // result type id, 0 if none
  uint32_t result = 0;  // result id, 0 if none
  const uint32_t* ops = nullptr;
  uint32_t num_ops = 0;
  uint32_t word = 0;   // position of the opcode word in the module
  uint32_t index = 0;  // functions' instructions: a dense number, module order
};

struct Block {
  uint32_t label = 0;
  uint32_t begin = 0, end = 0;  // instructions [begin, end) of the function, after OpLabel
  uint32_t merge = 0;           // merge block label of a header, else 0
  uint32_t order = 0;           // position in the structured order
};

struct Function {
  uint32_t id = 0;
  uint32_t return_type = 0;
  std::vector<uint32_t> params;
  std::vector<Inst> insts;
  std::vector<Block> blocks;                           // blocks[0] is the entry
  std::unordered_map<uint32_t, uint32_t> block_index;  // label -> index
};

struct Decorations {
  int32_t builtin = -1;
  int32_t spec_id = -1;
  uint32_t set = 0, binding = 0;
  bool has_binding = false;
  uint32_t array_stride = 0;
  bool block = false, buffer_block = false;
};

struct MemberDecorations {
  uint32_t offset = 0;
  bool has_offset = false;
  uint32_t matrix_stride = 0;
  bool row_major = false;
};

class ModuleData {
 public:
  // Splits |words| into sections. False with |error| for malformed input or
  // a missing entry point.
  bool Parse(const std::vector<uint32_t>& words, const std::string& entry, std::string* error);

  std::vector<uint32_t> words;
  uint32_t bound = 0;
  std::vector<Inst> globals;  // types, constants, global variables, in order
  std::vector<Function> functions;
  std::unordered_map<uint32_t, uint32_t> function_index;  // id -> index
  std::unordered_map<uint32_t, Decorations> deco;
  std::map<std::pair<uint32_t, uint32_t>, MemberDecorations> member_deco;
  // Matrix type -> (MatrixStride, RowMajor), from the struct members that use
  // it (directly or through arrays) in explicitly laid out memory.
  std::unordered_map<uint32_t, std::pair<uint32_t, bool>> matrix_layout;
  uint32_t entry_function = 0;
  uint32_t local_size[3] = {1, 1, 1};
  uint32_t local_size_ids[3] = {0, 0, 0};           // LocalSizeId execution mode
  uint32_t num_function_insts = 0;                  // Inst::index runs to this
  uint32_t glsl_set = 0;                            // GLSL.std.450 import id
  std::vector<uint32_t> ignored_sets;               // NonSemantic.* imports
  std::unordered_map<uint32_t, std::string> names;  // OpName

 private:
  // Parse's steps.
  void ReadDecoration(const uint32_t* w, uint32_t wc);
  void ReadMemberDecoration(const uint32_t* w, uint32_t wc);
  std::vector<uint32_t> LiteralWords() const;
  void ReadModes(const std::vector<std::pair<uint32_t, std::vector<uint32_t>>>& modes,
                 uint32_t entry_id);
  void FindMatrixLayouts();
};

enum class TypeKind {
  kOther,
  kVoid,
  kBool,
  kInt,
  kFloat,
  kVector,
  kMatrix,
  kArray,
  kRuntimeArray,
  kStruct,
  kPointer,
  kFunction,
  kImage,
  kSampledImage,
  kSampler,
};

struct TypeInfo {
  TypeKind kind = TypeKind::kOther;
  uint32_t width = 0;  // int/float bits
  bool is_signed = false;
  uint32_t elem = 0;   // vector/matrix/array element, pointer pointee, image sampled type
  uint32_t count = 0;  // vector components, matrix columns, array length
  std::vector<uint32_t> members;
  uint32_t storage = 0;               // pointers
  uint32_t array_stride = 0;          // ArrayStride (arrays; pointers for OpPtrAccessChain)
  uint32_t slots = 0;                 // scalars when flattened
  std::vector<uint32_t> member_slot;  // structs: first slot of each member
  // Natural layout (Function, Private, Workgroup, Input memory).
  uint64_t nsize = 0;
  uint32_t nalign = 1;
  uint64_t nstride = 0;            // arrays
  std::vector<uint64_t> noffsets;  // structs
  // Explicit layout (Offset/ArrayStride/MatrixStride decorations).
  uint64_t esize = 0;              // extent
  std::vector<uint64_t> eoffsets;  // structs
  uint32_t matrix_stride = 0;      // matrices
  bool row_major = false;
  // Images (kImage; kSampledImage's elem is its image type).
  uint32_t image_dim = 0;  // spv::Dim
  bool image_arrayed = false;
  uint32_t image_sampled = 0;  // 1: sampled, 2: storage
  uint32_t image_format = 0;   // spv::ImageFormat
};

// A module variable (not Function storage).
struct GlobalVar {
  uint32_t id = 0;
  uint32_t storage = 0;
  uint32_t pointee = 0;
  uint32_t initializer = 0;
  uint64_t offset = 0;  // in the invocation arena (Input/Private) or workgroup arena
};

class Instance;
// Evaluates |in| (the operation of an OpSpecConstantOp, its operands already
// evaluated into |cvals|, indexed by register slot) into the slots of
// in.result; false with |error| for an operation that is not allowed. The
// machine's EvalConstantOp: Instance::Build takes it, so that the module
// layer does not depend on the machine that runs it.
using ConstantOpEval = bool (*)(const Instance& instance, const Inst& in,
                                std::vector<uint64_t>* cvals, std::string* error);

// A module instantiated for one dispatch's specialization constants.
class Instance {
 public:
  // Lays out types, evaluates constants (|spec| overrides SpecId defaults;
  // OpSpecConstantOp through |eval|) and assigns register slots. False with
  // |error| for unsupported types or constant instructions.
  bool Build(const ModuleData& m, const std::map<uint32_t, uint64_t>& spec, ConstantOpEval eval,
             std::string* error);

  const ModuleData* m = nullptr;
  std::vector<TypeInfo> types;       // by id
  std::vector<uint32_t> value_type;  // id -> result type id
  std::vector<uint32_t> slot_base;   // id -> first register slot
  uint32_t num_slots = 0;
  std::vector<uint32_t> constants;  // constant ids (their slots hold cvals)
  std::vector<uint64_t> cvals;      // constant register values, indexed by slot
  std::vector<bool> is_constant;    // by id
  std::vector<GlobalVar> globals;
  std::vector<int32_t> global_index;                    // id -> index into globals, -1
  uint64_t invocation_arena = 0;                        // bytes: Input + Private (+ stack after)
  uint64_t stack_base = 0;                              // where function frames start
  uint64_t workgroup_arena = 0;                         // bytes of Workgroup variables
  std::vector<uint64_t> frame_size;                     // per function index
  std::unordered_map<uint32_t, uint64_t> local_offset;  // Function variable -> frame offset
  std::vector<uint32_t> return_slot;  // per function index: slot base of its return value
  uint32_t local_size[3] = {1, 1, 1};

  // The scalar type of a scalar or vector type.
  const TypeInfo& Scalar(uint32_t type) const {
    const TypeInfo& t = types[type];
    return t.kind == TypeKind::kVector ? types[t.elem] : t;
  }
  // Writes the poison value of |type| into its slots: |poison| (0xDEADBEEF in
  // every 32-bit word by default) in each scalar (within its width), true for
  // booleans.
  void Poison(uint32_t type, uint64_t* out) const;
  uint64_t poison = 0xDEADBEEFDEADBEEFull;
  // Bytes of |type| in memory of the given layout.
  uint64_t SizeOf(uint32_t type, bool explicit_layout) const {
    return explicit_layout ? types[type].esize : types[type].nsize;
  }

 private:
  // Build's steps, in order; each false with |error| for what it cannot
  // simulate. LayOutType and EvalConstant return whether |in| is theirs
  // (|*ok|: whether it went well).
  bool LayOutType(const Inst& in, bool* ok, std::string* error);
  bool LayOutScalar(const Inst& in, TypeInfo* t, std::string* error);
  void LayOutMatrix(const Inst& in, TypeInfo* t);
  bool LayOutArray(const Inst& in, TypeInfo* t, std::string* error);
  void LayOutStruct(const Inst& in, TypeInfo* t);
  bool LayOutImage(const Inst& in, TypeInfo* t, std::string* error);
  void LayOutHandle(const Inst& in, TypeInfo* t);
  bool EvalConstant(const Inst& in, const std::map<uint32_t, uint64_t>& spec, ConstantOpEval eval,
                    bool* ok, std::string* error);
  uint64_t ScalarConstant(const Inst& in, const std::map<uint32_t, uint64_t>& spec) const;
  bool PlaceGlobal(const Inst& in, uint64_t* input_private, uint64_t* workgroup,
                   std::string* error);
  bool LayOutFunctions(std::vector<std::vector<uint32_t>>* callees, std::string* error);
  bool SizeStack(const std::vector<std::vector<uint32_t>>& callees, std::string* error);
  bool SetWorkgroupSize(std::string* error);
  // Gives |id| (of |type|) its register slots.
  void Alloc(uint32_t id, uint32_t type);
  const Decorations* DecorationsOf(uint32_t id) const;
};

// True for storage classes whose memory is laid out by Offset/ArrayStride.
bool IsExplicitStorage(uint32_t storage);

// "OpIAdd" (or "opcode 1234" when unknown).
std::string OpcodeName(uint32_t op);

}  // namespace sim
}  // namespace waveopt

#endif  // WAVEOPT_LIB_SIM_MODULE_H_
