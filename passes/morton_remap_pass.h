// morton-remap: relabel the invocations of a 2-D compute workgroup so that
// every 4 consecutive lanes cover a 2x2 pixel block (16 lanes a 4x4 block,
// 32 lanes an 8x4 half, 64 lanes an 8x8 tile) instead of a strip of a row.
// From seed 002 (FidelityFX SPD's ARmpRed8x8); seed 004 says when it hurts.
//
// Before (an 8x8 workgroup; lanes 0..3 are pixels (0,0),(1,0),(2,0),(3,0)):
//   %gid = OpLoad %v3uint %gl_GlobalInvocationID
//
// After (lanes 0..3 are (0,0),(1,0),(0,1),(1,1)), at every load of an
// identity built-in, in every function the entry point reaches:
//   %l   = OpLoad %uint %gl_LocalInvocationIndex
//   %x   = (l & 1) | ((l >> 2) & 6)          ; + 8 * (tile % tiles per row)
//   %y   = ((l >> 1) & 3) | ((l >> 3) & 4)   ; + 8 * (tile / tiles per row)
//   %wg  = OpLoad %v3uint %gl_WorkGroupID
//   %gid = (wg.x * X + x, wg.y * Y + y, wg.z)
// with tile = l >> 6. LocalInvocationId becomes (x, y, 0) and
// LocalInvocationIndex y * X + x, so the three built-ins stay consistent and
// the program is only relabelled. A 1-D workgroup of 64·k invocations gets
// the index l' = (l & ~63) | (y << 3) | x: a shader that derives 2-D
// coordinates from its index (index % 8, index / 8) sees the same tiles.
//
// Legal unless the program depends on which invocations share a subgroup or
// quad (subgroup and quad operations, subgroup built-ins, subgroup-scope
// barriers, cooperative matrices, compute derivatives); `force` overrides.
// Profitable (the default decides) when accesses to images at coordinates
// derived from the invocation id outnumber buffer accesses whose index
// varies with x (row-major y*W+x indexing coalesces best in linear order).
//
// Capabilities added: none. Built-ins added when missing (and listed in the
// entry point's interface): LocalInvocationIndex, WorkgroupId.
// Analyses needed: def-use, instruction-to-block. Every refusal is a missed
// remark; docs/passes/morton-remap.md lists the names.
#ifndef WAVEOPT_PASSES_MORTON_REMAP_PASS_H_
#define WAVEOPT_PASSES_MORTON_REMAP_PASS_H_

#include <array>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "passes/wave_pass.h"

namespace waveopt {

class Emitter;

class MortonRemapPass : public WavePass {
 public:
  enum class Mode {
    kProfitable,  // default: legal and the access counts favour images
    kAlways,      // whenever legal
    kForce,       // even when the program depends on subgroup membership
  };
  struct Params {
    Mode mode = Mode::kProfitable;
  };

  // Accepts "" , "always" and "force".
  static bool ParseParams(const std::string& text, Params* params,
                          std::string* error);
  static bool ValidateParams(const std::string& text, std::string* error) {
    Params p;
    return ParseParams(text, &p, error);
  }

  // The position (|x|, |y|) that linear invocation index |l| takes in a
  // |size_x| x |size_y| workgroup after the remap (|size_y| == 1: a 1-D
  // workgroup of 64·k invocations, |x| is then the new index). The emitted
  // SPIR-V computes the same function; docs and unit tests use this one.
  static void RemapIndex(uint32_t l, uint32_t size_x, uint32_t size_y,
                         uint32_t* x, uint32_t* y);

  explicit MortonRemapPass(PassConfig config);

  const char* name() const override { return "morton-remap"; }
  Status Process() override;

 private:
  // The identity built-ins the pass replaces.
  enum IdKind { kLocalId = 0, kGlobalId = 1, kLocalIndex = 2 };

  // One load of an identity built-in to replace.
  struct Site {
    spvtools::opt::Instruction* load = nullptr;
    IdKind kind = kLocalId;
    // -1: the whole value; 0..2: a constant component (access chain);
    // -2: a dynamic component, |index| holds its id.
    int component = -1;
    uint32_t index = 0;
  };

  // The resolved workgroup size of an entry point.
  struct Shape {
    uint32_t x = 0, y = 0, z = 0;
    std::string source;  // how it was found, for remarks
    bool from_spec_constant = false;
  };

  // Per-component taint of a value: bit 1 = varies with the invocation's x
  // coordinate (or its linear index), bit 2 = varies with its y coordinate.
  using Taint = std::array<uint8_t, 4>;

  // Static counts for the profitability decision.
  struct Counts {
    uint32_t images = 0;          // image accesses at id-derived coordinates
    uint32_t linear_buffers = 0;  // buffer accesses whose index varies with x
  };

  // Everything the decision about one entry point needs.
  struct EntryInfo {
    spvtools::opt::Instruction* entry = nullptr;
    spvtools::opt::Function* function = nullptr;
    std::vector<spvtools::opt::Function*> reached;  // program order
    std::vector<Site> sites;
    spvtools::opt::Instruction* first_use = nullptr;  // for remark locations
    Shape shape;
  };

  // Functions reachable from |func| through OpFunctionCall, |func| first,
  // then in module order.
  std::vector<spvtools::opt::Function*> Reached(spvtools::opt::Function* func);

  // Fills |shape| for |entry|; returns "" or a refusal reason with |why|.
  std::string ResolveShape(spvtools::opt::Instruction* entry, Shape* shape,
                           std::string* why);
  // The value of the integer constant |id|; sets |*spec| when it is a
  // specialization constant (its default is used). False when |id| is not
  // a plain or specialization scalar integer constant.
  bool ConstantValue(uint32_t id, uint32_t* value, bool* spec);

  // Collects the loads of identity built-ins in |info|'s functions. Returns
  // false with |why| set when a use is not a load or a load through an
  // access chain.
  bool CollectSites(EntryInfo* info, std::string* why);

  // Whether a load of LocalInvocationIndex in |info|'s functions already
  // feeds the Morton bit pattern ((l >> 2) & 6 or (l >> 3) & 4).
  bool AlreadyRemapped(const EntryInfo& info);

  // Why the program depends on subgroup membership ("" when it does not):
  // the first offending instruction in |info|'s functions, or execution mode.
  std::string SubgroupDependence(const EntryInfo& info,
                                 spvtools::opt::Instruction** where,
                                 std::string* name);

  // Counts image and linear buffer accesses derived from the ids.
  Counts CountAccesses(const EntryInfo& info);

  // Rewrites every site of |info|. False when ids ran out.
  bool Rewrite(const EntryInfo& info);
  // The Input variable for |builtin|, declared (and named) when missing;
  // added to |entry|'s interface when absent there. 0 when ids ran out.
  uint32_t BuiltInVar(uint32_t builtin, bool vector,
                      spvtools::opt::Instruction* entry);

  Params params_;
  // BuiltIn decoration value → Input variables carrying it, module order.
  std::unordered_map<uint32_t, std::vector<uint32_t>> builtin_vars_;
  // Every Input variable decorated with an identity built-in → its kind.
  std::unordered_map<uint32_t, IdKind> id_vars_;
};

}  // namespace waveopt

#endif  // WAVEOPT_PASSES_MORTON_REMAP_PASS_H_
