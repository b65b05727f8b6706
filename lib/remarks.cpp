#include "waveopt/remarks.h"

#include <map>
#include <set>
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
  out << "remark: " << r.pass << ": " << RemarkKindName(r.kind) << ' ' << r.name;
  if (!r.function.empty()) out << " in " << r.function;
  if (!r.site.empty()) out << (r.site.rfind("near ", 0) == 0 ? " " : " at ") << r.site;
  out << ": " << r.message;
  return out.str();
}

namespace {

// What |r| is about: the loop it names ("[loop %N]", "[loop at line L]",
// "[loop near %N]", whose remarks sit on different lines: the loop, the
// load that stops it), else its location; "" for neither.
std::string SiteOf(const Remark& r) {
  const std::string who = r.pass + '\n' + r.function + '\n';
  const size_t loop = r.message.find(" [loop ");
  if (loop != std::string::npos) {
    return who + r.message.substr(loop, r.message.find(']', loop) - loop);
  }
  if (r.line == 0 && r.site_id != 0) {
    return who + '%' + std::to_string(r.site_id) + '+' + std::to_string(r.site_offset);
  }
  if (r.line == 0) return "";
  return who + r.file + ':' + std::to_string(r.line) + ':' + std::to_string(r.column);
}

std::string Describe(const Remark& r) {
  return std::string(RemarkKindName(r.kind)) + ' ' + r.name + ": " + r.message;
}

// Folds |r| into |site|, the remark already made at its site: the applied
// one leads.
void Fold(Remark* site, const Remark& r) {
  if (r.kind == RemarkKind::kApplied && site->kind != RemarkKind::kApplied) {
    Remark applied = r;
    applied.message += "; here also " + Describe(*site);
    *site = std::move(applied);
  } else {
    site->message += "; here also " + Describe(r);
  }
}

}  // namespace

std::vector<Remark> MergeRemarksPerSite(const std::vector<Remark>& remarks) {
  std::vector<Remark> out;
  std::set<std::string> seen;
  std::map<std::string, size_t> sites;  // site -> its remark in |out|
  for (const Remark& r : remarks) {
    const std::string where = SiteOf(r);
    if (where.empty() || r.kind == RemarkKind::kAnalysis) {
      out.push_back(r);  // identical words may be about different instructions
      continue;
    }
    if (!seen.insert(FormatRemark(r)).second) continue;
    auto site = sites.emplace(where, out.size());
    if (site.second) {
      out.push_back(r);
    } else {
      Fold(&out[site.first->second], r);
    }
  }
  return out;
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
    if (!r.site.empty()) out << "Site:            " << Quote(r.site) << '\n';
    out << "Args:\n";
    out << "  - String:          " << Quote(r.message) << '\n';
    if (!input.empty()) out << "  - Input:           " << Quote(input) << '\n';
    out << "...\n";
  }
  return out.str();
}

}  // namespace waveopt
