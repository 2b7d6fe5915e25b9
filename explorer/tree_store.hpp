// The tree-compressed visited store (check --store tree), in the manner of
// LTSmin's tree tables: a state's bytes are cut into 4-byte words, the
// leaves of a balanced binary tree; each distinct pair below the root (two
// words, or two subtree ids) is kept once (nodes), and a state is the pair
// at its root: 8 bytes. States of a model share most of their
// words and subtrees, so leaves and nodes stay few while states grow.
//
// Per state: the root (8 bytes), a slot of the root table (4-byte id and a
// 1-byte fingerprint that spares most probes a look at the roots; the
// table is kept 85% to 95% full) and a 4-bit count of the state's
// children (15 or more: kept aside): breadth-first ids are given in parent order, so the children of
// a state are a run of ids and parent(id) is found from the counts (with
// the first child of every 64th state kept to find them quickly). Depths
// are level boundaries. Traces are rebuilt from those parents as with the
// plain store.
//
// Only breadth-first searches use it. Lookups may run on many threads;
// puts run on one, in increasing id order.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "explorer/visited_store.hpp"

namespace blkmc {

// An array in chunks of 2^16 entries: growing it copies nothing, and it
// holds at most one chunk more than it needs.
template <class T>
class ChunkedArray {
 public:
  T& operator[](std::size_t i) { return chunks_[i >> kBits][i & kMask]; }
  const T& operator[](std::size_t i) const { return chunks_[i >> kBits][i & kMask]; }
  void ensure(std::size_t n) {
    while (chunks_.size() << kBits < n) chunks_.emplace_back(kMask + 1, T{});
  }
  std::size_t capacity() const { return chunks_.size() << kBits; }

 private:
  static constexpr unsigned kBits = 16;
  static constexpr std::size_t kMask = (std::size_t(1) << kBits) - 1;
  std::vector<std::vector<T>> chunks_;
};

// 64-bit values kept once each, with dense ids (insertion order).
class Interner {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  Interner() : slots_(1024, 0) {}
  std::uint32_t find(std::uint64_t v) const;
  std::uint32_t intern(std::uint64_t v);
  std::uint64_t value(std::uint32_t id) const { return values_[id]; }
  std::size_t size() const { return count_; }
  std::size_t memory_bytes() const { return values_.capacity() * 8 + slots_.size() * 4; }

 private:
  void grow();
  ChunkedArray<std::uint64_t> values_;
  std::vector<std::uint32_t> slots_;  // id + 1, 0: empty; at most 3/4 full
  std::size_t count_ = 0;
};

class TreeStore final : public VisitedStore {
 public:
  explicit TreeStore(std::size_t state_bytes);

  std::size_t size() const override { return count_; }
  std::size_t state_bytes() const override { return len_; }
  void load(std::uint32_t id, std::uint8_t* out) const override;
  std::uint32_t parent(std::uint32_t id) const override;
  std::uint32_t depth(std::uint32_t id) const override;
  std::uint32_t lookup(const std::uint8_t* s, std::uint64_t hash) const override;
  std::size_t memory_bytes() const override;
  std::size_t memory_after_reserve(std::size_t n) const override;
  void reserve(std::size_t n, const ParFor& par) override;
  bool concurrent_put() const override { return false; }
  void put(std::uint32_t id, const std::uint8_t* s, std::uint64_t hash, std::uint32_t parent,
           std::uint32_t depth) override;
  void commit(std::size_t n) override { count_ = n; }

  std::size_t nodes() const { return nodes_.size(); }

 private:
  static constexpr std::uint8_t kMany = 15;  // a child count kept in overflow_
  // The root of the words [lo, hi) of s (hi - lo >= 2), or, below the root,
  // a subtree's id; find-only when intern is false (kNone: not stored).
  std::uint64_t root_of(const std::uint8_t* s, bool intern) const;
  std::uint32_t subtree(const std::uint8_t* s, std::size_t lo, std::size_t hi, bool intern) const;
  void expand(std::uint32_t id, std::size_t lo, std::size_t hi, std::uint8_t* words) const;
  std::size_t home(std::uint64_t hash) const { return std::size_t((hash >> 32) * cap_ >> 32); }
  void place(std::uint32_t id, std::uint64_t hash);
  void grow_table(std::size_t cap);
  std::uint32_t kids(std::uint32_t p) const;
  std::uint8_t nibble(std::uint32_t p) const { return std::uint8_t(kids_[p / 2] >> (p % 2 * 4)) & 15; }
  void set_nibble(std::uint32_t p, std::uint8_t v) {
    std::uint8_t& b = kids_[p / 2];
    b = std::uint8_t((b & ~(15 << (p % 2 * 4))) | (v << (p % 2 * 4)));
  }

  std::size_t len_, words_;
  // Nodes are interned from const root_of (interning never changes what a
  // lookup finds), hence mutable.
  mutable Interner nodes_;
  ChunkedArray<std::uint64_t> roots_;      // by id
  std::vector<std::uint32_t> slots_;       // id + 1
  std::vector<std::uint8_t> fps_;          // hash bits of each slot's state
  std::size_t cap_ = 0, count_ = 0;
  ChunkedArray<std::uint8_t> kids_;        // children per state, two to a byte (kMany: see overflow_)
  std::unordered_map<std::uint32_t, std::uint32_t> overflow_;
  std::vector<std::uint32_t> block_first_;  // first child id of states 64k, 64k+1, ...
  std::vector<std::uint32_t> level_first_;  // first id of each depth
};

}  // namespace blkmc
