#include "explorer/tree_store.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "explorer/hash.hpp"

namespace blkmc {

std::string to_string(StoreKind k) { return k == StoreKind::Tree ? "tree" : "plain"; }

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
    : len_(state_bytes), words_(std::max<std::size_t>(1, (state_bytes + 3) / 4)) {
  grow_table(1024);
}

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
  const std::uint64_t h = mix64(r);
  const auto fp = std::uint8_t(h);
  for (std::size_t i = home(h);;) {
    const std::uint32_t slot = slots_[i];
    if (slot == 0) return kNone;
    if (fps_[i] == fp && roots_[slot - 1] == r) return slot - 1;
    if (++i == cap_) i = 0;
  }
}

void TreeStore::place(std::uint32_t id, std::uint64_t h) {
  std::size_t i = home(h);
  while (slots_[i] != 0)
    if (++i == cap_) i = 0;
  slots_[i] = id + 1;
  fps_[i] = std::uint8_t(h);
}

void TreeStore::grow_table(std::size_t cap) {
  cap_ = cap;
  slots_.assign(cap, 0);
  slots_.shrink_to_fit();
  fps_.assign(cap, 0);
  fps_.shrink_to_fit();
  for (std::uint32_t id = 0; id < count_; ++id) place(id, mix64(roots_[id]));
}

namespace {
// The root table's free slots are most of what a state costs beyond its
// root: it is kept between 85% and 95% full (a lookup that misses scans
// fingerprints, a byte a slot, to the next free slot: at 95% some 200
// bytes, a few cache lines).
std::size_t table_for(std::size_t cap, std::size_t states) {
  if (states * 20 <= cap * 19) return cap;
  return std::max<std::size_t>(1024, states * 20 / 17);
}
}  // namespace

void TreeStore::reserve(std::size_t n, const ParFor&) {
  const std::size_t want = count_ + n;
  if (want > kNone) throw std::length_error("tree store: more than 2^32 states");
  if (const std::size_t cap = table_for(cap_, want); cap != cap_) grow_table(cap);
  roots_.ensure(want);
  kids_.ensure((want + 1) / 2);
}

std::size_t TreeStore::memory_bytes() const {
  return roots_.capacity() * 8 + cap_ * 5 + kids_.capacity() + block_first_.capacity() * 4 +
         overflow_.size() * 32 + level_first_.capacity() * 4 + nodes_.memory_bytes();
}

std::size_t TreeStore::memory_after_reserve(std::size_t n) const {
  const std::size_t want = count_ + n;
  const std::size_t cap = table_for(cap_, want);
  const std::size_t room = std::max(want, roots_.capacity());
  return memory_bytes() + (cap - cap_) * 5 + (room - roots_.capacity()) * 8 + (room - roots_.capacity()) / 2 +
         cap_ * 5 * (cap != cap_);
}

void TreeStore::put(std::uint32_t id, const std::uint8_t* s, std::uint64_t, std::uint32_t parent,
                    std::uint32_t depth) {
  const std::uint64_t r = root_of(s, true);
  roots_[id] = r;
  place(id, mix64(r));
  set_nibble(id, 0);
  if (depth >= level_first_.size()) level_first_.push_back(id);
  if (parent == kNone) return;
  // Ids come in parent order: blocks of 64 parents up to this one start here.
  while (block_first_.size() * 64 <= parent) block_first_.push_back(id);
  const std::uint8_t k = nibble(parent);
  if (k == kMany) {
    ++overflow_[parent];
  } else {
    set_nibble(parent, std::uint8_t(k + 1));
    if (k + 1 == kMany) overflow_[parent] = kMany;
  }
}

std::uint32_t TreeStore::kids(std::uint32_t p) const {
  const std::uint8_t k = nibble(p);
  return k == kMany ? overflow_.at(p) : k;
}

std::uint32_t TreeStore::parent(std::uint32_t id) const {
  if (id == 0 || block_first_.empty()) return kNone;
  const auto it = std::upper_bound(block_first_.begin(), block_first_.end(), id);
  std::uint32_t p = std::uint32_t(it - block_first_.begin() - 1) * 64;
  for (std::uint32_t f = *(it - 1);; ++p) {
    const std::uint32_t k = kids(p);
    if (id < f + k) return p;
    f += k;
  }
}

std::uint32_t TreeStore::depth(std::uint32_t id) const {
  return std::uint32_t(std::upper_bound(level_first_.begin(), level_first_.end(), id) -
                       level_first_.begin() - 1);
}

}  // namespace blkmc
