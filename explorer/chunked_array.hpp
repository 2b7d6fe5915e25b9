// An array in chunks of 2^16 entries: growing it copies nothing, and it
// holds at most one chunk more than it needs (its spare room is memory per
// state in the compact stores).
#pragma once

#include <cstddef>
#include <vector>

namespace blkmc {

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

}  // namespace blkmc
