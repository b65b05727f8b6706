// Remarks about inputs without source lines name the input's own ids.
//
// A module without OpLine (DXC, Slang, glslang without -g) gives a remark no
// line, and the ids the passes see are those of -O's prepared module: the
// SSA rewrite and the inliner create ids the user never saw. So before the
// first step, Optimize() puts a marker before every instruction of every
// function body: "OpLine %F <L> <C>", where %F is the entry point's function
// (not an OpString: that is how a marker is told from a real line, and it
// takes no new id, so the steps number their new ids as they would without
// markers), <L> the instruction's result id in the input and <C> 0 or, for
// an instruction without a result id, its distance from the nearest one
// before it in its block (<L>, the block's label at least). SPIRV-Tools
// carries OpLines along as it does real lines (the inliner copies the
// callee's), the passes' remarks read them (WavePass::LocateRemark), and
// Optimize() strips every OpLine and OpNoLine before it validates or
// returns the module: the output is byte for byte what it is without
// markers (tested over the examples and the scratch corpus).
//
// Only for modules with no line of their own: no OpLine, no OpNoLine, no
// DebugLine or DebugNoLine. In a module with a DebugInfo import, markers
// change the output: SPIRV-Tools writes a DebugNoLine, with a new id, where
// an instruction without a line follows a marked one (other ids; between
// OpPhis, an invalid module). So there Optimize() runs the pipeline twice
// when remarks are asked for: without markers for the output and all but
// the remarks, and on a marked copy for the remarks, which it takes when
// both runs made the same remarks (pass, name and kind, in order).
#ifndef WAVEOPT_LIB_SITE_MARKERS_H_
#define WAVEOPT_LIB_SITE_MARKERS_H_

#include <cstdint>
#include <vector>

#include "waveopt/remarks.h"

namespace waveopt {

// How the remarks on |words| get their sites (above).
enum class SiteMarking {
  kNone,        // it has lines, is malformed or has no entry point
  kInRun,       // markers in the run that makes the output
  kSeparateRun  // a DebugInfo import: markers only in a run for remarks
};
SiteMarking SiteMarkingFor(const std::vector<uint32_t>& words);

// |words| with a marker before each function-body instruction (above).
std::vector<uint32_t> AddSiteMarkers(const std::vector<uint32_t>& words);

// Removes every OpLine and OpNoLine from |words|.
void StripSiteMarkers(std::vector<uint32_t>* words);

// Fills each remark's |site| from its marker (site_id, site_offset) and
// |input|, the module as the user gave it: "%45 (OpLoad)", "OpStore 2 after
// %45", "near ..." when the remark's instruction was made by waveopt or
// SPIRV-Tools (the marker is the nearest one), "... of f, inlined here"
// when it is a copy of an instruction of another function f.
void DescribeSites(const std::vector<uint32_t>& input, std::vector<Remark>* remarks);

}  // namespace waveopt

#endif  // WAVEOPT_LIB_SITE_MARKERS_H_
