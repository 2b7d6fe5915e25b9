// The explorer's reductions, one engine in the search loop
// (explorer/search.hpp): each maps a state to the key that is stored, or
// prunes the successors that are expanded, and each is sound only for some
// property kinds, so which apply is decided here from the selected
// properties and what the model declares.
//
//   slicing   (cone of influence, model/influence.hpp): the variables no
//             guard, finished() or selected property depends on are cleared
//             in the key, so states that differ only there are one state;
//   symmetry  the copies of one schema block are interchangeable actors
//             (the model's symmetric_block(props)): the key is the
//             canonical member of the state's orbit (the copies sorted by
//             their values, ties broken by trying their orders), after the
//             model renames what refers to them (rename(state, perm));
//   partial-order reduction: an ample set is the enabled steps of one actor
//             when none of them is visible (writes what a selected property
//             reads) and each is independent of everything every other
//             actor may still do (the model's actor_future(state, actor));
//             the proviso expands a state fully unless every ample
//             successor is new to the store, so every cycle of the reduced
//             graph has a fully expanded state and no step is ignored.
//
// Slicing and symmetry are bisimulation quotients: they keep every verdict,
// every maximum and every BFS depth. The partial-order reduction keeps
// invariants, deadlocks and maxima of measures over visible variables, not
// BFS depths (`check --bfs` then looks for the shortest trace again without
// it, see explore()). Progress and starvation are decided on the full graph:
// a lasso's loop must close on concrete states and weak fairness is per
// actor, which neither a quotient nor an ample set keeps as such; with one
// of them selected, the search runs unreduced.
//
// Traces are rebuilt on concrete states (Search::path_to): from the initial
// state, at each step the successor whose key is the next stored key; so a
// trace found under reduction is a path of the full model with every
// variable's real value.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/influence.hpp"
#include "model/model.hpp"

namespace blkmc {

struct ReduceOptions {
  bool slice = false, symmetry = false, por = false;
  static ReduceOptions all() { return {true, true, true}; }
  static ReduceOptions none() { return {}; }
  bool any() const { return slice || symmetry || por; }
};

template <class M>
concept HasInfluence = requires(const M& m) {
  { m.influence() } -> std::same_as<Influence>;
  { m.schema() } -> std::convertible_to<const Schema&>;
};
template <class M>
concept HasSymmetry = requires(const M& m, typename M::State& s, const std::vector<int>& v) {
  { m.symmetric_block(v) } -> std::convertible_to<int>;
  m.rename(s, v);
  { m.schema() } -> std::convertible_to<const Schema&>;
};
template <class M>
concept HasActorFuture = requires(const M& m, const typename M::State& s) {
  { m.actors() } -> std::convertible_to<int>;
  { m.actor_future(s, 0) } -> std::same_as<Footprint>;
};

// What the reductions did in one search.
struct ReductionStats {
  std::string summary;              // which apply, e.g. "slicing (count); symmetry (3 submitters)"
  std::uint64_t ample = 0;          // states expanded with an ample set smaller than all
  std::uint64_t full = 0;           // states with steps of two or more actors, expanded fully
  bool gave_up = false;             // fewer than 1 in 50 of the first 50,000 had one: stopped trying
};

template <class M>
class Reduction {
 public:
  using State = typename M::State;

  // props: the selected properties (empty: all); depth_bounded: a --max-depth
  // search, where ample sets could hide states behind the bound.
  Reduction(const M& m, const ReduceOptions& opt, std::vector<int> props, bool depth_bounded)
      : m_(m) {
    const auto& pinfo = m.info().props;
    if (props.empty())
      for (std::size_t i = 0; i < pinfo.size(); ++i) props.push_back(int(i));
    if (!opt.any()) return;
    // Progress and starvation are decided on the graph: a quotient keeps
    // AG EF finished (slicing and symmetry), and slicing keeps actors and
    // what they enable (weak fairness); ample sets keep neither.
    ReduceOptions o = opt;
    for (int p : props) {
      const PropKind k = pinfo.at(std::size_t(p)).kind;
      const std::string& name = pinfo[std::size_t(p)].name;
      if (kind_info(k).on_graph && o.por) {
        o.por = false;
        notes_.push_back(fmt::format("no partial-order ({} is decided on the full graph)", name));
      }
      if (kind_info(k).per_actor && o.symmetry) {
        o.symmetry = false;
        notes_.push_back(fmt::format("no symmetry (weak fairness in {} is per actor)", name));
      }
    }
    init(o, props, depth_bounded);
  }

 private:
  void init(const ReduceOptions& opt, const std::vector<int>& props, bool depth_bounded) {
    const M& m = m_;
    n_ = m.state_bytes();
    kept_.set();
    if constexpr (HasInfluence<M>) init_influence(opt, props);
    if constexpr (HasSymmetry<M>) {
      if (opt.symmetry) {
        block_ = m.symmetric_block(props);
        if (block_ >= 0) {
          const Schema& sc = m.schema();
          copies_ = sc.place_copies(block_);
          if (copies_ < 2) {
            block_ = -1;
          } else {
            perm_.resize(std::size_t(copies_));
            layout_ = sc.block_layout(block_);
            notes_.push_back(fmt::format("symmetry ({} {})", copies_, sc.place_name(block_)));
          }
        }
      }
    }
    if constexpr (HasActorFuture<M> && HasInfluence<M>) {
      if (opt.por && !depth_bounded && can_por_) {
        por_ = true;
        notes_.push_back("partial-order");
      }
    }
    if (opt.por && !por_)
      notes_.push_back(depth_bounded ? "no partial-order (depth bound)"
                                     : "no partial-order (the model declares no actor futures)");
  }

 public:
  bool keyed() const { return !mask_.empty() || block_ >= 0; }
  bool por() const { return por_; }

  // The stored form of s, in place.
  void key(State& s) const {
    if (!mask_.empty()) {
      const std::size_t n = std::min(mask_.size(), State::capacity);
      for (std::size_t i = 0; i + 8 <= n; i += 8) {
        std::uint64_t w, k;
        std::memcpy(&w, s.b.data() + i, 8);
        std::memcpy(&k, mask_.data() + i, 8);
        w &= k;
        std::memcpy(s.b.data() + i, &w, 8);
      }
    }
    if constexpr (HasSymmetry<M>)
      if (block_ >= 0) canonicalize(s);
  }

  // Partial-order reduction of one state's successors (succ: .actor, .step,
  // .next, .hash; next already keyed). stored(successor): whether the store
  // holds it. Removes the successors outside the chosen ample set. Returns
  // kAmple, kFull (steps of several actors, all kept) or kUntried.
  enum Outcome : std::uint8_t { kUntried, kAmple, kFull };
  template <class Succ, class Stored>
  Outcome reduce(const State& s, std::vector<Succ>& succ, Stored&& stored) {
    if constexpr (HasActorFuture<M> && HasInfluence<M>) {
      if (!por_ || gave_up_ || succ.size() < 2) return kUntried;
      // The actors with enabled steps, fewest steps first (then by id).
      actors_.clear();
      for (const Succ& x : succ) {
        auto it = std::find_if(actors_.begin(), actors_.end(), [&](const auto& a) { return a.first == x.actor; });
        if (it == actors_.end()) actors_.push_back({x.actor, 1});
        else ++it->second;
      }
      if (actors_.size() < 2) return kUntried;
      std::stable_sort(actors_.begin(), actors_.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
      const int na = m_.actors();
      future_.resize(std::size_t(na));
      for (int q = 0; q < na; ++q) {
        future_[std::size_t(q)] = m_.actor_future(s, q);
        future_[std::size_t(q)].reads &= kept_;
        future_[std::size_t(q)].writes &= kept_;
      }
      bool ample = false;
      for (const auto& [p, count] : actors_) {
        if (ample_ok(s, succ, p, stored)) {
          std::erase_if(succ, [&](const Succ& x) { return x.actor != p; });
          ample = true;
          break;
        }
      }
      if (by_level_) return ample ? kAmple : kFull;
      ++(ample ? stats_.ample : stats_.full);
      // Where almost no state has an ample set (every step touches what the
      // others read), trying costs time and saves nothing: expand fully
      // from here on, which is always sound, and deterministic.
      if (stats_.ample + stats_.full == kTrial && stats_.ample * 50 < kTrial) gave_up_ = true;
      return ample ? kAmple : kFull;
    }
    return kUntried;
  }

  // The level-synchronous search gives each worker a copy that counts
  // nothing; the master counts the outcomes of the states the search
  // expanded, in order, and decides the give-up between levels: the same
  // decision whatever the number of threads.
  void decide_by_level() { by_level_ = true; }
  void count(Outcome o) {
    if (o != kUntried) ++(o == kAmple ? stats_.ample : stats_.full);
  }
  // Outcomes counted elsewhere (the ranks of a distributed search).
  void count(std::uint64_t ample, std::uint64_t full) {
    stats_.ample += ample;
    stats_.full += full;
  }
  // After a level: give up once the first kTrial tries (or more) found
  // fewer than 1 in 50 ample sets; the workers follow the master.
  void end_level() {
    const std::uint64_t tried = stats_.ample + stats_.full;
    if (!trial_decided_ && tried >= kTrial) {
      trial_decided_ = true;
      if (stats_.ample * 50 < tried) gave_up_ = true;
    }
  }
  void follow(const Reduction& master) { gave_up_ = master.gave_up_; }

  ReductionStats stats() const {
    ReductionStats st = stats_;
    st.gave_up = gave_up_;
    st.summary = notes_.empty() ? "none" : fmt::format("{}", fmt::join(notes_, "; "));
    return st;
  }

 private:
  // Slicing, and the visible and kept footprint elements.
  void init_influence(const ReduceOptions& opt, const std::vector<int>& props) {
    const Schema& sc = m_.schema();
    const Influence inf = m_.influence();
    // Past kMaxVars elements footprints mark everything: slicing only.
    const bool footprints = sc.size() <= int(Footprint::kMaxVars);
    const std::vector<bool> keep = inf.relevant(props);
    std::vector<std::string> sliced;
    for (std::size_t v = 0; v < keep.size(); ++v)
      if (!keep[v]) sliced.push_back(sc.vars()[v].name);
    if (opt.slice && !sliced.empty()) {
      mask_ = sc.keep_mask(keep);
      mask_.resize((mask_.size() + 7) / 8 * 8, 0);
      notes_.push_back(fmt::format("slicing ({} not stored)", fmt::join(sliced, ", ")));
    }
    if (!footprints) return;
    // Visible: the flat elements of what the selected properties read.
    for (int p : props)
      for (int v : inf.prop_reads.at(std::size_t(p)))
        for (int c = 0; c < sc.copies(v); ++c) visible_.set(std::size_t(sc.index(v, c)));
    have_visible_ = true;
    if (!mask_.empty()) {
      // What a step does to a variable not stored does not matter.
      kept_.reset();
      for (std::size_t v = 0; v < keep.size(); ++v)
        if (keep[v])
          for (int c = 0; c < sc.copies(int(v)); ++c) kept_.set(std::size_t(sc.index(int(v), c)));
    }
    can_por_ = true;
  }

  template <class Succ, class Stored>
  bool ample_ok(const State& s, const std::vector<Succ>& succ, int p, Stored& stored) const {
    for (const Succ& x : succ) {
      if (x.actor != p) continue;
      Footprint f = m_.footprint(s, x.step);
      f.reads &= kept_;
      f.writes &= kept_;
      if (have_visible_ && (f.writes & visible_).any()) return false;
      for (std::size_t q = 0; q < future_.size(); ++q)
        if (int(q) != p && !f.independent_of(future_[q])) return false;
    }
    // The proviso: every ample successor is new.
    for (const Succ& x : succ)
      if (x.actor == p && stored(x)) return false;
    return true;
  }

  // The orbit's canonical member: copies sorted by their stored values;
  // copies with equal values may still differ in what refers to them, so
  // every order of each run of equal copies is tried (up to a bound, past
  // which the sorted order alone is taken: a representative, still sound,
  // just less reduction) and the smallest state kept.
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
    m_.rename(out, perm_);
  }

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

  static constexpr std::size_t kMaxTries = 720;
  static constexpr std::uint64_t kTrial = 50000;  // states tried before giving up on ample sets
  bool gave_up_ = false;
  bool by_level_ = false, trial_decided_ = false;
  const M& m_;
  std::size_t n_ = 0;
  std::vector<std::uint8_t> mask_;  // slicing: bytes kept (8-byte padded); empty: none
  int block_ = -1, copies_ = 0;     // symmetry: the block; -1: none
  Schema::BlockLayout layout_;
  bool por_ = false, have_visible_ = false, can_por_ = false;
  std::bitset<Footprint::kMaxVars> visible_, kept_;
  std::vector<std::string> notes_;
  ReductionStats stats_;
  std::vector<std::pair<int, int>> actors_;
  std::vector<Footprint> future_;
  mutable std::vector<int> order_;
  mutable std::vector<int> perm_;
  mutable std::vector<std::pair<int, int>> runs_;
};

}  // namespace blkmc
