// --batch: many inputs (a directory, or a list of inputs with their own
// defines and output names: shader permutations), each run by RunJob in a
// child process of its own (lib/support/child_process.h), --jobs at a time.
// A crash or failure stays with its input. One remarks YAML for the whole
// batch (--remarks-output), each document naming its input; a progress bar
// on stderr when it is a terminal.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "lib/support/child_process.h"
#include "tools/waveopt/cli.h"

namespace waveopt_cli {
namespace {

namespace fs = std::filesystem;
using waveopt::support::ChildProcess;
using waveopt::support::ChildResult;

// The extension of the outputs: the --emit format's, else .spv.
std::string OutputExtension(Format emit) {
  switch (emit) {
    case Format::kSpvAsm:
      return ".spvasm";
    case Format::kGlsl:
      return ".glsl";
    case Format::kHlsl:
      return ".hlsl";
    default:
      return ".spv";
  }
}

// A directory's inputs: every file below it whose extension names a shader
// stage (.comp, .frag, ...), .hlsl, .spv or .spvasm, in sorted order. Not
// .glsl (needs -S; include files often have it). Outputs mirror the tree.
bool ListDirectory(const Cli& cli, std::vector<Job>* jobs, std::string* error) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(cli.batch, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string ext = it->path().extension().string();
    if (ext == ".glsl" || FormatForExtension(ext) == Format::kUnknown) continue;
    files.push_back(it->path());
  }
  if (ec) {
    *error = "cannot read: " + ec.message();
    return false;
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    Job job;
    job.input = f.string();
    job.output =
        (fs::path(cli.out_dir) / fs::relative(f, cli.batch)).string() + OutputExtension(cli.emit);
    jobs->push_back(job);
  }
  return true;
}

const char* const kListLine =
    "a list line is <input> [-o <output>] [-D<name>[=<value>]]... [-I<dir>]... [-S <stage>] "
    "[-T <profile>] [-e <entry>] [--emit=<format>] [--target=<target>] [--target-env=<env>]";

// One setting of a list line: |token|, with its value from |in| where it
// takes one. False with |error|.
bool ParseListFlag(const std::string& token, std::istringstream& in, Job* job, std::string* output,
                   std::string* error) {
  auto value = [&](const char* flag) {
    std::string v = token.size() > std::strlen(flag) ? token.substr(std::strlen(flag)) : "";
    if (v.empty()) in >> v;
    return v;
  };
  auto starts = [&](const char* p) { return token.rfind(p, 0) == 0; };
  if (token == "-o")
    *output = value("-o");
  else if (starts("-D") && token.size() > 2)
    job->defines.push_back(token.substr(2));
  else if (starts("-I") && token.size() > 2)
    job->include_dirs.push_back(token.substr(2));
  else if (starts("-S"))
    job->stage = value("-S");
  else if (starts("-T")) {
    const std::string profile = value("-T");
    job->stage = StageForProfile(profile);
    if (job->stage.empty()) *error = "-T " + profile + ": not one of DXC's stage profiles";
  } else if (starts("-e") || starts("-E"))
    job->entry_point = value(token.substr(0, 2).c_str());
  else if (starts("--emit=")) {
    if (!ParseFormat(token.substr(7), &job->emit)) *error = FormatError("--emit", token.substr(7));
  } else if (starts("--target=") || starts("--assume-driver=") || starts("--target-env=")) {
    waveopt::Options scratch;
    if (waveopt::ParseOptionFlag(token, &scratch, error)) job->option_flags.push_back(token);
  } else {
    *error = kListLine;
  }
  return error->empty();
}

// One line of a list: an input and its own settings (kListLine). The output
// is relative to --out-dir; by default the input's file name.
bool ParseListLine(const Cli& cli, const std::string& line, Job* job, std::string* error) {
  std::istringstream in(line);
  std::string token, output;
  in >> job->input;
  while (in >> token) {
    if (!ParseListFlag(token, in, job, &output, error)) {
      *error = "'" + token + "' in '" + line + "': " + *error;
      return false;
    }
  }
  const Format emit = job->emit != Format::kUnknown ? job->emit : cli.emit;
  if (output.empty()) output = fs::path(job->input).filename().string() + OutputExtension(emit);
  Cli effective = cli;
  effective.emit = emit;
  *error = UnknownOutputExtension(effective, output);
  if (!error->empty()) return false;
  job->output = (fs::path(cli.out_dir) / output).string();
  return true;
}

// A list file's inputs, one per line; blank lines and lines starting with
// '#' are skipped.
bool ListFile(const Cli& cli, std::vector<Job>* jobs, std::string* error) {
  std::string text;
  if (!waveopt::ReadFile(cli.batch, &text, error)) return false;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
    Job job;
    if (!ParseListLine(cli, line, &job, error)) {
      *error = "line " + std::to_string(number) + ": " + *error;
      return false;
    }
    jobs->push_back(job);
  }
  return true;
}

// Every job's output is its own, and its directory exists.
bool PrepareOutputs(const std::vector<Job>& jobs, std::string* error) {
  std::map<std::string, std::string> seen;
  for (const Job& job : jobs) {
    auto [it, fresh] = seen.emplace(job.output, job.input);
    if (!fresh) {
      *error = job.input + " and " + it->second + " both write " + job.output +
               ": give one of them '-o <output>' in the list";
      return false;
    }
    std::error_code ec;
    fs::create_directories(fs::path(job.output).parent_path(), ec);
    if (ec) {
      *error = "cannot create the directory of " + job.output + ": " + ec.message();
      return false;
    }
  }
  return true;
}

// The progress bar: on a terminal only, redrawn in place on stderr.
class Progress {
 public:
  explicit Progress(size_t total) : total_(total), tty_(isatty(fileno(stderr)) != 0) {}
  void Clear() const {
    if (tty_) std::fputs("\r\033[K", stderr);
  }
  void Draw(size_t done, size_t failed, const std::string& last) const {
    if (!tty_) return;
    struct winsize ws = {};
    const size_t width =
        ioctl(fileno(stderr), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 40 ? ws.ws_col : 80;
    const size_t bar = 30, filled = total_ == 0 ? bar : bar * done / total_;
    std::string line = "[" + std::string(filled, '#') + std::string(bar - filled, '.') + "] " +
                       std::to_string(done) + "/" + std::to_string(total_) +
                       (failed ? " (" + std::to_string(failed) + " failed)" : "") + " " + last;
    if (line.size() >= width) line.resize(width - 1);
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
  }
  void Finish(size_t failed) const {
    if (!tty_) return;
    Clear();
    std::fprintf(stderr, "waveopt: %zu inputs, %zu failed\n", total_, failed);
  }

 private:
  size_t total_;
  bool tty_;
};

// The child's part: RunJob, then the selected remarks as YAML on |channel|.
int RunChild(const Cli& cli, const Job& job, int channel) {
  std::vector<waveopt::Remark> selected;
  const int rc = RunJob(cli, job, false, &selected);
  const std::string yaml = waveopt::FormatRemarksYaml(selected, job.input);
  waveopt::support::WriteAll(channel, yaml.data(), yaml.size());
  std::fflush(stdout);
  std::fflush(stderr);
  return rc;
}

// What an ended child leaves: its stderr, an error line if it died, and its
// remarks. Returns whether the input failed.
bool Collect(const Job& job, const ChildResult& r, std::string* yaml) {
  std::fputs(r.err.c_str(), stderr);
  if (r.status == ChildResult::Status::kExited) {
    *yaml = r.channel;
    return r.exit_code != 0;
  }
  std::fprintf(stderr, "waveopt: error: %s: %s\n", job.input.c_str(),
               waveopt::support::Describe(r).c_str());
  return true;
}

}  // namespace

int RunBatch(const Cli& cli) {
  std::vector<Job> jobs;
  std::string error;
  std::error_code ec;
  const bool listed = fs::is_directory(cli.batch, ec) ? ListDirectory(cli, &jobs, &error)
                                                      : ListFile(cli, &jobs, &error);
  if (!listed || !PrepareOutputs(jobs, &error)) {
    std::fprintf(stderr, "waveopt: error: %s: %s\n", cli.batch.c_str(), error.c_str());
    return 1;
  }
  for (Job& job : jobs) job.deps = cli.deps;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const size_t parallel =
      cli.jobs > 0 ? static_cast<size_t>(cli.jobs) : static_cast<size_t>(std::max(1L, cpus));
  waveopt::support::ChildOptions child_options;
  child_options.out = waveopt::support::StreamMode::kCapture;
  child_options.err = waveopt::support::StreamMode::kCapture;
  child_options.flush_std_streams = true;

  Progress progress(jobs.size());
  std::vector<std::string> yaml(jobs.size());
  std::vector<std::unique_ptr<ChildProcess>> children(jobs.size());
  std::vector<size_t> running;
  size_t next = 0, done = 0, failed = 0;
  progress.Draw(0, 0, "");
  while (done < jobs.size()) {
    while (running.size() < parallel && next < jobs.size()) {
      const size_t i = next++;
      children[i] = std::make_unique<ChildProcess>();
      const Job& job = jobs[i];
      if (!children[i]->Start([&cli, &job](int channel) { return RunChild(cli, job, channel); },
                              child_options)) {
        progress.Clear();
        std::fprintf(stderr, "waveopt: error: %s: %s\n", job.input.c_str(),
                     waveopt::support::Describe(children[i]->result()).c_str());
        ++failed;
        ++done;
        continue;
      }
      running.push_back(i);
    }
    if (running.empty()) continue;
    std::vector<ChildProcess*> waiting;
    for (size_t i : running) waiting.push_back(children[i].get());
    const std::vector<size_t> ended = ChildProcess::WaitForAny(waiting);
    for (auto k = ended.rbegin(); k != ended.rend(); ++k) {
      const size_t i = running[*k];
      progress.Clear();
      if (Collect(jobs[i], children[i]->result(), &yaml[i])) ++failed;
      children[i].reset();
      running.erase(running.begin() + static_cast<long>(*k));
      ++done;
      progress.Draw(done, failed, jobs[i].input);
    }
  }
  progress.Finish(failed);
  if (!cli.remarks_output.empty()) {
    std::string all;
    for (const std::string& y : yaml) all += y;
    if (!waveopt::WriteFileAtomically(cli.remarks_output, all, &error)) {
      std::fprintf(stderr, "waveopt: error: %s: %s\n", cli.remarks_output.c_str(), error.c_str());
      return 1;
    }
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace waveopt_cli
