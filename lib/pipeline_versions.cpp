// -O's versions: build, compare, join, report (pipeline_versions.h).
#include "lib/pipeline_versions.h"

#include <algorithm>
#include <map>
#include <set>

#include "lib/versions.h"

namespace waveopt {
namespace {

// A module some targets share, and the remarks of its build.
struct Found {
  std::vector<uint32_t> words;
  std::vector<Target> targets;
  std::vector<Remark> remarks;
};

std::string JoinNames(const std::vector<Target>& targets, const char* separator) {
  std::string out;
  for (Target t : targets) out += (out.empty() ? "" : separator) + std::string(TargetName(t));
  return out;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The applied remarks of |version| that the portable build did not make.
std::vector<Remark> NewApplied(const std::vector<Remark>& portable,
                               const std::vector<Remark>& version) {
  std::set<std::string> seen;
  for (const Remark& r : portable) seen.insert(FormatRemark(r));
  std::vector<Remark> out;
  for (const Remark& r : version) {
    if (r.kind == RemarkKind::kApplied && !seen.count(FormatRemark(r))) out.push_back(r);
  }
  return out;
}

// The builds of VersionTargets() that differ from |portable|, one per module.
std::vector<Found> BuildOthers(const BuildForTarget& build, Result* result) {
  std::vector<Found> found;
  for (Target t : VersionTargets()) {
    Result r;
    const bool built = build(t, &r);
    for (const std::string& d : r.diagnostics) {
      const bool known = std::find(result->diagnostics.begin(), result->diagnostics.end(), d) !=
                         result->diagnostics.end();
      if (built && !known && d.rfind("warning: ", 0) == 0) {
        result->diagnostics.push_back("warning: in the version for " + std::string(TargetName(t)) +
                                      ": " + d.substr(9));
      }
    }
    if (!built) {
      result->diagnostics.push_back(
          std::string("warning: -O's version for ") + TargetName(t) + " was not built (" +
          (r.diagnostics.empty() ? "no reason given" : r.diagnostics.back()) +
          "); the output holds the portable module only for it");
      continue;
    }
    if (r.words == result->words) continue;
    auto same = std::find_if(found.begin(), found.end(),
                             [&](const Found& f) { return f.words == r.words; });
    if (same != found.end()) {
      same->targets.push_back(t);
      continue;
    }
    found.push_back({std::move(r.words), {t}, NewApplied(result->remarks, r.remarks)});
  }
  return found;
}

Remark VersionRemark(const SpecVersion& v) {
  Remark r;
  r.kind = RemarkKind::kApplied;
  r.pass = "versions";
  r.name = "SpecializationVersion";
  r.message = "SpecId " + std::to_string(v.spec_id) + " (bool '" + v.name +
              "', default false: portable) selects the version for " +
              JoinNames(v.targets, " and ") +
              ": set it true at pipeline creation on those devices; there " + Join(v.passes) +
              " rewrite differently";
  return r;
}

Remark Missed(const std::string& why) {
  Remark r;
  r.kind = RemarkKind::kMissed;
  r.pass = "versions";
  r.name = "VersionsNotJoined";
  r.message = "the output holds the portable module only: " + why;
  return r;
}

// Each version's own applied remarks, ending with the versions that made it:
// "(in the versions for amd and nvidia, SpecId 1000 or 1001)". The k-th
// remark of one text in a version joins the k-th of that text in another, so
// a version's repeats (sites with no line) stay one remark each.
void AddVersionRemarks(const std::vector<Found>& found, const std::vector<SpecVersion>& versions,
                       Result* result) {
  std::vector<std::pair<Remark, std::vector<Target>>> merged;
  std::map<std::string, std::vector<size_t>> by_text;
  for (const Found& f : found) {
    for (const Remark& r : f.remarks) {
      std::vector<size_t>& same_text = by_text[FormatRemark(r)];
      auto joins = std::find_if(same_text.begin(), same_text.end(), [&](size_t i) {
        const std::vector<Target>& t = merged[i].second;
        return std::find(t.begin(), t.end(), f.targets[0]) == t.end();
      });
      if (joins == same_text.end()) {
        same_text.push_back(merged.size());
        merged.push_back({r, f.targets});
      } else {
        std::vector<Target>& t = merged[*joins].second;
        t.insert(t.end(), f.targets.begin(), f.targets.end());
      }
    }
  }
  for (auto& [r, targets] : merged) {
    std::string ids;
    for (const SpecVersion& v : versions) {
      if (std::find(targets.begin(), targets.end(), v.targets[0]) == targets.end()) continue;
      ids += (ids.empty() ? "" : " or ") + std::to_string(v.spec_id);
    }
    r.message += std::string(" (in the version") + (targets.size() > 1 ? "s" : "") + " for " +
                 JoinNames(targets, " and ") + ", SpecId " + ids + ")";
    result->remarks.push_back(std::move(r));
  }
}

}  // namespace

const std::vector<Target>& VersionTargets() {
  static const std::vector<Target> targets = {Target::kAmd, Target::kNvidia};
  return targets;
}

std::string FormatSpecVersion(const SpecVersion& v) {
  return "SpecId " + std::to_string(v.spec_id) + " bool " + v.name + " = false: true on " +
         JoinNames(v.targets, ", ") + " (" + Join(v.passes) + ")";
}

// The SpecId of |target|'s constant: fixed per target, so that an engine sets
// the same ids on a device for every module.
static uint32_t SpecIdOf(const Options& options, Target target) {
  const std::vector<Target>& all = VersionTargets();
  return options.spec_id_base +
         static_cast<uint32_t>(std::find(all.begin(), all.end(), target) - all.begin());
}

// The module's own SpecId among |versions|' constants, as the error line.
static std::string Collision(const std::vector<SpecVersion>& versions,
                             const std::map<uint32_t, std::string>& declared) {
  for (const SpecVersion& v : versions) {
    auto taken = declared.find(v.spec_id);
    if (taken == declared.end()) continue;
    return "SpecId " + std::to_string(v.spec_id) + " is the module's own (" + taken->second +
           "); move waveopt's version constants clear of it with --spec-id-base=N (they use N to "
           "N+" +
           std::to_string(VersionTargets().size() - 1) +
           "), or build one version with --target=portable|amd|nvidia";
  }
  return "";
}

// Whether |declared| holds a constant of waveopt's own versions: the module
// is -O's output already, and -O leaves it as it is (idempotent).
static bool Versioned(const Options& options, const std::map<uint32_t, std::string>& declared) {
  for (Target t : VersionTargets()) {
    auto it = declared.find(SpecIdOf(options, t));
    if (it != declared.end() && it->second == std::string("waveopt_") + TargetName(t)) return true;
  }
  return false;
}

bool AddVersions(const Options& options, spv_target_env env, BlockLayout layout,
                 const BuildForTarget& build, Result* result) {
  const std::map<uint32_t, std::string> declared = DeclaredSpecIds(result->words, env);
  if (Versioned(options, declared)) return true;
  std::vector<Found> found = BuildOthers(build, result);
  if (found.empty()) return true;
  std::vector<VersionModule> modules;
  std::vector<SpecVersion> versions;
  for (const Found& f : found) {
    VersionModule m{f.words, {}, "_" + JoinNames(f.targets, "_")};
    for (Target t : f.targets) {
      SpecVersion v;
      v.spec_id = SpecIdOf(options, t);
      v.name = std::string("waveopt_") + TargetName(t);
      v.targets = {t};
      for (const Remark& r : f.remarks) {
        if (std::find(v.passes.begin(), v.passes.end(), r.pass) == v.passes.end()) {
          v.passes.push_back(r.pass);
        }
      }
      m.constants.push_back({v.spec_id, v.name});
      versions.push_back(std::move(v));
    }
    modules.push_back(std::move(m));
  }
  const std::string collision = Collision(versions, declared);
  if (!collision.empty()) {
    result->words.clear();
    result->diagnostics.push_back(collision);
    return false;
  }
  std::vector<uint32_t> joined;
  std::string why;
  if (!JoinVersions(result->words, modules, env, &joined, &why)) {
    result->remarks.push_back(Missed(why));
    return true;
  }
  if (!ValidateModule(joined, env, &why, layout)) {
    result->remarks.push_back(Missed("the joined module is not valid (" + why + ")"));
    return true;
  }
  result->words = std::move(joined);
  for (const SpecVersion& v : versions) result->remarks.push_back(VersionRemark(v));
  AddVersionRemarks(found, versions, result);
  result->versions = std::move(versions);
  return true;
}

}  // namespace waveopt
