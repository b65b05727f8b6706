// `waverun isa`: compiles compute modules with Mesa's RADV (AMD's Vulkan
// driver, ACO back end) on null hardware — no GPU needed — and reports what
// the compiler made of them: ACO's statistics (instructions, registers,
// occupancy, static latency/throughput, ...) through
// VK_KHR_pipeline_executable_properties, memory instructions counted by kind
// in the final ISA, and the ISA itself. See docs/waverun.md ("AMD ISA").
//
// One child process per (family, wave size): RADV reads RADV_FORCE_FAMILY
// when it creates its physical device, and a driver crash must not take the
// report down with it.
#ifndef WAVEOPT_TOOLS_WAVERUN_ISA_H_
#define WAVEOPT_TOOLS_WAVERUN_ISA_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace waverun {

struct IsaModule {
  std::string path;             // as given on the command line (row label)
  std::vector<uint32_t> words;  // a valid SPIR-V module with a GLCompute entry point
};

enum class IsaFormat { kTable, kTsv, kJson };

// The family isa compiles for without --amd: RDNA2, the family of the
// project's AMD measurements (docs/waverun.md).
constexpr const char* kDefaultAmdFamily = "navi21";

struct IsaOptions {
  std::vector<std::string> families;  // lower-case RADV family names, validated
  std::vector<uint32_t> waves;        // 32 and/or 64; empty: the driver's default
  bool disasm = false;                // print (table) or include (json) the ISA
  IsaFormat format = IsaFormat::kTable;
  std::string icd;  // RADV's ICD json ("" : find the package's)
  int jobs = 0;     // child processes at a time (0: CPUs)
  // Specialization constants by SpecId (bits; --const): set on every module
  // that declares the id, ignored by the others.
  std::map<uint32_t, uint64_t> constants;
};

// Parses a comma-separated --amd= list into |families| (lower case, in order,
// without repeats). Fails with one line naming the unknown family and the
// known ones.
bool ParseAmdFamilies(const std::string& list, std::vector<std::string>* families,
                      std::string* error);

// Parses --wave=32, --wave=64 or --wave=32,64.
bool ParseWaves(const std::string& list, std::vector<uint32_t>* waves, std::string* error);

// Parses --format=table|tsv|json.
bool ParseIsaFormat(const std::string& name, IsaFormat* format);

// Compiles every module for every family and wave size and prints the report
// to stdout (errors: one line each on stderr, prefixed "waverun: error: ").
// Returns the process exit code: 0, or 1 when RADV is missing, a family or
// wave size is not available, or the driver rejected (or crashed on) a
// module; the other modules' rows are still printed.
int RunIsa(const std::vector<IsaModule>& modules, const IsaOptions& options);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_ISA_H_
