#include "explorer/disk_store.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "explorer/record_word.hpp"

namespace blkmc {

namespace {
// A second hash for the bit positions (splitmix64's finalizer).
std::uint64_t remix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

DiskStore::DiskStore(std::size_t state_bytes, const std::string& dir, unsigned bitstate_log2)
    : len_(state_bytes), dir_(dir) {
  if (bitstate_log2) {
    // An anonymous mapping: zero until touched, so a large array costs no
    // more memory than a small search uses; in huge pages where the kernel
    // has them, since bits are set at random all over it and a fault per
    // 4 KiB page would cost more than the search.
    bit_bytes_ = std::max<std::size_t>(8, std::size_t(1) << (bitstate_log2 - 3));
    void* p = ::mmap(nullptr, bit_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::madvise(p, bit_bytes_, MADV_HUGEPAGE);
    bits_ = static_cast<std::uint64_t*>(p);
    bit_mask_ = (std::uint64_t(1) << bitstate_log2) - 1;
  }
}

DiskStore::~DiskStore() {
  if (bits_) ::munmap(bits_, bit_bytes_);
}

std::string DiskStore::new_file(const std::string& what) { return dir_.file(fmt::format("{}-{}", what, files_++)); }

void DiskStore::begin_level() {
  first_.push_back(std::uint32_t(count_));
  writer_ = std::make_unique<BlockWriter>(new_file("level"), len_ + 4, false);
}

void DiskStore::append(const std::uint8_t* key, std::uint32_t parent) {
  rec_.resize(len_ + 4);
  std::memcpy(rec_.data(), key, len_);
  std::memcpy(rec_.data() + len_, &parent, 4);
  writer_->add(rec_.data());
  ++count_;
}

void DiskStore::end_level() {
  if (!writer_) return;
  BlockFile f = writer_->finish();
  writer_.reset();
  if (f.records == 0) {  // no new state: no level
    f.remove();
    first_.pop_back();
    return;
  }
  levels_.push_back(std::move(f));
}

const std::uint8_t* DiskStore::record(std::uint32_t id) const {
  // The level being written is not readable yet.
  if (id >= (writer_ ? first_.back() : count_)) throw std::logic_error("disk store: a state that is not on disk yet");
  const std::size_t d = depth(id);
  const BlockFile& f = levels_[d];
  const std::size_t i = id - first_[d];
  const std::size_t block = i / f.per_block;
  if (d != cache_level_ || block != cache_block_) {
    f.read_block(block, cache_);
    cache_level_ = d;
    cache_block_ = block;
  }
  return cache_.data() + (i % f.per_block) * f.record_bytes;
}

void DiskStore::load(std::uint32_t id, std::uint8_t* out) const {
  std::lock_guard<std::mutex> l(cache_mu_);
  std::memcpy(out, record(id), len_);
}

std::uint32_t DiskStore::parent(std::uint32_t id) const {
  std::lock_guard<std::mutex> l(cache_mu_);
  std::uint32_t p;
  std::memcpy(&p, record(id) + len_, 4);
  return p;
}

std::uint32_t DiskStore::depth(std::uint32_t id) const {
  return std::uint32_t(std::upper_bound(first_.begin(), first_.end(), id) - first_.begin() - 1);
}

// The level search's lookups and puts: the disk search stores a level at
// a time (append) and finds duplicates by sorting.
[[noreturn]] static void by_levels_only() {
  throw std::logic_error("the disk store is searched a level at a time (explorer/resolve_on_disk.hpp)");
}
std::uint32_t DiskStore::lookup(const std::uint8_t*, std::uint64_t) const { by_levels_only(); }
void DiskStore::reserve(std::size_t, const ParFor&) { by_levels_only(); }
void DiskStore::put(std::uint32_t, const std::uint8_t*, std::uint64_t, std::uint32_t, std::uint32_t) {
  by_levels_only();
}
void DiskStore::commit(std::size_t n, const ParFor&) {
  if (n != count_) by_levels_only();
}

std::size_t DiskStore::memory_bytes() const {
  std::size_t n = cache_.capacity() + first_.capacity() * 4;
  for (const BlockFile& f : levels_) n += f.offsets.capacity() * 8;
  for (const BlockFile& f : runs_) n += f.offsets.capacity() * 8;
  if (bits_) n += (bit_mask_ + 1) / 8;
  return n + tags_.capacity() * 8;
}

std::uint64_t DiskStore::disk_bytes() const {
  std::uint64_t n = writer_ ? writer_->bytes() : 0;
  for (const BlockFile& f : levels_) n += f.bytes;
  for (const BlockFile& f : runs_) n += f.bytes;
  return n;
}

// The bit positions: double hashing, h + i * h2.
bool DiskStore::test_and_set(std::uint64_t hash) {
  const std::uint64_t h2 = remix(hash) | 1;
  bool all = true;
  for (unsigned i = 0; i < kBitstateHashes; ++i) {
    const std::uint64_t b = (hash + i * h2) & bit_mask_;
    std::uint64_t& w = bits_[b >> 6];
    const std::uint64_t bit = std::uint64_t(1) << (b & 63);
    all = all && (w & bit);
    w |= bit;
  }
  return all;
}

bool DiskStore::test(std::uint64_t hash) const {
  const std::uint64_t h2 = remix(hash) | 1;
  for (unsigned i = 0; i < kBitstateHashes; ++i) {
    const std::uint64_t b = (hash + i * h2) & bit_mask_;
    if (!(bits_[b >> 6] & (std::uint64_t(1) << (b & 63)))) return false;
  }
  return true;
}

double bitstate_omission(double n, double m, unsigned k) {
  if (n <= 1 || m <= 0) return 0;
  // The i-th new state is taken for a visited one with probability
  // (1 - e^{-k i / m})^k; summed (a midpoint rule) over i < n.
  constexpr int kSteps = 1000;
  double sum = 0;
  for (int j = 0; j < kSteps; ++j) {
    const double i = (j + 0.5) * n / kSteps;
    sum += std::pow(-std::expm1(-double(k) * i / m), double(k));
  }
  return -std::expm1(-sum * n / kSteps);
}

double DiskStore::omission_probability() const {
  return bits_ ? bitstate_omission(double(count_), double(bit_mask_) + 1, kBitstateHashes) : 0;
}

// Two runs into one: the records of both, in order (no record is in both).
BlockFile DiskStore::merge_runs(const BlockFile& a, const BlockFile& b) {
  const std::size_t rec = run_record_bytes();
  BlockWriter w(new_file("visited"), rec, true);
  BlockReader ra(a), rb(b);
  const std::uint8_t* x = ra.next();
  const std::uint8_t* y = rb.next();
  while (x || y) {
    bool take_x = x && (!y || record_word(x) < record_word(y) || (record_word(x) == record_word(y) && std::memcmp(x + 8, y + 8, len_) < 0));
    if (take_x) {
      w.add(x);
      x = ra.next();
    } else {
      w.add(y);
      y = rb.next();
    }
  }
  return w.finish();
}

void DiskStore::add_tags(const std::vector<std::uint64_t>& sorted) {
  if (!sorted.empty() && !tags_.empty() && sorted.front() <= tags_.back())
    throw std::logic_error("disk store: a level's tags must follow the last level's");
  tags_.insert(tags_.end(), sorted.begin(), sorted.end());
}

std::uint32_t DiskStore::tag_id(std::uint64_t tag) const {
  const auto it = std::lower_bound(tags_.begin(), tags_.end(), tag);
  if (it == tags_.end() || *it != tag) throw std::logic_error(fmt::format("disk store: no state is tagged {}", tag));
  return std::uint32_t(it - tags_.begin());
}

void DiskStore::add_visited_run(BlockFile run) {
  runs_.push_back(std::move(run));
  // Like-sized neighbours merge (a binary counter): each record is
  // rewritten O(log n) times and a level reads O(log n) runs.
  while (runs_.size() >= 2 && runs_[runs_.size() - 2].records <= 2 * runs_.back().records) {
    BlockFile merged = merge_runs(runs_[runs_.size() - 2], runs_.back());
    runs_[runs_.size() - 2].remove();
    runs_.back().remove();
    runs_.pop_back();
    runs_.back() = std::move(merged);
  }
}

}  // namespace blkmc
