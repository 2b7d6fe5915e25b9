// Symmetry, one layer of the reduced model (explorer/reduced_model.hpp): the
// copies of one schema block are interchangeable actors (the model's
// symmetric_block(props)), so the key is the canonical member of the
// state's orbit: the copies sorted by their values, ties broken by trying
// their orders, after the model renames what refers to them
// (rename(state, perm)). A bisimulation quotient: it keeps every verdict,
// maximum and BFS depth.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "model/model.hpp"
#include "model/schema.hpp"

namespace blkmc {

template <class M>
concept HasSymmetry = requires(const M& m, typename M::State& s, const std::vector<int>& v) {
  { m.symmetric_block(v) } -> std::convertible_to<int>;
  m.rename(s, v);
  { m.schema() } -> std::convertible_to<const Schema&>;
};

// Canonicalizing keeps scratch: each thread uses its own copy.
template <class M>
class Symmetry {
 public:
  using State = typename M::State;

  explicit Symmetry(const M& m) : m_(&m) {}
  // Symmetry over the block the model names for these properties, where it
  // has two copies or more.
  Symmetry(const M& m, const std::vector<int>& props) : m_(&m) {
    if constexpr (HasSymmetry<M>) {
      block_ = m.symmetric_block(props);
      if (block_ < 0) return;
      const Schema& sc = m.schema();
      copies_ = sc.place_copies(block_);
      if (copies_ < 2) {
        block_ = -1;
        return;
      }
      n_ = m.state_bytes();
      perm_.resize(std::size_t(copies_));
      layout_ = sc.block_layout(block_);
    }
  }

  bool on() const { return block_ >= 0; }
  int block() const { return block_; }
  int copies() const { return copies_; }

  // The orbit's canonical member: copies sorted by their stored values;
  // copies with equal values may still differ in what refers to them, so
  // every order of each run of equal copies is tried (up to a bound, past
  // which the sorted order alone is taken: a representative, still sound,
  // just less reduction) and the smallest state kept.
  void canonicalize(State& s) const {
    order_.resize(std::size_t(copies_));
    for (int c = 0; c < copies_; ++c) order_[std::size_t(c)] = c;
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return compare_copies(s, a, b) < 0; });
    // Runs of equal copies.
    runs_.clear();
    std::size_t tries = 1;
    for (int i = 0; i < copies_;) {
      int j = i + 1;
      while (j < copies_ && compare_copies(s, order_[std::size_t(i)], order_[std::size_t(j)]) == 0) ++j;
      if (j - i > 1) {
        runs_.push_back({i, j});
        for (int k = 2; k <= j - i; ++k) tries *= std::size_t(k);
      }
      i = j;
    }
    if (tries > kMaxTries) runs_.clear();
    std::vector<int>& ord = order_;
    for (auto& r : runs_) std::sort(ord.begin() + r.first, ord.begin() + r.second);
    State best{}, cand{};
    bool have = false;
    // Every order of every run (an odometer of next_permutation).
    while (true) {
      // ord[k]: the copy that goes to position k; perm[copy] = position.
      for (int k = 0; k < copies_; ++k) perm_[std::size_t(ord[std::size_t(k)])] = k;
      permute(s, cand);
      if (!have || std::memcmp(cand.b.data(), best.b.data(), n_) < 0) {
        best = cand;
        have = true;
      }
      if (runs_.empty()) break;
      std::size_t r = 0;
      for (; r < runs_.size(); ++r)
        if (std::next_permutation(ord.begin() + runs_[r].first, ord.begin() + runs_[r].second)) break;
      if (r == runs_.size()) break;
    }
    s = best;
  }

 private:
  int compare_copies(const State& s, int a, int b) const {
    const auto& l = layout_;
    if (l.rec) {
      const int c = std::memcmp(s.b.data() + l.base + a * l.rec, s.b.data() + l.base + b * l.rec, l.rec);
      if (c) return c;
    }
    for (std::uint32_t p : l.bits) {
      const int x = bit_at(s, p + std::uint32_t(a)), y = bit_at(s, p + std::uint32_t(b));
      if (x != y) return x - y;
    }
    return 0;
  }
  static int bit_at(const State& s, std::uint32_t p) { return (s.b[p >> 3] >> (p & 7)) & 1; }
  static void set_bit_at(State& s, std::uint32_t p, int v) {
    const auto m = std::uint8_t(1u << (p & 7));
    s.b[p >> 3] = std::uint8_t(v ? s.b[p >> 3] | m : s.b[p >> 3] & ~m);
  }
  // out = in with copy c moved to perm[c], and what refers to copies renamed.
  void permute(const State& in, State& out) const {
    const auto& l = layout_;
    out = in;
    for (int c = 0; c < copies_; ++c) {
      const int to = perm_[std::size_t(c)];
      if (to == c) continue;
      if (l.rec) std::memcpy(out.b.data() + l.base + to * l.rec, in.b.data() + l.base + c * l.rec, l.rec);
      for (std::uint32_t p : l.bits) set_bit_at(out, p + std::uint32_t(to), bit_at(in, p + std::uint32_t(c)));
    }
    if constexpr (HasSymmetry<M>) m_->rename(out, perm_);
  }

  static constexpr std::size_t kMaxTries = 720;
  const M* m_;
  int block_ = -1, copies_ = 0;  // the block; -1: none
  std::size_t n_ = 0;
  Schema::BlockLayout layout_;
  mutable std::vector<int> order_;
  mutable std::vector<int> perm_;
  mutable std::vector<std::pair<int, int>> runs_;
};

}  // namespace blkmc
