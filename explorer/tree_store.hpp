// The tree-compressed visited store (check --store tree), in the manner of
// LTSmin's tree tables: a state's bytes are cut into 4-byte words, the
// leaves of a balanced binary tree; each distinct pair below the root (two
// words, or two subtree ids) is kept once (nodes), and a state is the pair
// at its root: 8 bytes. States of a model share most of their
// words and subtrees, so leaves and nodes stay few while states grow.
//
// Per state: the root (8 bytes), a slot of the root table
// (explorer/id_table.hpp: 5 bytes, 85% to 95% full) and half a byte of parent link and depth
// (explorer/bfs_links.hpp). Traces are rebuilt from those parents as with
// the plain store.
//
// Only breadth-first searches use it. Lookups may run on many threads;
// puts run on one, in increasing id order.
#pragma once

#include <cstdint>
#include <vector>

#include "explorer/bfs_links.hpp"
#include "explorer/chunked_array.hpp"
#include "explorer/id_table.hpp"
#include "explorer/visited_store.hpp"

namespace blkmc {

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
  void commit(std::size_t n, const ParFor& par) override;
  using VisitedStore::commit;

  std::size_t nodes() const { return nodes_.size(); }

 private:
  // The root of the words [lo, hi) of s (hi - lo >= 2), or, below the root,
  // a subtree's id; find-only when intern is false (kNone: not stored).
  std::uint64_t root_of(const std::uint8_t* s, bool intern) const;
  std::uint32_t subtree(const std::uint8_t* s, std::size_t lo, std::size_t hi, bool intern) const;
  void expand(std::uint32_t id, std::size_t lo, std::size_t hi, std::uint8_t* words) const;

  std::size_t len_, words_;
  // Nodes are interned from const root_of (interning never changes what a
  // lookup finds), hence mutable.
  mutable Interner nodes_;
  ChunkedArray<std::uint64_t> roots_;      // by id
  IdTable table_;                          // ids by the hash of their root
  std::size_t count_ = 0;
  BfsLinks links_;
};

}  // namespace blkmc
