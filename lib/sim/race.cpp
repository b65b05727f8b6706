#include "lib/sim/race.h"

#include <algorithm>
#include <cstring>

namespace waveopt {
namespace sim {
namespace {

constexpr int kObjShift = 40;  // as the executor's pointers: object << 40 | offset

// The 4-byte word at byte |word| * 4 of |data| (of |size| bytes), zero past the end.
uint32_t WordBytes(const uint8_t* data, uint64_t size, uint64_t word) {
  uint32_t v = 0;
  uint64_t at = word * 4;
  if (at < size) std::memcpy(&v, data + at, static_cast<size_t>(std::min<uint64_t>(4, size - at)));
  return v;
}

uint32_t MaskBits(uint8_t mask) {
  uint32_t m = 0;
  for (int b = 0; b < 4; ++b) {
    if (mask & (1u << b)) m |= 0xffu << (8 * b);
  }
  return m;
}

}  // namespace

RaceDetector::RaceDetector(std::vector<uint64_t> object_bytes, std::vector<uint32_t> subgroup_of)
    : object_bytes_(std::move(object_bytes)), subgroup_of_(std::move(subgroup_of)) {
  pages_.resize(object_bytes_.size());
  for (size_t o = 0; o < object_bytes_.size(); ++o) {
    uint64_t words = (object_bytes_[o] + 3) / 4;
    pages_[o].resize(static_cast<size_t>((words + kPageWords - 1) / kPageWords));
  }
  sgphase_.assign(subgroup_of_.size(), 0);
  own_.assign(subgroup_of_.size(), Clock());
}

void RaceDetector::StartWorkgroup(uint32_t linear, uint32_t wg_object) {
  wg_ = linear;
  wg_object_ = wg_object;
  phase_ = 0;
  std::fill(sgphase_.begin(), sgphase_.end(), 0);
  shared_.clear();
  for (Clock& c : own_) c.clear();
  if (wg_object < pages_.size()) {
    for (auto& p : pages_[wg_object]) p.reset();
  }
  for (auto it = sync_.begin(); it != sync_.end();) {
    it = (it->first >> kObjShift) == wg_object ? sync_.erase(it) : std::next(it);
  }
}

void RaceDetector::WorkgroupBarrier() {
  ++phase_;
  for (uint32_t& p : sgphase_) ++p;
  for (Clock& c : own_) {
    Merge(&shared_, c);
    c.clear();
  }
}

void RaceDetector::SubgroupBarrier(uint32_t first, uint32_t count) {
  for (uint32_t i = first; i < first + count && i < sgphase_.size(); ++i) ++sgphase_[i];
}

void RaceDetector::Merge(Clock* into, const Clock& from) {
  if (from.empty()) return;
  Clock out;
  out.reserve(into->size() + from.size());
  size_t i = 0, j = 0;
  while (i < into->size() || j < from.size()) {
    if (j == from.size() || (i < into->size() && (*into)[i].first < from[j].first)) {
      out.push_back((*into)[i++]);
    } else if (i == into->size() || from[j].first < (*into)[i].first) {
      out.push_back(from[j++]);
    } else {
      out.push_back({from[j].first, std::max((*into)[i].second, from[j].second)});
      ++i;
      ++j;
    }
  }
  *into = std::move(out);
}

void RaceDetector::Raise(Clock* into, uint32_t wg, uint64_t seq) {
  auto it = std::lower_bound(into->begin(), into->end(), std::make_pair(wg, uint64_t{0}));
  if (it != into->end() && it->first == wg) {
    it->second = std::max(it->second, seq);
  } else {
    into->insert(it, {wg, seq});
  }
}

uint64_t RaceDetector::Known(const Clock& c, uint32_t wg) {
  auto it = std::lower_bound(c.begin(), c.end(), std::make_pair(wg, uint64_t{0}));
  return it != c.end() && it->first == wg ? it->second : 0;
}

RaceDetector::Word* RaceDetector::WordAt(uint32_t obj, uint64_t word) {
  if (obj >= pages_.size()) return nullptr;
  uint64_t page = word / kPageWords;
  if (page >= pages_[obj].size()) return nullptr;
  std::unique_ptr<Word[]>& p = pages_[obj][static_cast<size_t>(page)];
  if (!p) p.reset(new Word[kPageWords]);
  return &p[word % kPageWords];
}

RaceDetector::Rec RaceDetector::Now(uint32_t inv, uint8_t mask, bool atomic) const {
  Rec r;
  r.wg = wg_;
  r.inv = inv;
  r.phase = phase_;
  r.sgphase = sgphase_[inv];
  r.seq = seq_;
  r.mask = mask;
  r.atomic = atomic;
  return r;
}

// True when access |a| (earlier in the simulation) is ordered before the
// current access of local invocation |inv|.
bool RaceDetector::Ordered(const Rec& a, uint32_t inv) const {
  if (a.wg == wg_) {
    if (a.inv == inv || a.phase < phase_) return true;
    if (subgroup_of_[a.inv] == subgroup_of_[inv] && a.sgphase < sgphase_[inv]) return true;
  }
  uint64_t known = std::max(Known(shared_, a.wg), Known(own_[inv], a.wg));
  return known >= a.seq && known != 0;
}

void RaceDetector::Report(uint32_t obj, uint64_t offset, const Rec& a, bool a_wrote, uint32_t inv,
                          bool b_wrote) {
  if (races_++ > 0) return;
  first_.obj = obj;
  first_.offset = offset;
  first_.workgroup[0] = a.wg;
  first_.invocation[0] = a.inv;
  first_.wrote[0] = a_wrote;
  first_.workgroup[1] = wg_;
  first_.invocation[1] = inv;
  first_.wrote[1] = b_wrote;
}

void RaceDetector::Read(uint32_t obj, const uint8_t* data, uint64_t off, uint32_t size,
                        uint32_t inv, bool atomic) {
  if (size == 0 || obj >= object_bytes_.size() || object_bytes_[obj] == 0) return;
  ++seq_;
  for (uint64_t wd = off / 4; wd <= (off + size - 1) / 4; ++wd) {
    uint8_t mask = 0;
    for (uint64_t b = std::max(off, wd * 4); b < std::min(off + size, wd * 4 + 4); ++b) {
      mask = static_cast<uint8_t>(mask | (1u << (b - wd * 4)));
    }
    Word* w = WordAt(obj, wd);
    if (!w) continue;
    const Rec& wr = w->write;
    uint8_t overlap = static_cast<uint8_t>(wr.mask & mask);
    if (wr.wg != UINT32_MAX && overlap && !(wr.atomic && atomic) && !Ordered(wr, inv)) {
      // The other order would have read the bytes from before the write.
      uint32_t bits = MaskBits(overlap);
      uint32_t now = WordBytes(data, object_bytes_[obj], wd);
      if ((w->before & bits) != (now & bits)) Report(obj, wd * 4, wr, true, inv, false);
    }
    Rec r = Now(inv, mask, atomic);
    if (w->read[0].wg == wg_ && w->read[0].inv == inv) {
      w->read[0] = r;
    } else {
      w->read[1] = w->read[0];
      w->read[0] = r;
    }
  }
}

void RaceDetector::Write(uint32_t obj, const uint8_t* data, uint64_t off, uint32_t size,
                         const uint8_t* value, uint32_t inv, bool atomic) {
  if (size == 0 || obj >= object_bytes_.size() || object_bytes_[obj] == 0) return;
  ++seq_;
  uint64_t bytes = object_bytes_[obj];
  for (uint64_t wd = off / 4; wd <= (off + size - 1) / 4; ++wd) {
    uint8_t mask = 0;
    uint32_t before = WordBytes(data, bytes, wd);
    uint32_t after = before;
    for (uint64_t b = std::max(off, wd * 4); b < std::min(off + size, wd * 4 + 4); ++b) {
      uint32_t k = static_cast<uint32_t>(b - wd * 4);
      mask = static_cast<uint8_t>(mask | (1u << k));
      after = (after & ~(0xffu << (8 * k))) | (uint32_t{value[b - off]} << (8 * k));
    }
    Word* w = WordAt(obj, wd);
    if (!w) continue;
    bool changed = ((before ^ after) & MaskBits(mask)) != 0;
    if (changed) {
      const Rec& wr = w->write;
      if (wr.wg != UINT32_MAX && (wr.mask & mask) && !(wr.atomic && atomic) && !Ordered(wr, inv)) {
        Report(obj, wd * 4, wr, true, inv, true);
      }
      for (const Rec& rd : w->read) {
        if (rd.wg != UINT32_MAX && (rd.mask & mask) && !(rd.atomic && atomic) &&
            !Ordered(rd, inv)) {
          Report(obj, wd * 4, rd, false, inv, true);
        }
      }
    }
    w->write = Now(inv, mask, atomic);
    w->before = before;
  }
}

void RaceDetector::Synchronize(uint32_t obj, uint64_t off, uint32_t inv) {
  Clock& c = sync_[(uint64_t{obj} << kObjShift) | (off / 4)];
  Merge(&own_[inv], c);  // acquire
  Merge(&c, shared_);    // release: what the invocation knows, and its workgroup so far
  Merge(&c, own_[inv]);
  Raise(&c, wg_, seq_);
}

}  // namespace sim
}  // namespace waveopt
