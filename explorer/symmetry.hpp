// Symmetry, one layer of the reduced model (explorer/reduced_model.hpp): the
// copies of one schema block are interchangeable actors (the model's
// symmetric_block(props)), so the key is the canonical member of the
// state's orbit: the copies sorted by their values, ties broken by trying
// their orders, after the model renames what refers to them
// (rename(state, perm)). A bisimulation quotient: it keeps every verdict,
// maximum and BFS depth.
//
// A model whose copies are not all alike (the scheduler models' processes:
// only those with equal parameters and requests are interchangeable) names
// classes (symmetry_classes(props): a label per copy, -1 for a copy that
// stays where it is); each class is sorted among its own positions. A model
// whose copies own more than the block's bytes (a process's requests and
// queue) compares them itself (compare_copies(s, a, b)); the comparison
// must follow the copies when they move, so that every member of an orbit
// sorts the same way.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <string>
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
template <class M>
concept HasSymmetryClasses = requires(const M& m, const std::vector<int>& v) {
  { m.symmetry_classes(v) } -> std::convertible_to<std::vector<int>>;
};
// Names the classes for `check`'s reductions line ("processes late0 late1").
template <class M>
concept DescribesSymmetry = requires(const M& m, const std::vector<std::vector<int>>& c) {
  { m.describe_symmetry(c) } -> std::convertible_to<std::string>;
};
template <class M>
concept ComparesCopies = requires(const M& m, const typename M::State& s) {
  { m.compare_copies(s, 0, 1) } -> std::convertible_to<int>;
};

// Canonicalizing keeps scratch: each thread uses its own copy.
template <class M>
class Symmetry {
 public:
  using State = typename M::State;

  explicit Symmetry(const M& m) : m_(&m) {}
  // Symmetry over the block the model names for these properties, where
  // one of its classes has two copies or more.
  Symmetry(const M& m, const std::vector<int>& props) : m_(&m) {
    if constexpr (HasSymmetry<M>) {
      block_ = m.symmetric_block(props);
      if (block_ < 0) return;
      const Schema& sc = m.schema();
      copies_ = sc.place_copies(block_);
      std::vector<int> label(std::size_t(copies_), 0);
      if constexpr (HasSymmetryClasses<M>) label = m.symmetry_classes(props);
      // Each class with two members or more: its members, which are also
      // the positions they are sorted into.
      std::vector<int> seen;
      for (int c = 0; c < copies_; ++c) {
        const int k = label.at(std::size_t(c));
        if (k < 0 || std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
        seen.push_back(k);
        std::vector<int> members;
        for (int d = c; d < copies_; ++d)
          if (label[std::size_t(d)] == k) members.push_back(d);
        if (members.size() >= 2) classes_.push_back(std::move(members));
      }
      moving_ = 0;
      for (const auto& cl : classes_) moving_ += int(cl.size());
      if (classes_.empty()) {
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
  int copies() const { return moving_; }  // the copies that may move
  const std::vector<std::vector<int>>& classes() const { return classes_; }

  // The orbit's canonical member: each class's copies sorted by their
  // values into the class's positions; copies with equal values may still
  // differ in what refers to them, so every order of each run of equal
  // copies is tried (up to a bound, past which the sorted order alone is
  // taken: a representative, still sound, just less reduction) and the
  // smallest state kept.
  void canonicalize(State& s) const {
    // ord_[i]: the copy that goes to position pos_[i]; runs never cross a class.
    ord_.clear();
    pos_.clear();
    runs_.clear();
    std::size_t tries = 1;
    for (const auto& cl : classes_) {
      const std::size_t from = ord_.size();
      ord_.insert(ord_.end(), cl.begin(), cl.end());
      pos_.insert(pos_.end(), cl.begin(), cl.end());
      std::stable_sort(ord_.begin() + long(from), ord_.end(),
                       [&](int a, int b) { return compare_copies(s, a, b) < 0; });
      for (std::size_t i = from; i < ord_.size();) {
        std::size_t j = i + 1;
        while (j < ord_.size() && compare_copies(s, ord_[i], ord_[j]) == 0) ++j;
        if (j - i > 1) {
          runs_.push_back({int(i), int(j)});
          for (std::size_t k = 2; k <= j - i; ++k) tries *= k;
        }
        i = j;
      }
    }
    if (tries > kMaxTries) runs_.clear();
    for (auto& r : runs_) std::sort(ord_.begin() + r.first, ord_.begin() + r.second);
    for (int c = 0; c < copies_; ++c) perm_[std::size_t(c)] = c;
    State best{}, cand{};
    bool have = false;
    // Every order of every run (an odometer of next_permutation).
    while (true) {
      for (std::size_t i = 0; i < ord_.size(); ++i) perm_[std::size_t(ord_[i])] = pos_[i];
      permute(s, cand);
      if (!have || std::memcmp(cand.b.data(), best.b.data(), n_) < 0) {
        best = cand;
        have = true;
      }
      if (runs_.empty()) break;
      std::size_t r = 0;
      for (; r < runs_.size(); ++r)
        if (std::next_permutation(ord_.begin() + runs_[r].first, ord_.begin() + runs_[r].second)) break;
      if (r == runs_.size()) break;
    }
    s = best;
  }

 private:
  int compare_copies(const State& s, int a, int b) const {
    if constexpr (ComparesCopies<M>) return m_->compare_copies(s, a, b);
    return blkmc::compare_copies(layout_, s, a, b);
  }
  // out = in with copy c moved to perm[c], and what refers to copies renamed.
  void permute(const State& in, State& out) const {
    out = in;
    move_copies(layout_, in, out, perm_);
    if constexpr (HasSymmetry<M>) m_->rename(out, perm_);
  }

  static constexpr std::size_t kMaxTries = 720;
  const M* m_;
  int block_ = -1, copies_ = 0, moving_ = 0;  // the block; -1: none
  std::vector<std::vector<int>> classes_;       // the interchangeable copies, by class
  std::size_t n_ = 0;
  Schema::BlockLayout layout_;
  mutable std::vector<int> ord_, pos_;
  mutable std::vector<int> perm_;
  mutable std::vector<std::pair<int, int>> runs_;
};

}  // namespace blkmc
