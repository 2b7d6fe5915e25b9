// Sorting fixed-size records that may not fit in memory (the disk store's
// duplicate detection, explorer/disk_store.hpp). Records gather in a buffer
// of a fixed budget; a full buffer is sorted and written as a run
// (explorer/block_file.hpp); the runs are then merged.
//
// A record is a 64-bit word (a hash, an origin) and then bytes; the order is
// the word, then the bytes (memcmp). Records equal in their first
// `unique_bytes` bytes are one: the first of them in that order is kept.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "explorer/block_file.hpp"
#include "explorer/visited_store.hpp"

namespace blkmc {

class ExternalSorter {
 public:
  ExternalSorter(const ScratchDir& dir, std::string tag, std::size_t record_bytes, std::size_t unique_bytes,
                 std::size_t budget_bytes);
  ~ExternalSorter();
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  // Empties it for another sort (its buffer's memory is kept: a new one
  // would be faulted in page by page again).
  void reset(std::string tag, std::size_t unique_bytes);
  void add(const std::uint8_t* rec);
  // Sorts the last buffer in `parts` pieces at once (par runs them), then
  // merges the pieces; a buffer that fills during add() is sorted on the
  // caller's thread (add() may run beside par's work).
  void set_parallel(ParFor par, std::size_t parts) {
    par_ = std::move(par);
    parts_ = std::max<std::size_t>(1, parts);
  }
  // After the last add: the records in order, one of each, then nullptr.
  const std::uint8_t* next();

  std::size_t runs() const { return runs_.size(); }
  std::uint64_t disk_bytes() const;
  std::size_t memory_bytes() const { return buf_.capacity() + order_.capacity() * sizeof(order_[0]); }

 private:
  bool less(const std::uint8_t* a, const std::uint8_t* b) const;
  bool same(const std::uint8_t* a, const std::uint8_t* b) const;
  // parallel: par_ may be used (not from add(), which may run beside it).
  void sort_buffer(bool parallel);
  void spill(bool parallel);
  void start_merge();
  const std::uint8_t* next_any();

  const ScratchDir& dir_;
  std::string tag_;
  std::size_t rec_, unique_, cap_records_;
  std::vector<std::uint8_t> buf_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> order_;  // (word, record index)
  std::vector<BlockFile> runs_;
  ParFor par_ = VisitedStore::serial;
  std::size_t parts_ = 1;
  // Reading back.
  bool reading_ = false;
  std::size_t mem_pos_ = 0;
  std::vector<std::unique_ptr<BlockReader>> readers_;
  std::vector<const std::uint8_t*> heads_;  // each reader's current record
  std::vector<std::uint8_t> last_;          // the least head, taken from its run
  std::vector<std::uint8_t> prev_;          // the record returned last
  bool have_last_ = false;
};

}  // namespace blkmc
