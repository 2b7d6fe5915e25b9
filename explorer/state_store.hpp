// The visited-state store: states of one fixed length, kept back to back in
// chunks (ids are insertion order, so BFS needs no queue), a parent id and a
// depth per state for counterexamples, and an open-addressing table of
// (32 hash bits | id + 1) slots.
//
// The level-synchronous search (explorer/search.hpp) looks states up from
// several threads while nothing is inserted (lookup, contains), then, after
// reserve(n), puts the level's new states at the ids it assigned from
// several threads at once (put: a compare-and-swap into the table) and
// commits them; insert() is the one-thread find-or-put of depth-first search.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <algorithm>
#include <utility>
#include <vector>

#include "explorer/chunked_array.hpp"
#include "explorer/hash.hpp"
#include "explorer/visited_store.hpp"

namespace blkmc {

class StateStore final : public VisitedStore {
 public:
  explicit StateStore(std::size_t state_bytes, std::size_t initial_slots = 1u << 10)
      : len_(state_bytes), slots_(initial_slots, 0), mask_(initial_slots - 1) {}

  std::size_t size() const override { return count_; }
  std::size_t state_bytes() const override { return len_; }
  void load(std::uint32_t id, std::uint8_t* out) const override { std::memcpy(out, get(id), len_); }
  const std::uint8_t* get(std::uint32_t id) const {
    return chunks_[id >> kChunkBits].get() + std::size_t(id & kChunkMask) * len_;
  }
  std::uint32_t parent(std::uint32_t id) const override { return parent_[id]; }
  std::uint32_t depth(std::uint32_t id) const override { return depth_[id]; }
  void relink(std::uint32_t id, std::uint32_t parent, std::uint32_t depth) {
    parent_[id] = parent;
    depth_[id] = depth;
  }

  // Bytes the store would hold after its next growth step (the table doubles
  // at 3/4 load); the search checks it against --memory before inserting.
  std::size_t memory_bytes() const override {
    return chunks_.size() * chunk_bytes() + slots_.capacity() * sizeof(std::uint64_t) +
           parent_.capacity() * 4 + depth_.capacity() * 4;
  }
  std::size_t memory_after_insert() const {
    std::size_t m = memory_bytes();
    if ((size() + 1) * 4 > slots_.size() * 3) m += slots_.size() * sizeof(std::uint64_t);
    if ((size() >> kChunkBits) >= chunks_.size()) m += chunk_bytes();
    return m;
  }

  // Brings the first probe slot into cache: the search hashes a state's
  // successors first, prefetches, then inserts (the table lookups are the
  // cache misses that dominate a search).
  void prefetch(std::uint64_t hash) const override {
    __builtin_prefetch(&slots_[std::uint32_t(hash >> 32) & mask_]);
  }

  // The id of a stored state, kNone when it is not stored.
  std::uint32_t lookup(const std::uint8_t* s, std::uint64_t hash) const override {
    const std::uint32_t tag = std::uint32_t(hash >> 32);
    for (std::size_t i = tag & mask_;; i = (i + 1) & mask_) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0) return kNone;
      if (std::uint32_t(slot >> 32) == tag &&
          std::memcmp(get(std::uint32_t(slot) - 1), s, len_) == 0)
        return std::uint32_t(slot) - 1;
    }
  }

  // Room for n more states (chunks, parents, depths, table), so that put()
  // allocates nothing; the bytes it would take are memory_after_reserve(n).
  // par(tasks, fn): runs fn(task) for every task in [0, tasks), on as many
  // threads as it likes (the table's growth is spread over them).
  void reserve(std::size_t n, const ParFor& par) override {
    const std::size_t want = count_ + n;
    std::size_t slots = slots_.size();
    while (want * 4 > slots * 3) slots *= 2;
    if (slots != slots_.size()) {
      std::vector<std::uint64_t> old(slots, 0);
      old.swap(slots_);
      mask_ = slots_.size() - 1;
      constexpr std::size_t kPart = 1u << 16;
      par((old.size() + kPart - 1) / kPart, [&](std::size_t t) {
        const std::size_t end = std::min(old.size(), (t + 1) * kPart);
        for (std::size_t j = t * kPart; j < end; ++j)
          if (old[j] != 0) place(old[j]);
      });
    }
    while (chunks_.size() << kChunkBits < want) chunks_.emplace_back(new std::uint8_t[chunk_bytes()]);
    parent_.ensure(want);
    depth_.ensure(want);
  }
  std::size_t memory_after_reserve(std::size_t n) const override {
    const std::size_t want = count_ + n;
    std::size_t slots = slots_.size();
    while (want * 4 > slots * 3) slots *= 2;
    const std::size_t chunks = std::max(chunks_.size(), (want + kChunkMask) >> kChunkBits);
    return chunks * chunk_bytes() + slots * sizeof(std::uint64_t) +
           std::max(parent_.capacity(), (want + 0xffff) & ~std::size_t(0xffff)) * 8;
  }
  // Stores a state known not to be stored at id (below count + the reserve);
  // several threads may put distinct ids at once. commit(n) then makes ids
  // below n the stored ones.
  bool concurrent_put() const override { return true; }
  void put(std::uint32_t id, const std::uint8_t* s, std::uint64_t hash, std::uint32_t parent,
           std::uint32_t depth) override {
    std::memcpy(chunks_[id >> kChunkBits].get() + std::size_t(id & kChunkMask) * len_, s, len_);
    parent_[id] = parent;
    depth_[id] = depth;
    place((std::uint64_t(hash >> 32) << 32) | (std::uint64_t(id) + 1));
  }
  void commit(std::size_t n, const ParFor&) override { count_ = n; }
  using VisitedStore::commit;

 private:
  // A slot into the table, by compare-and-swap (threads may place at once).
  void place(std::uint64_t mine) {
    for (std::size_t i = std::uint32_t(mine >> 32) & mask_;; i = (i + 1) & mask_) {
      std::atomic_ref<std::uint64_t> slot(slots_[i]);
      std::uint64_t empty = 0;
      if (slot.load(std::memory_order_relaxed) == 0 &&
          slot.compare_exchange_strong(empty, mine, std::memory_order_relaxed))
        return;
    }
  }

 public:

  // hash must be hash_padded/hash_bytes_exact of the len_ bytes at s.
  // Returns the id and whether the state was new.
  std::pair<std::uint32_t, bool> insert(const std::uint8_t* s, std::uint64_t hash,
                                        std::uint32_t parent, std::uint32_t depth) {
    const std::uint32_t tag = std::uint32_t(hash >> 32);
    for (std::size_t i = tag & mask_;; i = (i + 1) & mask_) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0) {
        // New state: grow first if needed (only then, so a lookup of a
        // stored state never allocates), and find its free slot again.
        if ((size() + 1) * 4 > slots_.size() * 3) {
          grow();
          for (i = tag & mask_; slots_[i] != 0; i = (i + 1) & mask_) {
          }
        }
        const std::uint32_t id = append(s, parent, depth);
        slots_[i] = (std::uint64_t(tag) << 32) | (std::uint64_t(id) + 1);
        return {id, true};
      }
      if (std::uint32_t(slot >> 32) == tag) {
        const std::uint32_t id = std::uint32_t(slot) - 1;
        if (std::memcmp(get(id), s, len_) == 0) return {id, false};
      }
    }
  }

 private:
  static constexpr unsigned kChunkBits = 16;
  static constexpr std::uint32_t kChunkMask = (1u << kChunkBits) - 1;
  std::size_t chunk_bytes() const { return (std::size_t(1) << kChunkBits) * len_; }

  std::uint32_t append(const std::uint8_t* s, std::uint32_t parent, std::uint32_t depth) {
    const auto id = std::uint32_t(count_++);
    if ((id >> kChunkBits) >= chunks_.size()) chunks_.emplace_back(new std::uint8_t[chunk_bytes()]);
    std::memcpy(chunks_[id >> kChunkBits].get() + std::size_t(id & kChunkMask) * len_, s, len_);
    parent_.ensure(count_);
    depth_.ensure(count_);
    parent_[id] = parent;
    depth_[id] = depth;
    return id;
  }

  void grow() {
    std::vector<std::uint64_t> old(slots_.size() * 2, 0);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (std::uint64_t slot : old) {
      if (slot == 0) continue;
      std::size_t i = std::uint32_t(slot >> 32) & mask_;
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = slot;
    }
  }

  std::size_t len_;
  std::vector<std::unique_ptr<std::uint8_t[]>> chunks_;
  ChunkedArray<std::uint32_t> parent_, depth_;  // growing them copies nothing
  std::vector<std::uint64_t> slots_;
  std::size_t mask_;
  std::size_t count_ = 0;
};

}  // namespace blkmc
