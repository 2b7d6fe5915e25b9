// The stores for state spaces larger than memory (explorer/resolve_on_disk.hpp):
//
//   check --store disk      lossless: every level's states go to a file of
//                           zstd blocks; the visited set is a few sorted
//                           runs of (hash, state) on disk, and a level's
//                           successors are told from visited states once per
//                           level, by sorting them and merging with the runs
//                           (delayed duplicate detection, as Stern and
//                           Dill's disk-based Murphi);
//   check --store bitstate  lossy: the visited set is a bit array (each
//                           state sets 3 bits, as SPIN's -k3); the levels
//                           still go to disk, for the frontier and traces.
//
// Either way a state's record in its level file is its bytes (its key) and
// its parent's id, so path_to() rebuilds traces by reading records back; ids
// are dense and in the order a one-thread breadth-first search stores them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "explorer/block_file.hpp"
#include "explorer/visited_store.hpp"

namespace blkmc {

class DiskStore final : public VisitedStore {
 public:
  // bitstate_log2: the bit array has 2^bitstate_log2 bits (0: no bit array,
  // the visited set is sorted runs).
  DiskStore(std::size_t state_bytes, const std::string& dir, unsigned bitstate_log2);
  ~DiskStore() override;

  // --- levels: each state's key and parent, in id order
  void begin_level();
  void append(const std::uint8_t* key, std::uint32_t parent);  // the next id
  void end_level();                                            // no-op when none is open
  std::size_t levels() const { return levels_.size(); }
  const BlockFile& level(std::size_t depth) const { return levels_[depth]; }
  std::uint32_t level_first(std::size_t depth) const { return first_[depth]; }

  // --- the visited set as sorted runs of (hash, key) records, or of
  // (hash, key, tag) where the search logs edges: a state's tag is its
  // origin + 1 (0 for the start), which grows with its id, so tag_id()
  // finds the id of a state met again in a run.
  void keep_tags() { tagged_ = true; }
  std::size_t run_record_bytes() const { return 8 + len_ + (tagged_ ? 8 : 0); }
  // The tags of a level's new states, in id order, after the last level's.
  void add_tags(const std::vector<std::uint64_t>& sorted);
  // The id of the state tagged so (added); throws std::logic_error if none.
  std::uint32_t tag_id(std::uint64_t tag) const;
  const std::vector<BlockFile>& visited_runs() const { return runs_; }
  // Adds a run of states none of the runs has; merges runs of like size so
  // that there are O(log n) of them.
  void add_visited_run(BlockFile run);
  std::string new_file(const std::string& what);

  // --- the visited set as bits (bitstate)
  bool bitstate() const { return bits_ != nullptr; }
  // Whether all of the state's bits were set; sets them.
  bool test_and_set(std::uint64_t hash);
  bool test(std::uint64_t hash) const;

  const ScratchDir& scratch() const { return dir_; }

  // --- VisitedStore
  std::size_t size() const override { return count_; }
  std::size_t state_bytes() const override { return len_; }
  void load(std::uint32_t id, std::uint8_t* out) const override;
  std::uint32_t parent(std::uint32_t id) const override;
  std::uint32_t depth(std::uint32_t id) const override;
  std::uint32_t lookup(const std::uint8_t*, std::uint64_t) const override;
  std::size_t memory_bytes() const override;
  std::size_t memory_after_reserve(std::size_t) const override { return memory_bytes(); }
  void reserve(std::size_t, const ParFor&) override;
  bool concurrent_put() const override { return false; }
  void put(std::uint32_t, const std::uint8_t*, std::uint64_t, std::uint32_t, std::uint32_t) override;
  void commit(std::size_t, const ParFor&) override;
  using VisitedStore::commit;
  double omission_probability() const override;
  std::uint64_t disk_bytes() const override;

  static constexpr unsigned kBitstateHashes = 3;

 private:
  // The record of id, in a block cached for the next lookup.
  const std::uint8_t* record(std::uint32_t id) const;
  BlockFile merge_runs(const BlockFile& a, const BlockFile& b);

  std::size_t len_;
  ScratchDir dir_;
  std::size_t count_ = 0, files_ = 0;
  std::vector<BlockFile> levels_;
  std::vector<std::uint32_t> first_;  // the first id of each level
  std::unique_ptr<BlockWriter> writer_;
  std::vector<std::uint8_t> rec_;
  std::vector<BlockFile> runs_;
  bool tagged_ = false;
  std::vector<std::uint64_t> tags_;  // by id
  std::uint64_t* bits_ = nullptr;
  std::uint64_t bit_mask_ = 0;
  std::size_t bit_bytes_ = 0;
  // One decompressed block of a level file, for load() and parent().
  mutable std::mutex cache_mu_;
  mutable std::size_t cache_level_ = SIZE_MAX, cache_block_ = SIZE_MAX;
  mutable std::vector<std::uint8_t> cache_;
};

// The chance that a bitstate search omitted a state: the expected number
// of new states whose k bits were all set already, summed over the n
// states stored in m bits, as a probability.
double bitstate_omission(double n, double m, unsigned k);

}  // namespace blkmc
