// The visited-state store: states of one fixed length, kept back to back in
// chunks (ids are insertion order, so BFS needs no queue), a parent id and a
// depth per state for counterexamples, and an open-addressing table of
// (32 hash bits | id + 1) slots.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "explorer/hash.hpp"

namespace blkmc {

class StateStore {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;

  explicit StateStore(std::size_t state_bytes, std::size_t initial_slots = 1u << 10)
      : len_(state_bytes), slots_(initial_slots, 0), mask_(initial_slots - 1) {}

  std::size_t size() const { return parent_.size(); }
  std::size_t state_bytes() const { return len_; }
  const std::uint8_t* get(std::uint32_t id) const {
    return chunks_[id >> kChunkBits].get() + std::size_t(id & kChunkMask) * len_;
  }
  std::uint32_t parent(std::uint32_t id) const { return parent_[id]; }
  std::uint32_t depth(std::uint32_t id) const { return depth_[id]; }
  void relink(std::uint32_t id, std::uint32_t parent, std::uint32_t depth) {
    parent_[id] = parent;
    depth_[id] = depth;
  }

  // Bytes the store would hold after its next growth step (the table doubles
  // at 3/4 load); the search checks it against --memory before inserting.
  std::size_t memory_bytes() const {
    return chunks_.size() * chunk_bytes() + slots_.capacity() * sizeof(std::uint64_t) +
           parent_.capacity() * 4 + depth_.capacity() * 4;
  }
  std::size_t memory_after_insert() const {
    std::size_t m = memory_bytes();
    if ((size() + 1) * 4 > slots_.size() * 3) m += slots_.size() * sizeof(std::uint64_t);
    if ((size() & kChunkMask) == 0) m += chunk_bytes();
    return m;
  }

  // Brings the first probe slot into cache: the search hashes a state's
  // successors first, prefetches, then inserts (the table lookups are the
  // cache misses that dominate a search).
  void prefetch(std::uint64_t hash) const {
    __builtin_prefetch(&slots_[std::uint32_t(hash >> 32) & mask_]);
  }

  bool contains(const std::uint8_t* s, std::uint64_t hash) const {
    const std::uint32_t tag = std::uint32_t(hash >> 32);
    for (std::size_t i = tag & mask_;; i = (i + 1) & mask_) {
      const std::uint64_t slot = slots_[i];
      if (slot == 0) return false;
      if (std::uint32_t(slot >> 32) == tag &&
          std::memcmp(get(std::uint32_t(slot) - 1), s, len_) == 0)
        return true;
    }
  }

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
    const auto id = std::uint32_t(size());
    if ((id & kChunkMask) == 0) chunks_.emplace_back(new std::uint8_t[chunk_bytes()]);
    std::memcpy(chunks_.back().get() + std::size_t(id & kChunkMask) * len_, s, len_);
    parent_.push_back(parent);
    depth_.push_back(depth);
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
  std::vector<std::uint32_t> parent_, depth_;
  std::vector<std::uint64_t> slots_;
  std::size_t mask_;
};

}  // namespace blkmc
