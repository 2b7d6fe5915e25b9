#include "explorer/tree_store.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "explorer/hash.hpp"

namespace blkmc {

// --- Interner ---

std::uint32_t Interner::find(std::uint64_t v) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = mix64(v) & mask;; i = (i + 1) & mask) {
    const std::uint32_t s = slots_[i];
    if (s == 0) return kNone;
    if (values_[s - 1] == v) return s - 1;
  }
}

std::uint32_t Interner::intern(std::uint64_t v) {
  if (const std::uint32_t id = find(v); id != kNone) return id;
  if ((count_ + 1) * 4 > slots_.size() * 3) grow();
  const auto id = std::uint32_t(count_++);
  values_.ensure(count_);
  values_[id] = v;
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = mix64(v) & mask;
  while (slots_[i] != 0) i = (i + 1) & mask;
  slots_[i] = id + 1;
  return id;
}

void Interner::grow() {
  std::vector<std::uint32_t> fresh(slots_.size() * 2, 0);
  const std::size_t mask = fresh.size() - 1;
  for (std::uint32_t id = 0; id < count_; ++id) {
    std::size_t i = mix64(values_[id]) & mask;
    while (fresh[i] != 0) i = (i + 1) & mask;
    fresh[i] = id + 1;
  }
  slots_.swap(fresh);
}

// --- TreeStore ---

namespace {
constexpr std::uint64_t kNoRoot = ~std::uint64_t(0);
}  // namespace

TreeStore::TreeStore(std::size_t state_bytes)
    : len_(state_bytes), words_(std::max<std::size_t>(1, (state_bytes + 3) / 4)) {}

std::uint32_t TreeStore::subtree(const std::uint8_t* s, std::size_t lo, std::size_t hi,
                                 bool intern) const {
  if (hi - lo == 1) {  // a word is its own leaf
    std::uint32_t w;
    std::memcpy(&w, s + lo * 4, 4);
    return w;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  const std::uint32_t a = subtree(s, lo, mid, intern);
  if (a == Interner::kNone && mid - lo > 1) return a;
  const std::uint32_t b = subtree(s, mid, hi, intern);
  if (b == Interner::kNone && hi - mid > 1) return b;
  const std::uint64_t pair = (std::uint64_t(a) << 32) | b;
  return intern ? nodes_.intern(pair) : nodes_.find(pair);
}

std::uint64_t TreeStore::root_of(const std::uint8_t* s, bool intern) const {
  if (words_ == 1) {
    std::uint32_t w;
    std::memcpy(&w, s, 4);
    return w;  // a state of one word is its own root
  }
  // A subtree id is never kNone (ids are dense), but a word may be: only
  // subtrees of two words or more can be missing.
  const std::size_t mid = words_ / 2;
  const std::uint32_t a = subtree(s, 0, mid, intern);
  if (a == Interner::kNone && mid > 1) return kNoRoot;
  const std::uint32_t b = subtree(s, mid, words_, intern);
  if (b == Interner::kNone && words_ - mid > 1) return kNoRoot;
  return (std::uint64_t(a) << 32) | b;
}

void TreeStore::expand(std::uint32_t id, std::size_t lo, std::size_t hi, std::uint8_t* words) const {
  if (hi - lo == 1) {
    std::memcpy(words + lo * 4, &id, 4);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  const std::uint64_t pair = nodes_.value(id);
  expand(std::uint32_t(pair >> 32), lo, mid, words);
  expand(std::uint32_t(pair), mid, hi, words);
}

void TreeStore::load(std::uint32_t id, std::uint8_t* out) const {
  std::uint8_t buf[4 * 128];
  std::vector<std::uint8_t> big;
  std::uint8_t* words = buf;
  if (words_ > 128) {
    big.resize(words_ * 4);
    words = big.data();
  }
  const std::uint64_t r = roots_[id];
  if (words_ == 1) {
    const auto w = std::uint32_t(r);
    std::memcpy(words, &w, 4);
  } else {
    const std::size_t mid = words_ / 2;
    expand(std::uint32_t(r >> 32), 0, mid, words);
    expand(std::uint32_t(r), mid, words_, words);
  }
  std::memcpy(out, words, len_);
}

std::uint32_t TreeStore::lookup(const std::uint8_t* s, std::uint64_t) const {
  const std::uint64_t r = root_of(s, false);
  if (r == kNoRoot && words_ > 1) return kNone;
  return table_.find(mix64(r), [&](std::uint32_t id) { return roots_[id] == r; });
}

void TreeStore::reserve(std::size_t n, const ParFor& par) {
  const std::size_t want = count_ + n;
  if (want > kNone) throw std::length_error("tree store: more than 2^32 states");
  table_.reserve(want, count_, par, [&](std::uint32_t id) { return mix64(roots_[id]); });
  roots_.ensure(want);
  links_.ensure(want);
}

std::size_t TreeStore::memory_bytes() const {
  return roots_.capacity() * 8 + table_.memory_bytes() + links_.memory_bytes() + nodes_.memory_bytes();
}

std::size_t TreeStore::memory_after_reserve(std::size_t n) const {
  const std::size_t want = count_ + n;
  const std::size_t room = std::max(want, roots_.capacity());
  return memory_bytes() + table_.capacity_for(want) * 5 + (room - roots_.capacity()) * 8 +
         (room - roots_.capacity()) / 2;
}

void TreeStore::put(std::uint32_t id, const std::uint8_t* s, std::uint64_t, std::uint32_t parent,
                    std::uint32_t depth) {
  const std::uint64_t r = root_of(s, true);
  roots_[id] = r;
  links_.add(id, parent, depth);
}

void TreeStore::commit(std::size_t n, const ParFor& par) {
  if (n > count_)
    table_.place_all(std::uint32_t(count_), std::uint32_t(n), par,
                     [&](std::uint32_t id) { return mix64(roots_[id]); });
  count_ = n;
}

std::uint32_t TreeStore::parent(std::uint32_t id) const { return links_.parent(id); }
std::uint32_t TreeStore::depth(std::uint32_t id) const { return links_.depth(id); }

}  // namespace blkmc
