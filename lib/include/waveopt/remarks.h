// Optimization remarks: what a waveopt pass did, did not do and why.
//
// Every remark has a stable name (e.g. "DivergentAddress"): tools and tests
// match on it, so a name never changes meaning once released.
#ifndef WAVEOPT_REMARKS_H_
#define WAVEOPT_REMARKS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace waveopt {

enum class RemarkKind {
  kApplied,   // the pass rewrote something
  kMissed,    // the pass looked at a candidate and refused; says why
  kAnalysis,  // a fact the pass computed (counts, decisions)
};

// Returns "applied", "missed" or "analysis".
const char* RemarkKindName(RemarkKind kind);

struct Remark {
  RemarkKind kind = RemarkKind::kAnalysis;
  std::string pass;      // pass flag, e.g. "prereduce-atomics"
  std::string name;      // stable remark name, e.g. "DivergentAddress"
  std::string function;  // OpName of the function, or "%<id>" without one
  std::string file;      // from OpLine/DebugLine when the module has one
  uint32_t line = 0;     // 0: no source line known
  uint32_t column = 0;
  std::string message;  // one sentence for people
  // Inputs without source lines (lib/site_markers.h): the input's
  // instruction the remark is about, as spirv-dis of the input names it:
  // "%45 (OpLoad)", "OpStore 2 after %45" (no result id: the second
  // instruction after %45), prefixed "near " when the pass's instruction
  // is not in the input (made by a step; the marker is the nearest one),
  // suffixed ", of f, inlined here" for a copy of f's instruction. Empty
  // when there is a line or no marker.
  std::string site;
  // What the pass saw, from which Optimize() writes |site|: the marker
  // (site_id, site_offset), the opcode of the pass's instruction, whether
  // the marker is that instruction's own and whether its result id differs
  // from site_id.
  uint32_t site_id = 0;
  uint32_t site_offset = 0;
  std::string site_opcode;
  bool site_own = false;
  bool site_renamed = false;
};

// Receives remarks as passes emit them. Implementations must be cheap; the
// passes call Emit() from their own thread.
class RemarkSink {
 public:
  virtual ~RemarkSink();
  virtual void Emit(const Remark& remark) = 0;
};

// Collects remarks in emission order (which is deterministic).
class RemarkCollector : public RemarkSink {
 public:
  void Emit(const Remark& remark) override;
  std::vector<Remark> Take();
  const std::vector<Remark>& remarks() const { return remarks_; }

 private:
  std::mutex mutex_;
  std::vector<Remark> remarks_;
};

// One remark per site and pass, as Optimize() returns them: an exact repeat
// at a site is dropped (a pass run twice, as by -O and its own flag), and the remarks
// of one pass at one site — one loop ("[loop %N]" in the message), else one
// source location (file, line, column, function), else one site — become one — the applied one when
// there is one (a rewrite made in one of -O's versions and refused in another), the others appended
// to its message as
// "; here also <kind> <Name>: <message>". Remarks with neither and
// analysis remarks are kept as they are. Order: first appearance.
std::vector<Remark> MergeRemarksPerSite(const std::vector<Remark>& remarks);

// One line: "<file>:<line>:<col>: remark: <pass>: <kind> <Name> in <function>
// at <site>: <message>" (the location part is omitted when unknown, " at
// <site>" when there is no site; "at near %45" is written "near %45").
std::string FormatRemark(const Remark& remark);

// LLVM-style YAML stream: one "--- !Passed|!Missed|!Analysis" document each.
// With |input|, each document's Args also name the input the remark is
// about ("- Input: '<input>'"): what the command line's batch mode writes.
std::string FormatRemarksYaml(const std::vector<Remark>& remarks,
                              const std::string& input = std::string());

}  // namespace waveopt

#endif  // WAVEOPT_REMARKS_H_
