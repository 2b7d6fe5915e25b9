#include "explorer/external_sort.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "explorer/record_word.hpp"

namespace blkmc {

ExternalSorter::ExternalSorter(const ScratchDir& dir, std::string tag, std::size_t record_bytes,
                               std::size_t unique_bytes, std::size_t budget_bytes)
    : dir_(dir),
      tag_(std::move(tag)),
      rec_(record_bytes),
      unique_(unique_bytes),
      // Records are indexed by 32 bits in the buffer's order.
      cap_records_(std::clamp<std::size_t>(budget_bytes / (record_bytes + sizeof(order_[0])), 16, 0xffffffffu)) {}

ExternalSorter::~ExternalSorter() {
  for (const BlockFile& f : runs_) f.remove();
}

void ExternalSorter::reset(std::string tag, std::size_t unique_bytes) {
  for (const BlockFile& f : runs_) f.remove();
  runs_.clear();
  readers_.clear();
  heads_.clear();
  buf_.clear();
  order_.clear();
  tag_ = std::move(tag);
  unique_ = unique_bytes;
  reading_ = have_last_ = false;
  mem_pos_ = 0;
}

bool ExternalSorter::less(const std::uint8_t* a, const std::uint8_t* b) const {
  const std::uint64_t x = record_word(a), y = record_word(b);
  if (x != y) return x < y;
  return std::memcmp(a + 8, b + 8, rec_ - 8) < 0;
}

bool ExternalSorter::same(const std::uint8_t* a, const std::uint8_t* b) const {
  return std::memcmp(a, b, unique_) == 0;
}

void ExternalSorter::add(const std::uint8_t* rec) {
  if (order_.size() == cap_records_) spill(false);
  order_.emplace_back(record_word(rec), std::uint32_t(order_.size()));
  buf_.insert(buf_.end(), rec, rec + rec_);
}

void ExternalSorter::sort_buffer(bool parallel) {
  const std::uint8_t* base = buf_.data();
  auto less = [&](const std::pair<std::uint64_t, std::uint32_t>& a, const std::pair<std::uint64_t, std::uint32_t>& b) {
    if (a.first != b.first) return a.first < b.first;
    return std::memcmp(base + std::size_t(a.second) * rec_ + 8, base + std::size_t(b.second) * rec_ + 8, rec_ - 8) < 0;
  };
  const std::size_t n = order_.size();
  const std::size_t parts = n < 65536 || !parallel ? 1 : parts_;
  // Pieces sorted at once, then merged pairwise, the merges of a round at once.
  auto bound = [&](std::size_t k) { return order_.begin() + std::ptrdiff_t(n * k / parts); };
  par_(parts, [&](std::size_t k) { std::sort(bound(k), bound(k + 1), less); });
  for (std::size_t width = 1; width < parts; width *= 2) {
    const std::size_t merges = (parts + 2 * width - 1) / (2 * width);
    par_(merges, [&](std::size_t m) {
      const std::size_t a = m * 2 * width, mid = std::min(parts, a + width), b = std::min(parts, a + 2 * width);
      if (mid < b) std::inplace_merge(bound(a), bound(mid), bound(b), less);
    });
  }
}

void ExternalSorter::spill(bool parallel) {
  if (order_.empty()) return;
  sort_buffer(parallel);
  BlockWriter w(dir_.file(fmt::format("{}-run{}", tag_, runs_.size())), rec_, true);
  const std::uint8_t* prev = nullptr;
  for (const auto& [wd, i] : order_) {
    const std::uint8_t* r = buf_.data() + std::size_t(i) * rec_;
    if (prev && same(prev, r)) continue;
    w.add(r);
    prev = r;
  }
  runs_.push_back(w.finish());
  order_.clear();
  buf_.clear();
}

void ExternalSorter::start_merge() {
  reading_ = true;
  prev_.resize(rec_);
  last_.resize(rec_);
  if (runs_.empty()) {
    sort_buffer(true);
    return;
  }
  spill(true);
  for (const BlockFile& f : runs_) {
    readers_.push_back(std::make_unique<BlockReader>(f));
    heads_.push_back(readers_.back()->next());
  }
}

const std::uint8_t* ExternalSorter::next_any() {
  if (readers_.empty()) {
    if (mem_pos_ == order_.size()) return nullptr;
    return buf_.data() + std::size_t(order_[mem_pos_++].second) * rec_;
  }
  // The runs are few (the buffer is large): a linear scan for the least head.
  std::size_t best = heads_.size();
  for (std::size_t k = 0; k < heads_.size(); ++k)
    if (heads_[k] && (best == heads_.size() || less(heads_[k], heads_[best]))) best = k;
  if (best == heads_.size()) return nullptr;
  std::memcpy(last_.data(), heads_[best], rec_);
  heads_[best] = readers_[best]->next();
  return last_.data();
}

const std::uint8_t* ExternalSorter::next() {
  if (!reading_) start_merge();
  while (true) {
    const std::uint8_t* r = next_any();
    if (!r) return nullptr;
    if (have_last_ && same(prev_.data(), r)) continue;  // a duplicate of the one returned last
    std::memcpy(prev_.data(), r, rec_);
    have_last_ = true;
    return r;
  }
}

std::uint64_t ExternalSorter::disk_bytes() const {
  std::uint64_t n = 0;
  for (const BlockFile& f : runs_) n += f.bytes;
  return n;
}

}  // namespace blkmc
