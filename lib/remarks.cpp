#include "waveopt/remarks.h"

#include <sstream>

namespace waveopt {

RemarkSink::~RemarkSink() = default;

const char* RemarkKindName(RemarkKind kind) {
  switch (kind) {
    case RemarkKind::kApplied:
      return "applied";
    case RemarkKind::kMissed:
      return "missed";
    case RemarkKind::kAnalysis:
      return "analysis";
  }
  return "analysis";
}

void RemarkCollector::Emit(const Remark& remark) {
  std::lock_guard<std::mutex> lock(mutex_);
  remarks_.push_back(remark);
}

std::vector<Remark> RemarkCollector::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Remark> out;
  out.swap(remarks_);
  return out;
}

std::string FormatRemark(const Remark& r) {
  std::ostringstream out;
  if (!r.file.empty() || r.line != 0) {
    out << (r.file.empty() ? "<unknown>" : r.file);
    if (r.line != 0) out << ':' << r.line;
    if (r.column != 0) out << ':' << r.column;
    out << ": ";
  }
  out << "remark: " << r.pass << ": " << RemarkKindName(r.kind) << ' '
      << r.name;
  if (!r.function.empty()) out << " in " << r.function;
  out << ": " << r.message;
  return out.str();
}

namespace {

// A YAML double-quoted scalar.
std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "''";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

}  // namespace

std::string FormatRemarksYaml(const std::vector<Remark>& remarks, const std::string& input) {
  std::ostringstream out;
  for (const Remark& r : remarks) {
    const char* tag = r.kind == RemarkKind::kApplied  ? "!Passed"
                      : r.kind == RemarkKind::kMissed ? "!Missed"
                                                      : "!Analysis";
    out << "--- " << tag << '\n';
    out << "Pass:            " << Quote(r.pass) << '\n';
    out << "Name:            " << Quote(r.name) << '\n';
    if (!r.file.empty() || r.line != 0) {
      out << "DebugLoc:        { File: " << Quote(r.file) << ", Line: " << r.line
          << ", Column: " << r.column << " }\n";
    }
    out << "Function:        " << Quote(r.function) << '\n';
    out << "Args:\n";
    out << "  - String:          " << Quote(r.message) << '\n';
    if (!input.empty()) out << "  - Input:           " << Quote(input) << '\n';
    out << "...\n";
  }
  return out.str();
}

}  // namespace waveopt
