// Hash compaction (check --store hash), the lossy store for spaces that even
// the tree store cannot hold: a state is kept as its 64-bit hash only
// (8 bytes, and a 5-byte slot of an id table, explorer/id_table.hpp) with
// half a byte of parent link (explorer/bfs_links.hpp). Two states with the
// same hash are taken for one, so a state may be omitted with all that
// only it leads to; omission_probability() is the chance that any two of
// the stored states share a hash (about n^2 / 2^65), and every verdict of
// such a run says it.
//
// Breadth-first only: the full bytes of the last two levels are kept (the
// level being expanded and the one being stored); older states cannot be
// loaded, so traces are rebuilt from the initial state by following, at
// each step, the first successor whose hash is the next stored one.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "explorer/bfs_links.hpp"
#include "explorer/chunked_array.hpp"
#include "explorer/id_table.hpp"
#include "explorer/visited_store.hpp"

namespace blkmc {

class HashCompactStore final : public VisitedStore {
 public:
  explicit HashCompactStore(std::size_t state_bytes) : len_(state_bytes) {}

  std::size_t size() const override { return count_; }
  std::size_t state_bytes() const override { return len_; }
  void load(std::uint32_t id, std::uint8_t* out) const override;
  bool keeps_states() const override { return false; }
  bool is(std::uint32_t id, const std::uint8_t*, std::uint64_t hash) const override {
    return hashes_[id] == hash;
  }
  std::uint32_t parent(std::uint32_t id) const override { return links_.parent(id); }
  std::uint32_t depth(std::uint32_t id) const override { return links_.depth(id); }
  std::uint32_t lookup(const std::uint8_t*, std::uint64_t hash) const override {
    return table_.find(hash, [&](std::uint32_t id) { return hashes_[id] == hash; });
  }
  std::size_t memory_bytes() const override;
  std::size_t memory_after_reserve(std::size_t n) const override;
  void reserve(std::size_t n, const ParFor& par) override;
  bool concurrent_put() const override { return false; }
  void put(std::uint32_t id, const std::uint8_t* s, std::uint64_t hash, std::uint32_t parent,
           std::uint32_t depth) override;
  void commit(std::size_t n, const ParFor& par) override;
  using VisitedStore::commit;
  double omission_probability() const override;

 private:
  struct Level {
    std::uint32_t first = 0;
    std::vector<std::uint8_t> bytes;
  };
  std::size_t len_, count_ = 0;
  ChunkedArray<std::uint64_t> hashes_;  // by id
  IdTable table_;
  BfsLinks links_;
  std::deque<Level> recent_;  // the last two levels, in full
};

}  // namespace blkmc
