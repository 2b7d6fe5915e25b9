// Parent links and depths of a breadth-first search in about half a byte a
// state, for the compact stores. Breadth-first ids are given in parent
// order, so a state's children are a run of ids: a 4-bit count of children
// per state (15 or more kept aside), with the first child of every 64th
// state, finds any parent by a binary search and a scan of at most 64
// counts. Depths are the first id of each level.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "explorer/chunked_array.hpp"

namespace blkmc {

class BfsLinks {
 public:
  static constexpr std::uint32_t kNone = 0xffffffffu;

  void ensure(std::size_t states) { kids_.ensure((states + 1) / 2); }
  // State id (ids in increasing order) with its parent (non-decreasing, or
  // kNone for the first) and depth (non-decreasing).
  void add(std::uint32_t id, std::uint32_t parent, std::uint32_t depth) {
    set_nibble(id, 0);
    if (depth >= level_first_.size()) level_first_.push_back(id);
    if (parent == kNone) return;
    while (block_first_.size() * 64 <= parent) block_first_.push_back(id);
    const std::uint8_t k = nibble(parent);
    if (k == kMany) {
      ++overflow_[parent];
    } else {
      set_nibble(parent, std::uint8_t(k + 1));
      if (k + 1 == kMany) overflow_[parent] = kMany;
    }
  }
  std::uint32_t parent(std::uint32_t id) const {
    if (id == 0 || block_first_.empty()) return kNone;
    const auto it = std::upper_bound(block_first_.begin(), block_first_.end(), id);
    std::uint32_t p = std::uint32_t(it - block_first_.begin() - 1) * 64;
    for (std::uint32_t f = *(it - 1);; ++p) {
      const std::uint32_t k = kids(p);
      if (id < f + k) return p;
      f += k;
    }
  }
  std::uint32_t depth(std::uint32_t id) const {
    return std::uint32_t(std::upper_bound(level_first_.begin(), level_first_.end(), id) -
                         level_first_.begin() - 1);
  }
  // The first id of a level (size(): none yet).
  std::size_t levels() const { return level_first_.size(); }
  std::uint32_t level_first(std::size_t d) const { return level_first_[d]; }
  std::size_t memory_bytes() const {
    return kids_.capacity() + block_first_.capacity() * 4 + overflow_.size() * 32 +
           level_first_.capacity() * 4;
  }

 private:
  static constexpr std::uint8_t kMany = 15;
  std::uint8_t nibble(std::uint32_t p) const { return std::uint8_t(kids_[p / 2] >> (p % 2 * 4)) & 15; }
  void set_nibble(std::uint32_t p, std::uint8_t v) {
    std::uint8_t& b = kids_[p / 2];
    b = std::uint8_t((b & ~(15 << (p % 2 * 4))) | (v << (p % 2 * 4)));
  }
  std::uint32_t kids(std::uint32_t p) const {
    const std::uint8_t k = nibble(p);
    return k == kMany ? overflow_.at(p) : k;
  }

  ChunkedArray<std::uint8_t> kids_;  // two counts to a byte
  std::unordered_map<std::uint32_t, std::uint32_t> overflow_;
  std::vector<std::uint32_t> block_first_;  // first child of states 64k, 64k+1, ...
  std::vector<std::uint32_t> level_first_;
};

}  // namespace blkmc
