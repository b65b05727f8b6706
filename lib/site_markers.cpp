#define SPV_ENABLE_UTILITY_CODE  // spv::HasResultAndType, spv::OpToString
#include "lib/site_markers.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "spirv/unified1/NonSemanticShaderDebugInfo100.h"
#include "spirv/unified1/spirv.hpp11"

namespace waveopt {

namespace {

constexpr size_t kHeaderWords = 5;

// Calls |f(offset, opcode, word_count)| for each instruction of |words|;
// false when one is malformed (no words, or past the end).
template <typename F>
bool ForEachInstruction(const std::vector<uint32_t>& words, F f) {
  if (words.size() < kHeaderWords) return false;
  size_t at = kHeaderWords;
  while (at < words.size()) {
    const uint32_t count = words[at] >> 16;
    if (count == 0 || count > words.size() - at) return false;
    f(at, static_cast<spv::Op>(words[at] & 0xffffu), count);
    at += count;
  }
  return true;
}

// The result id of the instruction at |at|, or 0.
uint32_t ResultId(const std::vector<uint32_t>& words, size_t at, spv::Op op, uint32_t count) {
  bool has_result = false, has_type = false;
  spv::HasResultAndType(op, &has_result, &has_type);
  const uint32_t index = has_type ? 2 : 1;
  return has_result && index < count ? words[at + index] : 0;
}

bool IsDebugInfoImport(const std::vector<uint32_t>& words, size_t at, uint32_t count) {
  const std::string name(reinterpret_cast<const char*>(&words[at + 2]),
                         (count - 2) * sizeof(uint32_t));
  return name.find("DebugInfo") != std::string::npos;
}

// Calls |f(at, op, count, function, L, C)| for each instruction of a
// function body (label to terminator), with its marker's (L, C) and the id
// of its function.
template <typename F>
void ForEachBodyInstruction(const std::vector<uint32_t>& words, F f) {
  uint32_t function = 0, anchor = 0, distance = 0;
  bool in_body = false;
  ForEachInstruction(words, [&](size_t at, spv::Op op, uint32_t count) {
    if (op == spv::Op::OpFunction) function = ResultId(words, at, op, count);
    if (op == spv::Op::OpLabel) in_body = true;
    if (op == spv::Op::OpFunctionEnd) in_body = false;
    if (!in_body || op == spv::Op::OpLine || op == spv::Op::OpNoLine) return;
    const uint32_t id = ResultId(words, at, op, count);
    if (id != 0 || op == spv::Op::OpLabel) {
      anchor = id;
      distance = 0;
    } else {
      ++distance;
    }
    f(at, op, count, function, anchor, distance);
  });
}

std::string OpcodeName(spv::Op op) { return spv::OpToString(op); }

}  // namespace

SiteMarking SiteMarkingFor(const std::vector<uint32_t>& words) {
  bool lines = false, debug_info = false, entry = false;
  std::vector<uint32_t> debug_sets;  // the DebugInfo imports' ids
  const bool ok = ForEachInstruction(words, [&](size_t at, spv::Op op, uint32_t count) {
    if (op == spv::Op::OpLine || op == spv::Op::OpNoLine) lines = true;
    if (op == spv::Op::OpExtInstImport && count > 2 && IsDebugInfoImport(words, at, count)) {
      debug_info = true;
      debug_sets.push_back(words[at + 1]);
    }
    if (op == spv::Op::OpExtInst && count > 4 &&
        std::find(debug_sets.begin(), debug_sets.end(), words[at + 3]) != debug_sets.end() &&
        (words[at + 4] == NonSemanticShaderDebugInfo100DebugLine ||
         words[at + 4] == NonSemanticShaderDebugInfo100DebugNoLine)) {
      lines = true;
    }
    if (op == spv::Op::OpEntryPoint && count > 2) entry = true;
  });
  if (!ok || !entry || lines) return SiteMarking::kNone;
  return debug_info ? SiteMarking::kSeparateRun : SiteMarking::kInRun;
}

std::vector<uint32_t> AddSiteMarkers(const std::vector<uint32_t>& words) {
  uint32_t file = 0;
  ForEachInstruction(words, [&](size_t at, spv::Op op, uint32_t count) {
    if (op == spv::Op::OpEntryPoint && count > 2 && file == 0) file = words[at + 2];
  });
  std::vector<uint32_t> out(words.begin(), words.begin() + kHeaderWords);
  out.reserve(words.size() * 2);
  size_t copied = kHeaderWords;
  ForEachBodyInstruction(
      words, [&](size_t at, spv::Op, uint32_t, uint32_t, uint32_t anchor, uint32_t distance) {
        out.insert(out.end(), words.begin() + static_cast<std::ptrdiff_t>(copied),
                   words.begin() + static_cast<std::ptrdiff_t>(at));
        out.insert(out.end(),
                   {(4u << 16) | static_cast<uint32_t>(spv::Op::OpLine), file, anchor, distance});
        copied = at;
      });
  out.insert(out.end(), words.begin() + static_cast<std::ptrdiff_t>(copied), words.end());
  return out;
}

void StripSiteMarkers(std::vector<uint32_t>* words) {
  std::vector<uint32_t> out;
  out.reserve(words->size());
  size_t copied = 0;
  const bool ok = ForEachInstruction(*words, [&](size_t at, spv::Op op, uint32_t count) {
    if (op != spv::Op::OpLine && op != spv::Op::OpNoLine) return;
    out.insert(out.end(), words->begin() + static_cast<std::ptrdiff_t>(copied),
               words->begin() + static_cast<std::ptrdiff_t>(at));
    copied = at + count;
  });
  if (!ok || copied == 0) return;
  out.insert(out.end(), words->begin() + static_cast<std::ptrdiff_t>(copied), words->end());
  *words = std::move(out);
}

namespace {

struct InputInstruction {
  spv::Op op = spv::Op::OpNop;
  uint32_t function = 0;
};

// "OpLoad" and the function of each (L, C) of |input|, and the functions'
// names as WavePass::NameOf spells them.
struct InputIndex {
  std::map<std::pair<uint32_t, uint32_t>, InputInstruction> sites;
  std::map<uint32_t, std::string> names;

  explicit InputIndex(const std::vector<uint32_t>& input) {
    ForEachInstruction(input, [&](size_t at, spv::Op op, uint32_t count) {
      if (op != spv::Op::OpName || count < 3 || names.count(input[at + 1]) != 0) return;
      const std::string text(reinterpret_cast<const char*>(&input[at + 2]),
                             (count - 2) * sizeof(uint32_t));
      names[input[at + 1]] = text.substr(0, text.find('\0'));
    });
    ForEachBodyInstruction(input, [&](size_t, spv::Op op, uint32_t, uint32_t function,
                                      uint32_t anchor, uint32_t distance) {
      sites[{anchor, distance}] = {op, function};
    });
  }

  std::string NameOf(uint32_t id) const {
    auto it = names.find(id);
    return it != names.end() ? it->second : "%" + std::to_string(id);
  }
};

std::string Describe(const Remark& r, const InputIndex& index) {
  auto it = index.sites.find({r.site_id, r.site_offset});
  if (it == index.sites.end()) return "";
  const std::string op = OpcodeName(it->second.op);
  std::string text = r.site_offset == 0 ? "%" + std::to_string(r.site_id) + " (" + op + ")"
                                        : op + " " + std::to_string(r.site_offset) + " after %" +
                                              std::to_string(r.site_id);
  const std::string function = index.NameOf(it->second.function);
  const bool inlined = function != r.function;
  // The pass's instruction is the input's one when the marker is its own and
  // names its opcode, and its result id is the input's (or it is a copy).
  const bool same = r.site_own && op == r.site_opcode && (!r.site_renamed || inlined);
  if (!same) text = "near " + text;
  if (inlined) text += " of " + function + ", inlined here";
  return text;
}

}  // namespace

void DescribeSites(const std::vector<uint32_t>& input, std::vector<Remark>* remarks) {
  bool any = false;
  for (const Remark& r : *remarks) any = any || r.site_id != 0;
  if (!any) return;
  const InputIndex index(input);
  for (Remark& r : *remarks) {
    if (r.site_id != 0) r.site = Describe(r, index);
  }
}

}  // namespace waveopt
