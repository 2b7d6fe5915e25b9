// Partial-order reduction, one layer of the reduced model
// (explorer/reduced_model.hpp): an ample set is the enabled steps of one
// actor when none of them is visible (writes what a selected property
// reads) and each is independent of everything every other actor may still
// do (the model's actor_future(state, actor)); the proviso expands a state
// fully unless every ample successor is new to the store, so every cycle of
// the reduced graph has a fully expanded state and no step is ignored.
//
// It keeps invariants, deadlocks and maxima of measures over visible
// variables, not BFS depths. The proviso asks the search's store, so the
// search hands each state's successors here with a lookup (reduce()).
#pragma once

#include <algorithm>
#include <bitset>
#include <concepts>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/influence.hpp"
#include "model/model.hpp"
#include "model/schema.hpp"

namespace blkmc {

template <class M>
concept HasActorFuture = requires(const M& m, const typename M::State& s) {
  { m.actors() } -> std::convertible_to<int>;
  { m.actor_future(s, 0) } -> std::same_as<Footprint>;
};

template <class M>
class AmpleSets {
 public:
  using State = typename M::State;
  enum Outcome : std::uint8_t { kUntried, kAmple, kFull };

  // Off: reduce() keeps every successor.
  explicit AmpleSets(const M& m) : m_(&m) {}
  // visible: the flat elements the selected properties read; kept: those
  // stored (what a step does to the others does not matter).
  AmpleSets(const M& m, const std::bitset<Footprint::kMaxVars>& visible,
            const std::bitset<Footprint::kMaxVars>& kept)
      : m_(&m), on_(true), visible_(visible), kept_(kept) {}

  bool on() const { return on_; }

  // One state's successors (succ: .actor, .step, .next, .hash; next keyed).
  // stored(successor): whether the store holds it. Removes the successors
  // outside the chosen ample set. Returns kAmple, kFull (steps of several
  // actors, all kept) or kUntried.
  template <class Succ, class Stored>
  Outcome reduce(const State& s, std::vector<Succ>& succ, Stored&& stored) {
    if constexpr (HasActorFuture<M>) {
      if (!on_ || gave_up_ || succ.size() < 2) return kUntried;
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
      const int na = m_->actors();
      future_.resize(std::size_t(na));
      for (int q = 0; q < na; ++q) {
        future_[std::size_t(q)] = m_->actor_future(s, q);
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
      ++(ample ? ample_ : full_);
      // Where almost no state has an ample set (every step touches what the
      // others read), trying costs time and saves nothing: expand fully
      // from here on, which is always sound, and deterministic.
      if (ample_ + full_ == kTrial && ample_ * 50 < kTrial) gave_up_ = true;
      return ample ? kAmple : kFull;
    }
    return kUntried;
  }

  // The level-synchronous searches give each worker a copy that counts
  // nothing; the master counts the outcomes of the states the search
  // expanded, in order, and decides the give-up between levels: the same
  // decision whatever the number of threads.
  void decide_by_level() { by_level_ = true; }
  void count(Outcome o) {
    if (o != kUntried) ++(o == kAmple ? ample_ : full_);
  }
  // Outcomes counted elsewhere (the ranks of a distributed search).
  void count(std::uint64_t ample, std::uint64_t full) {
    ample_ += ample;
    full_ += full;
  }
  // After a level: give up once the first kTrial tries (or more) found
  // fewer than 1 in 50 ample sets; the workers follow the master.
  void end_level() {
    const std::uint64_t tried = ample_ + full_;
    if (!trial_decided_ && tried >= kTrial) {
      trial_decided_ = true;
      if (ample_ * 50 < tried) gave_up_ = true;
    }
  }
  void follow(const AmpleSets& master) { gave_up_ = master.gave_up_; }

  std::uint64_t ample() const { return ample_; }  // states expanded with an ample set
  std::uint64_t full() const { return full_; }    // states with several actors' steps, expanded fully
  bool gave_up() const { return gave_up_; }

 private:
  template <class Succ, class Stored>
  bool ample_ok(const State& s, const std::vector<Succ>& succ, int p, Stored& stored) const {
    for (const Succ& x : succ) {
      if (x.actor != p) continue;
      Footprint f = m_->footprint(s, x.step);
      f.reads &= kept_;
      f.writes &= kept_;
      if ((f.writes & visible_).any()) return false;
      for (std::size_t q = 0; q < future_.size(); ++q)
        if (int(q) != p && !f.independent_of(future_[q])) return false;
    }
    // The proviso: every ample successor is new.
    for (const Succ& x : succ)
      if (x.actor == p && stored(x)) return false;
    return true;
  }

  static constexpr std::uint64_t kTrial = 50000;  // states tried before giving up on ample sets
  const M* m_;
  bool on_ = false;
  std::bitset<Footprint::kMaxVars> visible_, kept_;
  bool gave_up_ = false, by_level_ = false, trial_decided_ = false;
  std::uint64_t ample_ = 0, full_ = 0;
  std::vector<std::pair<int, int>> actors_;
  std::vector<Footprint> future_;
};

}  // namespace blkmc
