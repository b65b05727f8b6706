// Data-race detection for the simulator (Launch::detect_races). Internal to
// lib/sim; see docs/sim.md#races.
//
// A race is two accesses to the same bytes of shared memory (buffers,
// storage images and texel buffers, device buffers, workgroup memory) by
// different invocations, at least one a write and not both atomic, with
// nothing ordering them:
//
//  - within a workgroup, a workgroup OpControlBarrier between them (every
//    implementation orders all memory at one, whatever its semantics), or a
//    subgroup OpControlBarrier when both invocations are in one subgroup;
//  - across workgroups (and within one), an atomic: every atomic is taken
//    as acquire and release on its address, whatever its semantics, so the
//    accesses a workgroup made before an atomic are ordered before the
//    accesses an invocation makes after an atomic on the same address that
//    comes later (FidelityFX SPD's last-workgroup counter). The release
//    covers everything the releasing workgroup did so far, which may hide a
//    race between its invocations that a barrier did not order.
//
// Races whose outcome cannot depend on the order are not reported: two
// writes of the same bytes, and a read racing with a write that leaves the
// bytes as they were. Granularity: 4-byte words with a byte mask; reads
// remember the last two invocations that read a word.
//
// The simulator runs workgroups one after the other, so an access can race
// only with one that came earlier in the simulation: the detector checks
// every access against the word's last write and last readers.
#ifndef WAVEOPT_LIB_SIM_RACE_H_
#define WAVEOPT_LIB_SIM_RACE_H_

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/sim/launch.h"

namespace waveopt {
namespace sim {

class RaceDetector {
 public:
  // |object_bytes|: the size of every memory object (index = object id; 0
  // for objects that are not tracked). |subgroup_of|: per local invocation,
  // its subgroup in the workgroup.
  RaceDetector(std::vector<uint64_t> object_bytes, std::vector<uint32_t> subgroup_of);

  // A new workgroup starts (|linear|: its index in dispatch order); its
  // workgroup memory object |wg_object| starts fresh.
  void StartWorkgroup(uint32_t linear, uint32_t wg_object);
  // Every subgroup of the workgroup passed a workgroup barrier.
  void WorkgroupBarrier();
  // The subgroup of invocations [first, first + count) passed a subgroup barrier.
  void SubgroupBarrier(uint32_t first, uint32_t count);

  // Local invocation |inv| reads |size| bytes at |off| of object |obj|,
  // whose bytes are |data| (before the read). |atomic|: an atomic access.
  void Read(uint32_t obj, const uint8_t* data, uint64_t off, uint32_t size, uint32_t inv,
            bool atomic);
  // ... writes |value| (|size| bytes) there; call before the bytes change.
  void Write(uint32_t obj, const uint8_t* data, uint64_t off, uint32_t size, const uint8_t* value,
             uint32_t inv, bool atomic);
  // After an atomic's access: acquire and release on its address.
  void Synchronize(uint32_t obj, uint64_t off, uint32_t inv);

  uint64_t races() const { return races_; }
  // The first race found; valid when races() > 0. Its object, byte offset,
  // and the two accesses (workgroup in dispatch order, local invocation,
  // whether it wrote), the earlier first.
  struct Found {
    uint32_t obj = 0;
    uint64_t offset = 0;
    uint32_t workgroup[2] = {0, 0};
    uint32_t invocation[2] = {0, 0};
    bool wrote[2] = {false, false};
  };
  const Found& first() const { return first_; }

 private:
  // One access: who, when.
  struct Rec {
    uint32_t wg = UINT32_MAX;  // UINT32_MAX: none
    uint32_t inv = 0;
    uint32_t phase = 0;    // workgroup barriers the workgroup had passed
    uint32_t sgphase = 0;  // control barriers the invocation had passed
    uint64_t seq = 0;      // position in the dispatch's accesses
    uint8_t mask = 0;      // bytes of the word
    bool atomic = false;
  };
  struct Word {
    Rec write;
    uint32_t before = 0;  // the word before |write|
    Rec read[2];          // the last two readers (different invocations)
  };
  static constexpr uint32_t kPageWords = 256;
  // Knowledge: per workgroup (dispatch order), the last access (seq) known
  // to be ordered before; sorted by workgroup.
  using Clock = std::vector<std::pair<uint32_t, uint64_t>>;
  static void Merge(Clock* into, const Clock& from);
  static void Raise(Clock* into, uint32_t wg, uint64_t seq);
  static uint64_t Known(const Clock& c, uint32_t wg);

  Word* WordAt(uint32_t obj, uint64_t word);
  Rec Now(uint32_t inv, uint8_t mask, bool atomic) const;
  bool Ordered(const Rec& before, uint32_t inv) const;
  void Report(uint32_t obj, uint64_t offset, const Rec& a, bool a_wrote, uint32_t inv,
              bool b_wrote);

  std::vector<uint64_t> object_bytes_;
  std::vector<uint32_t> subgroup_of_;
  std::vector<std::vector<std::unique_ptr<Word[]>>> pages_;  // per object
  uint32_t wg_ = 0, wg_object_ = 0;
  uint32_t phase_ = 0;
  std::vector<uint32_t> sgphase_;  // per local invocation
  uint64_t seq_ = 0;
  Clock shared_;                              // what every invocation of the workgroup knows
  std::vector<Clock> own_;                    // per local invocation, since the last barrier
  std::unordered_map<uint64_t, Clock> sync_;  // per atomic address (obj << 40 | word)
  uint64_t races_ = 0;
  Found first_;
};

}  // namespace sim
}  // namespace waveopt

#endif  // WAVEOPT_LIB_SIM_RACE_H_
