// What every property kind's check is made of (explorer/check_kinds.hpp
// lists them; explorer/checks.hpp runs them on a search). A kind is one
// class template over the model, in a file of its own, holding all that
// blkmc does with a property of that kind:
//   its slots: the selected properties of the kind, with what the search
//     found for each;
//   the search's events it needs (on_new, on_expanded), and, for a search
//     over several ranks, the same as hits each rank reports and the
//     search reduces (hit_new, hit_expanded, settle, best words);
//   its verdicts and traces after the search (results; or, decided on the
//     explored graph, find and mark);
//   reaches(): whether a state ends a counterexample of a slot's quality,
//     for the shortest traces searched again without partial-order reduction;
//   judge(): the verdict of a replayed trace.
// Kind<M, SlotT> below gives every hook its "nothing to do" form, so a kind
// writes only the hooks it uses.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "counterexamples/trace.hpp"
#include "explorer/census.hpp"
#include "explorer/counterexample.hpp"
#include "explorer/limits.hpp"
#include "explorer/long_run_share.hpp"
#include "explorer/progress.hpp"
#include "explorer/state_store.hpp"
#include "model/model.hpp"
#include "props/verdict.hpp"

namespace blkmc {

template <class State>
struct PropOutcome {
  int prop = 0;
  Verdict verdict = Verdict::Holds;
  std::optional<Counterexample<State>> trace;
  // Maximize properties only. bound: K of NAME<=K. value: unbounded, or
  // bounded and not violated: the largest measure over the explored states
  // (the trace, unbounded only, ends in the first state reaching it); bounded
  // and violated: the measure of the trace's last state (the first state
  // found above K). value_exact: the value is the maximum over the whole
  // state space (a complete search and no violation).
  std::optional<int> bound, value;
  bool value_exact = false;
  // A share measure (fair-ratio) where the path-measure layer ran: each of
  // the pair's least long-run share (explorer/long_run_share.hpp), or why
  // there is none (shares_note).
  std::vector<ShareFigure> shares;
  std::string shares_note;
};

template <class State>
struct SearchResult {
  std::vector<PropOutcome<State>> props;
  StopReason stop = StopReason::Complete;
  Stats stats;
  std::optional<Census> census;  // SearchOptions::census
};

// The optional model hooks of maximize and starvation properties.
template <class M>
concept HasMeasure = requires(const M& m, const typename M::State& s) {
  { m.measure(0, s) } -> std::convertible_to<int>;
};
template <class M>
concept HasPending = requires(const M& m, const typename M::State& s) {
  { m.pending(0, s) } -> std::convertible_to<bool>;
};

namespace checks {

// One selected property: where it stands in the selection, and the first
// state that violates it (kNone while none).
struct Slot {
  std::size_t k = 0;  // position in the selection (the result's order)
  int prop = 0;
  std::uint32_t violating = StateStore::kNone;
};

// A distributed search's hit: the smallest (id << 32 | value) of a state
// that violates a slot, reduced over the ranks.
inline constexpr std::uint64_t kNoHit = ~std::uint64_t(0);

// A graph kind's verdict on one slot; violated: the walk of its trace (a
// lasso from the first stuck state, loop its repeating part; or a fair
// cycle from its entry, with the actor of each step).
struct Finding {
  std::size_t k = 0;
  int prop = 0;
  Verdict verdict = Verdict::Incomplete;
  std::vector<std::uint32_t> walk;
  std::size_t loop = 0;
  std::vector<int> actors;
};

// A trace being replayed: the model's states along it (states[0] the
// initial one).
template <class M>
struct Replayed {
  const M& m;
  int prop = 0;
  const std::string& name;      // the property's name
  const Trace& t;
  std::optional<int> bound;     // NAME<=K of a maximize trace
  const std::vector<typename M::State>& states;
};

// A state-local slot's outcome: violated with the path to its first
// violating state, or holding where the search was complete.
template <class State, class PathTo>
void local_outcome(const Slot& sl, bool complete, PathTo&& path_to, PropOutcome<State>& o) {
  o.prop = sl.prop;
  if (sl.violating != StateStore::kNone) {
    o.verdict = Verdict::Violated;
    o.trace = path_to(sl.violating);
  } else {
    o.verdict = complete ? Verdict::Holds : Verdict::Incomplete;
  }
}

template <class M, class SlotT = Slot>
class Kind {
 public:
  using State = typename M::State;
  std::vector<SlotT> slots;

  // Decided on the explored graph (an edge log; find and mark) rather than
  // state by state (results).
  static constexpr bool kOnGraph = false;
  // A local slot's violation is seen when its own state is expanded (a
  // distributed search waits for its parent's level to tell).
  static constexpr bool kHitAtExpansion = false;

  // Throws UsageError where the model lacks a hook the kind needs.
  static void usable(const M&, int) {}
  // Selects property prop, the k-th of the selection (bound: NAME<=K of a
  // measured kind).
  void add(std::size_t k, int prop, std::optional<int> /*bound*/) {
    SlotT& sl = slots.emplace_back();
    sl.k = k;
    sl.prop = prop;
  }

  void on_new(const M&, std::uint32_t, const State&, std::size_t& /*violated*/) {}
  void on_expanded(const M&, std::uint32_t, const State&, std::size_t /*successors*/,
                   std::size_t& /*violated*/) {}

  // A distributed search: hits[j] is slot j's.
  void hit_new(const M&, std::uint32_t, const State&, std::uint64_t*) const {}
  void hit_expanded(const M&, std::uint32_t, const State&, std::size_t, std::uint64_t*) const {}
  void settle(std::size_t j, std::uint64_t hit, std::size_t& violated) {
    Slot& sl = slots[j];
    if (hit == kNoHit || sl.violating != StateStore::kNone) return;
    sl.violating = std::uint32_t(hit >> 32);
    ++violated;
  }
  // Words of a slot's best state so far, the smallest over the ranks wins.
  std::size_t bests() const { return 0; }
  void best_new(const M&, std::uint32_t, const State&, std::uint64_t*) const {}
  void settle_best(const std::uint64_t*) {}

  // A state-local kind's outcomes into r (path_to(id): the trace to a
  // stored state).
  template <class PathTo>
  void results(bool complete, PathTo&& path_to, SearchResult<State>& r) const {
    for (const SlotT& sl : slots) local_outcome(sl, complete, path_to, r.props[sl.k]);
  }

  // Graph kinds: bytes per state a distributed search gathers for find().
  std::size_t marks() const { return 0; }
  void marks_of(const M&, const State&, std::vector<std::uint8_t>&) const {}
  void set_marks(std::uint32_t, const std::uint8_t*) {}
  void resize_marks(std::size_t) {}

  // A graph kind's trace from a finding: what it marks on it (base: where
  // the walk begins on it).
  static void mark(const M&, const Finding&, std::size_t /*base*/, Counterexample<State>&) {}

  // Whether s ends a counterexample with o's quality (o: the found one).
  static bool reaches(const M&, const PropOutcome<State>&, const State&) { return false; }
  // o's trace was replaced by a shorter one: what else it says of its end.
  static void retraced(const M&, PropOutcome<State>&) {}
};

}  // namespace checks
}  // namespace blkmc
