// Ids by hash, for the compact stores: a slot holds an id + 1 and one byte
// of the id's hash (a fingerprint that spares most probes a look at the
// id's state). The table is kept 85% to 95% full, any size (a slot's home is
// a multiply-shift of the hash): its free slots are most of what a state
// costs beyond its own bytes. A lookup that misses scans fingerprints, a
// byte a slot, to the next free slot: at 95% some 200 bytes.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

namespace blkmc {

class IdTable {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  IdTable() : slots_(1024, 0), fps_(1024, 0), cap_(1024) {}

  // The id whose hash is h and for which eq(id) holds, or kNone.
  template <class Eq>
  std::uint32_t find(std::uint64_t h, Eq&& eq) const {
    const auto fp = std::uint8_t(h);
    for (std::size_t i = home(h);;) {
      const std::uint32_t slot = slots_[i];
      if (slot == 0) return kNone;
      if (fps_[i] == fp && eq(slot - 1)) return slot - 1;
      if (++i == cap_) i = 0;
    }
  }
  // Places ids [from, to), spread over par's threads: a slot is taken by
  // compare-and-swap (nothing looks ids up meanwhile).
  template <class Par, class HashOf>
  void place_all(std::uint32_t from, std::uint32_t to, const Par& par, HashOf&& hash_of) {
    constexpr std::uint32_t kPart = 4096;
    par((to - from + kPart - 1) / kPart, [&](std::size_t t) {
      const std::uint32_t end = std::min<std::uint32_t>(to, from + std::uint32_t(t + 1) * kPart);
      for (std::uint32_t id = from + std::uint32_t(t) * kPart; id < end; ++id) {
        const std::uint64_t h = hash_of(id);
        for (std::size_t i = home(h);;) {
          std::atomic_ref<std::uint32_t> slot(slots_[i]);
          std::uint32_t free = 0;
          if (slot.load(std::memory_order_relaxed) == 0 &&
              slot.compare_exchange_strong(free, id + 1, std::memory_order_relaxed)) {
            fps_[i] = std::uint8_t(h);
            break;
          }
          if (++i == cap_) i = 0;
        }
      }
    });
  }
  // Room for `want` ids in all; growing re-places ids [0, count) by
  // hash_of(id), on par's threads.
  template <class Par, class HashOf>
  void reserve(std::size_t want, std::size_t count, const Par& par, HashOf&& hash_of) {
    const std::size_t cap = capacity_for(want);
    if (cap == cap_) return;
    cap_ = cap;
    slots_.assign(cap, 0);
    slots_.shrink_to_fit();
    fps_.assign(cap, 0);
    fps_.shrink_to_fit();
    place_all(0, std::uint32_t(count), par, hash_of);
  }
  std::size_t capacity_for(std::size_t want) const {
    if (want * 20 <= cap_ * 19) return cap_;
    return std::max<std::size_t>(1024, want * 20 / 17);
  }
  std::size_t memory_bytes() const { return cap_ * 5; }

 private:
  std::size_t home(std::uint64_t h) const { return std::size_t((h >> 32) * cap_ >> 32); }

  std::vector<std::uint32_t> slots_;  // id + 1, 0: free
  std::vector<std::uint8_t> fps_;
  std::size_t cap_ = 0;
};

}  // namespace blkmc
