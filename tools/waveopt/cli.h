// The waveopt command line's parts: options (main.cpp), one input from end
// to end (job.cpp), many inputs in child processes (batch.cpp).
#ifndef WAVEOPT_TOOLS_WAVEOPT_CLI_H_
#define WAVEOPT_TOOLS_WAVEOPT_CLI_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "waveopt/io.h"
#include "waveopt/waveopt.h"

namespace waveopt_cli {

enum class Format { kUnknown, kSpv, kSpvAsm, kGlsl, kHlsl };

// Dependency output, glslc's flags.
struct Deps {
  bool only = false;   // -M/-MM: print the rule instead of compiling
  bool write = false;  // -MD: compile and write the depfile
  std::string file;    // -MF: where the rule goes ("" : stdout for -M, <output>.d for -MD)
  std::string target;  // -MT: the rule's target ("" : the output file)
};

// --source-prefix-map's OLD (normalized) → NEW pairs, in the order given.
using PrefixMap = std::vector<std::pair<std::string, std::string>>;

struct Cli {
  std::string input;
  std::string output;  // "" → stdout as text
  Format input_format = Format::kUnknown;
  Format emit = Format::kUnknown;
  waveopt::Options options;
  waveopt::CompileOptions compile;
  bool time_report = false;
  bool print_all = false;
  bool print_uniformity = false;
  bool print_loop_candidates = false;
  bool print_spec_constants = false;  // -O's versions, one line each, to stdout
  std::string remarks_applied, remarks_missed, remarks_analysis;
  std::string remarks_output;
  Deps deps;
  std::string batch;                      // --batch: a list file or a directory
  std::string out_dir;                    // --out-dir
  int jobs = 0;                           // --jobs; 0: one per processor
  PrefixMap prefix_map;                   // --source-prefix-map
  std::string source_name;                // --source-name: the input's recorded name
  bool print_cache_key = false;           // --print-cache-key
  bool print_cache_key_material = false;  // --print-cache-key-material
  // The flags that can change the output, as given, in order: everything
  // but files, -I, reports, dependencies, batch and isolation settings, and
  // the flags the key states canonically (-D, -S/-T, -e/-E, -x, --emit).
  std::vector<std::string> key_flags;
};

// One input to turn into one output.
struct Job {
  std::string input;
  std::string output;  // "" → stdout as text; "-" → stdout
  Deps deps;
  std::vector<std::string> defines;       // besides Cli::compile's
  std::vector<std::string> include_dirs;  // besides Cli::compile's
  // A list line's own settings, over the command line's.
  std::string stage;                      // -S/-T
  std::string entry_point;                // -e/-E
  Format emit = Format::kUnknown;         // --emit=
  std::vector<std::string> option_flags;  // --target=, --target-env=
};

// |cli| with |job|'s own settings applied (a list line's -S, -e, -D, -I,
// --emit, --target...). False with |error| for a flag the library refuses.
bool ApplyJob(const Job& job, Cli* cli, std::string* error);

// DXC's -T <profile> (ps_6_0, cs_6_5, ...) as a stage; "" for lib_ and
// unknowns.
std::string StageForProfile(const std::string& profile);
bool ParseFormat(const std::string& s, Format* f);
// "<flag> is spv, spvasm, glsl or hlsl, not '<format>'".
std::string FormatError(const std::string& flag, const std::string& format);
const char* FormatName(Format format);

// reproducible.cpp: recorded names and the cache key.
bool ParsePrefixMap(const std::string& value, PrefixMap* map, std::string* error);
// The name |path| is recorded under in the module: normalized ("./a//b" →
// "a/b"), then the longest matching OLD of |map| (of equal ones, the last
// given) replaced by its NEW; a relative path no OLD matches is tried again
// made absolute, and else kept relative.
std::string RecordedName(const PrefixMap& map, const std::string& path);
struct KeyInputs {
  const Cli* cli = nullptr;  // with the job's settings applied
  Format input_format = Format::kUnknown, output_format = Format::kUnknown;
  std::string stage;  // GLSL/HLSL: the stage the front end uses
  // Every file read, as recorded → its bytes: the input, then its #includes.
  std::vector<std::pair<std::string, std::string>> files;
};
// The text --print-cache-key hashes (--print-cache-key-material prints it).
std::string CacheKeyMaterial(const KeyInputs& inputs);

// Reads, compiles, optimizes and writes |job|, printing remarks, warnings
// and at most one error line ("waveopt: error: <file>: <problem>") to
// stderr. Returns the exit status (0, or 1 for bad input or failure; no
// output file is then written). |selected| gets the remarks that
// --remarks-output would write; the file itself is written only when
// |write_remarks_file|.
int RunJob(const Cli& cli, const Job& job, bool write_remarks_file,
           std::vector<waveopt::Remark>* selected);

// --batch: every input of cli.batch, cli.jobs at a time, each in a child
// process. Returns the exit status: 0 when every input succeeded, else 1.
int RunBatch(const Cli& cli);

// Prints "waveopt: error: <msg>" and "Run 'waveopt --help'..." and exits 2.
[[noreturn]] void UsageError(const std::string& msg);

std::string Extension(const std::string& path);
Format FormatForExtension(const std::string& ext);

// The one-line refusal of an output whose extension names no format (a
// silent binary would surprise), or "" when |output| is fine: no
// extension, a known one, or an explicit --emit.
std::string UnknownOutputExtension(const Cli& cli, const std::string& output);

}  // namespace waveopt_cli

#endif  // WAVEOPT_TOOLS_WAVEOPT_CLI_H_
