#include "explorer/hash_compact_store.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace blkmc {

void HashCompactStore::load(std::uint32_t id, std::uint8_t* out) const {
  for (const Level& l : recent_)
    if (id >= l.first && (id - l.first) * len_ < l.bytes.size()) {
      std::memcpy(out, l.bytes.data() + std::size_t(id - l.first) * len_, len_);
      return;
    }
  throw std::logic_error("hash compaction keeps the states of the last two levels only");
}

std::size_t HashCompactStore::memory_bytes() const {
  std::size_t recent = 0;
  for (const Level& l : recent_) recent += l.bytes.capacity();
  return hashes_.capacity() * 8 + table_.memory_bytes() + links_.memory_bytes() + recent;
}

std::size_t HashCompactStore::memory_after_reserve(std::size_t n) const {
  const std::size_t want = count_ + n;
  const std::size_t room = std::max(want, hashes_.capacity());
  return memory_bytes() + table_.capacity_for(want) * 5 + (room - hashes_.capacity()) * 8 +
         (room - hashes_.capacity()) / 2 + n * len_;
}

void HashCompactStore::reserve(std::size_t n, const ParFor& par) {
  const std::size_t want = count_ + n;
  if (want > kNone) throw std::length_error("hash compaction: more than 2^32 states");
  table_.reserve(want, count_, par, [&](std::uint32_t id) { return hashes_[id]; });
  hashes_.ensure(want);
  links_.ensure(want);
}

void HashCompactStore::put(std::uint32_t id, const std::uint8_t* s, std::uint64_t hash,
                           std::uint32_t parent, std::uint32_t depth) {
  hashes_[id] = hash;
  if (depth >= links_.levels()) {
    // A new level: the one before the level being expanded is done with.
    while (recent_.size() >= 2) recent_.pop_front();
    recent_.push_back({id, {}});
  }
  links_.add(id, parent, depth);
  Level& l = recent_.back();
  l.bytes.insert(l.bytes.end(), s, s + len_);
}

void HashCompactStore::commit(std::size_t n, const ParFor& par) {
  if (n > count_)
    table_.place_all(std::uint32_t(count_), std::uint32_t(n), par, [&](std::uint32_t id) { return hashes_[id]; });
  count_ = n;
}

double HashCompactStore::omission_probability() const {
  // The chance that two of n uniformly hashed states collide: 1 - exp(-n(n-1)/2^65).
  const double n = double(count_);
  return -std::expm1(-n * (n - 1) / std::ldexp(1.0, 65));
}

}  // namespace blkmc
